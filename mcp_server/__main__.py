"""``python -m mcp_server``: the same as ``mnemo-mcp`` (inside an untrusted checkout, use the console
script: ``-m`` puts the working directory on ``sys.path``)."""

from __future__ import annotations

import sys

from mcp_server.cli import main

sys.exit(main())
