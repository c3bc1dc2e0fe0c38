"""mnemo: which code matters for a task or a change, ranked, within a token budget, with reasons."""

from __future__ import annotations

from mnemo_core.errors import MnemoError

__all__ = ["MnemoError"]
__version__ = "0.1.0"
