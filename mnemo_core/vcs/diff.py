"""Diffs: which files changed between two states of a repository, and which of their lines.

One ``git diff -z --raw -p -U0 -M -C`` call yields both parts of the answer. The raw part (NUL
separated, so any path survives) is authoritative for the file list: status, modes, old and new
paths. The zero-context patch that follows gives, per file, its hunks (``@@ -a,b +c,d @@``, a
missing count meaning 1; a count of 0 is a pure insertion or deletion *after* that line) and
whether git judged it binary. Patch sections are matched to raw entries by path, read from the
``rename to``/``copy to`` lines or else from the ``diff --git a/P b/P`` header (whose two halves
are equal, so even a path with spaces splits unambiguously). A type change (file to symlink)
comes as two sections under one path, which merge into one record. Every option whose default a
user's config can change (prefixes, relative paths, external drivers, textconv, hunk merging,
submodule format) is pinned on the command line. Untracked files join the working-tree diff as
additions, read from disk, with git's binary test (a NUL in the first 8000 bytes). The parsers
are pure functions over the bytes git prints, so they are tested on captured output.

Nothing larger than the index's limit (``MAX_SOURCE_BYTES``) is read, by mnemo or by git for it:
a first ``git diff --raw`` lists the changed blobs, whose sizes are read (``git cat-file
--batch-check``, ``lstat`` on disk) before any content is; the patch is then asked for all but the
files over the limit (git would load a large added file whole just to call it binary), which are
listed with their size and no hunks; ``files_at`` never returns such a file's bytes.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import NamedTuple

from mnemo_core.fsread import MAX_SOURCE_BYTES, read_inside
from mnemo_core.vcs.git import GitError, decode_path, head_commit, run_git, unquote_path, untracked_files
from mnemo_core.vcs.refs import Snapshot, default_base_name, merge_base, resolve_ref

log = logging.getLogger(__name__)

BINARY_SNIFF_BYTES = 8000  # git's own window for "contains NUL, so binary"
SUBMODULE_MODE = "160000"
SYMLINK_MODE = "120000"
_DIFF_ARGS = (
    "diff",
    "-z",
    "--raw",
    "-p",
    "-U0",
    "--inter-hunk-context=0",
    "-M",
    "-C",
    "--no-abbrev",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    "--no-relative",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--submodule=short",
)
SHOWN_SKIPPED = 5  # files skipped for their size named in the note; the rest are counted
SKIPPED_NOTE = "skipped "  # how the note naming them starts
# the changed files and their blobs, without patches or renames: what to size before reading any
_LIST_ARGS = (
    "diff",
    "-z",
    "--raw",
    "--no-renames",
    "--no-abbrev",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    "--no-relative",
    "--submodule=short",
)
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_OBJECT_TYPES = frozenset({b"blob", b"tree", b"commit", b"tag"})


class ChangeStatus(str, Enum):
    """What happened to a file."""

    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    COPIED = "copied"
    TYPE_CHANGED = "type_changed"  # regular file <-> symlink <-> submodule
    UNMERGED = "unmerged"  # a conflict still in the index


_STATUS_LETTERS = {
    "A": ChangeStatus.ADDED,
    "M": ChangeStatus.MODIFIED,
    "D": ChangeStatus.DELETED,
    "R": ChangeStatus.RENAMED,
    "C": ChangeStatus.COPIED,
    "T": ChangeStatus.TYPE_CHANGED,
    "U": ChangeStatus.UNMERGED,
}


class LineRange(NamedTuple):
    """Lines ``start``..``end`` of one side, 1-based and inclusive (like a symbol's lines)."""

    start: int
    end: int


class Hunk(NamedTuple):
    """One ``@@ -old_start,old_count +new_start,new_count @@`` of a zero-context diff.

    A count of 0 means nothing on that side: the lines of the other side were inserted (or
    deleted) between line ``start`` and line ``start + 1`` of this side.
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int

    @property
    def old_lines(self) -> LineRange | None:
        """The removed or rewritten lines of the old side; None for a pure insertion."""
        return _lines(self.old_start, self.old_count)

    @property
    def new_lines(self) -> LineRange | None:
        """The added or rewritten lines of the new side; None for a pure deletion."""
        return _lines(self.new_start, self.new_count)

    def touches_old(self, start: int, end: int) -> bool:
        """Whether the hunk changes old lines ``start..end``, or inserts strictly inside them."""
        return _touches(self.old_start, self.old_count, start, end)

    def touches_new(self, start: int, end: int) -> bool:
        """Whether the hunk changes new lines ``start..end``, or deletes strictly inside them."""
        return _touches(self.new_start, self.new_count, start, end)


def _lines(first: int, count: int) -> LineRange | None:
    return LineRange(first, first + count - 1) if count else None


def _touches(first: int, count: int, start: int, end: int) -> bool:
    if count == 0:
        return start <= first < end
    return first <= end and start <= first + count - 1


@dataclass(frozen=True, slots=True)
class FileChange:
    """One changed file. ``path`` is its new path (the old one for a deletion); ``old_path`` its path
    on the base side (None when added). Binary files and submodules carry no hunks."""

    path: str
    status: ChangeStatus
    old_path: str | None = None
    old_mode: str = ""
    new_mode: str = ""
    similarity: int | None = None  # percent, for renames and copies
    binary: bool = False
    hunks: tuple[Hunk, ...] = field(default=())
    old_blob: str = ""  # the object ids of both sides ("" for none, or a file on disk)
    new_blob: str = ""
    size: int = 0  # bytes of the larger side, once read (``changed_files`` reads it)

    @property
    def too_large(self) -> bool:
        """Larger than the index reads: its contents are never read (nor its hunks known)."""
        return self.size > MAX_SOURCE_BYTES

    @property
    def submodule(self) -> bool:
        """The entry is a submodule (gitlink) on either side."""
        return SUBMODULE_MODE in (self.old_mode, self.new_mode)

    @property
    def mode_changed(self) -> bool:
        """The file mode changed (e.g. made executable) while the file existed on both sides."""
        return bool(self.old_mode and self.new_mode) and self.old_mode != self.new_mode

    @property
    def old_ranges(self) -> tuple[LineRange, ...]:
        """Old-side line ranges removed or rewritten, one per hunk that has any."""
        return tuple(r for r in (h.old_lines for h in self.hunks) if r is not None)

    @property
    def new_ranges(self) -> tuple[LineRange, ...]:
        """New-side line ranges added or rewritten, one per hunk that has any."""
        return tuple(r for r in (h.new_lines for h in self.hunks) if r is not None)

    def touches_old(self, start: int, end: int) -> bool:
        """Whether any hunk changes the old-side span ``start..end`` (e.g. a base symbol)."""
        return any(h.touches_old(start, end) for h in self.hunks)

    def touches_new(self, start: int, end: int) -> bool:
        """Whether any hunk changes the new-side span ``start..end`` (e.g. a head symbol)."""
        return any(h.touches_new(start, end) for h in self.hunks)


class RawEntry(NamedTuple):
    """One record of ``git diff --raw -z``."""

    status: ChangeStatus
    score: int | None
    old_mode: str
    new_mode: str
    old_path: str
    new_path: str
    old_blob: str = ""
    new_blob: str = ""


class PatchInfo(NamedTuple):
    """What the patch says about one path."""

    binary: bool
    hunks: tuple[Hunk, ...]


def changed_files(
    root: Path, base: str | None, head: str | Snapshot, *, merge_base_of: bool = False
) -> list[FileChange]:
    """Files changed from ``base`` to ``head``, sorted by path.

    ``head`` is a commit-ish, ``Snapshot.STAGED`` (the index) or ``Snapshot.WORKTREE`` (files on
    disk, untracked ones included as additions). ``base`` None means: for a snapshot, HEAD (the
    empty tree before the first commit); for a commit, its first parent (the empty tree for a root
    commit). For a merge commit that is the change the merge brought into the branch it was made
    on. With ``merge_base_of`` the old side is the merge-base of ``base`` (default: the branch's
    default base) and ``head`` (HEAD for a snapshot): the changes a pull request would show.
    """
    old, new = _endpoints(root, base, head, merge_base_of)
    sides = [*(["--cached"] if head is Snapshot.STAGED else []), old, *([new] if new else [])]
    listed = _sized(root, parse_diff(run_git(root, *_LIST_ARGS, *sides)), head is Snapshot.WORKTREE)
    large = [c for c in listed if c.too_large]
    sizes = {c.path: c.size for c in listed}
    left_out = [f":(exclude,literal){c.path}" for c in large]
    changes = [
        replace(c, size=max(sizes.get(c.path, 0), sizes.get(c.old_path or c.path, 0)))
        for c in parse_diff(run_git(root, *_DIFF_ARGS, *sides, *(["--", *left_out] if left_out else [])))
    ]
    changes += large
    if head is Snapshot.WORKTREE:
        changes += [c for c in (_untracked_change(root, p) for p in untracked_files(root)) if c is not None]
    return sorted(changes, key=lambda c: c.path)


def skipped_note(changes: list[FileChange]) -> str | None:
    """The note naming the changed files not read for their size (None when there are none):
    ``skipped gen.py (200.0 MB): files over 1 MB are not read``."""
    large = [c for c in changes if c.too_large]
    if not large:
        return None
    named = ", ".join(f"{c.path} ({c.size / 1e6:.1f} MB)" for c in large[:SHOWN_SKIPPED])
    more = f" and {len(large) - SHOWN_SKIPPED} more" if len(large) > SHOWN_SKIPPED else ""
    return f"{SKIPPED_NOTE}{named}{more}: files over {MAX_SOURCE_BYTES // 1_000_000} MB are not read"


def _sized(root: Path, changes: list[FileChange], on_disk: bool) -> list[FileChange]:
    """The changes with their sizes: of blobs from git, of the new side from disk when ``on_disk``
    and git did not hash it."""
    sizes = blob_sizes(root, [b for c in changes for b in (c.old_blob, c.new_blob) if b])
    sized = []
    for change in changes:
        new = sizes.get(change.new_blob, 0)
        if on_disk and not change.new_blob and change.status is not ChangeStatus.DELETED:
            new = _size_on_disk(root, change.path)
        sized.append(replace(change, size=max(sizes.get(change.old_blob, 0), new)))
    return sized


def _size_on_disk(root: Path, path: str) -> int:
    try:
        return os.lstat(root / path).st_size
    except OSError:
        return 0


def blob_sizes(root: Path, blobs: Iterable[str]) -> dict[str, int]:
    """The size of each blob (by object id), from one ``git cat-file --batch-check``; other objects
    and missing ones are left out."""
    wanted = list(dict.fromkeys(blobs))
    if not wanted:
        return {}
    out = run_git(root, "cat-file", "--batch-check", input_bytes="".join(f"{b}\n" for b in wanted).encode())
    return {blob: size for blob, size in parse_batch_check(out) if blob}


def _endpoints(root: Path, base: str | None, head: str | Snapshot, use_merge_base: bool) -> tuple[str, str]:
    """The old tree-ish and the new commit sha ('' for a snapshot) to hand to ``git diff``."""
    new = "" if isinstance(head, Snapshot) else resolve_ref(root, head)
    if use_merge_base:
        return merge_base(root, base or default_base_name(root), new or "HEAD"), new
    if base is not None:
        return resolve_ref(root, base), new
    if new:
        return _first_parent(root, new), new
    return head_commit(root) or empty_tree(root), new


def _first_parent(root: Path, sha: str) -> str:
    out = run_git(root, "rev-parse", "--verify", "-q", f"{sha}^1", check=False).strip()
    return out.decode() if out else empty_tree(root)


def empty_tree(root: Path) -> str:
    """The id of the empty tree in this repository's hash format."""
    return run_git(root, "hash-object", "-t", "tree", "--stdin", input_bytes=b"").strip().decode()


def parse_diff(data: bytes) -> list[FileChange]:
    """Parse the output of ``git diff -z --raw -p`` (with the pinned options) into records."""
    entries, offset = parse_raw(data)
    patches = parse_patch(data[offset:])
    changes = []
    for entry in entries:
        patch = patches.get(entry.new_path, PatchInfo(False, ()))
        submodule = SUBMODULE_MODE in (entry.old_mode, entry.new_mode)
        changes.append(
            FileChange(
                path=entry.new_path,
                status=entry.status,
                old_path=None if entry.status is ChangeStatus.ADDED else entry.old_path,
                old_mode=_mode(entry.old_mode),
                new_mode=_mode(entry.new_mode),
                similarity=entry.score,
                binary=patch.binary and not submodule,
                hunks=() if submodule else patch.hunks,
                old_blob=entry.old_blob,
                new_blob=entry.new_blob,
            )
        )
    return changes


def _mode(raw: str) -> str:
    """A git file mode, '' for the all-zero mode of a side that does not exist."""
    return "" if raw.strip("0") == "" else raw


def parse_raw(data: bytes) -> tuple[list[RawEntry], int]:
    """The ``--raw -z`` records at the start of ``data``, and the offset where the patch begins."""
    entries: list[RawEntry] = []
    pos = 0
    while data.startswith(b":", pos):
        meta_end = data.index(b"\0", pos)
        old_mode, new_mode, old_sha, new_sha, code = data[pos + 1 : meta_end].decode().split(" ")
        pos = meta_end + 1
        paths = 2 if code[0] in "RC" else 1
        names = []
        for _ in range(paths):
            end = data.index(b"\0", pos)
            names.append(decode_path(data[pos:end]))
            pos = end + 1
        entries.append(
            RawEntry(
                _STATUS_LETTERS.get(code[0], ChangeStatus.MODIFIED),
                int(code[1:]) if code[1:] else None,
                old_mode,
                new_mode,
                names[0],
                names[-1],
                "" if old_sha.strip("0") == "" else old_sha,
                "" if new_sha.strip("0") == "" else new_sha,
            )
        )
    if data.startswith(b"\0", pos):
        pos += 1
    return entries, pos


@dataclass
class _Section:
    """A ``diff --git`` section being read."""

    header: bytes
    new_path: str | None = None
    binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)


