"""Past commits: what each said and which files it touched, and on demand which functions it changed.

``commit_log`` is one cheap ``git log --name-only`` pass over the newest non-merge commits reachable
from a revision (merges skipped: their changes belong to the commits they merge): the index keeps
it, for the history channel of task context and for file recency. ``changed_functions`` asks
``git show -U0`` about a few commits at a time (the ones a task turned up) and reads the hunk
headers, where git names the function around each hunk (``@@ -12 +12 @@ def f(x):``) when the path
has a diff driver with a function-name pattern; its built-in drivers are switched on by an
attributes file of our own (``DRIVERS``), which runs nothing. Definitions a commit adds or removes
(``+    def g(``) count as changed too. A target is ``(path, short name)``: history knows names,
not the line ranges of old trees, and the caller maps names to today's symbols.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mnemo_core.fsread import MAX_SOURCE_BYTES
from mnemo_core.vcs.git import decode_path, run_git

# Built-in git diff drivers with a function-name pattern, by file extension.
DRIVERS = {
    "py": "python",
    "pyi": "python",
    "go": "golang",
    "rs": "rust",
    "java": "java",
    "kt": "kotlin",
    "c": "cpp",
    "h": "cpp",
    "cc": "cpp",
    "cpp": "cpp",
    "hpp": "cpp",
    "cs": "csharp",
    "php": "php",
    "rb": "ruby",
}
MAX_MESSAGE_CHARS = 2000  # a squash merge's list of every intermediate commit says no more past this
MAX_FILES = 30  # a commit touching more files than this is a sweep (formatting, renames): no evidence
_RECORD = b"\x1e"
_FIELD = b"\x1f"
_LOG_FORMAT = "%x1e%H%x1f%at%x1f%aN%x1f%B%x1f"
_SHOW_FORMAT = "%x1e%H%x1f"
_HUNK = re.compile(rb"^@@ -\d+(,\d+)? [^@]* @@ ?(.*)$")
_CHANGED_DEF = re.compile(
    rb"^[-+]\s*(?:export\s+|pub\s+|async\s+|static\s+)*(?:def|class|function|func|fn)\s"
)
_DEF_NAME = re.compile(
    r"\b(?:def|class|function|func|fn|interface|struct|trait|enum|module)\s+(?:\([^)]*\)\s*)?\*?\s*([A-Za-z_$][\w$]*)"
)
_CALL_NAME = re.compile(r"([A-Za-z_$][\w$]*)\s*\(")
_TRAILER = re.compile(r"^[\w-]+-by:|^(Change-Id|Cc):", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LoggedCommit:
    """One commit: when, by whom, what it said, and the files it touched."""

    sha: str
    time: int
    author: str
    message: str
    paths: tuple[str, ...]

    @property
    def subject(self) -> str:
        """The first line of the message."""
        return self.message.split("\n", 1)[0]


def commit_log(root: Path, revisions: str, max_commits: int, extensions: Sequence[str]) -> list[LoggedCommit]:
    """The newest ``max_commits`` non-merge commits of ``revisions`` (``HEAD`` or ``old..HEAD``) that
    touch files with one of ``extensions``, newest first; sweeps of many files are left out."""
    return read_log(root, revisions, max_commits, extensions)[0]


def read_log(
    root: Path, revisions: str, max_commits: int, extensions: Sequence[str]
) -> tuple[list[LoggedCommit], list[str]]:
    """``commit_log``, and the shas it walked and left out (sweeps)."""
    out = run_git(root, "log", *_LOG_ARGS, f"--max-count={max_commits}", revisions, "--", *_specs(extensions))
    return _logged(out)


def read_window(
    root: Path, revision: str, max_commits: int, beyond: int, extensions: Sequence[str]
) -> tuple[list[LoggedCommit], list[str], list[str]]:
    """``read_log`` of ``revision``, and the shas of its walk in order (sweeps included), with at
    most ``beyond`` more that the same walk gives next: one pass of git."""
    out = run_git(
        root, "log", *_LOG_ARGS, f"--max-count={max_commits + beyond}", revision, "--", *_specs(extensions)
    )
    records = out.split(_RECORD)[1:]
    commits, left_out = _logged(b"".join(_RECORD + record for record in records[:max_commits]))
    return commits, left_out, [record.split(_FIELD, 1)[0].decode() for record in records]


def chain_down(root: Path, ancestor: str, commit: str) -> list[str] | None:
    """The commits of ``ancestor..commit`` when each has one parent (``ancestor`` an ancestor of
    ``commit``: a chain from ``commit`` down to it, so a walk from ``commit`` reaches ``ancestor``
    with nothing else left to walk), else None."""
    lines = run_git(root, "rev-list", "--parents", f"{ancestor}..{commit}").decode("ascii").splitlines()
    if any(line.count(" ") != 1 for line in lines):
        return None
    return [line.split(" ", 1)[0] for line in lines]


def window_shas(root: Path, revision: str, max_commits: int, extensions: Sequence[str]) -> list[str]:
    """The shas ``commit_log`` of ``revision`` walks (sweeps included), newest first: the same walk
    without the file lists and messages, about half its cost."""
    out = run_git(
        root,
        "log",
        "--no-merges",
        "--format=%H",
        f"--max-count={max_commits}",
        revision,
        "--",
        *_specs(extensions),
    )
    return out.decode("ascii").split()


def logged_commits(
    root: Path, shas: Sequence[str], extensions: Sequence[str]
) -> tuple[list[LoggedCommit], list[str]]:
    """``read_log``'s records of the given commits alone (in the order given)."""
    if not shas:
        return [], []
    stdin = "".join(f"{sha}\n" for sha in shas).encode("ascii")
    out = run_git(
        root, "log", "--stdin", "--no-walk=unsorted", *_LOG_ARGS, "--", *_specs(extensions), input_bytes=stdin
    )
    return _logged(out)


