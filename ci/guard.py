"""The gates' exit codes on top of the shared boundary (``mnemo_core.boundary``).

0 the change passes the policy; 5 it fails the policy; 4 the GitHub API refused or failed; the
rest as for every mnemo entry point (1 error, 2 usage, 3 internal error, 130, 141).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path

from ci.github import GitHubError
from mnemo_core.boundary import EXIT_OK
from mnemo_core.boundary import guarded as boundary

EXIT_PASSED = EXIT_OK
EXIT_GITHUB = 4
EXIT_POLICY = 5  # apart from 1 (an error), so a script can tell a blocked change from a failed run


def guarded(prog: str, body: Callable[[], int], repo: str | Path | None = None) -> int:
    """Run a gate's ``body`` inside the shared boundary, with GitHub failures as ``EXIT_GITHUB``."""
    logging.basicConfig(level=logging.WARNING, format=f"{prog}: %(message)s", stream=sys.stderr, force=True)
    return boundary(prog, body, repo, {GitHubError: EXIT_GITHUB})
