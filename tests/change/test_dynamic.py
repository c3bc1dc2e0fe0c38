"""Dynamic dispatch that static code can see: registries, name-built getattr, decorators that
register, ``__init_subclass__`` hooks and functions handed as values reach the tests of the code
that looks them up; a dynamically reached symbol no static path ties to a test gets a stated,
conservative test set, not "untested".

Each scenario is a real throwaway repository whose one commit changes the dynamically reached
function; ``mnemo tests``/``pr`` must name the test that reaches it and how it was resolved.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import commit, git, make_repo

from ci.precommit import main as precommit_main
from mnemo_core.change.dynamic import TEST_WORDS, _may_spell, _pieces, _stem_words
from mnemo_core.cli import main
from mnemo_core.engine import Engine
from mnemo_core.insight import symbol_card
from mnemo_core.repository import Repository

FILTERS = (
    "def do_upper(s):\n"
    "    return s.upper()\n"
    "\n"
    "def do_lower(s):\n"
    "    return s.lower()\n"
    "\n"
    'FILTERS = {"upper": do_upper, "lower": do_lower}\n'
)
TEMPLATE = (
    "from .filters import FILTERS as DEFAULT_FILTERS\n"
    "\n"
    "def apply_filter(name, value):\n"
    "    return DEFAULT_FILTERS[name](value)\n"
    "\n"
    "def render(text):\n"
    '    name, _, value = text.partition(":")\n'
    "    return apply_filter(name, value)\n"
)
VISITOR = (
    "class NodeVisitor:\n"
    "    def visit(self, node):\n"
    '        method = getattr(self, "visit_" + type(node).__name__, self.generic_visit)\n'
    "        return method(node)\n"
    "\n"
    "    def generic_visit(self, node):\n"
    "        return None\n"
    "\n"
    "class Printer(NodeVisitor):\n"
    "    def visit_Name(self, node):\n"
    "        return node.id\n"
    "\n"
    "    def visit_Call(self, node):\n"
    '        return f"{node.func}()"\n'
)
COMMANDS = (
    "COMMANDS = {}\n"
    "\n"
    "def command(name):\n"
    "    def deco(func):\n"
    "        COMMANDS[name] = func\n"
    "        return func\n"
    "    return deco\n"
    "\n"
    "def run(name, *args):\n"
    "    return COMMANDS[name](*args)\n"
    "\n"
    '@command("greet")\n'
    "def greet(who):\n"
    '    return "hello " + who\n'
)
PLUGINS = (
    "class Plugin:\n"
    "    registry = {}\n"
    "\n"
    "    def __init_subclass__(cls, **kwargs):\n"
    "        super().__init_subclass__(**kwargs)\n"
    "        cls.registry[cls.__name__.lower()] = cls\n"
    "\n"
    "    @classmethod\n"
    "    def create(cls, name):\n"
    "        return cls.registry[name]()\n"
    "\n"
    "    def run(self):\n"
    "        raise NotImplementedError\n"
)
CSV = "from .plugin import Plugin\n\nclass Csv(Plugin):\n    def run(self):\n        return 'a,b'\n"
SORTING = (
    "def by_length(word):\n"
    "    return len(word)\n"
    "\n"
    "def ordered(words):\n"
    "    return sorted(words, key=by_length)\n"
)
COMPAT = (  # PEP 562: a deprecated name served by the module's __getattr__
    "from .sorting import ordered\n"
    "\n"
    "def __getattr__(name):\n"
    '    if name == "sort_words":\n'
    "        return ordered\n"
    "    raise AttributeError(name)\n"
)
PIPELINE = (
    "class Processor:\n"
    "    def run(self, text):\n"
    "        return text\n"
    "\n"
    "class Upper(Processor):\n"
    "    def run(self, text):\n"
    "        return text.upper()\n"
    "\n"
    "class Registry:\n"
    "    def __init__(self):\n"
    "        self.items = []\n"
    "\n"
    "    def register(self, item):\n"
    "        self.items.append(item)\n"
    "\n"
    "def convert(text):\n"
    "    steps = Registry()\n"
    "    steps.register(Upper())\n"
    "    for step in steps.items:\n"
    "        text = step.run(text)\n"
    "    return text\n"
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/pipeline.py": PIPELINE,
    "pkg/compat.py": COMPAT,
    "pkg/filters.py": FILTERS,
    "pkg/template.py": TEMPLATE,
    "pkg/visitor.py": VISITOR,
    "pkg/commands.py": COMMANDS,
    "pkg/plugin.py": PLUGINS,
    "pkg/csv.py": CSV,
    "pkg/sorting.py": SORTING,
    "tests/test_pkg.py": (
        "from pkg.template import render\n"
        "from pkg.visitor import Printer\n"
        "from pkg.commands import run\n"
        "from pkg.plugin import Plugin\n"
        "from pkg.sorting import ordered\n"
        "from pkg.compat import sort_words\n"
        "from pkg.pipeline import convert\n"
        "\n"
        "def test_render():\n"
        '    assert render("upper:a") == "A"\n'
        "\n"
        "def test_printer():\n"
        "    assert Printer().visit(object()) is None\n"
        "\n"
        "def test_run():\n"
        '    assert run("greet", "you") == "hello you"\n'
        "\n"
        "def test_create():\n"
        '    assert Plugin.create("csv").run() == "a,b"\n'
        "\n"
        "def test_ordered():\n"
        '    assert ordered(["bb", "a"]) == ["a", "bb"]\n'
        "\n"
        "def test_deprecated_name():\n"
        '    assert sort_words(["bb", "a"]) == ["a", "bb"]\n'
        "\n"
        "def test_convert():\n"
        '    assert convert("a") == "A"\n'
    ),
}
# one changed function per scenario -> (the test that reaches it, how its weakest link was resolved)
REACHED = {
    "pkg/filters.py": ("do_upper", "s.upper()", "s.upper().strip()", "test_render", "registry"),
    "pkg/visitor.py": ("Printer.visit_Name", "node.id", "str(node.id)", "test_printer", "dispatch"),
    "pkg/commands.py": ("greet", '"hello " + who', '"hi " + who', "test_run", "decorator"),
    "pkg/csv.py": ("Csv.run", "'a,b'", "'a;b'", "test_create", "subclass"),
    "pkg/sorting.py": ("by_length", "len(word)", "-len(word)", "test_ordered", "value"),
    "pkg/compat.py": ("__getattr__", "return ordered", "return list", "test_deprecated_name", "dispatch"),
    "pkg/pipeline.py": ("Upper.run", "text.upper()", "text.upper().strip()", "test_convert", "value"),
}


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    assert main([*args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def edited_repo(tmp_path: Path, files: dict[str, str], path: str, old: str, new: str) -> Path:
    """A repository of ``files`` whose last commit replaces ``old`` with ``new`` in ``path``."""
    root = make_repo(tmp_path / "r", files)
    commit(root, {path: files[path].replace(old, new)}, f"edit {path}")
    return root


def pr_changed(capsys: pytest.CaptureFixture[str], root: Path, name: str) -> tuple[Any, Any]:
    """``mnemo pr`` of the last commit, and its entry for the changed symbol ``name``."""
    pr = cli_json(capsys, "pr", "--base", "HEAD~1", "--repo", str(root))
    return pr, {c["name"]: c for c in pr["impact"]["changed"]}[name]


@pytest.mark.parametrize("path", sorted(REACHED))
def test_a_dynamically_reached_function_reaches_the_test_of_its_lookup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str
) -> None:
    name, old, new, test, resolution = REACHED[path]
    root = make_repo(tmp_path / "r", FILES)
    commit(root, {path: FILES[path].replace(old, new)}, f"change {name}")
    tests = cli_json(capsys, "tests", "--sure-only", "--base", "HEAD~1", "--repo", str(root))["tests"]
    assert [t["id"] for t in tests] == [f"tests/test_pkg.py::{test}"]
    assert tests[0]["resolution"] == resolution and not tests[0]["possible"]
    pr, changed = pr_changed(capsys, root, name)
    assert changed["reached_by"] == [f"tests/test_pkg.py::{test}"]
    assert not any("no test reaches" in r for r in pr["impact"]["reasons"])


def test_where_no_neighbour_has_a_test_the_importing_test_files_tests_are_possible(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A protocol method a server calls from outside the repository (nothing in it calls
    ``data_received``), in a module no test reaches statically: the suite drives it by an import
    string, so the tests of the test files that import the module are offered as possible, and
    a test file that does not import it is not."""
    files = {
        "pkg/__init__.py": "",
        "pkg/server.py": "class Protocol:\n    def data_received(self, data):\n        return data.upper()\n",
        "pkg/run.py": "import importlib\n\n\ndef serve(spec):\n    module, _, name = spec.partition(':')\n"
        "    return getattr(importlib.import_module(module), name)\n",
        "tests/test_server.py": "from pkg import server\nfrom pkg.run import serve\n\n\ndef test_serve():\n"
        "    assert serve(server.__name__ + ':Protocol')\n\n\ndef test_other():\n    assert True\n",
        "tests/test_run.py": "from pkg.run import serve\n\n\ndef test_run():\n    assert serve('os:sep')\n",
    }
    root = make_repo(tmp_path / "r", files)
    commit(root, {"pkg/server.py": files["pkg/server.py"].replace("upper()", "lower()")}, "lower")
    pr, changed = pr_changed(capsys, root, "Protocol.data_received")
    assert changed["reached_by"] == []
    assert changed["possibly_reached_by"] == [
        "tests/test_server.py::test_other",
        "tests/test_server.py::test_serve",
    ]
    assert any(
        r.endswith("the tests in the test files that import its module are possible (2)")
        for r in changed["reasons"]
    )
    possible = {t["name"]: t for t in pr["impact"]["possible_tests"]}
    assert possible["test_serve"]["evidence"].startswith(
        "in a test file that imports the module of Protocol."
    )


