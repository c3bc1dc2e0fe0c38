"""Receiver evidence on real throwaway repositories: a test reaches a changed override only if it
names the class (tests/change/test_receivers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import commit, impacted_test_names, make_repo

from mnemo_core.change.assumptions import Assumption
from mnemo_core.engine import Engine


def layered_source(layers: int, overrides: int) -> tuple[str, str]:
    """A package of ``layers`` base classes, each with ``overrides`` subclasses whose method calls the
    next layer's, and a test module with one test per chain of subclasses."""
    parts = []
    for i in range(layers):
        parts.append(f"class B{i}:\n    def m{i}(self, x: 'B{i + 1}'):\n        return 0\n")
        for j in range(overrides):
            body = f"return x.m{i + 1}(x)" if i + 1 < layers else "return 1"
            parts.append(f"class S{i}_{j}(B{i}):\n    def m{i}(self, x: 'B{i + 1}'):\n        {body}\n")
    parts.append(f"class B{layers}:\n    def m{layers}(self, x):\n        return 0\n")
    tests = [
        f"def test_chain_{j}():\n    assert S0_{j}().m0(S1_{j}()) is not None\n" for j in range(overrides)
    ]
    return "\n\n".join(parts), "from pkg.layers import *\n\n\n" + "\n\n".join(tests)


KINDS = (
    "class Kind:\n"
    "    def convert(self, value: str) -> str:\n"
    "        return value\n"
    "\n"
    "class Upper(Kind):\n"
    "    def convert(self, value: str) -> str:\n"
    "        return value.upper()\n"
    "\n"
    "class Lower(Kind):\n"
    "    def convert(self, value: str) -> str:\n"
    "        return value.lower()\n"
    "\n"
    "class Title(Kind):\n"
    "    def convert(self, value: str) -> str:\n"
    "        return value.title()\n"
    "\n"
    "class QuietLower(Lower):\n"
    "    pass\n"
    "\n"
    "UPPER = Upper()\n"
    "\n"
    "def run(kind: Kind, value: str) -> str:\n"
    "    return kind.convert(value)\n"
)
ERRORS = (
    "class AppError(Exception):\n"
    "    def message(self) -> str:\n"
    "        return 'error'\n"
    "\n"
    "class NotFound(AppError):\n"
    "    def message(self) -> str:\n"
    "        return 'not found'\n"
    "\n"
    "class Gone(AppError):\n"
    "    def message(self) -> str:\n"
    "        return super().message() + ' and gone'\n"
    "\n"
    "def report(error: AppError) -> str:\n"
    "    return error.message()\n"
    "\n"
    "def lookup(table: dict, key: str) -> str:\n"
    "    return table[key] if key in table else report(NotFound())\n"
)
FILES = {
    "shop/__init__.py": "",
    "shop/kinds.py": KINDS,
    "shop/errors.py": ERRORS,
    "tests/test_kinds.py": (
        "from shop.kinds import UPPER, Kind, QuietLower, run\n"
        "\n"
        "def test_upper_constant():\n"
        "    assert run(UPPER, 'a') == 'A'\n"
        "\n"
        "def test_lower_subclass():\n"
        "    assert run(QuietLower(), 'A') == 'a'\n"
        "\n"
        "def test_plain():\n"
        "    assert run(Kind(), 'a') == 'a'\n"
        "\n"
        "def test_plain_empty():\n"
        "    assert run(Kind(), '') == ''\n"
        "\n"
        "def test_plain_digits():\n"
        "    assert run(Kind(), '1') == '1'\n"
    ),
    "tests/test_errors.py": (
        "from shop.errors import AppError, Gone, NotFound, lookup, report\n"
        "\n"
        "def test_report():\n"
        "    assert report(AppError()) == 'error'\n"
        "\n"
        "def test_report_twice():\n"
        "    assert report(AppError()) == report(AppError())\n"
        "\n"
        "def test_report_is_text():\n"
        "    assert isinstance(report(AppError()), str)\n"
        "\n"
        "def test_report_upper():\n"
        "    assert report(AppError()).upper() == 'ERROR'\n"
        "\n"
        "def test_report_length():\n"
        "    assert len(report(AppError())) == 5\n"
        "\n"
        "def test_not_found():\n"
        "    assert report(NotFound()) == 'not found'\n"
        "\n"
        "def test_gone():\n"
        "    assert Gone().message() == 'error and gone'\n"
        "\n"
        "def test_lookup_missing():\n"
        "    assert lookup({}, 'key') == 'not found'\n"
    ),
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop", FILES)


def impacted_tests(repo: Path, path: str, old: str, new: str) -> list[str]:
    """The impacted tests of a one-line edit, by name."""
    return impacted_test_names(repo, path, FILES[path].replace(old, new))


ALL_KIND_TESTS = [
    "test_lower_subclass",
    "test_plain",
    "test_plain_digits",
    "test_plain_empty",
    "test_upper_constant",
]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("value.upper()", "value.upper() + ''", ["test_upper_constant"]),  # a constant bound to an Upper()
        ("value.lower()", "value.lower() + ''", ["test_lower_subclass"]),  # a subclass of Lower
    ],
)
def test_a_test_reaches_a_changed_override_only_if_it_names_the_class(
    repo: Path, old: str, new: str, expected: list[str]
) -> None:
    assert impacted_tests(repo, "shop/kinds.py", old, new) == expected


