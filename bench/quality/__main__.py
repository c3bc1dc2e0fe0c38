"""``python -m bench.quality``: see :mod:`bench.quality.run`."""

from __future__ import annotations

from bench.quality.run import main

raise SystemExit(main())
