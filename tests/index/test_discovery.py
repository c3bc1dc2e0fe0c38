"""pytest's own collection settings decide what mnemo calls a test (``mnemo_core/index/discovery.py``):
read from the repository's configuration in pytest's order, never run, and followed by the index."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import make_repo

from mnemo_core.cli import main
from mnemo_core.index.discovery import DEFAULT_DISCOVERY, PytestDiscovery, read_discovery
from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path

CALC = "def add(a, b):\n    return a + b\n"
EDITED = "def add(a, b):\n    return b + a\n"
SUITES = (
    "from calc import add\n"
    "\n"
    "class MathSuite:\n"
    "    def test_add(self):\n"
    "        assert add(1, 2) == 3\n"
    "\n"
    "class TestMath:\n"
    "    def test_add_again(self):\n"
    "        assert add(2, 2) == 4\n"
)
SPECS = (
    "from calc import add\n"
    "\n"
    "def it_adds():\n"
    "    assert add(1, 2) == 3\n"
    "\n"
    "def test_adds():\n"
    "    assert add(1, 1) == 2\n"
)
LEGACY = "from calc import add\n\ndef test_legacy():\n    assert add(0, 0) == 0\n"


def impacted_tests(root: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """``mnemo tests --worktree`` for the working tree's change, as test ids."""
    assert main(["tests", "--repo", str(root), "--worktree", "--format", "json", "--no-memory"]) == 0
    return sorted(t["id"] for t in json.loads(capsys.readouterr().out)["tests"])


def files_json(root: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """``mnemo files calc.py``: the tests of the file's symbols."""
    assert main(["files", "calc.py", "--repo", str(root), "--format", "json", "--no-memory"]) == 0
    impact = json.loads(capsys.readouterr().out)["impact"]
    return sorted(f"{t['path']}::{t['name'].replace('.', '::')}" for t in impact["tests"])


def test_python_classes_from_pyproject_name_the_test_classes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = '[tool.pytest.ini_options]\npython_classes = ["*Suite"]\n'
    root = make_repo(
        tmp_path / "r", {"calc.py": CALC, "tests/test_math.py": SUITES, "pyproject.toml": pyproject}
    )
    (root / "calc.py").write_text(EDITED)
    assert impacted_tests(root, capsys) == ["tests/test_math.py::MathSuite::test_add"]
    assert files_json(root, capsys) == ["tests/test_math.py::MathSuite::test_add"]


def test_pytest_ini_names_the_files_and_functions_and_a_change_to_it_reindexes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ini = "[pytest]\npython_files = check_*.py\npython_functions = it_*\n"
    root = make_repo(
        tmp_path / "r",
        {"calc.py": CALC, "tests/check_math.py": SPECS, "tests/test_legacy.py": LEGACY, "pytest.ini": ini},
    )
    (root / "calc.py").write_text(EDITED)
    assert impacted_tests(root, capsys) == ["tests/check_math.py::it_adds"]  # test_legacy.py: not collected
    assert files_json(root, capsys) == ["tests/check_math.py::it_adds"]

    (root / "pytest.ini").unlink()  # only the settings changed: back to mnemo's defaults, where a
    assert impacted_tests(root, capsys) == [  # file under tests/ is test code and test* functions run
        "tests/check_math.py::test_adds",
        "tests/test_legacy.py::test_legacy",
    ]

    (root / "pytest.ini").write_text("[pytest]\npython_files = check_*.py\n")
    assert impacted_tests(root, capsys) == ["tests/check_math.py::test_adds"]


def test_a_malformed_file_is_one_warning_and_the_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    malformed = "python_classes = *Suite\n[pytest]\n"  # a setting outside any section
    root = make_repo(tmp_path / "r", {"calc.py": CALC, "tests/test_math.py": SUITES, "pytest.ini": malformed})
    (root / "calc.py").write_text(EDITED)
    args = ["tests", "--repo", str(root), "--worktree", "--format", "json", "--no-memory"]
    assert main(args) == 0  # it indexes, then maps the change
    out, err = capsys.readouterr()
    assert [t["id"] for t in json.loads(out)["tests"]] == ["tests/test_math.py::TestMath::test_add_again"]
    assert len(err.splitlines()) == 1 and "pytest.ini: pytest settings ignored" in err
    assert "Traceback" not in err


def write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, DEFAULT_DISCOVERY),
        # pytest.ini decides even without a [pytest] section: pyproject's settings are not read
        (
            {
                "pytest.ini": "[other]\nx = 1\n",
                "pyproject.toml": '[tool.pytest.ini_options]\npython_files = "a_*.py"\n',
            },
            PytestDiscovery(source="pytest.ini"),
        ),
        (
            {
                "pyproject.toml": '[tool.pytest.ini_options]\npython_files = "a_*.py b_*.py"\n',
                "tox.ini": "[pytest]\n",
            },
            PytestDiscovery(files=("a_*.py", "b_*.py"), source="pyproject.toml"),
        ),
        # pytest 9's native table
        (
            {"pyproject.toml": '[tool.pytest]\npython_functions = ["check", "*_spec"]\n'},
            PytestDiscovery(functions=("check", "*_spec"), source="pyproject.toml"),
        ),
        # a pyproject without pytest settings does not decide: tox.ini, then setup.cfg
        (
            {
                "pyproject.toml": "[tool.other]\nx = 1\n",
                "tox.ini": "[pytest]\npython_classes =\n  Check\n  *Suite\n",
            },
            PytestDiscovery(classes=("Check", "*Suite"), source="tox.ini"),
        ),
        (
            {"tox.ini": "[tox]\nenvlist = py\n", "setup.cfg": "[tool:pytest]\npython_files = spec_*.py\n"},
            PytestDiscovery(files=("spec_*.py",), source="setup.cfg"),
        ),
        (
            {"pytest.toml": '[pytest]\npython_classes = ["Check"]\n'},
            PytestDiscovery(classes=("Check",), source="pytest.toml"),
        ),
        # the wrong type: the defaults
        ({"pyproject.toml": "[tool.pytest.ini_options]\npython_files = 3\n"}, DEFAULT_DISCOVERY),
        ({"setup.cfg": "python_files = x\n"}, DEFAULT_DISCOVERY),  # no section header
    ],
)
def test_settings_are_read_in_pytests_order(
    tmp_path: Path, files: dict[str, str], expected: PytestDiscovery
) -> None:
    assert read_discovery(write(tmp_path / "r", files)) == expected


