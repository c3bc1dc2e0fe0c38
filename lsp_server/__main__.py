"""``python -m lsp_server``: the same as ``mnemo-lsp``."""

from __future__ import annotations

import sys

from lsp_server.cli import main

sys.exit(main())
