"""A changed module constant reaches the code that reads it, and through it that code's tests: a
real repository, a real commit, the ``pr`` a reviewer reads and the ``tests`` a gate runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import commit, make_repo

from mnemo_core.cli import main
from mnemo_core.insight import symbol_card
from mnemo_core.repository import Repository

NET = (
    "import logging\n"
    "\n"
    "LOG = logging.getLogger(__name__)\n"
    "TIMEOUT = 5\n"
    "RETRIES = 3\n"
    "\n"
    "def fetch(url):\n"
    '    LOG.info("fetch %s", url)\n'
    "    return url, TIMEOUT\n"
    "\n"
    "def unrelated():\n"
    "    return 1\n"
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/net.py": NET,
    "pkg/client.py": "from pkg.net import RETRIES\n\ndef attempts():\n    return list(range(RETRIES))\n",
    "tests/test_net.py": (
        "from pkg.client import attempts\n"
        "from pkg.net import fetch, unrelated\n"
        "\n"
        "def test_fetch():\n"
        '    assert fetch("u") == ("u", 5)\n'
        "\n"
        "def test_attempts():\n"
        "    assert len(attempts()) == 3\n"
        "\n"
        "def test_unrelated():\n"
        "    assert unrelated() == 1\n"
    ),
}


@pytest.mark.parametrize(
    ("edit", "tests", "path"),
    [
        (("TIMEOUT = 5", "TIMEOUT = 6"), ["test_fetch"], "calls fetch -> uses TIMEOUT"),
        (('LOG.info("fetch', 'LOG.debug("fetch'), ["test_fetch"], "calls fetch"),
        (("getLogger(__name__)", 'getLogger("net")'), ["test_fetch"], "calls fetch -> uses LOG"),
        (("RETRIES = 3", "RETRIES = 4"), ["test_attempts"], "calls attempts -> uses RETRIES"),
    ],
)
def test_a_changed_constant_reaches_the_tests_of_its_readers(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: tuple[str, str],
    tests: list[str],
    path: str,
) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    commit(root, {"pkg/net.py": NET.replace(*edit)}, "tune the network")
    assert main(["tests", "--repo", str(root), "--base", "HEAD~1", "--format", "pytest"]) == 0
    listed = capsys.readouterr().out.split()
    assert [line.rsplit("::", 1)[1] for line in listed] == tests
    assert main(["pr", "--repo", str(root), "--base", "HEAD~1", "--format", "json"]) == 0
    impact = json.loads(capsys.readouterr().out)["impact"]
    assert [t["evidence"].split(" (")[0] for t in impact["tests"]] == [path]
    assert not any(r.startswith("no test reaches") for r in impact["reasons"])
    value_changed = [r for r in impact["reasons"] if r.startswith("public constant's value changed")]
    assert value_changed == (
        [] if edit[0].startswith("LOG.") else [f"public constant's value changed: {path.split()[-1]}"]
    )


def test_the_callers_of_a_constant_are_its_readers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    assert main(["callers", "RETRIES", "--repo", str(root), "--depth", "2", "--format", "json"]) == 0
    hops = json.loads(capsys.readouterr().out)["hops"]
    assert [(h["name"], h["depth"], h["resolution"]) for h in hops] == [
        ("attempts", 1, "import"),
        ("test_attempts", 2, "import"),
    ]


def test_the_callers_of_a_registered_function_run_through_its_registry_to_the_registry_s_readers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``do_upper`` is never called by name: ``FILTERS`` registers it and ``render`` reads ``FILTERS``;
    ``callers`` says so (before, "no callers in the index"), and the hover counts the same caller."""
    files = {
        "pkg/__init__.py": "",
        "pkg/filters.py": (
            "def do_upper(s):\n    return s.upper()\n\n"
            'FILTERS = {"upper": do_upper}\n\n'
            "def render(name, value):\n    return FILTERS[name](value)\n"
        ),
    }
    root = make_repo(tmp_path / "repo", files)
    assert main(["callers", "do_upper", "--repo", str(root), "--depth", "2", "--format", "json"]) == 0
    hops = json.loads(capsys.readouterr().out)["hops"]
    assert [(h["name"], h["depth"], h["resolution"]) for h in hops] == [
        ("FILTERS", 1, "registry"),
        ("render", 2, "registry"),
    ]
    repository = Repository.open(root)
    try:
        (symbol,) = repository.store.find_symbols("do_upper")
        assert symbol_card(repository, symbol).callers == 1
    finally:
        repository.close()


