"""PHP: ``$this``/``self::``/``static::`` receivers, ``parent::`` calls and ``__construct``."""

from __future__ import annotations

from mnemo_core.index.languages.base import Hooks


class PhpHooks(Hooks):
    """Hooks for PHP."""

    bases_by_name = True  # no imports are read
    self_names = frozenset({"$this", "self", "static"})
    super_names = frozenset({"parent"})
    constructor_names = frozenset({"__construct"})


HOOKS = PhpHooks()
