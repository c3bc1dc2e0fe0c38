"""``python -m ci``: the pull-request comment entrypoint, as ``mnemo-ci``."""

from __future__ import annotations

import sys

from ci.comment import main

sys.exit(main())
