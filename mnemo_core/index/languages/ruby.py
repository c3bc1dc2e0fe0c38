"""Ruby: ``self`` receivers (written or implied) and ``initialize`` constructors."""

from __future__ import annotations

from mnemo_core.index.languages.base import Hooks


class RubyHooks(Hooks):
    """Hooks for Ruby."""

    self_names = frozenset({"self"})
    super_names = frozenset({"super"})
    constructor_names = frozenset({"initialize"})
    implicit_self = True


HOOKS = RubyHooks()
