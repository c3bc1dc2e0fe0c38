"""Resolution of Python references into typed edges: scopes and imports before names."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import indexed_edges, indexed_symbols, write_files

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.resolve import Resolver
from mnemo_core.index.store import Store
from mnemo_core.index.world import World
from mnemo_core.model import Edge

PROJECT = {
    "pkg/__init__.py": "from .models import User\n",
    "pkg/models.py": (
        "class Base:\n"
        "    def save(self):\n"
        "        return self.validate()\n"
        "    def validate(self):\n"
        "        return True\n"
        "\n"
        "class User(Base):\n"
        "    def __init__(self, name):\n"
        "        self.name = name\n"
        "    def validate(self):\n"
        "        return super().validate()\n"
    ),
    "pkg/views.py": (
        "from .models import User\n"
        "from pkg import models as m\n"
        "import pkg.util\n"
        "from requests import get\n"
        "\n"
        "def create(name):\n"
        "    user = User(name)\n"
        "    m.Base().save()\n"
        "    pkg.util.slugify(name)\n"
        "    get(name)\n"
        "    return render(user)\n"
        "\n"
        "def render(user):\n"
        "    return user\n"
    ),
    "pkg/util.py": "def slugify(text):\n    return text.lower()\n\ndef get(x):\n    return x\n",
    "other/jobs.py": "def run():\n    return unique_helper()\n\ndef twice():\n    return common()\n",
    "other/helpers.py": "def unique_helper():\n    return 1\n",
    **{f"dups/d{i}.py": "def common():\n    return 0\n" for i in range(5)},
}


@pytest.fixture(scope="module")
def edges(tmp_path_factory: pytest.TempPathFactory) -> set[tuple[str, str, str]]:
    root = tmp_path_factory.mktemp("resolve")
    write_files(root, PROJECT)
    index_repo(root)
    return indexed_edges(root)


def indexed_calls(root: Path) -> set[tuple[str, str]]:
    """Index ``root`` and return its call edges as ``(src key, dst key)``."""
    index_repo(root)
    return {(s, d) for s, d, _ in indexed_edges(root, "calls")}


@pytest.mark.parametrize(
    ("src", "dst", "edge_type", "resolution"),
    [
        ("pkg/views.py:create", "pkg/models.py:User", "calls", "import"),
        ("pkg/views.py:create", "pkg/models.py:User.__init__", "calls", "import"),
        ("pkg/views.py:create", "pkg/models.py:Base.save", "calls", "import"),
        ("pkg/views.py:create", "pkg/util.py:slugify", "calls", "import"),
        ("pkg/views.py:create", "pkg/views.py:render", "calls", "local"),
        ("pkg/models.py:Base.save", "pkg/models.py:Base.validate", "calls", "self"),
        ("pkg/models.py:User.validate", "pkg/models.py:Base.validate", "calls", "self"),
        ("pkg/models.py:User", "pkg/models.py:Base", "inherits", "local"),
        ("pkg/models.py:User.validate", "pkg/models.py:Base.validate", "overrides", "derived"),
        ("other/jobs.py:run", "other/helpers.py:unique_helper", "calls", "name"),
        ("pkg/__init__.py:pkg", "pkg/models.py:User", "imports", "import"),
    ],
)
def test_resolved_edges(
    edges: set[tuple[str, str, str]], src: str, dst: str, edge_type: str, resolution: str, tmp_path: Path
) -> None:
    assert (src, dst, resolution) in edges


def test_an_import_that_leaves_the_repo_is_not_linked_by_name(edges: set[tuple[str, str, str]]) -> None:
    assert not any(s == "pkg/views.py:create" and d == "pkg/util.py:get" for s, d, _ in edges)


def test_ambiguous_names_do_not_flood_the_graph(edges: set[tuple[str, str, str]]) -> None:
    assert not any(s == "other/jobs.py:twice" for s, _, _ in edges)


def test_pytest_fixtures_link_tests_to_what_the_fixture_calls(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "app/core.py": "def make_app():\n    return 1\n\ndef serve(a):\n    return a\n",
            "tests/conftest.py": (
                "import pytest\nfrom app.core import make_app\n\n@pytest.fixture\ndef app():\n"
                "    return make_app()\n"
            ),
            "tests/unit/test_serve.py": (
                "from app.core import serve\n\ndef test_serve(app):\n    assert serve(app)\n"
            ),
        },
    )
    index_repo(tmp_path)
    calls = indexed_edges(tmp_path, "calls")
    tests = indexed_edges(tmp_path, "tests")
    assert ("tests/unit/test_serve.py:test_serve", "tests/conftest.py:app", "fixture") in calls
    assert ("tests/conftest.py:app", "app/core.py:make_app", "import") in calls
    assert ("tests/unit/test_serve.py:test_serve", "app/core.py:serve", "derived") in tests


SCANNERS = (
    "class Scanner:\n    def scan(self, text):\n        return text\n\n"
    "class Other:\n    def scan(self, text):\n        return None\n"
)


def test_fixtures_imported_into_a_test_module_are_found(tmp_path: Path) -> None:
    """pytest finds fixtures among a test module's names: one imported from a helper module
    (``from . import v``, or a wildcard import) is the fixture its tests receive, and types them."""
    write_files(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/core.py": SCANNERS,
            "tests/__init__.py": (
                "import pytest\nfrom app.core import Scanner\n\n@pytest.fixture\ndef v():\n"
                "    return Scanner()\n\ndef helper():\n    return 1\n"
            ),
            "tests/fixtures.py": "import pytest\n\n@pytest.fixture\ndef text():\n    return 'x'\n",
            "tests/test_scan.py": (
                "from . import helper, v\nfrom .fixtures import *\n\n"
                "def test_scan(v, text, helper):\n    assert v.scan(text)\n"
            ),
        },
    )
    index_repo(tmp_path)
    calls = {(d, how) for s, d, how in indexed_edges(tmp_path, "calls") if s.endswith(":test_scan")}
    assert calls == {
        ("tests/__init__.py:v", "fixture"),
        ("tests/fixtures.py:text", "fixture"),  # through the wildcard import
        ("app/core.py:Scanner.scan", "typed"),  # the fixture returns a Scanner; helper is no fixture
    }


def test_generic_bases_dotted_imports_submodules_and_shadowing(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "lib/__init__.py": "class Response:\n    pass\n",
            "lib/helpers.py": "def make():\n    return 1\n",
            "lib/views.py": (
                "from typing import Generic, TypeVar\nT = TypeVar('T')\n\nclass Base(Generic[T]):\n"
                "    def run(self):\n        return 1\n"
            ),
            "lib/json/__init__.py": "def dumps(x):\n    return x\n",
            "lib/json/provider.py": "import json\n\ndef encode(x):\n    return json.dumps(x)\n",
            "json.py": "def dumps(x):\n    return x\n",
            "app.py": (
                "import lib.views\nimport lib\nfrom lib.views import Base\n\n"
                "class Child(Base[int]):\n    def go(self):\n        return self.run()\n\n"
                "def handler():\n    lib.Response()\n    return lib.helpers.make()\n\n"
                "def make():\n    return 0\n\n"
                "def apply(make):\n    return make()\n"
            ),
        },
    )
    index_repo(tmp_path)
    edges = indexed_edges(tmp_path)
    assert ("app.py:Child", "lib/views.py:Base", "import") in edges
    assert ("app.py:Child.go", "lib/views.py:Base.run", "self") in edges
    assert ("app.py:handler", "lib/__init__.py:Response", "import") in edges
    assert ("app.py:handler", "lib/helpers.py:make", "import") in edges
    assert ("lib/json/provider.py:encode", "json.py:dumps", "import") in edges, (
        "absolute import means the top level"
    )
    assert not any(s == "app.py:apply" for s, _, _ in edges), "a parameter shadows the module-level make"


def test_receivers_typed_by_construction_annotation_attribute_and_fixture(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/clients.py": (
                "class Http:\n    def send(self):\n        return 1\n\n"
                "class Ftp:\n    def send(self):\n        return 2\n"
            ),
            "pkg/app.py": (
                "from typing import Optional\nfrom pkg.clients import Http, Ftp\n\n"
                "def built():\n    c = Http()\n    return c.send()\n\n"
                "def annotated(c: Optional[Ftp] = None):\n    return c.send()\n\n"
                "class Service:\n    def __init__(self):\n        self.client = Ftp()\n\n"
                "    def run(self):\n        return self.client.send()\n\n"
                "def untyped(c):\n    return c.send()\n"
            ),
            "tests/conftest.py": (
                "import pytest\nfrom pkg.clients import Http\n\n@pytest.fixture\ndef http() -> Http:\n"
                "    return Http()\n"
            ),
            "tests/test_app.py": "def test_send(http):\n    assert http.send() == 1\n",
        },
    )
    index_repo(tmp_path)
    calls = indexed_edges(tmp_path, "calls")
    assert ("pkg/app.py:built", "pkg/clients.py:Http.send", "typed") in calls
    assert ("pkg/app.py:annotated", "pkg/clients.py:Ftp.send", "typed") in calls
    assert ("pkg/app.py:Service.run", "pkg/clients.py:Ftp.send", "typed") in calls
    assert ("tests/test_app.py:test_send", "pkg/clients.py:Http.send", "typed") in calls
    assert not any(s == "pkg/app.py:built" and d.endswith("Ftp.send") for s, d, _ in calls)
    untyped = {d for s, d, r in calls if s == "pkg/app.py:untyped"}
    assert untyped == {"pkg/clients.py:Http.send", "pkg/clients.py:Ftp.send"}, "untyped: both, by name"


def test_types_from_returns_fixtures_without_annotations_and_class_methods(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "cli/runner.py": (
                "class Result:\n    def output(self):\n        return ''\n\n"
                "class Runner:\n    def invoke(self) -> Result:\n        return Result()\n\n"
                "    @classmethod\n    def default(cls):\n        return cls()\n\n"
                "def make_runner() -> 'Runner':\n    return Runner()\n\n"
                "def use():\n    r = make_runner()\n    res = r.invoke()\n    return res.output()\n"
            ),
            "tests/conftest.py": (
                "import pytest\nfrom cli.runner import Runner\n\n@pytest.fixture\ndef runner():\n"
                "    r = Runner()\n    yield r\n"
            ),
            "tests/test_cli.py": "def test_invoke(runner):\n    assert runner.invoke()\n",
        },
    )
    index_repo(tmp_path)
    calls = indexed_edges(tmp_path, "calls")
    assert ("cli/runner.py:use", "cli/runner.py:Runner.invoke", "typed") in calls
    assert ("cli/runner.py:use", "cli/runner.py:Result.output", "typed") in calls
    assert ("tests/test_cli.py:test_invoke", "cli/runner.py:Runner.invoke", "typed") in calls
    assert ("cli/runner.py:Runner.default", "cli/runner.py:Runner", "self") in calls


def test_implicit_calls_class_attributes_call_dunder_properties_and_with(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/core.py": (
                "class Context:\n    def __init__(self, cmd):\n        self.cmd = cmd\n\n"
                "class Converter:\n    def __call__(self, value):\n        return value\n\n"
                "class Guard:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n"
                "        return False\n\n"
                "class Command:\n    context_class = Context\n\n"
                "    def __init__(self):\n        self.type = Converter()\n\n"
                "    @property\n    def name(self):\n        return 'x'\n\n"
                "    def make_context(self):\n        return self.context_class(self)\n\n"
                "    def convert(self, v):\n        return self.type(v)\n\n"
                "    def label(self):\n        return self.name.upper()\n\n"
                "    def guarded(self):\n        with Guard():\n            return 1\n"
            ),
        },
    )
    calls = indexed_calls(tmp_path)
    assert ("pkg/core.py:Command.make_context", "pkg/core.py:Context.__init__") in calls
    assert ("pkg/core.py:Command.convert", "pkg/core.py:Converter.__call__") in calls
    assert ("pkg/core.py:Command.label", "pkg/core.py:Command.name") in calls
    assert ("pkg/core.py:Command.guarded", "pkg/core.py:Guard.__enter__") in calls
    assert ("pkg/core.py:Command.guarded", "pkg/core.py:Guard.__exit__") in calls


def test_an_object_a_class_attribute_holds_runs_its_call_dunder_when_called_through_self(
    tmp_path: Path,
) -> None:
    """``to_html = create_markdown()`` in a test class, then ``self.to_html(text)``: mistune's round-trip
    tests reach ``Markdown.__call__`` so; a class attribute holding a class builds it instead."""
    write_files(
        tmp_path,
        {
            "pkg/md.py": (
                "class Markdown:\n    def __call__(self, text):\n        return text\n\n"
                "def create_markdown() -> Markdown:\n    return Markdown()\n"
            ),
            "pkg/test_md.py": (
                "from pkg.md import Markdown, create_markdown\n\n"
                "class TestRoundTrip:\n    to_html = create_markdown()\n    direct = Markdown()\n"
                "    kind = Markdown\n\n"
                "    def test_factory(self):\n        assert self.to_html('a')\n\n"
                "    def test_direct(self):\n        assert self.direct('a')\n\n"
                "    def test_built(self):\n        assert self.kind()\n"
            ),
        },
    )
    calls = indexed_calls(tmp_path)
    called = "pkg/md.py:Markdown.__call__"
    assert ("pkg/test_md.py:TestRoundTrip.test_factory", called) in calls
    assert ("pkg/test_md.py:TestRoundTrip.test_direct", called) in calls
    assert ("pkg/test_md.py:TestRoundTrip.test_built", called) not in calls


def test_iteration_runs_iter_of_the_value_typed_through_a_helper_that_returns_a_call_result(
    tmp_path: Path,
) -> None:
    write_files(
        tmp_path,
        {
            "pkg/bar.py": (
                "class Bar:\n    def __iter__(self):\n        return iter(())\n\n"
                "    def __enter__(self):\n        return self\n\n"
                "    def __exit__(self, *a):\n        return False\n\n"
                "class Rows:\n    def __iter__(self):\n        return iter(())\n\n"
                "def progressbar() -> Bar:\n    return Bar()\n"
            ),
            "tests/test_bar.py": (
                "from pkg.bar import Rows, progressbar\n\n"
                "def make_bar():\n    bar = progressbar()\n    return bar\n\n"
                "def test_loop():\n    with make_bar() as bar:\n        for _ in bar:\n            pass\n\n"
                "def test_comprehension():\n    rows = Rows()\n    assert [r for r in rows] == []\n\n"
                "def test_plain_list():\n    for _ in [1, 2]:\n        pass\n"
            ),
        },
    )
    calls = indexed_calls(tmp_path)
    assert ("tests/test_bar.py:test_loop", "pkg/bar.py:Bar.__exit__") in calls, "make_bar returns a Bar"
    assert ("tests/test_bar.py:test_loop", "pkg/bar.py:Bar.__iter__") in calls
    assert ("tests/test_bar.py:test_comprehension", "pkg/bar.py:Rows.__iter__") in calls
    assert not any(src == "tests/test_bar.py:test_plain_list" for src, _ in calls)


def test_parametrised_values_and_union_annotations_type_a_variable_as_every_class_they_name(
    tmp_path: Path,
) -> None:
    write_files(
        tmp_path,
        {
            "pkg/kinds.py": (
                "class Upper:\n    def convert(self, v):\n        return v.upper()\n\n"
                "class Lower:\n    def convert(self, v):\n        return v.lower()\n\n"
                "class Title:\n    def convert(self, v):\n        return v.title()\n\n"
                "def either(kind: Upper | Lower, v):\n    return kind.convert(v)\n\n"
                "def maybe(kind: 'Optional[Title]', v):\n    return kind.convert(v)\n"
            ),
            "tests/test_kinds.py": (
                "import pytest\nfrom pkg import kinds\n\n"
                "@pytest.mark.parametrize(('kind', 'value'),\n"
                "                         [(kinds.Upper(), 'a'), pytest.param(kinds.Lower(), 'B', id='l')])\n"
                "def test_convert(kind, value):\n    assert kind.convert(value)\n\n"
                "@pytest.mark.parametrize('kind', [kinds.Title()])\n"
                "def test_title(kind):\n    assert kind.convert('a b')\n"
            ),
        },
    )
    calls = indexed_calls(tmp_path)
    for kind in ("Upper", "Lower"):
        assert ("tests/test_kinds.py:test_convert", f"pkg/kinds.py:{kind}.convert") in calls
        assert ("pkg/kinds.py:either", f"pkg/kinds.py:{kind}.convert") in calls
    assert ("tests/test_kinds.py:test_convert", "pkg/kinds.py:Title.convert") not in calls
    assert ("tests/test_kinds.py:test_title", "pkg/kinds.py:Title.convert") in calls
    assert ("tests/test_kinds.py:test_title", "pkg/kinds.py:Upper.convert") not in calls
    assert ("pkg/kinds.py:maybe", "pkg/kinds.py:Title.convert") in calls


def test_cls_rebound_by_an_import_or_an_assignment_and_inherited_constructors(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/clients.py": (
                "class Base:\n    def __init__(self, app):\n        self.app = app\n\n"
                "class Client(Base):\n    pass\n"
            ),
            "pkg/app.py": (
                "class App:\n    def client(self):\n        from .clients import Client as cls\n"
                "        return cls(self)\n\n"
                "def option(cls=None):\n    if cls is None:\n        cls = App\n"
                "    def decorator(f):\n        return cls()\n    return decorator\n"
            ),
        },
    )
    calls = indexed_calls(tmp_path)
    assert ("pkg/app.py:App.client", "pkg/clients.py:Client") in calls
    assert ("pkg/app.py:App.client", "pkg/clients.py:Base.__init__") in calls, "the inherited constructor"
    assert ("pkg/app.py:App.client", "pkg/app.py:App") not in calls, "cls is the imported class, not App"
    assert ("pkg/app.py:option.decorator", "pkg/app.py:App") in calls


def test_an_import_inside_a_function_binds_its_name_in_that_function_only(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/_impl.py": "def pager():\n    return 1\n\nclass Fast:\n    pass\n\nclass Slow:\n    pass\n",
            "pkg/ui.py": (
                "def pager():\n    from ._impl import pager\n    return pager()\n\n"
                "def show():\n    return pager()\n\n"
                "def fast():\n    from ._impl import Fast as cls\n    def build():\n        return cls()\n"
                "    return build()\n\n"
                "def slow():\n    from ._impl import Slow as cls\n    return cls()\n"
            ),
        },
    )
    calls = indexed_calls(tmp_path)
    assert ("pkg/ui.py:pager", "pkg/_impl.py:pager") in calls, "the import shadows the module's own pager"
    assert ("pkg/ui.py:show", "pkg/ui.py:pager") in calls
    assert ("pkg/ui.py:show", "pkg/_impl.py:pager") not in calls, "the import is pager's, not the module's"
    assert ("pkg/ui.py:fast.build", "pkg/_impl.py:Fast") in calls, "a nested function sees its outer's import"
    assert ("pkg/ui.py:fast.build", "pkg/_impl.py:Slow") not in calls
    assert ("pkg/ui.py:slow", "pkg/_impl.py:Slow") in calls
    assert ("pkg/ui.py:slow", "pkg/_impl.py:Fast") not in calls
    imports = {(s, d) for s, d, _ in indexed_edges(tmp_path, "imports")}
    assert ("pkg/ui.py:pkg.ui", "pkg/_impl.py:Fast") in imports, "the module imports what its functions do"


def test_a_fixture_returning_a_call_result_types_its_parameter(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "web/app.py": (
                "from web.client import Client\n\n"
                "class App:\n    def test_client(self) -> Client:\n        return Client(self)\n\n"
                "def make_app():\n    return App()\n"
            ),
            "web/client.py": "class Client:\n    def __init__(self, app):\n        self.app = app\n"
            "    def session(self):\n        return 1\n",
            "tests/conftest.py": (
                "import pytest\nfrom web.app import make_app\n\n"
                "@pytest.fixture\ndef app():\n    return make_app()\n\n"
                "@pytest.fixture\ndef client(app):\n    return app.test_client()\n"
            ),
            "tests/test_web.py": "def test_session(client):\n    assert client.session()\n",
        },
    )
    index_repo(tmp_path)
    calls = indexed_edges(tmp_path, "calls")
    assert ("tests/test_web.py:test_session", "web/client.py:Client.session", "typed") in calls


def calls_from(root: Path, files: dict[str, str], caller: str) -> set[tuple[str, str]]:
    """Write ``files`` beside the two scanner classes, index them, and return the call edges of the
    symbol named ``caller`` as ``(callee key, resolution)``."""
    write_files(root, {"app/__init__.py": "", "app/core.py": SCANNERS, **files})
    index_repo(root)
    return {(d, how) for s, d, how in indexed_edges(root, "calls") if s.endswith(f":{caller}")}


# a factory fixture's inner function calls the fixture's own parameter: what the ``v`` fixture returns
CLOSURE_OF_A_FIXTURE = (
    "import pytest\nfrom app.core import Scanner\n\n@pytest.fixture\ndef v():\n"
    "    return Scanner()\n\n@pytest.fixture\ndef check(v):\n"
    "    def examine(text):\n        return v.scan(text)\n\n    return examine\n"
)
# ``scanner=Scanner``, then ``self.scan_with = scanner()``: another method's ``self.scan_with`` is one
PARAMETER_DEFAULT = (
    "from app.core import Scanner\n\n"
    "class Parser:\n    def __init__(self, scanner=Scanner):\n        self.scan_with = scanner()\n\n"
    "    def parse(self, text):\n        return self.scan_with.scan(text)\n"
)

# ``s = self.scan_with``: a local holding what an attribute holds
HELD_ATTRIBUTE = (
    "from app.core import Scanner\n\n"
    "class Parser:\n    def __init__(self, scanner: Scanner):\n        self.scan_with = scanner\n\n"
    "    def parse(self, text):\n        s = self.scan_with\n        return s.scan(text)\n"
)


@pytest.mark.parametrize(
    ("path", "source", "caller"),
    [
        ("tests/conftest.py", CLOSURE_OF_A_FIXTURE, "check.examine"),
        ("app/parser.py", PARAMETER_DEFAULT, "Parser.parse"),
        ("app/parser.py", HELD_ATTRIBUTE, "Parser.parse"),
    ],
    ids=["closure-of-a-fixture", "parameter-default", "held-attribute"],
)
def test_a_receiver_typed_through_what_it_was_given(
    tmp_path: Path, path: str, source: str, caller: str
) -> None:
    """The receiver's class is known (``Scanner``), not guessed among the methods named ``scan``."""
    assert calls_from(tmp_path, {path: source}, caller) == {("app/core.py:Scanner.scan", "typed")}