def parse_patch(data: bytes) -> dict[str, PatchInfo]:
    """Per new path, binary flag and hunks from a ``-U0`` patch with ``a/`` and ``b/`` prefixes."""
    sections: list[_Section] = []
    for line in data.split(b"\n"):
        if line.startswith(b"diff --git "):
            sections.append(_Section(line[len(b"diff --git ") :]))
        elif not sections or line[:1] in (b"+", b"-", b" ", b"\\"):
            continue
        elif line.startswith(b"@@ "):
            match = _HUNK.match(line)
            if match:
                sections[-1].hunks.append(_hunk(match))
        elif line.startswith((b"rename to ", b"copy to ")):
            sections[-1].new_path = unquote_path(line.split(b" to ", 1)[1])
        elif line.startswith(b"Binary files ") and line.endswith(b" differ"):
            sections[-1].binary = True
    result: dict[str, PatchInfo] = {}
    for section in sections:
        path = section.new_path or _header_path(section.header)
        if path is None:
            log.debug("unparsable diff header: %r", section.header)
            continue
        before = result.get(path, PatchInfo(False, ()))
        result[path] = PatchInfo(before.binary or section.binary, before.hunks + tuple(section.hunks))
    return result


def _hunk(match: re.Match[bytes]) -> Hunk:
    old_start, old_count, new_start, new_count = match.groups()
    return Hunk(
        int(old_start),
        1 if old_count is None else int(old_count),
        int(new_start),
        1 if new_count is None else int(new_count),
    )


