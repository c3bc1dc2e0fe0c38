"""Running git: one place that builds the command line, the environment and the error messages.

Every call uses ``-z`` or porcelain output where git offers it, disables external diff drivers and
colour, and strips inherited ``GIT_*`` variables (a pre-commit hook runs with ``GIT_INDEX_FILE``
and friends set, which would make git read the wrong repository) except a ``GIT_INDEX_FILE`` that
names an index of the very repository asked: ``git commit -a`` and ``git commit PATHS`` stage into
a temporary index and run the hooks against it. Optional locks are off: the
engine only reads, so a ``git diff`` of ours must never hold ``index.lock`` while the user commits.
Paths come back as ``str`` decoded with ``surrogateescape``, so a non-UTF-8 name survives the
round trip into a later git argument.
"""

from __future__ import annotations

import os
import subprocess
from functools import lru_cache
from pathlib import Path

from mnemo_core.errors import MnemoError

_KEEP_GIT_VARS = frozenset(
    {
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_DATE",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_CONFIG_NOSYSTEM",
    }
)
_HERMETIC_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
_NOT_A_REPO = "not a git repository"
_NO_DIRECTORY = "cannot change to"
_DUBIOUS_OWNERSHIP = "detected dubious ownership"
_C_ESCAPES = {
    ord("a"): 7,
    ord("b"): 8,
    ord("t"): 9,
    ord("n"): 10,
    ord("v"): 11,
    ord("f"): 12,
    ord("r"): 13,
    ord('"'): ord('"'),
    ord("\\"): ord("\\"),
}


class GitError(MnemoError):
    """git failed; the message carries git's own first line, ``stderr`` all of it."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


class NotARepositoryError(GitError):
    """The directory is not inside a git work tree (or does not exist)."""


def git_env(root: Path | None = None) -> dict[str, str]:
    """The environment for git: inherited minus repository-selecting ``GIT_*`` variables, keeping
    a hook's ``GIT_INDEX_FILE`` when it belongs to ``root``'s repository (see the module docstring)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEEP_GIT_VARS}
    index = _own_index(root) if root is not None else None
    if index is not None:
        env["GIT_INDEX_FILE"] = index
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["LC_ALL"] = "C"
    return env


def _own_index(root: Path) -> str | None:
    """The inherited ``GIT_INDEX_FILE`` as an absolute path when it lies in ``root``'s git directory."""
    value = os.environ.get("GIT_INDEX_FILE")
    if not value:
        return None
    index = Path(value) if os.path.isabs(value) else Path.cwd() / value
    git_dir = _git_dir(root)
    return str(index) if git_dir is not None and index.resolve().parent == git_dir else None