def test_functions_returning_each_others_results_do_not_recurse(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/loop.py": (
                "def ping(n):\n    return pong(n)\n\n"
                "def pong(n):\n    return ping(n)\n\n"
                "def again(n):\n    return again(n)\n\n"
                "def use():\n    x = ping(1)\n    y = again(2)\n    return x.go(), y.go()\n"
            ),
        },
    )
    calls = indexed_calls(tmp_path)
    assert ("pkg/loop.py:use", "pkg/loop.py:ping") in calls


def test_methods_inherited_from_outside_the_repository_call_back_into_the_class(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "web/app.py": (
                "class App:\n    def __call__(self, environ):\n        return self.dispatch(environ)\n"
                "    def dispatch(self, environ):\n        return environ\n"
            ),
            "web/testing.py": (
                "from werkzeug.test import Client\nfrom web.app import App\n\n"
                "class AppClient(Client):\n    application: App\n\n"
                "    def __init__(self, *args):\n        super().__init__(*args)\n\n"
                "    def open(self, path):\n        return super().open(path)\n\n"
                "    def session(self):\n        return self.get('/')\n\n"
                "    def _build(self, path):\n        return path\n\n"
                "class Plain(dict):\n    def update(self, other):\n        return super().update(other)\n"
            ),
            "tests/test_web.py": (
                "from web.testing import AppClient, Plain\n\n"
                "def test_get():\n    client = AppClient()\n    assert client.get('/')\n\n"
                "def test_plain():\n    plain = Plain()\n    assert plain.get('x')\n"
            ),
        },
    )
    index_repo(tmp_path)
    calls = indexed_edges(tmp_path, "calls")
    assert ("tests/test_web.py:test_get", "web/testing.py:AppClient.open", "callback") in calls
    assert ("tests/test_web.py:test_get", "web/testing.py:AppClient._build", "callback") in calls, (
        "protected hook"
    )
    assert ("tests/test_web.py:test_get", "web/testing.py:AppClient.session", "callback") not in calls
    assert ("web/testing.py:AppClient.session", "web/testing.py:AppClient.open", "callback") in calls
    assert ("web/testing.py:AppClient.open", "web/app.py:App.__call__", "callback") in calls
    assert ("web/testing.py:AppClient.__init__", "web/app.py:App.__call__", "callback") not in calls, (
        "constructors hand the object over; they do not call it"
    )
    assert not any(s == "tests/test_web.py:test_plain" and d.endswith("Plain.update") for s, d, _ in calls), (
        "a built-in base class calls nothing back"
    )


