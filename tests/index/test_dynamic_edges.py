"""Edges from dynamic dispatch that static code shows, each with its own resolution; and the
look-alikes that must not link (plain variables as arguments, a literal getattr, name guesses)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import indexed_edges, indexed_symbols, write_files

from mnemo_core.index.indexer import index_repo

DYN = (
    "from .util import helper\n"
    "\n"
    "def do_upper(s):\n"
    "    return s.upper()\n"
    "\n"
    "FILTERS = {'upper': do_upper, 'ext': helper, 'n': 3}\n"
    "HOOKS = [do_upper]\n"
    "REGISTRY = {}\n"
    "\n"
    "def register(name):\n"
    "    def deco(func):\n"
    "        REGISTRY[name] = func\n"
    "        return func\n"
    "    return deco\n"
    "\n"
    "@register('x')\n"
    "def handler():\n"
    "    return 1\n"
    "\n"
    "def lookup(name, value, local):\n"
    "    return FILTERS[name](value), REGISTRY.get(name), sorted(value, key=local), run(helper)\n"
    "\n"
    "class Visitor:\n"
    "    def visit(self, node):\n"
    "        return getattr(self, f'visit_{type(node).__name__}')(node)\n"
    "\n"
    "    def plain(self):\n"
    "        return getattr(self, 'visit_Name')\n"
    "\n"
    "    def visit_Name(self, node):\n"
    "        self.handlers[node] = node\n"
    "        return node\n"
    "\n"
    "    def handle(self, node):\n"
    "        return self.handlers.get(node)(node), self.handlers[node](node)\n"
    "\n"
    "    def peek(self, node):\n"
    "        return self.handlers[node]\n"
    "\n"
    "class Printer(Visitor):\n"
    "    def visit_Call(self, node):\n"
    "        return node\n"
    "\n"
    "class Base:\n"
    "    def __init_subclass__(cls):\n"
    "        cls.kinds.append(cls)\n"
    "\n"
    "class Csv(Base):\n"
    "    def run(self):\n"
    "        return 1\n"
)


def test_dynamic_dispatch_edges(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/util.py": "def helper(x):\n    return x\n",
            "pkg/dyn.py": DYN,
        },
    )
    index_repo(tmp_path)
    references = indexed_edges(tmp_path, "references")
    d = "pkg/dyn.py:"
    assert {
        (f"{d}FILTERS", f"{d}do_upper", "registry"),
        (f"{d}FILTERS", "pkg/util.py:helper", "registry"),
        (f"{d}HOOKS", f"{d}do_upper", "registry"),
        (f"{d}lookup", f"{d}FILTERS", "registry"),  # a reader looks the registry up
        (f"{d}lookup", f"{d}REGISTRY", "registry"),
        (f"{d}REGISTRY", f"{d}register", "registry"),  # written in the decorator factory
        (f"{d}register", f"{d}handler", "decorator"),
        (f"{d}lookup", "pkg/util.py:helper", "value"),
        (f"{d}Visitor.handle", f"{d}Visitor.visit_Name", "registry"),  # self.handlers, read and written
        (f"{d}Base.__init_subclass__", f"{d}Csv", "subclass"),
        (f"{d}Base.__init_subclass__", f"{d}Csv.run", "subclass"),
    } <= references
    calls = indexed_edges(tmp_path, "calls")
    dispatched = {(s, t) for s, t, how in calls if how == "dispatch"}
    assert dispatched == {  # the class, its subclasses, every name with the prefix; not the literal getattr
        (f"{d}Visitor.visit", f"{d}Visitor.visit_Name"),
        (f"{d}Visitor.visit", f"{d}Printer.visit_Call"),
    }
    sources = {s for s, _, _ in references}
    assert f"{d}Visitor.plain" not in sources
    assert f"{d}Visitor.peek" not in sources  # a value read from self.handlers but not called: data
    assert not any(t.endswith(":local") for _, t, _ in references)  # a parameter passed on is not a value
    assert {how for _, _, how in references} == {"registry", "decorator", "value", "subclass"}


def test_a_method_added_to_a_dispatched_family_is_linked_by_an_incremental_update(tmp_path: Path) -> None:
    visitor = (
        "class Visitor:\n"
        "    def visit(self, node):\n"
        '        return getattr(self, "visit_" + type(node).__name__)(node)\n'
    )
    printer = (
        "from .visitor import Visitor\n\n"
        "class Printer(Visitor):\n    def visit_Name(self, node):\n        return 1\n"
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/visitor.py": visitor, "pkg/printer.py": printer})
    index_repo(tmp_path)
    before = {t for s, t, how in indexed_edges(tmp_path, "calls") if how == "dispatch"}
    assert before == {"pkg/printer.py:Printer.visit_Name"}
    write_files(
        tmp_path, {"pkg/printer.py": printer + "\n    def visit_Call(self, node):\n        return 2\n"}
    )
    index_repo(tmp_path)  # only printer.py is re-parsed; visitor.py dispatches by "visit_"
    after = {t for s, t, how in indexed_edges(tmp_path, "calls") if how == "dispatch"}
    assert after == {"pkg/printer.py:Printer.visit_Name", "pkg/printer.py:Printer.visit_Call"}


WALKERS = (
    "import ast\n"
    "import cmd\n"
    "\n"
    'IMPL_PREFIX = "attr_"\n'
    "\n"
    "class Finder(ast.NodeVisitor):\n"
    "    def visit_Name(self, node):\n"
    "        return node\n"
    "\n"
    "    def collect(self, tree):\n"
    "        self.generic_visit(tree)\n"
    "\n"
    "class Shell(cmd.Cmd):\n"
    "    def do_quit(self, line):\n"
    "        return True\n"
    "\n"
    "class Local:\n"
    "    def visit(self, node):\n"
    '        method = "visit_" + node.__class__.__name__\n'
    "        other = node.kind\n"
    "        return getattr(self, method, None), getattr(self, other)\n"
    "\n"
    "    def visit_Call(self, node):\n"
    "        return node\n"
    "\n"
    "    def lookup(self, name):\n"
    "        return getattr(self, IMPL_PREFIX + name)\n"
    "\n"
    "    def attr_size(self):\n"
    "        return 1\n"
    "\n"
    "def find(tree):\n"
    "    finder = Finder()\n"
    "    finder.visit(tree)\n"
    "    finder.something_else(tree)\n"
    "\n"
    "def repl(shell: Shell):\n"
    '    shell.onecmd("quit")\n'
)


def test_dispatch_by_a_built_variable_and_through_an_external_visitor(tmp_path: Path) -> None:
    """``method = "visit_" + ...; getattr(self, method)`` and ``getattr(self, PREFIX + name)`` (a
    module constant) dispatch like the inline form; a class
    inheriting ``visit`` from ``ast.NodeVisitor`` (``onecmd`` from ``cmd.Cmd``) runs its own
    prefixed methods through it, and nothing else it inherits does."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/walk.py": WALKERS})
    index_repo(tmp_path)
    w = "pkg/walk.py:"
    dispatched = {(s, t) for s, t, how in indexed_edges(tmp_path, "calls") if how == "dispatch"}
    assert dispatched == {
        (f"{w}Local.visit", f"{w}Local.visit_Call"),  # not from the unbuilt ``other``
        (f"{w}Local.lookup", f"{w}Local.attr_size"),  # a prefix the module names as a constant
        (f"{w}find", f"{w}Finder.visit_Name"),
        (f"{w}Finder.collect", f"{w}Finder.visit_Name"),  # generic_visit walks the children
        (f"{w}repl", f"{w}Shell.do_quit"),
    }


