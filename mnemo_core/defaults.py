"""The defaults the command line states in its help: a leaf module, so that building the parser
(``mnemo --version``, ``mnemo --help``) imports no engine code."""

from __future__ import annotations

DEFAULT_BUDGET = 8000
DEFAULT_DEPTH = 3  # callers of callers of callers: beyond that, impact is speculation
DEFAULT_FILES_DEPTH = 2
DEFAULT_HISTORY = 50  # commits ``mnemo history`` lists unless told otherwise
BLAST_DEPTH = 3  # a hover's and a lens's blast radius: callers up to three hops away