def test_a_changed_base_method_reaches_every_test_of_its_callers(repo: Path) -> None:
    assert (
        impacted_tests(repo, "shop/kinds.py", "        return value\n", "        return value + ''\n")
        == ALL_KIND_TESTS
    )


def test_an_override_that_no_test_names_keeps_every_test(repo: Path) -> None:
    assert impacted_tests(repo, "shop/kinds.py", "value.title()", "value.title() + ''") == ALL_KIND_TESTS


def test_a_class_that_many_of_its_tests_name_is_a_staple(repo: Path) -> None:
    # 3 of 7 tests name Upper: the others likely use it too, unnamed
    more = (
        "from shop.kinds import UPPER, run\n\ndef test_a():\n    run(UPPER, 'a')\n\ndef test_b():\n"
        "    run(UPPER, 'b')\n"
    )
    commit(repo, {"tests/test_more.py": more}, "more tests")
    tests = impacted_tests(repo, "shop/kinds.py", "value.upper()", "value.upper() + ''")
    assert tests == sorted([*ALL_KIND_TESTS, "test_a", "test_b"])


REPORT_TESTS = [
    "test_report",
    "test_report_is_text",
    "test_report_length",
    "test_report_twice",
    "test_report_upper",
]


def test_an_exception_override_is_reached_by_the_tests_that_name_it_or_spell_its_message(repo: Path) -> None:
    # test_lookup_missing never names NotFound, but asserts what it says; test_report* do neither
    tests = impacted_tests(repo, "shop/errors.py", "'not found'", "'not found' + ''")
    assert tests == ["test_lookup_missing", "test_not_found"]


def test_an_exception_that_writes_no_message_needs_no_evidence(tmp_path: Path) -> None:
    # "lost" is one word: it cannot tell a test that raises NotFound from one that does not
    files = {path: text.replace("not found", "lost") for path, text in FILES.items()}
    repo = make_repo(tmp_path / "shop", files)
    tests = impacted_test_names(
        repo, "shop/errors.py", files["shop/errors.py"].replace("'lost'", "'lost' + ''")
    )
    assert tests == ["test_lookup_missing", "test_not_found", *REPORT_TESTS]


def test_a_call_on_self_or_super_dispatches_only_within_its_class_family(repo: Path) -> None:
    # Gone.message calls super().message(): that runs AppError's, never its sibling NotFound's
    tests = impacted_tests(repo, "shop/errors.py", "'not found'", "'not found' + ''")
    assert "test_gone" not in tests
    assert "test_not_found" in tests


def layered(layers: int, overrides: int) -> dict[str, str]:
    """``layers`` base classes, each with ``overrides`` subclasses whose method calls the next layer's
    base method (``bench/layers_speed.py``'s shapes): every path up from the last layer assumes one
    class per layer it climbs."""
    package, tests = layered_source(layers, overrides)
    return {"pkg/__init__.py": "", "pkg/layers.py": package, "tests/test_layers.py": tests}


def test_paths_through_layers_of_overrides_keep_a_bounded_number_of_assumptions(tmp_path: Path) -> None:
    """Six layers of eight overrides give 8**5 receiver assumptions for a method of the first layer
    (the walk took seconds, and minutes one layer deeper); the strongest are kept, and every test
    still reaches the changed override of the last layer."""
    files = layered(6, 8)
    root = make_repo(tmp_path / "layers", files)
    last = "class S5_0(B5):\n    def m5(self, x: 'B6'):\n        return 1\n"
    commit(root, {"pkg/layers.py": files["pkg/layers.py"].replace(last, last.replace("1\n", "2\n"))}, "m5")
    tests = Engine.open(root).pr(base="HEAD~1").impact
    assert tests is not None
    assert sorted(t.symbol.name for t in tests.tests) == [f"test_chain_{j}" for j in range(8)]