@lru_cache(maxsize=64)
def _git_dir(root: Path) -> Path | None:
    """The git directory of the repository containing ``root`` (asked with a clean environment)."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--absolute-git-dir"],
            capture_output=True,
            env=git_env(),
            check=False,
        )
    except FileNotFoundError:
        return None
    text = decode_path(proc.stdout.strip())
    return Path(text).resolve() if proc.returncode == 0 and text else None


def run_git(
    root: Path,
    *args: str,
    check: bool = True,
    input_bytes: bytes | None = None,
    hermetic: bool = False,
    alternate: Path | None = None,
) -> bytes:
    """Run ``git -C root args...`` and return its stdout.

    With ``check=False`` a non-zero exit is an answer (a ref that does not exist), not an error,
    except when there is no repository to ask: that still raises ``NotARepositoryError``.
    ``hermetic`` leaves the user's and the system's git configuration out, so only the
    repository's own applies: no filter, hook or helper configured elsewhere runs. ``alternate``:
    an object directory git also reads (mnemo's commit-graph, ``vcs.commitgraph``).
    """
    cmd = ["git", "-C", str(root), "-c", "core.quotepath=off", "-c", "color.ui=never", *args]
    env = git_env(root) | (_HERMETIC_ENV if hermetic else {})
    if alternate is not None:
        env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(alternate)
    try:
        proc = subprocess.run(cmd, capture_output=True, env=env, input=input_bytes, check=False)
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH. Install git and try again.") from exc
    if proc.returncode != 0:
        stderr = proc.stderr.decode("utf-8", "replace")
        unusable = _unusable_repository(root, stderr)
        if unusable is not None:
            raise unusable
        if check:
            first = stderr.strip().splitlines()[:1] or [f"exit code {proc.returncode}"]
            raise GitError(f"git {args[0]} failed: {first[0]}", stderr)
    return proc.stdout


def _unusable_repository(root: Path, stderr: str) -> GitError | None:
    """The error for a ``root`` git cannot work in at all, or None when git failed for another reason."""
    if _NOT_A_REPO in stderr:
        return NotARepositoryError(
            f"{root} is not inside a git repository. Run mnemo in a clone, or `git init` one first.", stderr
        )
    if _NO_DIRECTORY in stderr:
        return NotARepositoryError(f"{root} does not exist or is not a directory.", stderr)
    if _DUBIOUS_OWNERSHIP in stderr:
        return GitError(
            f"git refuses to read {root}: it is owned by another user. If you trust it, run "
            f"`git config --global --add safe.directory {root}`.",
            stderr,
        )
    return None


@lru_cache(maxsize=64)
def repo_toplevel(root: Path) -> Path | None:
    """The top of the git work tree containing ``root``, or None when it is not in one (a directory
    with a ``.git`` of its own is its own top: no git process needed)."""
    try:
        if _plain_git_dir(root) is not None:
            return root
    except (OSError, UnicodeDecodeError):
        pass
    try:
        out = run_git(root, "rev-parse", "--show-toplevel", check=False)
    except GitError:
        return None
    text = out.decode("utf-8", "replace").strip()
    return Path(text) if text else None


def require_toplevel(root: Path) -> Path:
    """The top of the git work tree containing ``root``; NotARepositoryError when there is none."""
    out = run_git(root, "rev-parse", "--show-toplevel")
    return Path(decode_path(out.rstrip(b"\n")))


class Sha(str):
    """A full commit id git has already resolved. Handing one down instead of the name it came from
    saves every later step its own ``rev-parse``: ``refs.resolve_ref`` returns a ``Sha`` as it is."""

    __slots__ = ()


def head_commit(root: Path) -> Sha | None:
    """The sha of HEAD, or None (not a repository, or no commits yet). Read from the repository's
    files when they say it plainly (a work tree's top level with a loose or packed branch ref, or a
    detached HEAD): a git process costs milliseconds; anything less plain (a subdirectory, a
    symbolic ref elsewhere, the reftable format) asks git."""
    sha = _head_from_files(root) or _head_from_git(root)
    return Sha(sha) if sha else None


_SHA_HEX = frozenset("0123456789abcdef")


def _plain_git_dir(root: Path) -> Path | None:
    """The git directory of a work tree's top level (``.git``, or where a linked work tree's
    ``.git`` file points), or None when ``root`` has none of its own."""
    git_dir = root / ".git"
    if git_dir.is_file():
        text = git_dir.read_text(encoding="utf-8").strip()
        return (root / text[len("gitdir: ") :]).resolve() if text.startswith("gitdir: ") else None
    return git_dir if (git_dir / "HEAD").is_file() else None


def git_dirs(root: Path) -> tuple[Path, Path] | None:
    """The git directory of a work tree's top level and its common directory (where the refs live;
    the same one outside linked work trees), or None when ``root`` has no git directory of its own."""
    try:
        git_dir = _plain_git_dir(root)
        if git_dir is None:
            return None
        common_file = git_dir / "commondir"
        if not common_file.is_file():
            return git_dir, git_dir
        return git_dir, (git_dir / common_file.read_text(encoding="utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        return None


def _head_from_files(root: Path) -> str | None:
    try:
        dirs = git_dirs(root)
        if dirs is None:
            return None
        git_dir, common = dirs
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref: "):
            return head if _is_sha(head) else None
        ref = head[len("ref: ") :]
        for directory in dict.fromkeys((git_dir, common)):
            loose = directory / ref
            if loose.is_file():
                sha = loose.read_text(encoding="utf-8").strip()
                return sha if _is_sha(sha) else None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(encoding="utf-8").splitlines():
                if line.endswith(f" {ref}") and _is_sha(line.split(" ", 1)[0]):
                    return line.split(" ", 1)[0]
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and set(text) <= _SHA_HEX


def _head_from_git(root: Path) -> str | None:
    try:
        out = run_git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
    except NotARepositoryError:
        return None
    return out.decode().strip() or None


def is_ancestor(root: Path, ancestor: str, commit: str) -> bool:
    """Whether ``ancestor`` is ``commit`` or one of its ancestors (False when either is unknown)."""
    out = run_git(root, "merge-base", ancestor, commit, check=False)
    return out.strip().decode("ascii", "replace") == ancestor


def is_shallow(root: Path) -> bool:
    """Whether the repository is a shallow clone (its history is cut off)."""
    try:
        git_dir = _plain_git_dir(root)
    except (OSError, UnicodeDecodeError):
        git_dir = None
    if git_dir is not None and not (git_dir / "commondir").exists():
        return (git_dir / "shallow").is_file()
    return run_git(root, "rev-parse", "--is-shallow-repository").strip() == b"true"


def tracked_and_untracked(root: Path) -> list[str]:
    """Files git knows plus untracked files that are not ignored, relative to ``root``."""
    out = run_git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
    return sorted({decode_path(p) for p in out.split(b"\0") if p})


def untracked_files(root: Path) -> list[str]:
    """Untracked files that are not ignored, relative to ``root``."""
    out = run_git(root, "ls-files", "-z", "--others", "--exclude-standard")
    return sorted(decode_path(p) for p in out.split(b"\0") if p)


def decode_path(raw: bytes) -> str:
    """A path from git output as ``str`` (``surrogateescape`` keeps undecodable bytes)."""
    return raw.decode("utf-8", "surrogateescape")


def unquote_path(raw: bytes) -> str:
    """A path as git prints it outside ``-z`` output: C-quoted when it holds ``"``, ``\\`` or controls.

    With ``core.quotepath=off`` non-ASCII bytes are printed as they are, but a name with a tab,
    newline, quote or backslash is still wrapped in double quotes with C escapes (octal included).
    """
    if len(raw) < 2 or not (raw.startswith(b'"') and raw.endswith(b'"')):
        return decode_path(raw)
    body, out, i = raw[1:-1], bytearray(), 0
    while i < len(body):
        byte = body[i]
        if byte != ord("\\") or i + 1 == len(body):
            out.append(byte)
            i += 1
        elif body[i + 1] in _C_ESCAPES:
            out.append(_C_ESCAPES[body[i + 1]])
            i += 2
        else:
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
    return decode_path(bytes(out))
