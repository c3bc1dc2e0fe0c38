"""References -> typed edges, resolved through scopes and imports before names.

A reference is resolved in this order, and the edge records which step found it:

- ``self``: ``self.m()`` / ``this.m()`` / a Go receiver -> the method on the enclosing class or,
  failing that, on its bases (breadth first); ``super().m()`` looks at the bases only. Where a bare
  ``m()`` means ``this.m()`` (Java, C#, C++, Kotlin, Ruby), it is looked up the same way first.
- ``local``: an enclosing function's nested definition, then the file's top level.
- ``import``: a name bound by an import (following re-exports and wildcard imports), or a member
  of an imported module or class (``models.User.create()``).
- ``typed``: ``x.m()`` where ``x`` has a declared or constructed type in scope (``x = Client()``,
  ``x: Client``, a parameter annotation, ``self.x = Client()``, a pytest fixture returning ``Client``,
  ``for x in clients`` over a ``list[Client]``) -> the method on that class or its bases; an
  attribute chain (``pm.hook.ping()``) through the types a class's code gives its attributes
  (``self.hook = HookRelay()``, in any file of its lineage), its properties' declared types, and
  what its ``__getattr__`` declares it returns; calling an attribute that holds an object runs its
  ``__call__``.
- ``package``: a top-level name of another file in the same package (Go, Java).
- ``fixture``: a pytest test parameter -> the fixture function in its module or a ``conftest.py``
  above it, defined there or imported into it.
- ``callback``: a method a class inherits from outside the repository (``client.get()`` on a
  subclass of werkzeug's ``Client``) may call back into the class: it links to the class's methods
  that extend an external method through ``super()`` (``FlaskClient.open``) and to its protected
  hooks (``_wrap_chunks`` of a ``textwrap.TextWrapper``); and such a ``super()``
  call may run the ``__call__`` of objects the instance holds (``application: Flask``).
- ``name``: the last resort, a repository-wide match of the bare name, taken only when the name is
  defined at most ``AMBIGUOUS_LIMIT`` times (and never for built-ins), with lower confidence.

Dynamic dispatch that static code shows is linked too, each with a resolution of its own and a
lower confidence (the link is written in the code; whether it is taken depends on run-time data):

- ``value``: a function handed to code that may call it (``sorted(key=f)``, ``register(f)``,
  ``callbacks.append(self.on_close)``): ``references`` from the passing function; so is a class,
  or an object built where it is handed over (``md.register(Processor(md))``): the code it goes to
  may build it and call its methods (``change.impact`` reaches the methods that override a base's).
- ``registry``: a function stored in a registry (``FILTERS = {"upper": do_upper}``, ``R[k] = f``):
  ``references`` from the registry; a registry read (``FILTERS[name]``, ``FILTERS.get(name)``):
  from the reader to the registry constant; a registry written (``REGISTRY[name] = func`` in a
  decorator factory): from the registry to the writer; ``self.handlers[k]`` read and written in
  one class: from the reader to the writer.
  A function or class named by its dotted path in a string (``"pkg.plugins.table.table"``,
  ``"pkg.mod:Class"``, for code that imports it by name at run time) is referenced the same way:
  ``registry`` from a module constant that holds the string, ``value`` from anywhere else; not the
  target a test patches (``monkeypatch.setattr("pkg.mod.f", g)``), which is replaced, not run.
- ``decorator``: a decorator defined in the repository to each function it decorates.
- ``subclass``: a base's ``__init_subclass__`` to each subclass and its methods.
- ``dispatch``: ``getattr(self, "visit_" + ...)`` (f-strings, ``%``, a variable the function builds
  so): ``calls`` to every method of the class, its bases and its subclasses whose name starts with
  the literal prefix (with none, a name that is a class's own, ``type(node).__name__`` or
  ``node_class.__name__.upper()``: the methods named like classes, ``Name`` or ``CLASSDEF``); a
  method inherited from outside the repository that dispatches by a prefix
  (``ast.NodeVisitor.visit`` -> ``visit_*``, ``cmd.Cmd.onecmd`` -> ``do_*``); and a module's
  own ``__getattr__`` (PEP 562) for an attribute the module does not define (``click.BaseCommand``,
  ``from click import BaseCommand``, ``module.x`` or ``getattr(module, name)`` on a parametrised
  test's module parameter, ``getattr(module, name)`` with a name built at run time); and a library
  that collects functions by a name prefix (PLY: ``yacc.yacc(module=self)`` -> ``p_*``), from the
  collecting call and from the class's calls on the object it built.

A name bound by an import that leaves the repository (``from requests import get``) is never linked
by name. Derived edges: ``imports`` from the module to what it
imports, ``overrides`` from a method to the base-class method it redefines, and ``tests`` from a test
case to the non-test code it calls directly.

The package's rooms: ``records`` (confidences and what a lookup found), ``scope`` (a name through
scopes and imports), ``fixtures``, ``types`` (the classes a receiver holds), ``calls`` (one file's
references to targets), ``dynamic`` (dispatch that static code shows), ``derived`` (imports,
overrides and tests edges) and ``resolver`` (the coordinator the indexer runs).
"""

from __future__ import annotations

from mnemo_core.index.resolve.records import CONFIDENCE, RefRow
from mnemo_core.index.resolve.resolver import Resolver
from mnemo_core.index.resolve.scope import AMBIGUOUS_LIMIT

__all__ = ["AMBIGUOUS_LIMIT", "CONFIDENCE", "RefRow", "Resolver"]
