"""The error boundary every entry point shares (``mnemo``, ``mnemo-ci``, ``mnemo-precommit``,
``mnemo-lsp``): whatever the body raises becomes one line on stderr and one exit code.

A ``MnemoError`` (bad input, environment or repository) exits 1, Ctrl-C 130, a closed output pipe
141 (as a shell reports SIGPIPE: never 0, so a gate cannot pass because its output was cut), and
anything unexpected 3, with its traceback in a crash log created under a fresh name: in the
repository's state directory when it exists and is writable, else in the temporary directory.
Front ends may map their own error types (``mnemo-ci``'s GitHub failures) to codes of their own.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import sys
import tempfile
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path

from mnemo_core.errors import MnemoError

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2  # argparse's own code for a bad command line
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
CRASH_PREFIX = "mnemo-crash-"
_STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG})
_STORAGE_HINT = "Free some space, or make mnemo's state directory writable"


def guarded(
    prog: str,
    body: Callable[[], int],
    repo: str | Path | None = None,
    errors: Mapping[type[Exception], int] | None = None,
) -> int:
    """Run ``body`` and map what it raises to an exit code and one line on stderr. ``repo`` is
    where a crash log may go; ``errors`` maps a front end's own error types to exit codes."""
    try:
        return body()
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        with contextlib.suppress(OSError, ValueError):  # no second error when Python flushes at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        code, line = failure(prog, exc, repo, errors)
        print(line, file=sys.stderr)
        return code


def failure(
    prog: str,
    exc: Exception,
    repo: str | Path | None = None,
    errors: Mapping[type[Exception], int] | None = None,
) -> tuple[int, str]:
    """The exit code and the one line a failure is reported with: its message for an expected
    error, else the path of a new crash log holding the traceback (for front ends that do not exit,
    such as the MCP server, which answers each failure with this line)."""
    code = _mapped(exc, errors or {})
    if code is not None:
        return code, f"{prog}: error: {exc}"
    storage = storage_failure(exc)
    if storage is not None:
        return EXIT_ERROR, f"{prog}: error: {storage}"
    log = write_crash_log("".join(traceback.format_exception(exc)), repo)
    return EXIT_INTERNAL, f"{prog}: internal error; details written to {log}. Please report it."


def _mapped(exc: Exception, errors: Mapping[type[Exception], int]) -> int | None:
    for kind, code in errors.items():
        if isinstance(exc, kind):
            return code
    return EXIT_ERROR if isinstance(exc, MnemoError) else None


def storage_failure(exc: BaseException) -> str | None:
    """What to tell when mnemo's state could not be written (a full disk, a read-only or quota-bound
    file system); None for any other failure."""
    if isinstance(exc, OSError) and exc.errno in _STORAGE_ERRNOS:
        where = f" {exc.filename}" if exc.filename else ""
        return f"cannot write{where}: {exc.strerror}. {_STORAGE_HINT}"
    from mnemo_core.index.recovery import is_read_only  # only a failure needs it: start-up stays light

    return f"cannot write the index ({exc}). {_STORAGE_HINT}" if is_read_only(exc) else None


def write_crash_log(text: str, repo: str | Path | None = None) -> str:
    """Write ``text`` to a new file that nobody else could have prepared; returns its path."""
    for directory in (_index_dir(repo), tempfile.gettempdir()):
        if directory is None:
            continue
        try:
            fd, path = tempfile.mkstemp(prefix=CRASH_PREFIX, suffix=".log", dir=directory)
        except OSError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        return path
    logging.getLogger(__name__).error("%s", text)  # nowhere to write: the log is the last resort
    return "(no writable directory; printed above)"


def _index_dir(repo: str | Path | None) -> str | None:
    """mnemo's state directory for the repository, if it exists already (see ``statedir``)."""
    from mnemo_core.statedir import state_dir  # only a crash needs it: start-up stays light

    if repo is None:
        return None
    try:
        directory = state_dir(Path(repo).resolve(), create=False)
        return str(directory) if stat.S_ISDIR(os.lstat(directory).st_mode) else None
    except (OSError, MnemoError):
        return None