def test_loop_variables_and_with_targets_take_the_element_and_result_types(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/params.py": (
                "class Param:\n    def help(self):\n        return 1\n\n"
                "class Session:\n    def __enter__(self):\n        return self\n"
                "    def __exit__(self, *exc):\n        return None\n    def commit(self):\n"
                "        return 2\n\n"
                "class Command:\n    def __init__(self):\n        self.params: list[Param] = []\n\n"
                "    def get_params(self) -> list[Param]:\n        return self.params\n\n"
                "    def format(self):\n        for p in self.get_params():\n            p.help()\n\n"
                "    def each(self):\n        for q in self.params:\n            q.help()\n\n"
                "    def save(self):\n        with Session() as s:\n            s.commit()\n"
            ),
            "pkg/other.py": (
                "class Other:\n    def help(self):\n        return 3\n    def commit(self):\n"
                "        return 4\n"
            ),
        },
    )
    index_repo(tmp_path)
    calls = indexed_edges(tmp_path, "calls")
    assert ("pkg/params.py:Command.format", "pkg/params.py:Param.help", "typed") in calls
    assert ("pkg/params.py:Command.each", "pkg/params.py:Param.help", "typed") in calls
    assert ("pkg/params.py:Command.save", "pkg/params.py:Session.commit", "typed") in calls
    assert not {(s, d) for s, d, _ in calls} & {
        ("pkg/params.py:Command.format", "pkg/other.py:Other.help"),
        ("pkg/params.py:Command.save", "pkg/other.py:Other.commit"),
    }