def _header_path(header: bytes) -> str | None:
    """The path of a ``a/P b/P`` header (both halves equal, each C-quoted when needed)."""
    half = (len(header) - 1) // 2
    old, new = unquote_path(header[:half]), unquote_path(header[half + 1 :])
    if header[half : half + 1] != b" " or old[2:] != new[2:] or not new.startswith("b/"):
        return None
    return new[2:]


def _untracked_change(root: Path, path: str) -> FileChange | None:
    """An untracked file as an addition of all its lines; None when it vanished or is a directory
    (git lists an untracked nested repository as ``dir/``)."""
    full = root / path
    try:
        st = os.lstat(full)
        git_mode = (
            SYMLINK_MODE if stat.S_ISLNK(st.st_mode) else "100755" if st.st_mode & stat.S_IXUSR else "100644"
        )
        if stat.S_ISREG(st.st_mode) and st.st_size > MAX_SOURCE_BYTES:  # listed, never read
            return FileChange(path, ChangeStatus.ADDED, new_mode=git_mode, size=st.st_size)
        content = _read_worktree(root, path)
    except OSError as exc:
        log.debug("untracked %s unreadable: %s", path, exc)
        return None
    if content is None:
        return None
    binary = b"\0" in content[:BINARY_SNIFF_BYTES]
    lines = content.count(b"\n") + (0 if content.endswith(b"\n") or not content else 1)
    hunks = () if binary or not lines else (Hunk(0, 0, 1, lines),)
    return FileChange(
        path, ChangeStatus.ADDED, new_mode=git_mode, binary=binary, hunks=hunks, size=len(content)
    )