_LOG_ARGS = (
    "-z",
    "--name-only",
    "--no-merges",
    "--no-renames",
    "--no-show-signature",
    "--no-relative",
    f"--format={_LOG_FORMAT}",
)


def _specs(extensions: Sequence[str]) -> list[str]:
    return [f"*{ext}" for ext in extensions]


def _logged(out: bytes) -> tuple[list[LoggedCommit], list[str]]:
    commits, left_out = [], []
    for record in out.split(_RECORD)[1:]:
        sha, when, author, message, names = record.split(_FIELD, 4)
        paths = tuple(decode_path(p) for p in names.lstrip(b"\n\0").split(b"\0") if p)
        if 0 < len(paths) <= MAX_FILES:
            commits.append(
                LoggedCommit(sha.decode(), int(when), _text(author), clean_message(_text(message)), paths)
            )
        else:
            left_out.append(sha.decode())
    return commits, left_out


def attributes_text() -> str:
    """The attributes file that turns on git's function-name patterns."""
    return "".join(f"*.{ext} diff={driver}\n" for ext, driver in DRIVERS.items())


def changed_functions(
    root: Path, shas: Sequence[str], attributes: Path, extensions: Sequence[str]
) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per commit, the (path, function name) pairs its hunks fall in or define."""
    if not shas:
        return {}
    out = run_git(
        root,
        "-c",
        f"core.attributesFile={attributes}",
        "-c",  # a larger file's patch is "Binary files differ", not its text
        f"core.bigFileThreshold={MAX_SOURCE_BYTES}",
        "show",
        "-U0",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-renames",
        "--no-show-signature",
        "--no-relative",
        f"--format={_SHOW_FORMAT}",
        *shas,
        "--",
        *(f"*{ext}" for ext in extensions),
    )
    found = {}
    for record in out.split(_RECORD)[1:]:
        sha, diff = record.split(_FIELD, 1)
        found[sha.decode()] = _targets(diff)
    return found


def _targets(diff: bytes) -> tuple[tuple[str, str], ...]:
    """The (path, name) pairs of one commit's ``-U0`` diff. A hunk counts for the function its
    header names, except a pure insertion that defines something: the header then names the
    definition it was appended after, not one it changed."""
    targets: dict[tuple[str, str], None] = {}
    path, pending, inserting = "", "", False
    for line in diff.split(b"\n"):
        if line.startswith((b"@@", b"diff ")):
            if pending:
                targets[(path, pending)] = None
            pending = ""
        if line.startswith(b"diff "):
            path = ""
        elif line.startswith(b"+++ b/") or (line.startswith(b"--- a/") and not path):
            path = decode_path(line[6:])
        elif not path or line.startswith((b"+++ ", b"--- ")):
            continue
        elif header := _HUNK.match(line):
            pending, inserting = function_name(_text(header.group(2))), header.group(1) == b",0"
        elif _CHANGED_DEF.match(line) and (name := function_name(_text(line[1:]))):
            targets[(path, name)] = None
            pending = "" if inserting else pending
    if pending:
        targets[(path, pending)] = None
    return tuple(targets)


def function_name(header: str) -> str:
    """The name a definition line defines: after ``def``/``func``/... or, for languages without such
    a keyword (Java, C), before the first parenthesis."""
    match = _DEF_NAME.search(header) or _CALL_NAME.search(header)
    return match.group(1) if match else ""


def clean_message(message: str) -> str:
    """A commit message without trailers, bounded in length."""
    lines = [line for line in message.splitlines() if not _TRAILER.match(line.strip())]
    return "\n".join(lines).strip()[:MAX_MESSAGE_CHARS]


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")
