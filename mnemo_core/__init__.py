"""mnemo: which code matters for a task or a change, ranked, within a token budget, with reasons."""

from __future__ import annotations

from mnemo_core.safepath import drop_working_directory

drop_working_directory()  # before anything else is imported: see safepath

from mnemo_core.errors import MnemoError  # noqa: E402

__all__ = ["MnemoError"]
__version__ = "0.1.0"
