"""C#: ``base`` calls and constructors named after their class."""

from __future__ import annotations

from mnemo_core.index.languages.base import Hooks


class CSharpHooks(Hooks):
    """Hooks for C#."""

    super_names = frozenset({"base"})
    constructors_named_after_class = True


HOOKS = CSharpHooks()