def file_at(root: Path, rev: str | Snapshot, path: str) -> bytes | None:
    """The bytes of ``path`` at a commit, in the index or on disk; None where it is no file."""
    return files_at(root, rev, [path])[path]


def files_at(
    root: Path, rev: str | Snapshot, paths: Iterable[str], limit: int = MAX_SOURCE_BYTES
) -> dict[str, bytes | None]:
    """Several files at one revision; None where there is no file, or one larger than ``limit``
    bytes (never read). Blobs are sized with one ``git cat-file --batch-check``, then those within
    the limit read with one ``--batch``; none asked, no revision resolved (a first commit has no
    old side to read from)."""
    wanted = list(dict.fromkeys(paths))
    if not wanted:
        return {}
    if rev is Snapshot.WORKTREE:
        return {path: _read_worktree(root, path, limit) for path in wanted}
    prefix = ":0:" if isinstance(rev, Snapshot) else f"{resolve_ref(root, rev)}:"  # a Sha: no rev-parse
    batch = [p for p in wanted if "\n" not in p]
    found = parse_batch_check(
        run_git(
            root,
            "cat-file",
            "--batch-check",
            "--buffer",
            input_bytes=b"".join(os.fsencode(prefix + p) + b"\n" for p in batch),
        )
    )
    blobs = {path: blob for path, (blob, size) in zip(batch, found, strict=True) if blob and size <= limit}
    read = _read_blobs(root, list(dict.fromkeys(blobs.values())))
    result: dict[str, bytes | None] = {path: read.get(blob) for path, blob in blobs.items()}
    for path in wanted:
        if path not in result:
            result[path] = _cat_blob(root, prefix + path, limit) if path not in batch else None
    return result