def test_the_assumptions_kept_are_the_strongest_and_one_assuming_nothing() -> None:
    from collections import Counter

    from mnemo_core.change.impact import MAX_ASSUMPTIONS, Reach, _bounded

    candidates = {
        (7, frozenset({Assumption.of_symbol(100 + i)})): Reach(7, 3, weight=i / 100, path=(7,), labels=())
        for i in range(40)
    }
    candidates[(7, frozenset())] = Reach(7, 3, weight=0.001, path=(7,), labels=())
    both = frozenset({Assumption.of_symbol(1), Assumption.of_symbol(2)})
    candidates[(8, both)] = Reach(8, 3, weight=0.5, path=(8,), labels=())
    states = Counter({8: MAX_ASSUMPTIONS})  # symbol 8 is full already
    kept = _bounded(candidates, states)
    assert (7, frozenset()) in kept  # the most general path is never dropped
    assert (8, both) not in kept
    assumed = sorted(next(iter(s[1])).symbol for s in kept if s[0] == 7 and s[1])
    assert assumed == list(range(140 - MAX_ASSUMPTIONS, 140))  # the strongest ones
    assert states[7] == MAX_ASSUMPTIONS


# three more tests of the base class, so that two tests naming a subclass do not make it a staple
PLAIN_KIND_TESTS = "".join(
    f"\ndef test_plain_{n}():\n    assert run(Kind(), '{n}')\n" for n in ("x", "y", "z")
)


# test_with_fixture names no kind; the fixture it requests (through another) builds a QuietLower
FIXTURES = (
    "import pytest\n\nfrom shop.kinds import Kind, QuietLower, run\n\n@pytest.fixture\ndef quiet():\n"
    "    return QuietLower()\n\n@pytest.fixture\ndef kind(quiet):\n    return quiet\n\n"
    "def test_with_fixture(kind):\n    assert run(kind, 'A') == 'a'\n"
)
# test_quiet names no kind; the setUp its base class has unittest run before it builds a QuietLower
SET_UP = (
    "import unittest\n\nfrom shop.kinds import Kind, QuietLower, run\n\nclass Base(unittest.TestCase):\n"
    "    def setUp(self):\n        self.kind = QuietLower()\n\nclass TestQuiet(Base):\n"
    "    def test_quiet(self):\n        assert run(self.kind, 'A') == 'a'\n"
)


@pytest.mark.parametrize(
    ("source", "named"), [(FIXTURES, "test_with_fixture"), (SET_UP, "TestQuiet.test_quiet")]
)
def test_what_runs_before_a_test_names_the_class_for_it(repo: Path, source: str, named: str) -> None:
    commit(repo, {"tests/test_more_kinds.py": source + PLAIN_KIND_TESTS}, "tests of a subclass")
    tests = impacted_tests(repo, "shop/kinds.py", "value.lower()", "value.lower() + ''")
    assert tests == sorted(["test_lower_subclass", named])


def test_a_class_holding_the_class_in_an_attribute_names_it(repo: Path) -> None:
    # no test names Title (alone, every test would be kept); Titling holds it as its kind
    holder = "from shop.kinds import Title\n\nclass Titling:\n    kind_class = Title\n"
    test = "from shop.holder import Titling\nfrom shop.kinds import run\n\ndef test_titling():\n"
    test += "    assert run(Titling.kind_class(), 'a b') == 'A B'\n"
    commit(repo, {"shop/holder.py": holder, "tests/test_holder.py": test}, "a holder")
    assert impacted_tests(repo, "shop/kinds.py", "value.title()", "value.title() + ''") == ["test_titling"]


def test_a_test_edited_to_name_the_class_is_read_again(repo: Path) -> None:
    # the words of each test are remembered per index generation: an edit that names the class counts
    commit(
        repo, {"tests/test_more_kinds.py": "from shop.kinds import Kind, run\n" + PLAIN_KIND_TESTS}, "more"
    )
    first = impacted_tests(repo, "shop/kinds.py", "value.lower()", "value.lower() + ''")
    tests = FILES["tests/test_kinds.py"].replace("run(Kind(), '1')", "run(QuietLower(), '1')")
    commit(repo, {"tests/test_kinds.py": tests}, "test_plain_digits takes a QuietLower")
    again = impacted_test_names(
        repo, "shop/kinds.py", FILES["shop/kinds.py"].replace("value.lower()", "value.lower() + ' '")
    )
    assert (first, again) == (["test_lower_subclass"], ["test_lower_subclass", "test_plain_digits"])