def test_a_plugin_loaded_by_entry_point_offers_the_tests_named_after_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """bandit: a check registered by a decorator of ``core/test_properties.py`` (the package's own
    code, though its name reads like a test module's: it tests nothing) and loaded through an entry
    point; the functional tests run example files by name. No path and no importer says which test
    runs it: the tests named after it are offered as possible, and the decorator is no test."""
    files = {
        "pkg/__init__.py": "",
        "pkg/core/__init__.py": "",
        "pkg/core/test_properties.py": "def checks(*kinds):\n    def wrapper(func):\n"
        "        func._checks = kinds\n        return func\n    return wrapper\n\n\n"
        "def test_id(value):\n    def wrapper(func):\n        func._test_id = value\n        return func\n"
        "    return wrapper\n",
        "pkg/plugins/__init__.py": "",
        "pkg/plugins/pytorch_load.py": "from pkg.core import test_properties as test\n\n\n"
        "@test.checks('Call')\n@test.test_id('B614')\ndef pytorch_load(context):\n    return context\n",
        "tests/test_functional.py": "import unittest\n\n\nclass FunctionalTests(unittest.TestCase):\n"
        "    def test_pytorch_load(self):\n        self.assertTrue(run_example('pytorch_load.py'))\n\n"
        "    def test_yaml(self):\n        self.assertTrue(run_example('yaml.py'))\n\n\n"
        "def run_example(name):\n    return name\n",
    }
    root = edited_repo(
        tmp_path, files, "pkg/plugins/pytorch_load.py", "return context", "return context or None"
    )
    pr, changed = pr_changed(capsys, root, "pytorch_load")
    assert changed["reached_by"] == []
    assert changed["possibly_reached_by"] == ["tests/test_functional.py::FunctionalTests::test_pytorch_load"]
    assert any(r.endswith("the tests named after it are possible (1)") for r in changed["reasons"])
    assert {c["name"] for c in pr["impact"]["callers"]} == {"checks"}  # a caller: not a test
    assert not pr["impact"]["tests"]


