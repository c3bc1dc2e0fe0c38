"""C++: ``a::b`` receivers, constructors named after their class, and methods defined in a
``.cpp`` file attaching to the class declared in the header beside it."""

from __future__ import annotations

from mnemo_core.index.languages.base import Hooks


class CppHooks(Hooks):
    """Hooks for C++."""

    overloads = True  # a method may have several definitions
    bases_by_name = True  # no imports are read
    path_separator = "::"
    constructors_named_after_class = True
    implicit_self = True

    def member_scope(self, path: str) -> str:
        return self.package_of(path)


HOOKS = CppHooks()