def test_annotated_test_parameters_are_fixtures_too(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "web/app.py": "class App:\n    def run(self):\n        return 1\n",
            "tests/conftest.py": (
                "import pytest\nfrom web.app import App\n\n@pytest.fixture\ndef app() -> App:\n"
                "    return App()\n"
            ),
            "tests/test_app.py": (
                "from web.app import App\n\ndef test_run(app: App, tmp_path):\n    assert app.run()\n"
            ),
        },
    )
    index_repo(tmp_path)
    calls = indexed_edges(tmp_path, "calls")
    assert ("tests/test_app.py:test_run", "tests/conftest.py:app", "fixture") in calls
    assert ("tests/test_app.py:test_run", "web/app.py:App.run", "typed") in calls


def test_a_variable_annotated_as_a_class_object_builds_that_class_when_called(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/params.py": "class Option:\n    def __init__(self, decls):\n        self.decls = decls\n",
            "pkg/decorators.py": (
                "import typing as t\nfrom pkg.params import Option\n\n"
                "def option(*decls, cls: t.Optional[type[Option]] = None):\n"
                "    if cls is None:\n        cls = Option\n"
                "    def decorator(f):\n        return cls(decls)\n    return decorator\n\n"
                "def make(factory: type[Option]):\n    return factory('x')\n"
            ),
        },
    )
    calls = indexed_calls(tmp_path)
    assert ("pkg/decorators.py:make", "pkg/params.py:Option.__init__") in calls
    assert ("pkg/decorators.py:option.decorator", "pkg/params.py:Option.__init__") in calls