CHECKER = (
    "class Checker:\n"
    "    def handler(self, node_class):\n"
    "        try:\n"
    "            return self.cache[node_class]\n"
    "        except KeyError:\n"
    "            node_type = node_class.__name__.upper()\n"
    "        return getattr(self, node_type, self.unknown)\n"
    "\n"
    "    def node(self, node):\n"
    "        return getattr(self, type(node).__name__)(node)\n"
    "\n"
    "    def field(self, node):\n"
    "        return getattr(self, node.field)\n"
    "\n"
    "    def unknown(self, node):\n"
    "        return None\n"
    "\n"
    "    def CLASSDEF(self, node):\n"
    "        return 1\n"
    "\n"
    "    def Name(self, node):\n"
    "        return 2\n"
)


def test_dispatch_by_a_class_name_alone_finds_the_methods_named_like_classes(tmp_path: Path) -> None:
    """``getattr(self, node_class.__name__.upper())`` (through a variable) runs the all-caps methods,
    ``getattr(self, type(node).__name__)`` the capitalised ones; a name read from an attribute that is
    not a class's name links nothing."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/checker.py": CHECKER})
    index_repo(tmp_path)
    c = "pkg/checker.py:Checker."
    dispatched = {(s, t) for s, t, how in indexed_edges(tmp_path, "calls") if how == "dispatch"}
    assert dispatched == {(f"{c}handler", f"{c}CLASSDEF"), (f"{c}node", f"{c}Name")}


DEPRECATING = (
    "from .core import Command\n"
    "\n"
    "def real():\n"
    "    return 1\n"
    "\n"
    "def __getattr__(name):\n"
    "    if name == 'BaseCommand':\n"
    "        return Command\n"
    "    raise AttributeError(name)\n"
)


def test_a_name_a_module_lacks_resolves_to_its_module_getattr(tmp_path: Path) -> None:
    """PEP 562: ``pkg.BaseCommand``, ``from pkg import BaseCommand``, ``getattr(pkg, name)`` and a
    parametrised test's module parameter reach ``pkg.__getattr__``; defined names, submodules, a
    module without the hook and a class's own ``__getattr__`` do not."""
    write_files(
        tmp_path,
        {
            "pkg/__init__.py": DEPRECATING,
            "pkg/core.py": (
                "class Command:\n    def __getattr__(self, name):\n        return name\n\n"
                "    def unique_run(self):\n        return 3\n"
            ),
            "pkg/plain.py": "def helper():\n    return 2\n",
            "app.py": (
                "import pkg\n"
                "import pkg.plain\n"
                "from pkg import BaseCommand as Old\n"
                "from pkg import core\n"
                "\n"
                "def uses_attribute():\n"
                "    return pkg.BaseCommand()\n"
                "\n"
                "def uses_import():\n"
                "    return Old()\n"
                "\n"
                "def uses_defined():\n"
                "    return pkg.real(), core.Command(), pkg.plain.helper()\n"
                "\n"
                "def uses_missing_elsewhere():\n"
                "    return pkg.plain.nothing()\n"
                "\n"
                "def looks_up(name, obj):\n"
                "    return getattr(pkg, name), getattr(obj, name)\n"
                "\n"
                "def looks_up_literal():\n"
                "    return getattr(pkg, 'real')\n"
                "\n"
                "def uses_served_member():\n"
                "    return Old.served.unique_run()\n"
            ),
            "tests/test_deprecated.py": (
                "import pytest\n"
                "import pkg\n"
                "import pkg.core\n"
                "import pkg.plain\n"
                "\n"
                "@pytest.mark.parametrize(('module', 'name'), [(pkg, 'BaseCommand'), (pkg.core, 'x')])\n"
                "def test_attr_deprecated(module, name):\n"
                "    assert getattr(module, name)\n"
                "\n"
                "@pytest.mark.parametrize('module', [pkg.plain, pkg])\n"
                "def test_unknown(module):\n"
                "    with pytest.raises(AttributeError):\n"
                "        module.no_such_attribute\n"
                "\n"
                "@pytest.mark.parametrize('module', [pkg.plain])\n"
                "def test_defined(module):\n"
                "    assert module.helper\n"
            ),
        },
    )
    index_repo(tmp_path)
    hook = "pkg/__init__.py:__getattr__"
    calls = indexed_edges(tmp_path, "calls")
    into_hook = {(s, how) for s, t, how in calls if t == hook}
    assert into_hook == {
        ("app.py:uses_attribute", "dispatch"),
        ("app.py:uses_import", "dispatch"),
        ("app.py:looks_up", "dispatch"),
        ("tests/test_deprecated.py:test_attr_deprecated", "dispatch"),
        ("tests/test_deprecated.py:test_unknown", "dispatch"),
    }
    assert not any(t == "pkg/core.py:Command.__getattr__" for _, t, _ in calls)  # a class's hook: not PEP 562
    assert ("app.py:uses_defined", "pkg/__init__.py:real", "import") in calls
    assert ("app.py:uses_defined", "pkg/plain.py:helper", "import") in calls
    # what __getattr__ serves has members of unknown type: a guess by name may still find them
    assert ("app.py:uses_served_member", "pkg/core.py:Command.unique_run", "name") in calls


