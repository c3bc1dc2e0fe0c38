"""Past commits and the functions each one changed, for the history channel of task context.

One ``git log -p -U0`` pass over the newest commits reachable from a revision (merges skipped:
their changes belong to the commits they merge) gives each commit's message and, per file, its
hunk headers. git names the function around each hunk in its header (``@@ -12 +12 @@ def f(x):``)
when the path has a diff driver with a function-name pattern; its built-in drivers are switched on
by an attributes file of our own (``DRIVERS``), which never runs anything. Definitions a commit
adds (``+    def g(``) count as changed too. A target is ``(path, short name)``: history knows
names, not the line ranges of old trees, and the caller maps names to today's symbols.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mnemo_core.vcs.git import decode_path, run_git

# Built-in git diff drivers with a function-name pattern, by file extension.
DRIVERS = {
    "py": "python", "pyi": "python", "go": "golang", "rs": "rust", "java": "java", "kt": "kotlin",
    "c": "cpp", "h": "cpp", "cc": "cpp", "cpp": "cpp", "hpp": "cpp", "cs": "csharp", "php": "php", "rb": "ruby",
}
MAX_MESSAGE_CHARS = 2000  # a squash merge's list of every intermediate commit says no more past this
MAX_TARGETS = 40  # a commit touching more functions than this is a sweep (formatting, renames)
_RECORD = b"\x1e"
_FIELD = b"\x1f"
_FORMAT = "%x1e%H%x1f%at%x1f%B%x1f"
_HUNK = re.compile(rb"^@@ [^@]* @@ ?(.*)$")
_ADDED_DEF = re.compile(rb"^\+\s*(?:export\s+|pub\s+|async\s+|static\s+)*(?:def|class|function|func|fn)\s")
_DEF_NAME = re.compile(
    r"\b(?:def|class|function|func|fn|interface|struct|trait|enum|module)\s+(?:\([^)]*\)\s*)?\*?\s*([A-Za-z_$][\w$]*)"
)
_CALL_NAME = re.compile(r"([A-Za-z_$][\w$]*)\s*\(")
_TRAILER = re.compile(r"^[\w-]+-by:|^(Change-Id|Cc):", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class PastChange:
    """One commit: when, what it said, and the (path, function name) pairs it changed."""

    sha: str
    time: int
    message: str
    targets: tuple[tuple[str, str], ...]


def attributes_text() -> str:
    """The attributes file that turns on git's function-name patterns."""
    return "".join(f"*.{ext} diff={driver}\n" for ext, driver in DRIVERS.items())


def past_changes(root: Path, revisions: str, attributes: Path, max_commits: int,
                 extensions: Sequence[str]) -> list[PastChange]:
    """The newest ``max_commits`` non-merge commits of ``revisions`` (``HEAD`` or ``old..HEAD``) that
    touch files with one of ``extensions``, newest first, with the functions each changed."""
    out = run_git(root, "-c", f"core.attributesFile={attributes}", "log", "-p", "-U0", "--no-merges",
                  "--no-renames", "--no-ext-diff", "--no-textconv", "--no-show-signature", "--no-relative",
                  f"--max-count={max_commits}", f"--format={_FORMAT}", revisions, "--",
                  *(f"*{ext}" for ext in extensions))
    return [change for record in out.split(_RECORD)[1:] if (change := _parse(record)) is not None]


def _parse(record: bytes) -> PastChange | None:
    sha, when, message, diff = record.split(_FIELD, 3)
    targets: dict[tuple[str, str], None] = {}
    path = ""
    for line in diff.split(b"\n"):
        if line.startswith(b"+++ "):
            path = decode_path(line[6:]) if line.startswith(b"+++ b/") else ""
        elif not path:
            continue
        elif line.startswith(b"@@"):
            match = _HUNK.match(line)
            name = function_name(match.group(1).decode("utf-8", "replace")) if match else ""
            if name:
                targets[(path, name)] = None
        elif _ADDED_DEF.match(line):
            name = function_name(line[1:].decode("utf-8", "replace"))
            if name:
                targets[(path, name)] = None
    if not targets or len(targets) > MAX_TARGETS:
        return None
    text = clean_message(message.decode("utf-8", "replace"))
    return PastChange(sha.decode(), int(when), text, tuple(targets))


def function_name(header: str) -> str:
    """The name a definition line defines: after ``def``/``func``/... or, for languages without such
    a keyword (Java, C), before the first parenthesis."""
    match = _DEF_NAME.search(header) or _CALL_NAME.search(header)
    return match.group(1) if match else ""


def clean_message(message: str) -> str:
    """A commit message without trailers, bounded in length."""
    lines = [line for line in message.splitlines() if not _TRAILER.match(line.strip())]
    return "\n".join(lines).strip()[:MAX_MESSAGE_CHARS]