def test_a_read_of_a_property_of_a_typed_result_reaches_the_property(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/runner.py": (
                "class Result:\n    @property\n    def output(self):\n        return 'out'\n\n"
                "class Runner:\n    def invoke(self) -> Result:\n        return Result()\n"
            ),
            "pkg/report.py": (
                "from pkg.runner import Runner\n\n"
                "def summary():\n    r = Runner()\n    res = r.invoke()\n    return res.output\n"
            ),
            "tests/test_runner.py": (
                "from pkg.runner import Runner\n\n"
                "def test_output():\n    runner = Runner()\n    result = runner.invoke()\n"
                "    assert result.output == 'out'\n\n"
                "def test_untyped(result):\n    assert result.output\n"
            ),
        },
    )
    calls = indexed_calls(tmp_path)
    assert ("tests/test_runner.py:test_output", "pkg/runner.py:Result.output") in calls
    assert ("tests/test_runner.py:test_untyped", "pkg/runner.py:Result.output") not in calls, "untyped: none"
    assert ("pkg/report.py:summary", "pkg/runner.py:Result.output") in calls, "outside tests too"


def test_a_read_of_a_property_runs_its_getter_and_an_assignment_its_setter(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/session.py": (
                "class Session:\n"
                "    @property\n"
                "    def permanent(self) -> bool:\n"
                "        return self._permanent\n\n"
                "    @permanent.setter\n"
                "    def permanent(self, value: bool) -> None:\n"
                "        self._permanent = value\n\n"
                "def keep(session: Session) -> None:\n"
                "    session.permanent = True\n\n"
                "def kept(session: Session) -> bool:\n"
                "    return session.permanent\n"
            ),
        },
    )
    index_repo(tmp_path)
    store = Store.open(tmp_path)
    try:
        lines = {s.id: s.start_line for s in store.symbols_in_file("pkg/session.py")}
        names = {s.id: s.name for s in store.symbols_in_file("pkg/session.py")}
        rows = store.conn.execute("SELECT src, dst, resolution FROM edges WHERE type = 'calls'")
        calls = {(names[s], lines[d], how) for s, d, how in rows if s in names and d in names}
    finally:
        store.close()
    assert calls == {("keep", 6, "typed"), ("kept", 2, "typed")}  # the setter's line, the getter's


def test_a_files_edges_do_not_depend_on_the_files_resolved_before_it(tmp_path: Path) -> None:
    """Each file's variable types are handed down explicitly: resolving the files in another order,
    or one file alone, gives that file the same edges (``c`` is an ``Http`` in one file, an ``Ftp``
    in the other, in a scope of the same name; ``make`` returns a call on its own variable)."""
    write_files(
        tmp_path,
        {
            "pkg/clients.py": (
                "class Http:\n    def send(self):\n        return 1\n    def session(self) -> 'Http':\n"
                "        return self\n\n"
                "class Ftp:\n    def send(self):\n        return 2\n"
            ),
            "pkg/a.py": (
                "from pkg.clients import Http\n\n"
                "def run():\n    c = Http()\n    return c.send()\n\n"
                "def make():\n    c = Http()\n    return c.session()\n"
            ),
            "pkg/b.py": (
                "from pkg.clients import Ftp\nfrom pkg.a import make\n\n"
                "def run():\n    c = Ftp()\n    return c.send()\n\n"
                "def use():\n    d = make()\n    return d.send()\n"
            ),
        },
    )
    index_repo(tmp_path)
    store = Store.open(tmp_path)
    try:
        ids = {f.path: f.id for f in store.files().values()}
        refs = store.refs_of(ids.values())

        def resolved(order: list[str]) -> dict[int, set[Edge]]:
            world = World(store, replaced_files=set(ids.values()), preload=True)
            edges: dict[int, set[Edge]] = {}
            for edge, fid in Resolver(world).resolve({ids[p]: refs[ids[p]] for p in order}):
                edges.setdefault(fid, set()).add(edge)
            return edges

        forward = resolved(["pkg/clients.py", "pkg/a.py", "pkg/b.py"])
        backward = resolved(["pkg/b.py", "pkg/a.py", "pkg/clients.py"])
        alone = resolved(["pkg/b.py"])
    finally:
        store.close()
    assert forward == backward
    assert alone[ids["pkg/b.py"]] == forward[ids["pkg/b.py"]]
    calls = indexed_edges(tmp_path, "calls")
    assert ("pkg/a.py:run", "pkg/clients.py:Http.send", "typed") in calls
    assert ("pkg/b.py:run", "pkg/clients.py:Ftp.send", "typed") in calls
    assert ("pkg/b.py:use", "pkg/clients.py:Http.send", "typed") in calls


def test_a_src_layout_module_is_named_as_it_is_imported(tmp_path: Path) -> None:
    """``src/shop/cart.py`` is the module ``shop.cart`` (as callers and tests are told), imported by it."""
    write_files(
        tmp_path,
        {
            "src/shop/__init__.py": "",
            "src/shop/cart.py": "def total(items):\n    return sum(items)\n",
            "tests/test_cart.py": (
                "from shop.cart import total\n\ndef test_total():\n    assert total([1]) == 1\n"
            ),
        },
    )
    index_repo(tmp_path)
    modules = {key for key, (kind, _, _) in indexed_symbols(tmp_path).items() if kind == "module"}
    assert modules == {
        "src/shop/__init__.py:shop",
        "src/shop/cart.py:shop.cart",
        "tests/test_cart.py:tests.test_cart",
    }
    assert ("tests/test_cart.py:test_total", "src/shop/cart.py:total", "import") in indexed_edges(tmp_path)


