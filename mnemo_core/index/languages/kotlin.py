"""Kotlin: a bare call inside a class may be a call of one of its methods."""

from __future__ import annotations

from mnemo_core.index.languages.base import Hooks


class KotlinHooks(Hooks):
    """Hooks for Kotlin."""

    bases_by_name = True  # no imports are read
    implicit_self = True


HOOKS = KotlinHooks()