def test_evidence_says_the_registry_a_function_is_reached_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "r", FILES)
    commit(root, {"pkg/filters.py": FILTERS.replace("s.upper()", "s.upper().strip()")}, "change do_upper")
    pr, changed = pr_changed(capsys, root, "do_upper")
    assert "reached dynamically through FILTERS" in changed["reasons"]
    callers = {c["name"]: c for c in pr["impact"]["callers"]}
    assert callers["FILTERS"]["evidence"] == "registers do_upper (changed, 1 hop)"
    assert callers["apply_filter"]["evidence"] == "looks up FILTERS -> registers do_upper (changed, 2 hops)"
    assert callers["apply_filter"]["resolution"] == "registry"


def test_a_dynamic_function_no_path_ties_to_a_test_gets_the_module_s_tests_as_possible(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``do_title`` sits in a registry nothing reads: no static path reaches a test, so its
    module's other symbols' tests are offered as possible, and the change is not "untested"."""
    files = {
        **FILES,
        "pkg/filters.py": FILTERS
        + "\ndef do_title(s):\n    return s.title()\n\nEXTRA = {'title': do_title}\n",
        "tests/test_filters.py": "from pkg.filters import do_lower\n\ndef test_lower():\n"
        '    assert do_lower("A") == "a"\n',
    }
    root = make_repo(tmp_path / "r", files)
    changed_filters = files["pkg/filters.py"].replace("s.title()", "s.title().strip()")
    commit(root, {"pkg/filters.py": changed_filters}, "change do_title")
    pr, changed = pr_changed(capsys, root, "do_title")
    assert changed["reached_by"] == []
    assert (
        "reached dynamically through EXTRA; tests not determinable statically: "
        "the tests of its module's other symbols are possible (2)"
    ) in changed["reasons"]
    assert changed["possibly_reached_by"] == [
        "tests/test_filters.py::test_lower",
        "tests/test_pkg.py::test_render",
    ]
    assert not any("no test reaches" in r for r in pr["impact"]["reasons"])
    with Engine.open(root) as engine:  # the hover card says the same
        [do_title] = engine.find("do_title")
        assert engine.card(do_title).dynamic == "reached dynamically through EXTRA"
    possible = {t["name"]: t for t in pr["impact"]["possible_tests"]}
    assert set(possible) == {"test_lower", "test_render"}
    assert possible["test_lower"]["resolution"] == "registry" and possible["test_lower"]["possible"]
    selected = cli_json(capsys, "tests", "--base", "HEAD~1", "--repo", str(root))["tests"]
    assert {t["id"] for t in selected} == {
        "tests/test_filters.py::test_lower",
        "tests/test_pkg.py::test_render",
    }
    (root / "pkg/filters.py").write_text(changed_filters.replace("strip()", "lower()"))
    git(root, "add", "-A")
    code = precommit_main(["--require-tests", "--repo", str(root)])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    assert "no test reaches" not in out.out + out.err


def test_a_plain_function_no_test_reaches_is_still_untested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {**FILES, "pkg/lonely.py": "def lonely():\n    return 1\n"}
    root = make_repo(tmp_path / "r", files)
    commit(root, {"pkg/lonely.py": "def lonely():\n    return 2\n"}, "change lonely")
    pr = cli_json(capsys, "pr", "--base", "HEAD~1", "--repo", str(root))
    assert "no test reaches: lonely" in pr["impact"]["reasons"]
    assert {c["name"]: c for c in pr["impact"]["changed"]}["lonely"]["possibly_reached_by"] == []


RENDERER = (
    "class Renderer:\n"
    "    def render(self, token):\n"
    '        return object.__getattribute__(self, token["type"])(token["text"])\n'
    "\n"
    "    def heading(self, text):\n"
    '        return "<h1>" + text + "</h1>"\n'
    "\n"
    "    def paragraph(self, text):\n"
    '        return "<p>" + text + "</p>"\n'
)
RENDERER_TESTS = (
    "from pkg.render import Renderer\n"
    "\n"
    "def test_render():\n"
    '    assert Renderer().render({"type": "paragraph", "text": "a"}) == "<p>a</p>"\n'
)


def test_a_method_nothing_in_the_repository_calls_gets_its_module_s_tests_as_possible(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``heading`` is looked up by a name that comes from data: nothing calls it, so which tests run
    it is not known, and saying "no test reaches it" would be a guess shown as a fact."""
    files = {"pkg/__init__.py": "", "pkg/render.py": RENDERER, "tests/test_render.py": RENDERER_TESTS}
    root = make_repo(tmp_path / "r", files)
    (root / "pkg/render.py").write_text(RENDERER.replace("<h1>", "<h2>"))
    git(root, "add", "-A")
    assert precommit_main(["--require-tests", "--repo", str(root)]) == 0  # nothing says it is untested
    capsys.readouterr()
    git(root, "commit", "-q", "-m", "change heading")
    pr = cli_json(capsys, "pr", "--base", "HEAD~1", "--repo", str(root))
    assert pr["impact"]["reasons"][1:] == [
        "called by nothing in the repository (or only through code nothing in it calls), so its tests "
        "are not determinable statically: Renderer.heading"
    ]
    heading = {c["name"]: c for c in pr["impact"]["changed"]}["Renderer.heading"]
    assert heading["reached_by"] == []
    assert heading["possibly_reached_by"] == ["tests/test_render.py::test_render"]
    assert "nothing in the repository calls it" in " ".join(heading["reasons"])
    added = RENDERER + "\n    def rule(self, text):\n        return '<hr>'\n"
    commit(root, {"pkg/render.py": added}, "add rule")
    pr = cli_json(capsys, "pr", "--base", "HEAD~1", "--repo", str(root))
    assert "no test reaches: Renderer.rule" in pr["impact"]["reasons"]  # new: nothing calls it yet


LOADER = (
    "from jinja2 import BaseLoader\n"
    "\n"
    "class AppLoader(BaseLoader):\n"
    "    def get_source(self, environment, template):\n"
    "        return self._find(template)\n"
    "\n"
    "    def _find(self, template):\n"
    "        return template.upper()\n"
    "\n"
    "def make_env(app):\n"
    "    return app.environment(loader=AppLoader())\n"
)
LOADER_TESTS = "from pkg.loader import make_env\n\ndef test_make_env():\n    assert make_env(None) is None\n"


def test_code_called_only_through_a_hook_from_outside_gets_its_module_s_tests_as_possible(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``_find`` has a caller, ``get_source``, but nothing in the repository calls that (the template
    engine does): which tests reach ``_find`` is as unknown as for the hook, not "no test"."""
    files = {"pkg/__init__.py": "", "pkg/loader.py": LOADER, "tests/test_loader.py": LOADER_TESTS}
    root = make_repo(tmp_path / "r", files)
    commit(root, {"pkg/loader.py": LOADER.replace(".upper()", ".lower()")}, "lower-case names")
    pr = cli_json(capsys, "pr", "--base", "HEAD~1", "--repo", str(root))
    assert pr["impact"]["risk"] == "low"
    assert not any("no test reaches" in r for r in pr["impact"]["reasons"])
    found = {c["name"]: c for c in pr["impact"]["changed"]}["AppLoader._find"]
    assert found["reached_by"] == []
    assert found["possibly_reached_by"] == ["tests/test_loader.py::test_make_env"]
    assert "called only through AppLoader.get_source, which nothing in the repository calls" in " ".join(
        found["reasons"]
    )


def test_a_hook_a_decorator_of_the_repository_is_applied_to_is_still_reached_from_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``@internalcode`` on ``Macro.__call__`` marks it; it does not call it: ``_invoke``, called
    only by ``__call__``, is still reached from outside (the template's generated code calls it)."""
    runtime = (
        "INTERNAL = set()\n"
        "\n"
        "def internalcode(f):\n"
        "    INTERNAL.add(f)\n"
        "    return f\n"
        "\n"
        "class Macro:\n"
        "    @internalcode\n"
        "    def __call__(self, *args):\n"
        "        return self._invoke(args)\n"
        "\n"
        "    def _invoke(self, args):\n"
        "        return len(args)\n"
        "\n"
        "def make():\n"
        "    return Macro()\n"
    )
    tests = "from pkg.runtime import make\n\ndef test_make():\n    assert make()\n"
    root = make_repo(
        tmp_path / "r", {"pkg/__init__.py": "", "pkg/runtime.py": runtime, "tests/test_r.py": tests}
    )
    commit(root, {"pkg/runtime.py": runtime.replace("len(args)", "len(args) + 0")}, "touch _invoke")
    pr = cli_json(capsys, "pr", "--base", "HEAD~1", "--repo", str(root))
    found = {c["name"]: c for c in pr["impact"]["changed"]}["Macro._invoke"]
    assert "called only through Macro.__call__, which nothing in the repository calls" in " ".join(
        found["reasons"]
    )
    assert found["possibly_reached_by"] == ["tests/test_r.py::test_make"]


def test_the_hover_says_what_pr_says_of_code_reached_only_from_outside(tmp_path: Path) -> None:
    """The card of ``_find`` and of the hook itself says why no test reaches them, as ``pr`` does."""
    files = {"pkg/__init__.py": "", "pkg/loader.py": LOADER, "tests/test_loader.py": LOADER_TESTS}
    repo = Repository.open(make_repo(tmp_path / "r", files))
    repo.update_index()
    cards = {
        name: symbol_card(
            repo, next(s for s in repo.store.symbols_in_file("pkg/loader.py") if s.name == name)
        )
        for name in ("AppLoader._find", "AppLoader.get_source", "make_env")
    }
    assert cards["AppLoader._find"].tests == 0
    assert cards["AppLoader._find"].dynamic == (
        "called only through AppLoader.get_source, which nothing in the repository calls "
        "(it is called by name at run time, or from outside)"
    )
    assert cards["AppLoader.get_source"].dynamic == (
        "nothing in the repository calls it (it is called by name at run time, or from outside)"
    )
    assert cards["make_env"].tests == 1 and cards["make_env"].dynamic is None


def test_code_called_only_by_a_function_nothing_calls_is_still_untested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A chain that ends in a plain function (a script's ``main``, dead code) is no hook: untested."""
    script = "def main():\n    return helper()\n\ndef helper():\n    return 1\n"
    files = {**FILES, "pkg/script.py": script}
    root = make_repo(tmp_path / "r", files)
    commit(root, {"pkg/script.py": script.replace("1", "2")}, "change helper")
    pr = cli_json(capsys, "pr", "--base", "HEAD~1", "--repo", str(root))
    assert "no test reaches: helper" in pr["impact"]["reasons"]


KEYED = {
    "pkg/__init__.py": "",
    "pkg/filters.py": FILTERS,
    "pkg/env.py": (
        "from .filters import FILTERS\n"
        "\n"
        "class Environment:\n"
        "    def __init__(self):\n"
        "        self.filters = FILTERS.copy()\n"
        "\n"
        "    def render(self, text):\n"
        '        value, _, name = text.partition("|")\n'
        "        return self.filters[name](value) if name else value\n"
    ),
    "tests/test_env.py": (
        "from pkg.env import Environment\n"
        "\n"
        "def test_upper():\n"
        '    assert Environment().render("a|upper") == "A"\n'
        "\n"
        "def test_lower():\n"
        '    assert Environment().render("A|lower") == "a"\n'
        "\n"
        "def test_plain():\n"
        '    assert Environment().render("a") == "a"\n'
        "\n"
        "def test_empty():\n"
        '    assert Environment().render("") == ""\n'
    ),
}


def test_a_test_reaches_a_keyed_registry_s_function_only_when_it_names_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every test builds the reader of FILTERS; only the one that names the key runs do_upper (a key
    that 30 % of those tests named would be a staple, applied by default: all kept)."""
    root = make_repo(tmp_path / "r", KEYED)
    commit(root, {"pkg/filters.py": FILTERS.replace("s.upper()", "s.upper().strip()")}, "change do_upper")
    tests = cli_json(capsys, "tests", "--base", "HEAD~1", "--repo", str(root))["tests"]
    assert [t["id"] for t in tests] == ["tests/test_env.py::test_upper"]
    assert tests[0]["resolution"] == "registry"


def test_when_no_test_names_a_registry_key_every_test_that_reaches_it_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {**KEYED, "tests/test_env.py": KEYED["tests/test_env.py"].replace("a|upper", "a|UP")}
    root = make_repo(tmp_path / "r", files)
    commit(root, {"pkg/filters.py": FILTERS.replace("s.upper()", "s.upper().strip()")}, "change do_upper")
    tests = cli_json(capsys, "tests", "--base", "HEAD~1", "--repo", str(root))["tests"]
    assert {t["id"] for t in tests} == {
        f"tests/test_env.py::test_{n}" for n in ("upper", "lower", "plain", "empty")
    }


PLUGGED = {
    "pkg/__init__.py": "",
    "pkg/plugins/__init__.py": (
        "from importlib import import_module\n"
        "\n"
        "_plugins = {\n"
        '    "table": "pkg.plugins.table.table",\n'
        '    "math": "pkg.plugins.math.math",\n'
        "}\n"
        "\n"
        "def import_plugin(name):\n"
        '    module_path, func_name = _plugins[name].rsplit(".", 1)\n'
        "    return getattr(import_module(module_path), func_name)\n"
    ),
    "pkg/plugins/table.py": (
        "def parse_table(text):\n    return text\n\ndef table(md):\n    md.append(parse_table)\n"
    ),
    "pkg/plugins/math.py": "def math(md):\n    md.append(len)\n",
    "pkg/markdown.py": (
        "from .plugins import import_plugin\n"
        "\n"
        "def create_markdown(plugins=()):\n"
        "    md = []\n"
        "    for name in plugins:\n"
        "        import_plugin(name)(md)\n"
        "    return md\n"
    ),
    "tests/test_plugins.py": (
        "from pkg.markdown import create_markdown\n"
        "\n"
        "def test_table():\n"
        '    assert create_markdown(plugins=["table"])\n'
        "\n"
        "def test_math():\n"
        '    assert create_markdown(plugins=["math"])\n'
        "\n"
        "def test_plain():\n"
        "    assert create_markdown() == []\n"
        "\n"
        "def test_none():\n"
        "    assert create_markdown(plugins=()) == []\n"
    ),
}


def test_a_plugin_named_by_its_dotted_path_in_a_private_table_is_reached_by_the_tests_that_name_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``_plugins`` (a module-level dict, whatever its case) maps names to dotted paths that
    ``import_plugin`` imports at run time: each plugin is reached through it, keyed by its name (one
    test in four names it: not a staple)."""
    root = make_repo(tmp_path / "r", PLUGGED)
    table = PLUGGED["pkg/plugins/table.py"]
    commit(root, {"pkg/plugins/table.py": table.replace("return text", "return text.strip()")}, "edit")
    tests = cli_json(capsys, "tests", "--base", "HEAD~1", "--repo", str(root))["tests"]
    assert [t["id"] for t in tests] == ["tests/test_plugins.py::test_table"]


def test_a_dynamic_fallback_offers_the_module_s_tests_that_name_the_symbol_when_some_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        **FILES,
        "pkg/filters.py": FILTERS
        + "\ndef do_title(s):\n    return s.title()\n\nEXTRA = {'title': do_title}\n",
        "tests/test_filters.py": "from pkg.filters import do_lower\n\ndef test_lower():\n"
        '    assert do_lower("A") == "a"\n\ndef test_lower_is_not_title():\n'
        '    assert do_lower("Ab") != "Ab"  # do_title would keep it\n',
    }
    root = make_repo(tmp_path / "r", files)
    commit(
        root, {"pkg/filters.py": files["pkg/filters.py"].replace("s.title()", "s.title().strip()")}, "edit"
    )
    _pr, changed = pr_changed(capsys, root, "do_title")
    assert (
        "reached dynamically through EXTRA; tests not determinable statically: "
        "the tests of its module's other symbols that name it are possible (1)"
    ) in changed["reasons"]
    assert changed["possibly_reached_by"] == ["tests/test_filters.py::test_lower_is_not_title"]


def test_code_that_registers_a_test_s_function_is_not_the_blast_radius_of_changing_it(tmp_path: Path) -> None:
    test = (
        "from pkg.commands import command, run\n"
        "\n"
        "def test_own_command():\n"
        '    @command("shout")\n'
        "    def shout(who):\n"
        "        return who.upper()\n"
        '    assert run("shout", "a") == "A"\n'
    )
    root = make_repo(tmp_path / "repo", {**FILES, "tests/test_own.py": test})
    commit(root, {"tests/test_own.py": test.replace("who.upper()", "who.upper() + '!'")}, "louder")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert [s.symbol.name for s in impact.changed] == ["test_own_command.shout"]
    assert not impact.callers and not impact.possible_callers  # not command's deco, which registers it
    assert "test_own_command" in [t.symbol.name for t in impact.tests]


def test_code_reached_only_through_a_test_is_not_a_caller(tmp_path: Path) -> None:
    test = (
        "from pkg.commands import command, run\n"
        "from pkg.sorting import by_length\n"
        "\n"
        "def test_measured():\n"
        '    @command("measure")\n'
        "    def measure(word):\n"
        "        return by_length(word)\n"
        '    assert run("measure", "ab") == 2\n'
    )
    root = make_repo(tmp_path / "repo", {**FILES, "tests/test_measured.py": test})
    commit(root, {"pkg/sorting.py": SORTING.replace("len(word)", "len(word) + 0")}, "same length")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    callers = [c.symbol.name for c in (*impact.callers, *impact.possible_callers)]
    assert callers == ["ordered"]  # not command's deco, which registers the test's measure
    assert "test_measured" in [t.symbol.name for t in impact.tests]


def test_a_dunder_method_s_fallback_is_the_tests_named_after_its_class_when_some_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Python calls ``__repr__`` for ``repr(g)``: nothing in the repository calls it, and of its
    module's tests the ones named after ``_AppGlobals`` are the ones that build and print one."""
    source = (
        "class _AppGlobals:\n"
        "    def __repr__(self):\n"
        "        return '<globals>'\n"
        "\n"
        "def make_globals():\n"
        "    return _AppGlobals()\n"
        "\n"
        "def serve():\n"
        "    return make_globals()\n"
    )
    tests = (
        "from pkg.app import make_globals, serve\n"
        "\n"
        "def test_serve():\n"
        "    assert serve()\n"
        "\n"
        "def test_serve_twice():\n"
        "    assert serve() and serve()\n"
        "\n"
        "def test_app_globals_repr():\n"
        "    assert repr(make_globals()) == '<globals>'\n"
    )
    files = {"pkg/__init__.py": "", "pkg/app.py": source, "tests/test_app.py": tests}
    root = make_repo(tmp_path / "r", files)
    commit(root, {"pkg/app.py": source.replace("'<globals>'", "'<g>'")}, "edit")
    _pr, changed = pr_changed(capsys, root, "_AppGlobals.__repr__")
    assert changed["possibly_reached_by"] == ["tests/test_app.py::test_app_globals_repr"]
    assert (
        "nothing in the repository calls it (it is called by name at run time, or from outside); tests "
        "not determinable statically: the tests of its module's other symbols named after its class "
        "are possible (1)"
    ) in changed["reasons"]


def test_a_subclass_hook_is_run_by_the_tests_that_define_a_subclass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``__init_subclass__`` runs where a subclass is defined: a test that defines its own
    ``class Json(Plugin)`` runs it (the module's ``Csv`` ran it at import, before any test)."""
    files = {
        **FILES,
        "tests/test_local.py": "from pkg.plugin import Plugin\n\n\ndef test_local_plugin():\n"
        "    class Json(Plugin):\n        def run(self):\n            return '{}'\n\n"
        "    assert Plugin.create('json').run() == '{}'\n",
    }
    root = edited_repo(tmp_path, files, "pkg/plugin.py", "cls.__name__.lower()", "cls.__name__.casefold()")
    pr, changed = pr_changed(capsys, root, "Plugin.__init_subclass__")
    assert "tests/test_local.py::test_local_plugin" in changed["reached_by"]
    tests = {t["name"]: t for t in pr["impact"]["tests"]}
    assert tests["test_local_plugin"]["evidence"] == (
        "defines test_local_plugin.Json -> runs the subclass hook Plugin.__init_subclass__ (changed, 2 hops)"
    )


def test_a_subclass_defined_in_a_test_does_not_reach_its_siblings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hook a test's ``class Json(Plugin)`` runs registers ``Json``: the test reaches nothing
    of ``Csv``, which the hook registered at import."""
    files = {
        **FILES,
        "tests/test_local.py": "from pkg.plugin import Plugin\n\n\ndef test_local_name():\n"
        "    class Json(Plugin):\n        pass\n\n    assert Json.__name__ == 'Json'\n",
    }
    root = edited_repo(tmp_path, files, "pkg/csv.py", "'a,b'", "'a;b'")
    tests = cli_json(capsys, "tests", "--base", "HEAD~1", "--repo", str(root))["tests"]
    assert [t["id"] for t in tests] == ["tests/test_pkg.py::test_create"]


def test_a_dynamic_function_with_no_test_to_offer_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A registry's entry in a module no test reaches, imports or names: nothing is offered, and the
    reason says so instead of "are possible (0)" (alembic's ``_compare_check_constraints``)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/plugins.py": "def do_title(s):\n    return s.title()\n\nEXTRA = {'title': do_title}\n",
        "tests/test_other.py": "def test_nothing():\n    assert True\n",
    }
    root = make_repo(tmp_path / "r", files)
    commit(root, {"pkg/plugins.py": files["pkg/plugins.py"].replace("s.title()", "s.title().strip()")}, "x")
    pr, changed = pr_changed(capsys, root, "do_title")
    assert changed["possibly_reached_by"] == []
    assert (
        "reached dynamically through EXTRA; tests not determinable statically, and none to offer: no "
        "test reaches its module's other symbols, imports its module or is named after it or its module"
    ) in changed["reasons"]
    assert any(r.startswith("reached dynamically") and "where found" in r for r in pr["impact"]["reasons"])


def test_a_go_test_that_hands_over_the_changed_function_reaches_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """cobra's ``TestNoDuplicateArgs`` builds a command with ``getCommand(NoDuplicateArgs, false)``: the
    change to ``NoDuplicateArgs`` is reached by that test, not "untested"."""
    args = "package cli\n\nfunc NoArgs(args []string) error { return nil }\n"
    test = (
        'package cli\n\nimport "testing"\n\n'
        "func getCommand(check func([]string) error) error { return check(nil) }\n\n"
        "func TestNoArgs(t *testing.T) {\n\tif getCommand(NoArgs) != nil {\n\t\tt.Fatal()\n\t}\n}\n"
    )
    root = make_repo(
        tmp_path / "r", {"go.mod": "module example.com/cli\n", "args.go": args, "args_test.go": test}
    )
    commit(root, {"args.go": args.replace("return nil", "return nil // checked")}, "change NoArgs")
    assert main(["tests", "--base", "HEAD~1", "--format", "go", "--repo", str(root)]) == 0
    assert capsys.readouterr().out.strip() == "-run ^(TestNoArgs)$ ."
    pr, changed = pr_changed(capsys, root, "NoArgs")
    assert changed["reached_by"] == ["args_test.go::TestNoArgs"]
    assert not any("no test reaches" in r for r in pr["impact"]["reasons"])


def test_a_typescript_function_handed_to_map_is_reached_by_the_test_of_its_user(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``xs.map(upper)``: a change to ``upper`` is reached by the test of the function that hands it
    over, not reported as untested (ky-style callbacks; "no test reaches: upper" before)."""
    files = {
        "package.json": '{"name": "x", "devDependencies": {"ava": "1"}}\n',
        "src/a.ts": "export function upper(s: string): string {\n  return s.toUpperCase();\n}\n",
        "src/b.ts": "import {upper} from './a';\n\nexport function apply(xs: string[]): string[] {\n"
        "  return xs.map(upper);\n}\n",
        "test/b.test.ts": "import test from 'ava';\nimport {apply} from '../src/b';\n\n"
        "test('apply', t => {\n  t.deepEqual(apply(['a']), ['A']);\n});\n",
    }
    root = make_repo(tmp_path / "r", files)
    commit(root, {"src/a.ts": files["src/a.ts"].replace("toUpperCase()", "toUpperCase().trim()")}, "trim")
    pr, changed = pr_changed(capsys, root, "upper")
    assert changed["reached_by"] == ["test/b.test.ts::'apply'"]
    callers = {c["name"]: c for c in pr["impact"]["callers"]}
    assert callers["apply"]["evidence"] == "passes upper (changed, 1 hop)"
    assert not any("no test reaches" in r for r in pr["impact"]["reasons"])


@pytest.mark.parametrize(
    ("module", "offered"),
    [("pkg/check_constraints.py", True), ("pkg/CheckConstraint.py", True), ("pkg/checks.py", False)],
    ids=["named after the module", "in other cases and forms", "a module name too short to say which"],
)
def test_the_last_fallback_is_the_test_files_named_after_the_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], module: str, offered: bool
) -> None:
    """alembic's ``_compare_check_constraints`` is registered by its module's ``setup`` and run by
    the autogenerate machinery: no test imports its module or is named after it, but
    ``test_autogen_check_constraints.py`` (words of the module's name) is where its tests are."""
    source = "def compare(a, b):\n    return a == b\n\n\ndef setup(registry):\n    registry.append(compare)\n"
    files = {
        "pkg/__init__.py": "",
        module: source,
        "tests/test_autogen_check_constraints.py": "class TestCheckConstraints:\n"
        "    def test_added(self):\n        assert True\n",
    }
    root = make_repo(tmp_path / "r", files)
    commit(root, {module: source.replace("a == b", "a is b")}, "identity")
    _pr, changed = pr_changed(capsys, root, "compare")
    expected = (
        ["tests/test_autogen_check_constraints.py::TestCheckConstraints::test_added"] if offered else []
    )
    assert changed["possibly_reached_by"] == expected
    assert any(
        r.endswith("the tests in the test files named after its module are possible (1)") == offered
        and "not determinable statically" in r
        for r in changed["reasons"]
    )


def test_a_renamed_test_s_local_function_handed_over_is_no_dangling_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ky: renaming a test renames the ``customFetch`` it defines and hands over (``{fetch:
    customFetch}``); the reference resolves to the new one, so the change is not "still referenced"."""
    test = (
        "import test from 'ava';\nimport {run} from '../src/run';\n\n"
        "test('old name', t => {\n  const customFetch = () => 1;\n"
        "  t.is(run({fetch: customFetch}), 1);\n});\n"
    )
    files = {
        "package.json": '{"name": "x", "devDependencies": {"ava": "1"}}\n',
        "src/run.ts": "export function run(options) {\n  return options.fetch();\n}\n",
        "test/run.test.ts": test,
    }
    root = make_repo(tmp_path / "r", files)
    commit(root, {"test/run.test.ts": test.replace("old name", "new name")}, "rename the test")
    pr = cli_json(capsys, "pr", "--base", "HEAD~1", "--repo", str(root))
    assert not any("still referenced" in r for r in pr["impact"]["reasons"])
    assert pr["impact"]["left_references"] == []


def test_a_file_name_is_read_for_the_module_s_words_whenever_it_has_them() -> None:
    """The check that spares stemming every file's name never leaves out a file whose stemmed words
    hold the module's (plurals, "-ies" to "-y", endings, camel case, a name not plain ASCII)."""
    names = [
        "pkg/retries.py",
        "tests/test_retry.py",
        "pkg/Policies.py",
        "tests/test_policy_rules.py",
        "pkg/check_constraints.py",
        "tests/test_autogen_check_constraints.py",
        "pkg/CheckConstraint.ts",
        "pkg/uploading.py",
        "tests/test_upload.py",
        "tests/test_uploaded_files.py",
        "pkg/caches.py",
        "tests/test_cached.py",
        "pkg/ÜberCache.py",
        "tests/test_übercache.py",
        "tests/test_x.py",
    ]
    for module in names:
        words = _stem_words(module) - TEST_WORDS
        held = [path for path in names if words <= _stem_words(path)]
        assert all(_may_spell(path, _pieces(words)) for path in held), module
    assert not _may_spell("tests/test_other.py", ["polic"])  # it does leave out the others