JAVA = "src/main/java/com/acme/"
ADAPTERS = (
    "package com.acme;\n"
    "\n"
    "public final class Adapters {\n"
    "  public static final int MAX_SIZE = 10;\n"
    "\n"
    "  public static final Adapter ADDRESS =\n"
    "      new Adapter() {\n"
    "        @Override\n"
    "        public String read(String in) {\n"
    "          return in.trim();\n"
    "        }\n"
    "      };\n"
    "\n"
    "  public static final Factory ADDRESS_FACTORY = Factory.of(ADDRESS);\n"
    "\n"
    "  static int limit(int n) {\n"
    "    return Math.min(n, MAX_SIZE);\n"
    "  }\n"
    "}\n"
)
JAVA_FILES = {
    f"{JAVA}Adapters.java": ADAPTERS,
    f"{JAVA}Adapter.java": (
        "package com.acme;\n\npublic abstract class Adapter {\n  public abstract String read(String in);\n}\n"
    ),
    f"{JAVA}Factory.java": (
        "package com.acme;\n"
        "\n"
        "public final class Factory {\n"
        "  final Adapter adapter;\n"
        "\n"
        "  Factory(Adapter adapter) {\n"
        "    this.adapter = adapter;\n"
        "  }\n"
        "\n"
        "  static Factory of(Adapter adapter) {\n"
        "    return new Factory(adapter);\n"
        "  }\n"
        "}\n"
    ),
    f"{JAVA}Codec.java": (  # a class of the same package, read through its name without an import
        "package com.acme;\n"
        "\n"
        "import java.util.ArrayList;\n"
        "import java.util.List;\n"
        "\n"
        "public final class Codec {\n"
        "  private final List<Factory> factories = new ArrayList<>();\n"
        "\n"
        "  public Codec() {\n"
        "    factories.add(Adapters.ADDRESS_FACTORY);\n"
        "  }\n"
        "\n"
        "  public String decode(String in) {\n"
        "    return factories.get(0).adapter.read(in);\n"
        "  }\n"
        "}\n"
    ),
    "src/test/java/com/acme/CodecTest.java": (
        "package com.acme;\n"
        "\n"
        "import org.junit.Test;\n"
        "\n"
        "public class CodecTest {\n"
        "  @Test\n"
        "  public void decodesAddresses() {\n"
        '    new Codec().decode(" a ");\n'
        "  }\n"
        "\n"
        "  @Test\n"
        "  public void limits() {\n"
        "    Adapters.limit(3);\n"
        "  }\n"
        "}\n"
    ),
}


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (("= 10;", "= 12;"), "calls Adapters.limit -> uses Adapters.MAX_SIZE"),
        (
            (
                "in.trim()",
                "in.strip()",
            ),  # a method of an object a constant holds: reached through the constant
            "calls Codec.Codec -> uses Adapters.ADDRESS_FACTORY -> uses Adapters.ADDRESS"
            " -> defines Adapters.ADDRESS.read",
        ),
    ],
)
def test_a_java_class_constant_reaches_the_tests_of_its_readers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: tuple[str, str], path: str
) -> None:
    root = make_repo(tmp_path / "repo", JAVA_FILES)
    commit(root, {f"{JAVA}Adapters.java": ADAPTERS.replace(*edit)}, "tune the adapters")
    assert main(["pr", "--repo", str(root), "--base", "HEAD~1", "--format", "json"]) == 0
    impact = json.loads(capsys.readouterr().out)["impact"]
    assert [t["evidence"].split(" (")[0] for t in impact["tests"]] == [path]
    assert not any(r.startswith("no test reaches") for r in impact["reasons"])