def test_methods_of_the_object_handed_over_in_a_list_of_pairs_are_values(tmp_path: Path) -> None:
    """``register([(is_set, self._structure_set)])``: the converter hands its own methods to a
    dispatcher beside the predicates that choose them; ``self.items`` in a list is data, not a method."""
    converter = (
        "def is_set(t):\n    return t is set\n"
        "\n"
        "class Converter:\n"
        "    def __init__(self, dispatch):\n"
        "        self.items = []\n"
        "        dispatch.register([(is_set, self._structure_set), (is_set, self._structure_frozenset)])\n"
        "        dispatch.extend((self._structure_list,))\n"
        "        dispatch.keep([self.items])\n"
        "\n"
        "    def _structure_set(self, obj):\n        return set(obj)\n"
        "\n"
        "    def _structure_frozenset(self, obj):\n        return frozenset(obj)\n"
        "\n"
        "    def _structure_list(self, obj):\n        return list(obj)\n"
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/converter.py": converter})
    index_repo(tmp_path)
    values = {(s, t) for s, t, how in indexed_edges(tmp_path, "references") if how == "value"}
    assert {t for s, t in values if s == "pkg/converter.py:Converter.__init__"} == {
        "pkg/converter.py:is_set",
        "pkg/converter.py:Converter._structure_set",
        "pkg/converter.py:Converter._structure_frozenset",
        "pkg/converter.py:Converter._structure_list",
    }


def test_functions_handed_over_in_a_list_or_tuple_are_values(tmp_path: Path) -> None:
    """``parametrize("fn", [up, low])`` and ``run_all((up, low))`` hand the functions to code that
    calls them; a list of local variables hands over data."""
    ops = "def up(s):\n    return s.upper()\n\ndef low(s):\n    return s.lower()\n"
    use = (
        "import pytest\n"
        "from pkg.ops import low, up\n"
        "\n"
        "def run_all(fns, s):\n"
        "    return [fn(s) for fn in fns]\n"
        "\n"
        "def both(s):\n"
        "    first, second = s, s\n"
        "    return run_all((up, low), s), sorted([first, second])\n"
        "\n"
        '@pytest.mark.parametrize(("fn", "want"), [(up, "A"), (low, "a")])\n'
        "def test_pairs(fn, want):\n"
        '    assert fn("a") == want\n'
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": ops, "pkg/use.py": use})
    index_repo(tmp_path)
    values = {(s, t) for s, t, how in indexed_edges(tmp_path, "references") if how == "value"}
    assert values == {
        ("pkg/use.py:both", "pkg/ops.py:up"),
        ("pkg/use.py:both", "pkg/ops.py:low"),
        ("pkg/use.py:test_pairs", "pkg/ops.py:up"),
        ("pkg/use.py:test_pairs", "pkg/ops.py:low"),
    }


def test_classes_handed_over_or_registered_are_values_and_type_checks_are_not(tmp_path: Path) -> None:
    """A class, or an object built where it is handed over or stored, goes to code that may build it
    and call its methods; ``isinstance`` checks, ``super()`` and a class statement's bases hand
    nothing over."""
    steps = (
        "class Step:\n    def run(self, x):\n        return x\n\n"
        "class Strip(Step):\n    def run(self, x):\n        return x.strip()\n\n"
        "class Upper(Step):\n    def run(self, x):\n        return x.upper()\n"
    )
    use = (
        "from pkg import steps\n"
        "from pkg.steps import Step, Strip, Upper\n"
        "\n"
        'CONVERTERS = {"strip": Strip, "upper": steps.Upper()}\n'
        "DEFAULT = [Upper(), Strip()]\n"
        "\n"
        "class Loud(Upper):\n"
        "    def run(self, x):\n"
        "        return super(Loud, self).run(x)\n"
        "\n"
        "def build(registry):\n"
        "    registry.add(Strip)\n"
        "    registry.extend([steps.Upper()])\n"
        "    return isinstance(registry, Step) or issubclass(type(registry), (Upper, Strip))\n"
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/steps.py": steps, "pkg/use.py": use})
    index_repo(tmp_path)
    edges = indexed_edges(tmp_path, "references")
    handed = {(s, t, how) for s, t, how in edges if how in ("value", "registry")}
    assert handed == {
        ("pkg/use.py:CONVERTERS", "pkg/steps.py:Strip", "registry"),
        ("pkg/use.py:CONVERTERS", "pkg/steps.py:Upper", "registry"),
        ("pkg/use.py:DEFAULT", "pkg/steps.py:Upper", "registry"),
        ("pkg/use.py:DEFAULT", "pkg/steps.py:Strip", "registry"),
        ("pkg/use.py:build", "pkg/steps.py:Strip", "value"),
        ("pkg/use.py:build", "pkg/steps.py:Upper", "value"),
    }


BOX = (
    "class Box:\n"
    "    def __init__(self, items):\n"
    "        self.items = list(items)\n"
    "\n"
    "    def __len__(self):\n"
    "        return len(self.items)\n"
    "\n"
    "    def __getitem__(self, i):\n"
    "        return self.items[i]\n"
    "\n"
    "    def __add__(self, other):\n"
    "        return Box(self.items + other.items)\n"
    "\n"
    "    def __str__(self):\n"
    "        return 'Box'\n"
    "\n"
    "    def __eq__(self, other):\n"
    "        return self.items == other.items\n"
    "\n"
    "    def __next__(self):\n"
    "        return self.items.pop()\n"
    "\n"
    "    def first(self):\n"
    "        return self[0] if len(self) else None\n"
)
USES = (
    "from pkg.box import Box\n"
    "\n"
    "def measure(items):\n"
    "    box = Box(items)\n"
    "    return len(box), box + Box([]), f'{box}', box == Box(items), next(box, None)\n"
    "\n"
    "def unknown(thing, other):\n"
    "    return len(thing), thing[0], thing + other, str(thing), thing == other, next(thing)\n"
)


def test_protocols_run_the_dunder_methods_of_a_known_class(tmp_path: Path) -> None:
    """``len(x)``, ``next(x)``, ``x[k]``, ``x + y``, ``f"{x}"`` and ``x == y`` run the class's dunder
    methods when the value's class is known (a variable built from it, ``self``, a test's fixture
    parameter); of an unknown value, nothing."""
    fixture_test = (
        "import pytest\n"
        "from pkg.box import Box\n"
        "\n"
        "@pytest.fixture\n"
        "def box() -> Box:\n"
        "    return Box([1])\n"
        "\n"
        "def test_size(box):\n"
        "    assert len(box) == 1\n"
    )
    write_files(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/box.py": BOX, "pkg/uses.py": USES, "tests/test_box.py": fixture_test},
    )
    index_repo(tmp_path)
    calls = {(s, t) for s, t, _ in indexed_edges(tmp_path, "calls")}
    assert ("tests/test_box.py:test_size", "pkg/box.py:Box.__len__") in calls  # typed by its fixture
    b, u = "pkg/box.py:Box", "pkg/uses.py"
    for dunder in ("__len__", "__add__", "__str__", "__eq__", "__next__"):
        assert (f"{u}:measure", f"{b}.{dunder}") in calls, dunder
    assert {(f"{b}.first", f"{b}.__getitem__"), (f"{b}.first", f"{b}.__len__")} <= calls  # on self
    assert not any(s == f"{u}:unknown" and "__" in t.rsplit(".", 1)[-1] for s, t in calls)


STREAM = (
    "class Stream:\n"
    "    def __bool__(self):\n"
    "        return True\n"
    "\n"
    "class Parser:\n"
    "    def __init__(self):\n"
    "        self.stream = Stream()\n"
    "\n"
    "    def parse(self):\n"
    "        while self.stream:\n"
    "            pass\n"
    "\n"
    "def check(items):\n"
    "    stream = Stream()\n"
    "    return not stream, stream or items, bool(stream)\n"
    "\n"
    "def unknown(thing):\n"
    "    if thing:\n"
    "        return 1\n"
)


def test_a_truth_test_runs_bool_of_a_known_class(tmp_path: Path) -> None:
    """``while self.stream:``, ``not x``, ``x or y`` and ``bool(x)`` run ``__bool__`` when the value's
    class is known; ``if thing:`` on an unknown value links nothing."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/stream.py": STREAM})
    index_repo(tmp_path)
    to_bool = {s for s, t, _ in indexed_edges(tmp_path, "calls") if t == "pkg/stream.py:Stream.__bool__"}
    assert to_bool == {"pkg/stream.py:Parser.parse", "pkg/stream.py:check"}


def test_module_constants_are_linked_to_the_code_that_reads_them(tmp_path: Path) -> None:
    """A function reading ``TIMEOUT`` or calling ``LOG.info`` uses the constant, in its own module
    or through an import (of the name or of its module); an attribute, a keyword or a string of the
    same name is not a use, and a registry reader keeps its registry link."""
    net = (
        "import logging\n"
        "\n"
        "LOG = logging.getLogger(__name__)\n"
        "TIMEOUT = 5\n"
        "FILTERS = {}\n"
        "LIMIT = TIMEOUT * 2\n"
        "\n"
        "def fetch(url):\n"
        '    LOG.info("fetch %s, TIMEOUT", url)\n'
        "    return url, TIMEOUT\n"
        "\n"
        "def unrelated(options, call):\n"
        '    """Not TIMEOUT: an attribute, a keyword argument and a docstring of that name."""\n'
        "    return options.TIMEOUT, call(TIMEOUT=1)\n"
        "\n"
        "def apply(name):\n"
        "    return FILTERS[name]\n"
    )
    client = (
        "from pkg.net import TIMEOUT as WAIT\n"
        "from pkg import net\n"
        "import pkg.net\n"
        "\n"
        "class Client:\n"
        "    wait = WAIT\n"
        "\n"
        "    def attempts(self):\n"
        "        return [WAIT] * 3, net.LOG.name, pkg.net.FILTERS\n"
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/net.py": net, "pkg/client.py": client})
    index_repo(tmp_path)
    uses = {(s, t, how) for s, t, how in indexed_edges(tmp_path, "references") if t.startswith("pkg/net.py:")}
    assert uses == {
        ("pkg/net.py:fetch", "pkg/net.py:LOG", "local"),
        ("pkg/net.py:fetch", "pkg/net.py:TIMEOUT", "local"),
        ("pkg/net.py:LIMIT", "pkg/net.py:TIMEOUT", "local"),
        ("pkg/net.py:apply", "pkg/net.py:FILTERS", "registry"),
        ("pkg/client.py:Client", "pkg/net.py:TIMEOUT", "import"),
        ("pkg/client.py:Client.attempts", "pkg/net.py:TIMEOUT", "import"),
        ("pkg/client.py:Client.attempts", "pkg/net.py:LOG", "import"),
        ("pkg/client.py:Client.attempts", "pkg/net.py:FILTERS", "import"),
    }


GRAMMAR = (
    "from ply import lex, yacc\n"
    "\n"
    "class Lexer:\n"
    "    def build(self):\n"
    "        self.lexer = lex.lex(object=self)\n"
    "\n"
    "    def t_NUMBER(self, t):\n"
    "        return t\n"
    "\n"
    "    def p_unused(self):\n"
    "        return None\n"
    "\n"
    "class Parser:\n"
    "    def __init__(self):\n"
    "        self.parser = yacc.yacc(module=self, start='expr')\n"
    "\n"
    "    def parse(self, text):\n"
    "        return self.parser.parse(text), self.other.parse(text)\n"
    "\n"
    "    def p_expr(self, p):\n"
    "        p[0] = p[1]\n"
    "\n"
    "    def t_not_a_token(self):\n"
    "        return None\n"
    "\n"
    "class Plain:\n"
    "    def make(self):\n"
    "        return render(module=self)\n"
    "\n"
    "    def p_plain(self):\n"
    "        return None\n"
)
MODULE_LEXER = (
    "import ply.lex as lex\n"
    "\n"
    "def t_NAME(t):\n"
    "    return t\n"
    "\n"
    "def p_not_lexed(p):\n"
    "    return p\n"
    "\n"
    "lexer = lex.lex()\n"
)


def test_functions_a_library_collects_by_name_prefix_are_dispatched_to(tmp_path: Path) -> None:
    """PLY collects grammar rules by prefix: ``yacc.yacc(module=self)`` collects the class's
    ``p_*`` and the parser it builds runs them (``self.parser.parse()``), ``lex.lex(object=self)``
    collects its ``t_*``, and ``lex.lex()`` at a module's top the module's ``t_*`` functions; a call
    of another function handed ``module=self`` links nothing."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/grammar.py": GRAMMAR, "pkg/lexer.py": MODULE_LEXER})
    index_repo(tmp_path)
    g, m = "pkg/grammar.py:", "pkg/lexer.py:"
    dispatched = {(s, t) for s, t, how in indexed_edges(tmp_path, "calls") if how == "dispatch"}
    assert dispatched == {
        (f"{g}Lexer.build", f"{g}Lexer.t_NUMBER"),
        (f"{g}Parser.__init__", f"{g}Parser.p_expr"),
        (f"{g}Parser.parse", f"{g}Parser.p_expr"),  # the parser yacc built runs the rules
        (f"{m}pkg.lexer", f"{m}t_NAME"),  # the module runs it when imported
    }


GO_ARGS = (
    "package cli\n\n"
    "type Command struct {\n\tArgs func(args []string) error\n\tRunE func() error\n}\n\n"
    "func NoArgs(args []string) error { return nil }\n\n"
    "func ExactArgs(args []string) error { return nil }\n\n"
    "func run() error { return nil }\n\n"
    "func Build() *Command { return &Command{Args: ExactArgs, RunE: run} }\n"
)
GO_TEST = (
    "package cli\n\n"
    'import "testing"\n\n'
    "func getCommand(args func([]string) error) *Command { return &Command{Args: args} }\n\n"
    "func TestNoArgs(t *testing.T) {\n"
    "\tlimit := 3\n"
    "\tc := getCommand(NoArgs)\n"
    "\tcheck(t, c, limit)\n"
    "}\n\n"
    "func check(t *testing.T, c *Command, n int) {}\n"
)
ES_UTIL = "export function low(s) {\n  return s.toLowerCase();\n}\n"
ES_LIB = "export function upper(s) {\n  return s.toUpperCase();\n}\nexport const REGISTRY = [upper];\n"
ES_APP = (
    "import {upper} from './lib';\n"
    "import * as util from './util';\n\n"
    "export function apply(xs, el, local) {\n"
    "  el.on('x', util.low);\n"
    "  xs.forEach(local);\n"
    "  xs.forEach(missing);\n"
    "  return xs.map(upper);\n"
    "}\n\n"
    "export class View {\n"
    "  handle() {\n    return 1;\n  }\n\n"
    "  bind(run) {\n    return run(this.handle);\n  }\n}\n\n"
    "export const HANDLERS = {up: upper};\n"
)
ES_EDGES = {
    ("src/app.EXT:apply", "src/lib.EXT:upper", "value"),
    ("src/app.EXT:apply", "src/util.EXT:low", "value"),
    ("src/app.EXT:View.bind", "src/app.EXT:View.handle", "value"),
    ("src/app.EXT:HANDLERS", "src/lib.EXT:upper", "registry"),
    ("src/lib.EXT:REGISTRY", "src/lib.EXT:upper", "registry"),
}
RUST_LIB = (
    "pub mod util;\nuse crate::util::lower;\n\n"
    "pub fn upper(s: &str) -> String {\n    s.to_uppercase()\n}\n\n"
    "pub struct Handler {\n    pub cb: fn(&str) -> String,\n}\n\n"
    "pub fn apply(xs: Vec<&str>, local: fn(&str) -> String) -> Vec<String> {\n"
    "    let _h = Handler { cb: upper };\n"
    "    xs.iter().map(local).count();\n"
    "    xs.iter().map(missing).count();\n"
    "    xs.into_iter().map(lower).collect()\n}\n"
)
HANDED: dict[str, tuple[dict[str, str], set[tuple[str, str, str]]]] = {
    "go: another file of the package, a struct's field": (
        {"go.mod": "module example.com/cli\n", "args.go": GO_ARGS, "args_test.go": GO_TEST},
        {
            ("args_test.go:TestNoArgs", "args.go:NoArgs", "value"),
            ("args.go:Build", "args.go:ExactArgs", "value"),
            ("args.go:Build", "args.go:run", "value"),
        },
    ),
    **{
        f"{ext}: imported, a member, this, an object, an array": (
            {f"src/util.{ext}": ES_UTIL, f"src/lib.{ext}": ES_LIB, f"src/app.{ext}": ES_APP},
            {tuple(k.replace("EXT", ext) for k in edge) for edge in ES_EDGES},
        )
        for ext in ("ts", "js")
    },
    "tsx: a component's prop": (
        {
            "src/handlers.ts": "export function handleClick() {\n  return 1;\n}\n",
            "src/App.tsx": "import {handleClick} from './handlers';\n\n"
            "export function App(props) {\n"
            "  return <Button onClick={handleClick} onKey={props.onKey} />;\n}\n",
        },
        {("src/App.tsx:App", "src/handlers.ts:handleClick", "value")},
    ),
    "rust: used, a struct's field": (
        {
            "Cargo.toml": '[package]\nname = "x"\n',
            "src/lib.rs": RUST_LIB,
            "src/util.rs": "pub fn lower(s: &str) -> String {\n    s.to_lowercase()\n}\n",
        },
        {
            ("src/lib.rs:apply", "src/lib.rs:upper", "value"),
            ("src/lib.rs:apply", "src/util.rs:lower", "value"),
        },
    ),
}


@pytest.mark.parametrize("case", sorted(HANDED))
def test_a_function_handed_as_a_value_is_referenced(tmp_path: Path, case: str) -> None:
    """A function handed to code that may call it (cobra's ``getCommand(NoDuplicateArgs, false)``,
    ``xs.map(upper)``, ``&Command{RunE: run}``) or stored in a registry is referenced; a parameter
    passed on, or a name the file neither defines nor imports (nor, in Go, its package exports),
    stays unlinked."""
    files, expected = HANDED[case]
    write_files(tmp_path, files)
    index_repo(tmp_path)
    dynamic = {e for e in indexed_edges(tmp_path, "references") if e[2] in ("value", "registry")}
    assert dynamic == expected


def test_a_kotlin_function_reference_runs_the_function_where_it_is_handed(tmp_path: Path) -> None:
    """``xs.map(::upper)`` calls ``upper``, as Java's ``this::m`` does."""
    source = "fun upper(s: String): String = s.uppercase()\n\nfun shout(xs: List<String>) = xs.map(::upper)\n"
    write_files(tmp_path, {"src/main/kotlin/Text.kt": source})
    index_repo(tmp_path)
    calls = {(s, t) for s, t, _ in indexed_edges(tmp_path, "calls")}
    assert ("src/main/kotlin/Text.kt:shout", "src/main/kotlin/Text.kt:upper") in calls


def test_a_definition_named_by_its_dotted_path_in_a_string_is_referenced(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "src/pkg/__init__.py": "",
            "src/pkg/plugins/__init__.py": (
                "PLUGINS = {'table': 'pkg.plugins.table.table', 'ext': 'pkg.plugins.table:Extension'}\n"
                "\n"
                "def load(name):\n"
                "    return PLUGINS[name]\n"
            ),
            "src/pkg/names.py": "aliases = {int: 'Int'}\n_cache = {}\nhandlers = {'int': int, 'x': print}\n",
            "src/pkg/plugins/table.py": (
                "def table(md):\n    return md\n\n"
                "class Extension:\n    def run(self):\n        return 1\n\n"
                "alias = Extension\n"
            ),
            "tests/test_plugins.py": (
                "def test_alias(make):\n"
                "    return make(extensions=['pkg.plugins.table.alias', 'pkg.plugins', 'os.path.join'])\n"
                "\n"
                "def test_patched(monkeypatch, mocker):\n"
                "    monkeypatch.setattr('pkg.plugins.table.table', len)\n"
                "    mocker.patch('pkg.plugins.table.Extension')\n"
                "    return 'pkg.plugins.table.missing', 'see pkg.plugins.table.table'\n"
            ),
        },
    )
    index_repo(tmp_path)
    references = indexed_edges(tmp_path, "references")
    p, t = "src/pkg/plugins/", "tests/test_plugins.py:"
    named = {(s, d, how) for s, d, how in references if d.startswith(f"{p}table.py")}
    assert named == {
        (f"{p}__init__.py:PLUGINS", f"{p}table.py:table", "registry"),  # a registry of paths
        (f"{p}__init__.py:PLUGINS", f"{p}table.py:Extension", "registry"),  # an entry point's form
        (f"{t}test_alias", f"{p}table.py:Extension", "value"),  # through the module's alias
    }  # a patched target is replaced, not run; a missing name, prose and a module alone link nothing
    constants = {k for k, (kind, _, _) in indexed_symbols(tmp_path).items() if kind == "constant"}
    assert "src/pkg/names.py:handlers" in constants  # a dict of names is a registry, whatever its case
    assert not {"src/pkg/names.py:aliases", "src/pkg/names.py:_cache"} & constants  # plain strings, empty