GO_ROUTER = """package mux

type Route struct {
	path string
}

func (r *Route) Match(path string) bool {
	return r.path == path
}

func (r *Route) Name() string {
	return r.path
}

type Router struct {
	routes []*Route
	last   *Route
}

func NewRouter() *Router {
	return &Router{}
}

func (r *Router) Match(path string) bool {
	for _, route := range r.routes {
		if route.Match(path) {
			return true
		}
	}
	return r.last.Name() == path
}

func describe(route *Route) string {
	copied := &Route{path: route.path}
	return copied.Name()
}
"""
GO_TEST = """package mux

import "testing"

func TestMatch(t *testing.T) {
	router := NewRouter()
	var other Route
	if router.Match("/") || other.Match("/") {
		t.Fatal("empty")
	}
}
"""


def test_go_variables_are_typed_by_their_declarations(tmp_path: Path) -> None:
    """Go calls on a variable of a known type resolve to that type's method (``Router.Match`` and
    ``Route.Match`` are namesakes a name guess cannot tell apart): parameters, ``var x T``,
    ``x := &T{}``, ``x := NewT()``, range values over a receiver's typed field, and a field read."""
    write_files(tmp_path, {"go.mod": "module example.com/mux\n", "mux.go": GO_ROUTER, "mux_test.go": GO_TEST})
    index_repo(tmp_path)
    typed = {(s, d) for s, d, how in indexed_edges(tmp_path, "calls") if how == "typed"}
    assert typed >= {
        ("mux.go:Router.Match", "mux.go:Route.Match"),
        ("mux.go:Router.Match", "mux.go:Route.Name"),
        ("mux.go:describe", "mux.go:Route.Name"),
        ("mux_test.go:TestMatch", "mux.go:Router.Match"),
        ("mux_test.go:TestMatch", "mux.go:Route.Match"),
    }


INJECTED = """class Store:
    def save(self, x):
        return x


class Other:
    def save(self, x):
        return None


def make_store() -> Store:
    return Store()


class Service:
    def __init__(self, store: Store, items: list[Store], name):
        self.store = store
        self.items = items
        self.name = name
        backup = make_store()
        self.backup = backup

    def run(self, x):
        for item in self.items:
            item.save(x)
        self.backup.save(x)
        self.name.save(x)
        return self.store.save(x)
"""


def test_an_attribute_set_from_a_typed_variable_takes_its_type(tmp_path: Path) -> None:
    """``self.store = store`` with ``store: Store`` (or ``backup = make_store()``) types
    ``self.store`` in every method: ``Store.save``, not a guess between two ``save`` methods; an
    untyped parameter types nothing."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": INJECTED})
    index_repo(tmp_path)
    calls = {(d, how) for s, d, how in indexed_edges(tmp_path, "calls") if s == "pkg/a.py:Service.run"}
    assert calls == {
        ("pkg/a.py:Store.save", "typed"),
        ("pkg/a.py:Other.save", "name"),  # self.name.save: untyped, a guess between the two
    }


RELAY = """\
from typing import TYPE_CHECKING, Final


class Caller:
    def __call__(self, **kwargs):
        return kwargs

    def extra(self):
        return None


class Relay:
    def ping(self):
        return 0

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Caller: ...


class Other:
    def ping(self):
        return 1

    def extra(self):
        return 2


class Base:
    def __init__(self):
        self.hook: Final = Relay()


class Manager(Base):
    calls: Caller

    @property
    def relay(self) -> Relay:
        return self.hook

    def run(self):
        return self.hook.hello.extra()
"""

RELAY_USERS = """\
from pkg.relay import Manager


def make() -> Manager:
    return Manager()


def fire(manager: Manager):
    manager.hook.hello(x=1)


def ping():
    make().relay.ping()
    manager = make()
    manager.hook.ping()
    manager.calls(x=2)
    manager.nothing.ping()
"""


def test_an_attribute_chain_takes_the_types_the_class_gives_its_attributes(tmp_path: Path) -> None:
    """``manager.hook.ping()``: ``manager`` is a ``Manager``, whose base's ``__init__`` sets
    ``self.hook: Final = HookRelay()`` in another file, so the call is ``Relay.ping``, not a guess
    between two ``ping`` methods; a property's declared type, a class-body annotation and a
    ``__getattr__`` that declares what it returns type an attribute too, and calling an attribute
    that holds an object runs its ``__call__``. An attribute nothing types stays a guess."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/relay.py": RELAY, "pkg/users.py": RELAY_USERS})
    index_repo(tmp_path)
    calls = {(s, d, how) for s, d, how in indexed_edges(tmp_path, "calls") if how in ("typed", "name")}
    assert {
        ("pkg/users.py:fire", "pkg/relay.py:Caller.__call__", "typed"),  # Relay.__getattr__ -> Caller
        ("pkg/users.py:ping", "pkg/relay.py:Relay.ping", "typed"),  # a property, and a base's field
        ("pkg/users.py:ping", "pkg/relay.py:Caller.__call__", "typed"),  # calls: Caller, called
        ("pkg/relay.py:Manager.run", "pkg/relay.py:Caller.extra", "typed"),
    } <= calls
    assert ("pkg/users.py:ping", "pkg/relay.py:Other.ping", "name") in calls  # manager.nothing: untyped
    assert not {(s, d) for s, d, _ in calls if d in ("pkg/relay.py:Other.extra",)}

    (tmp_path / "pkg/relay.py").write_text(RELAY.replace("Final = Relay()", "Final = Other()"))
    index_repo(tmp_path)  # the users' file is resolved again: its calls lead into the changed file
    calls = {(s, d, how) for s, d, how in indexed_edges(tmp_path, "calls") if s == "pkg/users.py:ping"}
    assert ("pkg/users.py:ping", "pkg/relay.py:Other.ping", "typed") in calls


SHARED = """\
from pkg.a import Store


_store = Store()


class TestStore:
    def setUp(self):
        self.store = _store

    def test_save(self):
        return self.store.save(1)


class TestShadowed:
    def setUp(self, _store):
        self.store = _store

    def test_save(self):
        return self.store.save(1)
"""


def test_an_attribute_set_from_a_module_level_object_takes_its_type(tmp_path: Path) -> None:
    """``self.store = _store`` where the module builds ``_store = Store()`` (a parser shared by a test
    class's ``setUp``) types ``self.store``; a parameter of the same name hides the module's."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": INJECTED, "tests/test_a.py": SHARED})
    index_repo(tmp_path)
    calls = {(s, d, how) for s, d, how in indexed_edges(tmp_path, "calls") if s.startswith("tests/")}
    saves = {(s.split(":")[1], d, how) for s, d, how in calls if d.endswith(".save")}
    assert ("TestStore.test_save", "pkg/a.py:Store.save", "typed") in saves
    assert not any(s == "TestShadowed.test_save" and how == "typed" for s, _, how in saves)


BUILT = """\
class Parser:
    def parse(self, text):
        return text


class Other:
    def parse(self, text):
        return None


def make_parser():
    parser = Parser()
    return parser


class Front:
    def __init__(self):
        self.parser = make_parser()

    def run(self, text):
        return self.parser.parse(text)