def _read_blobs(root: Path, blobs: list[str]) -> dict[str, bytes | None]:
    if not blobs:
        return {}
    out = run_git(
        root, "cat-file", "--batch", "--buffer", input_bytes="".join(f"{b}\n" for b in blobs).encode()
    )
    return dict(zip(blobs, parse_batch(out), strict=True))


def parse_batch_check(data: bytes) -> list[tuple[str, int]]:
    """(object id, size) per line of ``git cat-file --batch-check`` output, in request order;
    ("", 0) for a missing path or an object that is not a blob."""
    out = []
    for line in data.decode("utf-8", "replace").split("\n")[:-1]:
        parts = line.split(" ")
        blob = len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit()
        out.append((parts[0], int(parts[2])) if blob else ("", 0))
    return out


def _cat_blob(root: Path, spec: str, limit: int) -> bytes | None:
    """One blob by ``rev:path``, for names ``--batch`` cannot carry (a newline in the path)."""
    try:
        size = run_git(root, "cat-file", "-s", spec).strip()
        return run_git(root, "cat-file", "blob", spec) if int(size) <= limit else None
    except (GitError, ValueError):
        return None


def parse_batch(data: bytes) -> list[bytes | None]:
    """Contents from ``git cat-file --batch`` output, in request order; None for a missing path or
    an object that is not a blob (a directory, a submodule)."""
    out: list[bytes | None] = []
    pos = 0
    while pos < len(data):
        end = data.index(b"\n", pos)
        header, pos = data[pos:end], end + 1
        parts = header.rsplit(b" ", 2)
        if len(parts) == 3 and parts[1] in _OBJECT_TYPES and parts[2].isdigit():
            size = int(parts[2])
            out.append(data[pos : pos + size] if parts[1] == b"blob" else None)
            pos += size + 1
        else:
            out.append(None)
    return out


def _read_worktree(root: Path, path: str, limit: int = MAX_SOURCE_BYTES) -> bytes | None:
    """A file on disk as git would store it (a symlink as its target); None when it is no regular
    file inside the repository (see ``mnemo_core.fsread``) or is larger than ``limit``."""
    full = root / path
    try:
        if full.is_symlink():
            return os.fsencode(os.readlink(full))
        return read_inside(root, path, limit).data
    except OSError:
        return None
