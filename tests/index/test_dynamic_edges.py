"""Edges from dynamic dispatch that static code shows, each with its own resolution; and the
look-alikes that must not link (plain variables as arguments, a literal getattr, name guesses)."""

from __future__ import annotations

from pathlib import Path

from helpers import indexed_edges, write_files

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