"""


def test_an_attribute_set_from_a_call_holds_what_the_function_returns(tmp_path: Path) -> None:
    """``self.parser = make_parser()`` types ``self.parser`` in every method by what
    ``make_parser`` returns: ``Parser.parse``, not a guess between two ``parse`` methods."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": BUILT})
    index_repo(tmp_path)
    calls = {(d, how) for s, d, how in indexed_edges(tmp_path, "calls") if s == "pkg/a.py:Front.run"}
    assert calls == {("pkg/a.py:Parser.parse", "typed")}


CHECKED = """\
class Node:
    def children(self):
        return []


class Leaf:
    def children(self):
        return None


class Other:
    def children(self):
        return 1


class Extra:
    def children(self):
        return 2


def compare(a, b: Other):
    if isinstance(a, Node):
        return a.children()
    if isinstance(b, (Leaf, Extra)):
        return b.children()
    return None


def mixed(a):
    if isinstance(a, Node):
        return 1
    elif isinstance(a, (Leaf, dict)):
        return a.children()
    return None
"""


def test_an_isinstance_check_types_the_variable_it_checks(tmp_path: Path) -> None:
    """``isinstance(a, Node)`` types ``a`` in its function (four ``children`` are too many to guess
    from); a function's checks of one variable are one union; a declared type comes first."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": CHECKED})
    index_repo(tmp_path)
    edges = indexed_edges(tmp_path, "calls")
    calls = {(s.split(":")[1], d.split(":")[1], how) for s, d, how in edges if d.endswith(".children")}
    assert calls == {
        ("compare", "Node.children", "typed"),
        ("compare", "Other.children", "typed"),  # b: Other, declared before the check
        ("mixed", "Node.children", "typed"),
        ("mixed", "Leaf.children", "typed"),
    }


def test_a_module_level_alias_names_what_it_is_bound_to(tmp_path: Path) -> None:
    """``length = Length`` binds a second name, in the module and for whoever imports it, as
    ``from . import Length as length`` would; a plain variable bound to data names nothing."""
    validators = (
        "class Length:\n"
        "    def __init__(self, n):\n"
        "        self.n = n\n"
        "\n"
        "    def __call__(self, value):\n"
        "        return len(value) <= self.n\n"
        "\n"
        "length = Length\n"
        "limit = 3\n"
        "default = limit\n"
        "\n"
        "def short():\n"
        "    return length(default)\n"
    )
    test = (
        "from pkg.validators import length\n"
        "\n"
        "def test_length():\n"
        "    check = length(2)\n"
        "    assert check('ab')\n"
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/validators.py": validators, "tests/test_v.py": test})
    calls = indexed_calls(tmp_path)
    assert {
        ("pkg/validators.py:short", "pkg/validators.py:Length"),
        ("tests/test_v.py:test_length", "pkg/validators.py:Length"),
        ("tests/test_v.py:test_length", "pkg/validators.py:Length.__call__"),
    } <= calls
    assert not {t for s, t in calls if s == "pkg/validators.py:short"} - {
        "pkg/validators.py:Length",
        "pkg/validators.py:Length.__init__",
    }


def test_a_type_variable_bound_to_a_class_stands_for_it(tmp_path: Path) -> None:
    """``CmdType = TypeVar("CmdType", bound=Command)``: a ``cls: type[CmdType]`` builds a Command
    (click's ``command(cls=...)``), quoted or not; a type variable of no class, or bound to a union,
    names nothing."""
    core = (
        "import typing as t\n"
        "\n"
        "class Command:\n"
        "    def __init__(self, name):\n"
        "        self.name = name\n"
        "\n"
        "class Group(Command):\n"
        "    def __init__(self, name):\n"
        "        super().__init__(name)\n"
        "\n"
        'CmdType = t.TypeVar("CmdType", bound=Command)\n'
        "GrpType = t.TypeVar('GrpType', bound='Group')\n"
        'V = t.TypeVar("V")\n'
        'U = t.TypeVar("U", bound="Command | None")\n'
        "\n"
        "def command(cls: type[CmdType] | None = None):\n"
        "    def decorator(f):\n"
        "        return cls(f.__name__)\n"
        "    return decorator\n"
        "\n"
        "def group(cls: type[GrpType]):\n"
        "    return cls('g')\n"
        "\n"
        "def plain(cls: type[V], other: type[U]):\n"
        "    return cls('v'), other('u')\n"
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": core})
    calls = indexed_calls(tmp_path)
    assert {
        ("pkg/core.py:command.decorator", "pkg/core.py:Command.__init__"),
        ("pkg/core.py:group", "pkg/core.py:Group.__init__"),
    } <= calls
    assert not {t for s, t in calls if s == "pkg/core.py:plain"}


def test_the_first_unpacked_value_of_a_call_is_typed_by_its_declared_tuple(tmp_path: Path) -> None:
    """``obj, rest = resolve(...)`` with ``-> tuple[Command | Option, str]``: ``obj.run()`` is a
    method of those classes (click's shell completion), not a guess among every ``run``."""
    core = (
        "class Command:\n"
        "    def run(self, x):\n"
        "        return x\n"
        "\n"
        "class Option:\n"
        "    def run(self, x):\n"
        "        return x\n"
        "\n"
        "class Job:\n"
        "    def run(self, x):\n"
        "        return x\n"
        "\n"
        "class Task:\n"
        "    def run(self, x):\n"
        "        return x\n"
        "\n"
        "def resolve(name) -> 'tuple[Command | Option, str]':\n"
        "    return Command(), name\n"
        "\n"
        "def complete(name):\n"
        "    obj, rest = resolve(name)\n"
        "    return obj.run(rest)\n"
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": core})
    calls = indexed_calls(tmp_path)
    assert {t for s, t in calls if s == "pkg/core.py:complete"} == {
        "pkg/core.py:resolve",
        "pkg/core.py:Command.run",
        "pkg/core.py:Option.run",
    }


def test_a_class_held_by_a_base_in_another_file_is_built_when_called(tmp_path: Path) -> None:
    """``jinja_environment = Environment`` in a base class (flask's ``App``) and
    ``self.jinja_environment(self)`` in a subclass in another file build an Environment; so does
    ``app.jinja_environment(app)`` on a typed variable, and an attribute declared ``type[...]``."""
    envs = (
        "class Environment:\n"
        "    def __init__(self, app):\n"
        "        self.app = app\n"
        "\n"
        "class Base:\n"
        "    jinja_environment = Environment\n"
        "    other: 'type[Environment]'\n"
    )
    app = (
        "from pkg.envs import Base\n"
        "\n"
        "class App(Base):\n"
        "    def make(self):\n"
        "        return self.jinja_environment(self)\n"
        "\n"
        "    def make_other(self):\n"
        "        return self.other(self)\n"
        "\n"
        "def build(app: App):\n"
        "    return app.jinja_environment(app)\n"
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/envs.py": envs, "pkg/app.py": app})
    calls = indexed_calls(tmp_path)
    assert {s for s, t in calls if t == "pkg/envs.py:Environment.__init__"} >= {
        "pkg/app.py:App.make",
        "pkg/app.py:App.make_other",
        "pkg/app.py:build",
    }


def test_a_property_read_through_a_chain_of_attributes_runs(tmp_path: Path) -> None:
    """``ctx.request.blueprints`` (``ctx`` typed, ``request`` a property returning a Request) and
    ``self.ctx.request.blueprints`` read the property ``Request.blueprints``; a chain on an untyped
    variable reads nothing the resolver can know."""
    ctx = (
        "class Request:\n"
        "    @property\n"
        "    def blueprints(self) -> list:\n"
        "        return []\n"
        "\n"
        "class Context:\n"
        "    def __init__(self):\n"
        "        self._request = Request()\n"
        "\n"
        "    @property\n"
        "    def request(self) -> Request:\n"
        "        return self._request\n"
        "\n"
        "class App:\n"
        "    def __init__(self):\n"
        "        self.ctx = Context()\n"
        "\n"
        "    def teardown(self, ctx: Context):\n"
        "        return list(ctx.request.blueprints)\n"
        "\n"
        "    def current(self):\n"
        "        return self.ctx.request.blueprints\n"
        "\n"
        "def untyped(ctx):\n"
        "    return ctx.request.blueprints\n"
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/ctx.py": ctx})
    calls = indexed_calls(tmp_path)
    assert {s for s, t in calls if t == "pkg/ctx.py:Request.blueprints"} == {
        "pkg/ctx.py:App.teardown",
        "pkg/ctx.py:App.current",
    }


def test_a_local_named_cls_bound_to_the_first_of_an_or_is_typed_by_it(tmp_path: Path) -> None:
    """``cls = template_class or self.template_class`` (jinja's ``from_string``): ``cls`` is the
    class the parameter declares, not the enclosing one, and ``cls.from_code()`` is its method."""
    code = (
        "class Template:\n"
        "    @classmethod\n"
        "    def from_code(cls, code):\n"
        "        return cls()\n"
        "\n"
        "class Env:\n"
        "    template_class: 'type[Template]' = Template\n"
        "\n"
        "    def from_code(self, code):\n"
        "        return code\n"
        "\n"
        "    def from_string(self, source, template_class: 'type[Template] | None' = None):\n"
        "        cls = template_class or self.template_class\n"
        "        return cls.from_code(source)\n"
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/env.py": code})
    calls = indexed_calls(tmp_path)
    assert {t for s, t in calls if s == "pkg/env.py:Env.from_string"} == {"pkg/env.py:Template.from_code"}


def test_a_method_of_an_object_built_from_an_outside_class_is_no_guess(tmp_path: Path) -> None:
    """``self.gzip_file = gzip.GzipFile(...)``: ``self.gzip_file.write()`` runs gzip's ``write``, not
    the repository's only ``write`` (starlette's ``UploadFile.write``, guessed by name before); where
    a class of the repository extends an outside one and defines the method, the guess stays."""
    code = (
        "import gzip\n"
        "import io\n"
        "from jinja2 import BaseLoader\n"
        "\n"
        "class Upload:\n"
        "    def write(self, data):\n"
        "        return data\n"
        "\n"
        "class Loader(BaseLoader):\n"
        "    def get_source(self, name):\n"
        "        return name\n"
        "\n"
        "class Gz:\n"
        "    def __init__(self):\n"
        "        self.gzip_file = gzip.GzipFile(mode='wb', fileobj=io.BytesIO())\n"
        "        self.loader = BaseLoader()\n"
        "\n"
        "    def apply(self, body):\n"
        "        self.gzip_file.write(body)\n"
        "\n"
        "    def load(self, name):\n"
        "        return self.loader.get_source(name)\n"
        "\n"
        "    def save(self, path):\n"
        "        with open(path, 'w') as f:\n"
        "            f.write('x')\n"
    )
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/gz.py": code})
    calls = indexed_calls(tmp_path)
    assert not {t for s, t in calls if s in ("pkg/gz.py:Gz.apply", "pkg/gz.py:Gz.save")}
    assert ("pkg/gz.py:Gz.load", "pkg/gz.py:Loader.get_source") in calls


CAUGHT = """\
class Err(Exception):
    def show(self):
        return 1


class Usage(Err):
    def show(self):
        return 2


class Other:
    def show(self):
        return 3


class Abort(Exception):
    def exit_code(self):
        return 1


def main(run):
    try:
        run()
    except Err as e:
        e.show()
    except (Abort, KeyError) as e:
        e.exit_code()
"""


def test_an_exception_caught_as_a_name_has_the_classes_of_its_handlers(tmp_path: Path) -> None:
    """``except Err as e: e.show()`` is ``Err.show`` (an override runs through it), not a guess
    among three ``show`` methods; the handlers of one name in a function are one union."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": CAUGHT})
    index_repo(tmp_path)
    calls = {(d, how) for s, d, how in indexed_edges(tmp_path, "calls") if s == "pkg/a.py:main"}
    assert calls == {("pkg/a.py:Err.show", "typed"), ("pkg/a.py:Abort.exit_code", "typed")}


RESULTS = """\\
from typing import Self

from itsdangerous import URLSafeTimedSerializer


class TaggedSerializer:
    def dumps(self, value):
        return str(value)


class Store:
    def put(self, value):
        return value

    def dumps(self, value):
        return value

    def copy(self) -> Self:
        return self


class Interface:
    def signer(self) -> URLSafeTimedSerializer | None:
        return URLSafeTimedSerializer("k")

    def store(self) -> "Store":
        return Store()

    def name(self) -> str:
        return "x"

    def save(self, session):
        self.store().put(session)
        self.name().dumps()

    def sign(self, session):
        self.signer().dumps(session)

    def again(self, store: Store):
        store.copy().dumps(1)
"""


def test_a_method_called_on_a_call_s_result_goes_where_the_callee_s_return_type_says(tmp_path: Path) -> None:
    """``self.store().put()`` is ``Store.put`` (``-> "Store"``); ``self.name().dumps()`` is a
    string's method, not a guess at the repository's own ``dumps``; ``-> Self`` is the class. A
    library's type (``-> URLSafeTimedSerializer``) keeps the guess: its ``dumps`` may call the
    serializer the repository handed it."""
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": RESULTS})
    index_repo(tmp_path)
    calls = {(s, d, how) for s, d, how in indexed_edges(tmp_path, "calls") if how in ("typed", "name")}
    assert ("pkg/a.py:Interface.save", "pkg/a.py:Store.put", "typed") in calls
    assert not {d for s, d, _ in calls if s == "pkg/a.py:Interface.save" and d.endswith(".dumps")}
    assert ("pkg/a.py:Interface.again", "pkg/a.py:Store.dumps", "typed") in calls
    assert {d for s, d, how in calls if s == "pkg/a.py:Interface.sign" and how == "name"}