def test_names_match_by_prefix_or_glob_and_files_by_name_or_path() -> None:
    rules = PytestDiscovery(
        files=("check_*.py", "tests/*/spec.py"), classes=("Check", "*Suite"), functions=("it",)
    )
    assert rules.collects_file("a/b/check_x.py") and not rules.collects_file("a/test_x.py")
    assert rules.collects_file("tests/unit/spec.py") and rules.collects_file("pkg/tests/unit/spec.py")
    assert not rules.collects_file("spec.py")
    assert rules.test_class("CheckOut", True) and rules.test_class("MathSuite", True)
    assert not rules.test_class("TestMath", True) and not rules.test_class("MathSuite", False)
    assert (
        rules.test_function("it_adds") and rules.test_function("item") and not rules.test_function("test_x")
    )


def classified(path: str, source: str, rules: PytestDiscovery) -> dict[str, tuple[bool, bool]]:
    spec = language_for_path(path)
    assert spec is not None
    return {s.name: (s.is_test, s.is_test_case) for s in extract(path, source.encode(), spec, rules).symbols}


def test_fixtures_and_testcase_methods_follow_pytest() -> None:
    source = (
        "import pytest, unittest\n"
        "@pytest.fixture\n"
        "def test_env():\n"
        "    return 1\n"
        "def it_works(test_env):\n"
        "    pass\n"
        "@pytest.mark.usefixtures('test_env')\n"
        "@pytest.mark.parametrize('a_fixture', [1])\n"
        "def it_uses(a_fixture):\n"
        "    pass\n"
        "class Legacy(unittest.TestCase):\n"
        "    def test_old(self):\n"
        "        pass\n"
    )
    found = classified("tests/check_a.py", source, PytestDiscovery(files=("check_*.py",), functions=("it_",)))
    assert found["test_env"] == (True, False)  # a fixture is test code, never a test
    assert found["it_works"] == (True, True)
    assert found["it_uses"] == (True, True)  # it uses fixtures, it is not one
    assert found["Legacy.test_old"] == (True, True)  # unittest's own prefix, whatever the settings
    assert classified("tests/test_a.py", source, DEFAULT_DISCOVERY)["test_env"] == (True, False)


def test_a_settings_file_outside_the_repository_or_not_a_file_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.ini"
    outside.write_text("[pytest]\npython_classes = *Suite\n")
    root = write(tmp_path / "r", {})
    (root / "pytest.ini").symlink_to(outside)
    assert read_discovery(root) == DEFAULT_DISCOVERY
    (root / "pytest.ini").unlink()
    os.mkfifo(root / "pytest.ini")  # opening a FIFO would block
    assert read_discovery(root) == DEFAULT_DISCOVERY
