"""The one error type users see: each message says what failed and what to try next."""

from __future__ import annotations


class MnemoError(Exception):
    """A failure caused by the user's input or environment, reported as one clear line."""
