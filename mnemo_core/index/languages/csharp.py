"""C#: ``base`` calls, constructors named after their class, and bare calls of its own methods."""

from __future__ import annotations

from mnemo_core.index.languages.base import Hooks


class CSharpHooks(Hooks):
    """Hooks for C#."""

    bases_by_name = True  # no imports are read
    super_names = frozenset({"base"})
    constructors_named_after_class = True
    implicit_self = True


HOOKS = CSharpHooks()