STORE_GO = (
    "package store\n"
    "\n"
    'import "errors"\n'
    "\n"
    "// ErrNotFound is returned when no item has the key.\n"
    'var ErrNotFound = errors.New("not found")\n'
    "\n"
    "const (\n"
    "\tdefaultSize = 8\n"
    "\tmaxSize     = 64\n"
    ")\n"
    "\n"
    "func capacity(n int) int {\n"
    "\tif n > maxSize {\n"
    "\t\treturn defaultSize\n"
    "\t}\n"
    "\treturn n\n"
    "}\n"
)
GO_FILES = {
    "go.mod": "module example.com/shop\n\ngo 1.21\n",
    "store/store.go": STORE_GO,
    "store/get.go": (  # another file of the package reads the error by its bare name
        "package store\n"
        "\n"
        "func Get(items map[string]int, key string) (int, error) {\n"
        "\tif v, ok := items[key]; ok {\n"
        "\t\treturn v, nil\n"
        "\t}\n"
        "\treturn 0, ErrNotFound\n"
        "}\n"
    ),
    "store/store_test.go": (
        "package store\n"
        "\n"
        'import "testing"\n'
        "\n"
        "func TestGet(t *testing.T) {\n"
        '\tif _, err := Get(nil, "k"); err == nil {\n'
        '\t\tt.Fatal("no error")\n'
        "\t}\n"
        "}\n"
        "\n"
        "func TestCapacity(t *testing.T) {\n"
        "\tif capacity(100) != 8 {\n"
        '\t\tt.Fatal("not capped")\n'
        "\t}\n"
        "}\n"
    ),
}


@pytest.mark.parametrize(
    ("edit", "path"),
    [
        (('errors.New("not found")', 'errors.New("no such key")'), "calls Get -> uses ErrNotFound"),
        (("defaultSize = 8", "defaultSize = 16"), "calls capacity -> uses defaultSize"),
    ],
)
def test_a_go_package_variable_reaches_the_tests_of_its_readers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: tuple[str, str], path: str
) -> None:
    root = make_repo(tmp_path / "repo", GO_FILES)
    commit(root, {"store/store.go": STORE_GO.replace(*edit)}, "tune the store")
    assert main(["pr", "--repo", str(root), "--base", "HEAD~1", "--format", "json"]) == 0
    impact = json.loads(capsys.readouterr().out)["impact"]
    assert [c["name"] for c in impact["changed"]] == [path.rsplit(" ", 1)[-1]]
    assert [t["evidence"].split(" (")[0] for t in impact["tests"]] == [path]


def test_the_tests_of_a_go_change_print_as_go_test_takes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``mnemo tests`` prints pytest node ids for Python tests; for Go's, ``go test``'s ``-run`` and
    packages by default (``go test $(mnemo tests)``), their files or pytest-style ids when asked."""
    root = make_repo(tmp_path / "repo", GO_FILES)
    commit(
        root, {"store/store.go": STORE_GO.replace('errors.New("not found")', 'errors.New("gone")')}, "word"
    )
    assert main(["tests", "--repo", str(root), "--base", "HEAD~1"]) == 0
    assert capsys.readouterr().out == "-run ^(TestGet)$ ./store\n"
    assert main(["tests", "--repo", str(root), "--base", "HEAD~1", "--format", "files"]) == 0
    assert capsys.readouterr().out == "store/store_test.go\n"
    assert main(["tests", "--repo", str(root), "--base", "HEAD~1", "--format", "pytest"]) == 0
    assert capsys.readouterr().out == "store/store_test.go::TestGet\n"


def test_go_test_s_form_is_refused_for_python_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    commit(root, {"pkg/net.py": NET.replace("TIMEOUT = 5", "TIMEOUT = 6")}, "longer")
    assert main(["tests", "--repo", str(root), "--base", "HEAD~1", "--format", "go"]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "mnemo: error: --format go: these tests are not all top-level Go test functions; try --format files"
    ]
