"""Exit codes and the top-level handler the entrypoints share: one line on stderr, never a traceback.

0 passed; 1 the change fails the policy; 2 bad usage, environment or input (a missing variable,
an unknown ref, a shallow clone); 3 an unexpected error (traceback written to a log file);
4 the GitHub API refused or failed; 130 interrupted; 141 the reader of the output went away (as
for SIGPIPE: never 0, so a gate cannot pass because its output was cut).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

from ci.github import GitHubError
from mnemo_core.errors import MnemoError

EXIT_PASSED = 0
EXIT_POLICY = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3
EXIT_GITHUB = 4
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


def guarded(prog: str, body: Callable[[], int]) -> int:
    """Run ``body`` and map what it raises to an exit code and one line on stderr."""
    logging.basicConfig(level=logging.WARNING, format=f"{prog}: %(message)s", stream=sys.stderr, force=True)
    try:
        return body()
    except GitHubError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_GITHUB
    except MnemoError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        with contextlib.suppress(OSError, ValueError):  # no second error when Python flushes at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception:
        log = Path(tempfile.gettempdir()) / f"{prog}-crash.log"
        log.write_text(traceback.format_exc(), encoding="utf-8")
        print(f"{prog}: internal error; details written to {log}. Please report it.", file=sys.stderr)
        return EXIT_INTERNAL
