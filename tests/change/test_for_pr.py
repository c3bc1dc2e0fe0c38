"""Change context end to end on real throwaway repositories: changed symbols, blast radius, tests, risk."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers import commit, git, make_repo

from mnemo_core.cli import main
from mnemo_core.engine import Engine
from mnemo_core.errors import MnemoError
from mnemo_core.model import Impact


def impact_of_edit(tmp_path: Path, files: dict[str, str], path: str, *edits: tuple[str, str]) -> Impact:
    """The impact of one commit that makes ``edits`` (old, new) to ``path`` in a repository of ``files``."""
    root = make_repo(tmp_path / "r", files)
    text = files[path]
    for old, new in edits:
        text = text.replace(old, new)
    commit(root, {path: text}, "edit")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    return impact


BASE = {
    "shop/__init__.py": "",
    "shop/pricing.py": (
        "def total(items):\n"
        "    return sum(price(i) for i in items)\n"
        "\n"
        "def price(item):\n"
        "    return item * 2\n"
        "\n"
        "def discount(x):\n"
        "    return x\n"
    ),
    "shop/cart.py": (
        "from shop.pricing import total\n"
        "\n"
        "class Cart:\n"
        "    def __init__(self):\n"
        "        self.items = []\n"
        "\n"
        "    def checkout(self):\n"
        "        return total(self.items)\n"
        "\n"
        "    def size(self):\n"
        "        return len(self.items)\n"
    ),
    "shop/api.py": "from shop.cart import Cart\n\ndef buy():\n    return Cart().checkout()\n",
    "tests/test_cart.py": (
        "from shop.cart import Cart\n"
        "\n"
        "def test_checkout():\n"
        "    assert Cart().checkout() == 0\n"
        "\n"
        "class TestSize:\n"
        "    def test_empty(self):\n"
        "        assert Cart().size() == 0\n"
    ),
    "README.md": "# shop\n",
}


def days_ago(days: int) -> str:
    """A commit date relative to now: churn counts commits of the last 90 days."""
    return (datetime.now(timezone.utc) - timedelta(days=days)).replace(microsecond=0).isoformat()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "shop", BASE, date=days_ago(400))
    commit(
        root,
        {"shop/pricing.py": BASE["shop/pricing.py"].replace("item * 2", "item * 3")},
        "price change",
        date=days_ago(20),
    )
    return root


def keys(items: object) -> list[str]:
    return [f"{s.symbol.path}:{s.symbol.name}" for s in items]  # type: ignore[attr-defined]


def test_a_method_body_edit_marks_the_method_not_the_class(repo: Path) -> None:
    commit(
        repo,
        {
            "shop/cart.py": BASE["shop/cart.py"].replace(
                "return len(self.items)", "return len(self.items) + 0"
            )
        },
        "size tweak",
        date="2026-02-01T10:00:00+00:00",
    )
    pack = Engine.open(repo).pr(base="HEAD~1")
    assert pack.impact is not None
    assert keys(pack.impact.changed) == ["shop/cart.py:Cart.size"]
    assert pack.impact.changed[0].reasons[0] == "modified"
    assert keys(pack.impact.tests) == ["tests/test_cart.py:TestSize.test_empty"]
    assert pack.impact.risk == "low"


def test_callers_transitively_with_paths_and_tests(repo: Path) -> None:
    commit(
        repo,
        {"shop/pricing.py": BASE["shop/pricing.py"].replace("item * 2", "item * 4")},
        "again",
        date="2026-02-01T10:00:00+00:00",
    )
    pack = Engine.open(repo).pr(base="HEAD~1", depth=3)
    impact = pack.impact
    assert impact is not None
    assert keys(impact.changed) == ["shop/pricing.py:price"]
    callers = {f"{s.symbol.name}": s for s in impact.callers}
    assert set(callers) == {"total", "Cart.checkout", "buy"}
    assert callers["buy"].distance == 3
    assert callers["buy"].reasons[0].startswith("calls Cart.checkout -> calls total -> calls price")
    assert keys(impact.tests) == ["tests/test_cart.py:test_checkout"]
    assert {k: impact.changed[0].components[k] for k in ("callers", "tests")} == {
        "callers": 3.0,
        "tests": 1.0,
    }
    before = impact.changed[0].reasons
    assert (
        "before this change, last changed 3 weeks ago by Ada Tester" in before[1]
        and "price change" in before[1]
    )
    assert any("1 commit on these lines" in r for r in before)


def test_a_deleted_function_still_referenced_is_high_risk(repo: Path) -> None:
    new = BASE["shop/pricing.py"].replace("def price(item):\n    return item * 2\n\n", "")
    commit(repo, {"shop/pricing.py": new}, "drop price", date="2026-02-01T10:00:00+00:00")
    pack = Engine.open(repo).pr(base="HEAD~1")
    impact = pack.impact
    assert impact is not None
    assert [(s.symbol.name, s.reasons[0]) for s in impact.changed] == [("price", "deleted")]
    assert impact.changed[0].components == {"change": 1.0, "churn": 1.0, "dangling": 1.0}
    assert impact.risk == "high"
    assert "price was deleted but is still referenced (1): shop/pricing.py:2" in impact.reasons


def test_a_rename_is_recognised_and_stale_callers_flagged(repo: Path) -> None:
    renamed = BASE["shop/pricing.py"].replace("def discount(x):", "def apply_discount(x):")
    commit(
        repo,
        {
            "shop/pricing.py": renamed,
            "shop/api.py": "from shop.pricing import discount\n"
            + BASE["shop/api.py"]
            + "\ndef sale():\n    return discount(1)\n",
        },
        "rename",
        date="2026-02-01T10:00:00+00:00",
    )
    impact = Engine.open(repo).pr(base="HEAD~1").impact
    assert impact is not None
    renamed_symbols = [s for s in impact.changed if s.reasons[0].startswith("renamed")]
    assert [(s.symbol.name, s.reasons[0]) for s in renamed_symbols] == [
        ("apply_discount", "renamed from discount")
    ]
    assert impact.risk == "high"


def test_signature_and_module_level_changes(repo: Path) -> None:
    commit(
        repo,
        {
            "shop/cart.py": "import os\n"
            + BASE["shop/cart.py"].replace("def checkout(self):", "def checkout(self, coupon=None):")
        },
        "coupons",
        date="2026-02-01T10:00:00+00:00",
    )
    impact = Engine.open(repo).pr(base="HEAD~1").impact
    assert impact is not None
    changed = {s.symbol.name: s.reasons for s in impact.changed}
    assert list(changed) == ["Cart.checkout", "shop.cart"]  # the definition first, its module's imports after
    assert changed["shop.cart"][0] == "module-level code modified (imports)"
    assert "signature was: def checkout(self)" in changed["Cart.checkout"]
    assert any(r.startswith("public signature changed: Cart.checkout") for r in impact.reasons)


def test_a_changed_module_shows_its_own_code_not_its_definitions(repo: Path) -> None:
    commit(
        repo, {"shop/cart.py": "import os\n" + BASE["shop/cart.py"]}, "os", date="2026-02-01T10:00:00+00:00"
    )
    pack = Engine.open(repo).pr(base="HEAD~1")
    (module,) = [s for s in pack.symbols if s.symbol.kind == "module"]
    assert module.body == "import os\nfrom shop.pricing import total"  # not the class below them


def test_a_test_whose_signature_changes_is_not_a_public_signature(repo: Path) -> None:
    tests = BASE["tests/test_cart.py"].replace("def test_checkout():", "def test_checkout(tmp_path):")
    commit(repo, {"tests/test_cart.py": tests}, "a fixture", date="2026-02-01T10:00:00+00:00")
    impact = Engine.open(repo).pr(base="HEAD~1").impact
    assert impact is not None
    (changed,) = impact.changed
    assert "signature was: def test_checkout()" in changed.reasons
    assert not any("signature changed" in r for r in impact.reasons)


def test_a_benchmark_script_is_no_public_api_and_needs_no_test(repo: Path) -> None:
    """A function of ``benchmarks/`` (or examples, docs, scripts) whose signature changes: its
    reasons say so, but the verdict lists no public signature, no public API and no untested code."""
    bench = "from shop.pricing import total\n\n\ndef measure(n):\n    return total(range(n))\n"
    commit(repo, {"benchmarks/bench_total.py": bench}, "bench", date="2026-02-01T10:00:00+00:00")
    changed = bench.replace("def measure(n):", "def measure(n, repeat=3):")
    commit(repo, {"benchmarks/bench_total.py": changed}, "repeat", date="2026-02-02T10:00:00+00:00")
    impact = Engine.open(repo).pr(base="HEAD~1").impact
    assert impact is not None
    (measure,) = impact.changed
    assert "signature was: def measure(n)" in measure.reasons
    assert "0 dependants, no test reaches it" in measure.reasons
    assert impact.reasons == ("a change to examples, docs, scripts or benchmarks: no product code",)
    assert impact.risk == "low"


GO = (
    "package shop\n"
    "\n"
    "type Cart struct {\n"
    "\tItems []int\n"
    "}\n"
    "\n"
    "// Total sums the items.\n"
    "func (c *Cart) Total() int {\n"
    "\treturn len(c.Items)\n"
    "}\n"
)


@pytest.mark.parametrize(
    ("path", "before", "after", "changed"),
    [
        ("shop/cart.go", GO, GO.replace("// Total sums", "// Total counts"), ["Cart.Total"]),
        (
            "shop/cart.go",
            GO,
            GO
            + "\n// Empty says whether the cart is empty.\n// It never fails.\n"
            + "func (c *Cart) Empty() bool {\n"
            "\treturn len(c.Items) == 0\n}\n",
            ["Cart.Empty"],
        ),
        (
            "shop/tax.py",
            "RATE = 2\n\n\ndef tax(x):\n    return x * RATE\n",
            "RATE = 2\n\n\n# in cents\ndef tax(x):\n    return x * RATE\n",
            ["tax"],
        ),
        (
            "shop/tax.py",
            "RATE = 2\n\n\ndef tax(x):\n    return x\n",
            "RATE = 2\n# in cents\n\ndef tax(x):\n    return x\n",
            ["shop.tax"],
        ),
    ],
)
def test_a_doc_comment_belongs_to_the_definition_below_it(
    tmp_path: Path, path: str, before: str, after: str, changed: list[str]
) -> None:
    """A comment block directly above a definition (a Go doc comment, a ``#`` above a function) is
    that definition's; a comment with a blank line below it is the module's."""
    root = make_repo(tmp_path / "repo", {path: before})
    commit(root, {path: after}, "comment")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert [s.symbol.name for s in impact.changed] == changed


def test_staged_and_worktree_changes(repo: Path) -> None:
    pricing = repo / "shop/pricing.py"
    pricing.write_text(pricing.read_text().replace("return x", "return x - 1"))
    git(repo, "add", "shop/pricing.py")
    (repo / "shop/cart.py").write_text(BASE["shop/cart.py"].replace("return len(self.items)", "return 0"))
    staged = Engine.open(repo).pr(staged=True).impact
    worktree = Engine.open(repo).pr(worktree=True).impact
    assert staged is not None and worktree is not None
    assert keys(staged.changed) == ["shop/pricing.py:discount"]
    assert keys(worktree.changed) == ["shop/cart.py:Cart.size", "shop/pricing.py:discount"]
    assert any(r.startswith("no test reaches: discount") for r in staged.reasons)


def test_untracked_unsupported_and_binary_files_are_listed(repo: Path) -> None:
    (repo / "notes.txt").write_text("hello\n")
    (repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (repo / "shop/new.py").write_text("def fresh():\n    return 1\n")
    impact = Engine.open(repo).pr(worktree=True).impact
    assert impact is not None
    assert keys(impact.changed) == ["shop/new.py:fresh"]
    assert impact.changed[0].reasons[0] == "added"
    assert "added logo.png (binary)" in impact.changed_files
    assert "added notes.txt (language not indexed)" in impact.changed_files


def test_an_empty_diff_says_so(repo: Path) -> None:
    pack = Engine.open(repo).pr(worktree=True)
    assert pack.impact is not None and pack.impact.changed == ()
    assert any(n.startswith("no changes in") for n in pack.notes)


def test_an_empty_range_points_at_the_uncommitted_change(repo: Path) -> None:
    """Nothing committed since the base, but edits on disk: the note says how to take them."""
    clean = Engine.open(repo).pr(base="HEAD")
    assert any(n.startswith("no changes in") for n in clean.notes)
    assert not any("uncommitted" in n for n in clean.notes)
    (repo / "shop/pricing.py").write_text((repo / "shop/pricing.py").read_text() + "# edited\n")
    pack = Engine.open(repo).pr(base="HEAD")
    assert pack.notes[-1].endswith(
        "the working tree has uncommitted changes to 1 file: --worktree (or --staged) takes them"
    )


def test_a_merge_commit_as_head(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    commit(
        repo,
        {"shop/api.py": BASE["shop/api.py"] + "\ndef refund():\n    return 0\n"},
        "refund",
        date="2026-02-02T10:00:00+00:00",
    )
    git(repo, "checkout", "-q", "main")
    commit(repo, {"README.md": "# shop!\n"}, "readme", date="2026-02-03T10:00:00+00:00")
    git(
        repo,
        "merge",
        "-q",
        "--no-ff",
        "feature",
        "-m",
        "merge feature",
        env={
            "GIT_AUTHOR_DATE": "2026-02-04T10:00:00+00:00",
            "GIT_COMMITTER_DATE": "2026-02-04T10:00:00+00:00",
        },
    )
    impact = Engine.open(repo).pr(base="HEAD^1", head="HEAD").impact
    assert impact is not None
    assert keys(impact.changed) == ["shop/api.py:refund"]


def test_bad_refs_and_arguments(repo: Path) -> None:
    with pytest.raises(MnemoError, match=r"unknown ref 'mian'.*main"):
        Engine.open(repo).pr(base="mian")
    with pytest.raises(MnemoError, match="depth"):
        Engine.open(repo).pr(depth=0)
    with pytest.raises(MnemoError, match="budget"):
        Engine.open(repo).pr(budget=0)


def test_shallow_clone_without_the_base_explains_how_to_fetch(repo: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(clone)], check=True)
    with pytest.raises(MnemoError, match="fetch"):
        Engine.open(clone).pr(base="HEAD~1")


def test_not_a_repository_pr_fails_but_files_works(tmp_path: Path) -> None:
    for name, text in BASE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    with pytest.raises(MnemoError, match="not inside a git work tree"):
        Engine.open(tmp_path)
    with pytest.raises(MnemoError, match="not inside a git repository"):
        Engine.open(tmp_path, plain=True).pr()
    pack = Engine.open(tmp_path).files([str(tmp_path / "shop/pricing.py")])  # indexed plainly above
    assert pack.impact is not None
    assert {s.symbol.name for s in pack.impact.changed} == {"total", "price", "discount"}
    assert {s.symbol.name for s in pack.impact.callers} == {"Cart.checkout", "buy"}


def test_budget_is_respected(repo: Path) -> None:
    commit(
        repo,
        {"shop/pricing.py": BASE["shop/pricing.py"].replace("item * 2", "item * 5")},
        "x",
        date="2026-02-01T10:00:00+00:00",
    )
    for budget in (10, 60, 500):
        pack = Engine.open(repo).pr(base="HEAD~1", budget=budget)
        assert pack.used_tokens <= budget


def test_a_test_the_change_adds_is_packed_once_within_the_budget(repo: Path) -> None:
    """An added test is both a changed symbol and a test that reaches the change: one entry."""
    commit(
        repo,
        {
            "shop/pricing.py": BASE["shop/pricing.py"].replace("item * 3", "item * 4"),
            "tests/test_pricing.py": (
                "from shop.pricing import price\n\ndef test_price():\n    assert price(1) == 4\n"
            ),
        },
        "price and its test",
        date=days_ago(1),
    )
    pack = Engine.open(repo).pr(base="HEAD~1", budget=10_000)
    listed = keys(pack.symbols)
    assert listed.count("tests/test_pricing.py:test_price") == 1
    assert "tests/test_pricing.py:test_price" in keys(pack.impact.tests if pack.impact else ())
    for budget in (40, 80, 160):
        assert Engine.open(repo).pr(base="HEAD~1", budget=budget).used_tokens <= budget


def test_cli_tests_prints_pytest_node_ids_that_pytest_accepts(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "shop/cart.py").write_text(BASE["shop/cart.py"].replace("return len(self.items)", "return 0"))
    (repo / "shop/pricing.py").write_text(BASE["shop/pricing.py"].replace("item * 2", "item * 7"))
    git(repo, "add", "-A")
    assert main(["tests", "--staged", "--format", "pytest", "--repo", str(repo)]) == 0
    ids = capsys.readouterr().out.split()
    assert ids == ["tests/test_cart.py::test_checkout", "tests/test_cart.py::TestSize::test_empty"] or sorted(
        ids
    ) == ["tests/test_cart.py::TestSize::test_empty", "tests/test_cart.py::test_checkout"]
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *ids],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert collected.returncode == 0, collected.stdout + collected.stderr
    assert "2 tests collected" in collected.stdout


def test_cli_pr_json_follows_the_contract(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pr", "--base", "HEAD~1", "--format", "json", "--repo", str(repo)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == 1 and data["mode"] == "pr"
    assert set(data["impact"]) >= {"changed", "callers", "tests", "risk", "reasons"}
    assert data["impact"]["changed"][0]["name"] == "price"
    assert data["symbols"][0]["changed"] is True


def test_cli_unknown_ref_is_one_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pr", "--base", "nope", "--repo", str(repo)]) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_a_test_path_names_helpers_beyond_the_callers_depth(tmp_path: Path) -> None:
    """Tests are walked further than ``--depth``: the helpers on their path are named, never '?'."""
    files = {
        "pkg/__init__.py": "",
        "pkg/core.py": "def base():\n    return 1\n\ndef inner():\n    return base()\n",
        "tests/test_core.py": (
            "from pkg.core import inner\n\ndef outer():\n    return inner()\n\n"
            "def test_it():\n    assert outer() == 1\n"
        ),
    }
    root = make_repo(tmp_path / "deep", files)
    commit(root, {"pkg/core.py": files["pkg/core.py"].replace("return 1", "return 2")}, "base returns 2")
    impact = Engine.open(root).pr(base="HEAD~1", depth=1).impact
    assert impact is not None
    (test,) = impact.tests
    assert test.reasons[0] == "calls outer -> calls inner -> calls base (changed, 3 hops)"


def test_a_quiet_verdict_says_tested_only_when_a_test_reaches_the_change(tmp_path: Path) -> None:
    """A small change no test reaches (module-level code of an untested module) is low risk, but
    the verdict does not call it tested; a private constant that a tested function reads is."""
    files = {
        "tool/__init__.py": "",
        "tool/plain.py": "padding = 25\n",
        "tool/used.py": "_PADDING = 25\n\n\ndef pad(s):\n    return s.ljust(_PADDING)\n",
        "tests/test_used.py": "from tool import used\n\n\ndef test_pad():\n    assert used.pad('a')\n",
    }
    root = make_repo(tmp_path / "repo", files)
    commit(root, {"tool/plain.py": "padding = 30\n"}, "wider")
    commit(root, {"tool/used.py": files["tool/used.py"].replace("= 25", "= 30")}, "wider too")
    untested = Engine.open(root).pr(base="HEAD~2", head="HEAD~1").impact
    tested = Engine.open(root).pr(base="HEAD~1").impact
    assert untested is not None and tested is not None
    assert (untested.risk, list(untested.reasons)) == (
        "low",
        ["small change with a contained blast radius; no test reaches it statically"],
    )
    assert (tested.risk, list(tested.reasons)) == (
        "low",
        ["small, tested change with a contained blast radius"],
    )


def test_a_change_to_two_definitions_of_one_name_lists_the_name_once(tmp_path: Path) -> None:
    box = (
        "class Box:\n"
        "    @property\n"
        "    def size(self):\n"
        "        return self._size\n"
        "\n"
        "    @size.setter\n"
        "    def size(self, value):\n"
        "        self._size = value\n"
    )
    root = make_repo(tmp_path / "repo", {"pkg/box.py": box})
    commit(root, {"pkg/box.py": box.replace("self._size", "self._n")}, "rename the field")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert [(s.symbol.name, s.reasons[1]) for s in impact.changed] == [
        ("Box.size", "2 of the 2 definitions of size here")
    ]
    assert [r for r in impact.reasons if r.startswith("called by nothing")] == [
        "called by nothing in the repository (or only through code nothing in it calls), so its tests "
        "are not determinable statically: Box.size"
    ]


def test_tests_named_after_the_change_are_listed_first(tmp_path: Path) -> None:
    """Every test builds the object the changed function is registered in; the one named after it
    reaches it through a helper (a weaker path), yet it is listed first: its name says what it tests."""
    files = {
        "pkg/__init__.py": "",
        "pkg/core.py": "def parse_date(s):\n    return s\n\n\ndef build():\n    return parse_date('x')\n",
        "tests/test_a.py": "from pkg.core import build\n\n\ndef test_alpha():\n    build()\n\n\n"
        "def test_beta():\n    build()\n",
        "tests/test_z.py": "from pkg.core import build\n\n\ndef _helper():\n    return build()\n\n\n"
        "def test_parse_date_format():\n    _helper()\n",
    }
    impact = impact_of_edit(tmp_path, files, "pkg/core.py", ("return s", "return s.strip()"))
    assert [t.symbol.name for t in impact.tests] == ["test_parse_date_format", "test_alpha", "test_beta"]


def test_a_class_written_inside_a_test_is_reached_by_that_test_alone(tmp_path: Path) -> None:
    """``CrashApp`` subclasses the ``App`` every test builds: walking back through its base would
    name them all, but code written inside a test function runs in that test only."""
    files = {
        "pkg/__init__.py": "",
        "pkg/app.py": "class App:\n    def compose(self):\n        return []\n\n    def run(self):\n"
        "        return self.compose()\n",
        "tests/test_app.py": "from pkg.app import App\n\n\ndef test_run():\n    App().run()\n\n\n"
        "def test_other():\n    App().run()\n\n\ndef test_crash():\n    class CrashApp(App):\n"
        "        def compose(self):\n            return [1]\n\n    assert CrashApp().run() == [1]\n",
    }
    edits = (("return [1]", "return [2]"), ("== [1]", "== [2]"))
    impact = impact_of_edit(tmp_path, files, "tests/test_app.py", *edits)
    assert [t.symbol.name for t in impact.tests] == ["test_crash"]


def test_a_decorator_on_a_method_of_a_class_a_test_defines_is_run_by_that_test(tmp_path: Path) -> None:
    """``@validates_schema`` on a method of a ``MySchema`` a test defines runs when the test does
    (the class body applies it), though nothing calls the method: the test reaches the decorator;
    a module's class applies it at import, which no test's run covers."""
    files = {
        "pkg/__init__.py": "",
        "pkg/hooks.py": "def validates_schema(fn):\n    fn.hook = 'schema'\n    return fn\n",
        "pkg/schema.py": "from pkg.hooks import validates_schema\n\n\nclass Base:\n"
        "    @validates_schema\n    def check(self):\n        return 1\n",
        "tests/test_hooks.py": "from pkg.hooks import validates_schema\n\n\ndef test_schema():\n"
        "    class MySchema:\n        @validates_schema\n        def check(self):\n            return 1\n\n"
        "    assert MySchema.check.hook == 'schema'\n\n\ndef test_other():\n    assert True\n",
        "tests/test_base.py": "from pkg.schema import Base\n\n\ndef test_base():\n"
        "    assert Base().check() == 1\n",
    }
    impact = impact_of_edit(tmp_path, files, "pkg/hooks.py", ("'schema'", "'schema!'"))
    assert sorted(t.symbol.name for t in impact.tests) == ["test_base", "test_schema"]
    reasons = {t.symbol.name: t.reasons[0] for t in impact.tests}
    assert "applies the decorator validates_schema" in reasons["test_schema"]


def test_an_object_stored_in_a_collection_is_handed_over_whichever_branch_built_it(tmp_path: Path) -> None:
    """sqlparse's ``build_filter_stack``: ``fltr = OutputPHPFilter()`` in one branch, ``fltr =
    OutputPythonFilter()`` in the other, then ``stack.postprocess.append(fltr)``; the stack runs each
    filter's ``process``, which calls the override of ``_process``: both overrides are reached by the
    tests that build a stack, though no line calls them by name."""
    files = {
        "pkg/__init__.py": "",
        "pkg/filters.py": "class OutputFilter:\n    def process(self, stmt):\n"
        "        return self._process(stmt)\n\n"
        "    def _process(self, stmt):\n        raise NotImplementedError\n\n\n"
        "class PhpFilter(OutputFilter):\n    def _process(self, stmt):\n        return '$' + stmt\n\n\n"
        "class PythonFilter(OutputFilter):\n    def _process(self, stmt):\n        return 'sql = ' + stmt\n",
        "pkg/stack.py": "from pkg.filters import PhpFilter, PythonFilter\n\n\nclass Stack:\n"
        "    def __init__(self):\n        self.postprocess = []\n\n    def run(self, stmt):\n"
        "        for f in self.postprocess:\n            stmt = f.process(stmt)\n        return stmt\n\n\n"
        "def build(kind):\n    stack = Stack()\n    if kind == 'php':\n        fltr = PhpFilter()\n"
        "    else:\n        fltr = PythonFilter()\n    stack.postprocess.append(fltr)\n    return stack\n",
        "tests/test_stack.py": "from pkg.stack import build\n\n\ndef test_php():\n"
        "    assert build('php').run('x') == '$x'\n",
    }
    impact = impact_of_edit(tmp_path, files, "pkg/filters.py", ("'sql = '", "'sql= '"))
    assert [t.symbol.name for t in impact.tests] == ["test_php"]
    assert "hands over the class of PythonFilter._process" in impact.tests[0].reasons[0]


def test_each_changed_symbol_counts_all_of_its_own_dependants(tmp_path: Path) -> None:
    """A change to a class and its ``__init__``: every caller that builds the class depends on both,
    though each caller's strongest path names one of them (packaging's ``LowerBound``: "0
    dependants" for its changed ``__init__``, 35 when it changed alone)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/bound.py": "class Bound:\n    def __init__(self, v):\n        self.v = v\n\n\n"
        "def low():\n    return Bound(0)\n\n\ndef high():\n    return Bound(9)\n",
        "pkg/use.py": "from pkg.bound import low\n\n\ndef span():\n    return low()\n",
    }
    edits = (("class Bound:", "class Bound:\n    kind = 'b'\n"), ("self.v = v", "self.v = v + 0"))
    impact = impact_of_edit(tmp_path, files, "pkg/bound.py", *edits)
    counts = {c.symbol.name: c.components["callers"] for c in impact.changed}
    assert counts == {"Bound": 3.0, "Bound.__init__": 3.0}
    assert {c.symbol.name for c in impact.callers} == {"low", "high", "span"}


IMPORTED = {
    "pkg/__init__.py": "",
    "pkg/store.py": (
        "from os import path\nfrom json import (\n    dumps,\n)\n\n\ndef save(x):\n    return dumps(x)\n"
    ),
    "pkg/report.py": "from pkg import store\n\n\ndef report():\n    return store.save(1)\n",
    "pkg/audit.py": "import pkg.store\n\n\ndef audit():\n    return 0\n",
}
UNSEEN_EDITS = {
    "an added import line": ("from os import path\n", "from os import path\nimport re  # for later\n"),
    "a name added inside a bracketed import": ("    dumps,\n", "    dumps,\n    loads,\n"),
    "a private module variable": ("\n\ndef save", "\n_cache = {}\n\n\ndef save"),
    "a TYPE_CHECKING block": (
        "\n\ndef save",
        "\nif TYPE_CHECKING:\n    from re import Pattern\n\n\ndef save",
    ),
}


@pytest.mark.parametrize("edit", sorted(UNSEEN_EDITS))
def test_a_change_importers_cannot_see_leaves_them_possible(
    tmp_path: Path, edit: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Modules that import a module whose change touches only its imports, comments or private names
    read nothing new from it: they are listed apart as possible dependants, with the reason, and not
    counted in the verdict (alembic: 25 of a change's 45 "dependants" were importers of a module that
    gained an import; zod: 14 of 40 commits' blast radius level came from such importers)."""
    impact = impact_of_edit(tmp_path, IMPORTED, "pkg/store.py", UNSEEN_EDITS[edit])
    (module,) = impact.changed
    assert module.reasons[0].startswith("module-level code modified")
    assert impact.callers == ()
    possible = {s.symbol.name: s.reasons for s in impact.possible_callers}
    assert set(possible) == {"pkg.report", "pkg.audit"}
    assert possible["pkg.audit"][-1] == (
        "possible: pkg.store changed only what its importers cannot see (imports, private names, new exports)"
    )
    assert impact.risk == "low"
    assert main(["pr", "--base", "HEAD~1", "--format", "text", "--repo", str(tmp_path / "r")]) == 0
    assert (
        "possible callers, through a change importers cannot see, not counted (2):" in capsys.readouterr().out
    )


@pytest.mark.parametrize(
    "edit",
    [
        ("\n\ndef save", "\nregistry = []\n\n\ndef save"),
        ("\n\ndef save", "\n__all__ = []\n\n\ndef save"),
        ("\n\ndef save", "\nif not TYPE_CHECKING:\n    registry = []\n\n\ndef save"),
        ("from os import path\n", "from os import sep\n"),
        ("from os import path\n", "# from os import path\n"),
    ],
    ids=[
        "a public variable",
        "__all__",
        "code that runs unless type checking",
        "an import replaced (its old name was importable from the module)",
        "an import commented out",
    ],
)
def test_module_level_code_importers_can_see_still_reaches_them(
    tmp_path: Path, edit: tuple[str, str]
) -> None:
    impact = impact_of_edit(tmp_path, IMPORTED, "pkg/store.py", edit)
    (module,) = impact.changed
    assert module.reasons[0].startswith("module-level code modified")
    assert {s.symbol.name for s in impact.callers} == {"pkg.report", "pkg.audit"}
    assert impact.possible_callers == ()


ES_STORE = (
    "import {dumps} from './json';\n\nconst limit = 3;\n\n"
    "export function save(x) {\n  return dumps(x);\n}\n\n"
    "export const handler = dumps((x) => {\n  check(x);\n  // then wrap\n  return x;\n});\n"
)


@pytest.mark.parametrize(
    ("edit", "seen"),
    [
        (("const limit = 3;", "const limit = 4;"), False),
        (("const limit = 3;", "const limit = 4;\nexport { limit };"), True),
        (("const limit = 3;", "export const limit = 4;"), True),
        (("const limit = 3;", "const limit = 3;\nexport { dumps } from './json';"), False),
        (("import {dumps} from './json';", "import {dumps} from './json';\nexport { dumps as d };"), False),
        (("const limit = 3;", "const limit = 3;\nexport default limit;"), True),
        (("  check(x);\n  // then wrap\n", "  // then wrap, unchecked\n"), True),
    ],
    ids=[
        "a private declaration",
        "one exported by an export clause",
        "an exported declaration",
        "an added re-export",
        "an added export clause",
        "an added default export",
        "an exported value's code replaced by a comment",
    ],
)
def test_a_typescript_module_s_private_declaration_is_unseen_by_its_importers(
    tmp_path: Path, edit: tuple[str, str], seen: bool
) -> None:
    """What a TypeScript module's importers can see: its exported declarations and values; not its
    private declarations, and not a name it starts to export (zod's barrel ``external.ts`` gaining
    ``getDiscriminatedOption``: no importer reads it yet)."""
    files = {
        "src/json.ts": "export function dumps(x) {\n  return x;\n}\n",
        "src/store.ts": ES_STORE,
        "src/report.ts": "import * as store from './store';\n\nexport function report() {\n  return 1;\n}\n",
    }
    impact = impact_of_edit(tmp_path, files, "src/store.ts", edit)
    assert [s.symbol.name for s in impact.callers] == (["src/report"] if seen else [])
    assert [s.symbol.name for s in impact.possible_callers] == ([] if seen else ["src/report"])


REEXPORTS = {
    "pkg/__init__.py": "from pkg.core import Flask, helper\n",
    "pkg/core.py": "class Flask:\n    pass\n\n\ndef helper():\n    return 1\n",
    "pkg/app.py": "from pkg import helper\n\n\ndef use():\n    return helper()\n",
}


@pytest.mark.parametrize(
    ("edit", "dropped"),
    [
        (("Flask, helper", "Flask"), True),
        (
            (
                "from pkg.core import Flask, helper\n",
                "from pkg.core import Flask\nfrom pkg.core import helper\n",
            ),
            False,
        ),
        (
            (
                "from pkg.core import Flask, helper\n",
                "from pkg.core import Flask\n\n\ndef helper():\n    return 2\n",
            ),
            False,
        ),
    ],
    ids=["a name no longer imported", "the import split in two", "the name now defined here"],
)
def test_a_name_a_package_no_longer_imports_but_others_import_from_it_is_high_risk(
    tmp_path: Path, edit: tuple[str, str], dropped: bool
) -> None:
    """``from pkg.core import Flask, helper`` -> ``from pkg.core import Flask`` in ``pkg/__init__.py``
    breaks ``from pkg import helper`` elsewhere, though no symbol was deleted."""
    impact = impact_of_edit(tmp_path, REEXPORTS, "pkg/__init__.py", edit)
    finding = "helper is no longer imported in pkg but is still imported from it (1): pkg/app.py:1"
    assert (finding in impact.reasons) == dropped
    assert (impact.risk == "high") == dropped
    assert [(r.name, r.path) for r in impact.left_references] == (
        [("helper", "pkg/app.py")] if dropped else []
    )


def test_a_deleted_import_line_alone_marks_the_module_when_others_import_its_name(tmp_path: Path) -> None:
    files = {**REEXPORTS, "pkg/__init__.py": "from pkg.core import Flask\nfrom pkg.core import helper\n"}
    impact = impact_of_edit(tmp_path, files, "pkg/__init__.py", ("from pkg.core import helper\n", ""))
    assert [c.symbol.name for c in impact.changed] == ["pkg"]
    assert impact.risk == "high"
    assert [(r.name, r.path, r.line) for r in impact.left_references] == [("helper", "pkg/app.py", 1)]


FIXTURES = (
    "import pytest\n"
    "from server import Server as External\n"
    "\n"
    "External.__str__ = lambda self: self.url\n"
    "\n"
    "@pytest.fixture\n"
    "def remote():\n"
    "    class Server(str):\n"
    "        @property\n"
    "        def url(self):\n"
    "            return self\n"
    "\n"
    "    return Server('http://example.org')\n"
)
CLIENT = (
    "class Client:\n"
    "    @property\n"
    "    def url(self):\n"
    "        return 'http://example.org'\n"
    "\n"
    "    def get(self):\n"
    "        return self.url\n"
)


def test_self_outside_any_class_does_not_keep_a_deleted_member_referenced(tmp_path: Path) -> None:
    """``lambda self: self.url`` at module level patches another class: deleting a fixture's local
    ``Server.url`` leaves nothing dangling, while a method's ``self.url`` still uses a deleted property."""
    root = make_repo(tmp_path / "r", {"tests/conftest.py": FIXTURES, "client.py": CLIENT})
    fixtures = FIXTURES.replace(
        FIXTURES[FIXTURES.index("    class Server") : FIXTURES.index("    return")], ""
    )
    commit(root, {"tests/conftest.py": fixtures.replace("Server('http", "('http")}, "plain string")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert not any("still referenced" in r for r in impact.reasons)
    commit(
        root,
        {
            "client.py": CLIENT.replace(
                "    @property\n    def url(self):\n        return 'http://example.org'\n\n", ""
            )
        },
        "drop url",
    )
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert "Client.url was deleted but is still referenced (1): client.py:3" in impact.reasons


def test_a_change_to_comments_and_docstrings_only_changes_no_behaviour(tmp_path: Path) -> None:
    """A repository renamed in its URLs: the comments and docstrings of ``price`` and ``Cart.checkout``
    change, and nothing that calls or tests them can tell (no callers, no tests, no "public API")."""
    impact = impact_of_edit(
        tmp_path,
        BASE,
        "shop/pricing.py",
        ("def price(item):\n", 'def price(item):\n    """See https://example.org/new."""\n    # doubled\n'),
        ("def total(items):\n", "# the sum of the prices\ndef total(items):\n"),
    )
    assert impact.risk == "low"
    assert impact.reasons == (
        "only comments, docstrings, layout or the spelling of annotations changed: no behaviour to test",
    )
    assert not impact.callers and not impact.tests and not impact.possible_tests
    for changed in impact.changed:
        assert (
            "only its comments, docstrings, layout or the spelling of its annotations changed"
            in changed.reasons[-1]
        )


def test_comments_beside_a_code_change_are_a_code_change(tmp_path: Path) -> None:
    impact = impact_of_edit(
        tmp_path, BASE, "shop/pricing.py", ("    return item * 2\n", "    # tripled\n    return item * 3\n")
    )
    assert {s.symbol.name for s in impact.callers} == {"total", "Cart.checkout", "buy"}
    assert not any("comments" in r for r in impact.changed[0].reasons)


def test_a_trailing_comment_outside_python_is_read_as_code(tmp_path: Path) -> None:
    """Line by line, a JavaScript comment line is left out, a comment after code is not."""
    files = {
        "src/price.js": "export function price(item) {\n  // doubled\n  return item * 2;\n}\n",
        "src/total.js": (
            'import { price } from "./price";\n\nexport function total(xs) {\n  return xs.map(price);\n}\n'
        ),
    }
    comment = impact_of_edit(tmp_path / "a", files, "src/price.js", ("// doubled", "// twice"))
    assert comment.risk == "low" and not comment.callers
    trailing = impact_of_edit(tmp_path / "b", files, "src/price.js", ("* 2;", "* 2; // twice"))
    assert {s.symbol.name for s in trailing.callers} == {"total"}


WRAPPERS = {
    "pkg/__init__.py": "",
    "pkg/wrap.py": (
        "class Wrapper:\n"
        "    def __init__(self, stream):\n"
        "        self.stream = stream\n"
        "\n"
        "    def flush(self):\n"
        "        return self.stream.flush()\n"
    ),
    "pkg/use.py": (
        "import sys\n"
        "from pkg.wrap import Wrapper\n"
        "\n"
        "class Quiet(Exception):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "\n"
        "def done(wrapper):\n"
        "    sys.stdout.flush()\n"
        "    return wrapper\n"
    ),
    "tests/test_use.py": (
        "def test_a():\n    def cli():\n        return 1\n    assert cli()\n"
        "\n"
        "def test_b():\n    def cli():\n        return 2\n    assert cli()\n"
    ),
}


def test_members_still_referenced_are_those_their_name_can_reach(tmp_path: Path) -> None:
    """Deleting ``Wrapper.flush`` and ``Wrapper.__init__`` and a test's local ``cli``: a file that
    imports the module but calls ``sys.stdout.flush()`` and ``super().__init__()``, and another
    test's own local ``cli``, use none of them; ``wrapper.flush()`` does."""
    root = make_repo(tmp_path / "r", WRAPPERS)
    commit(
        root,
        {
            "pkg/wrap.py": "class Wrapper:\n    pass\n",
            "tests/test_use.py": WRAPPERS["tests/test_use.py"].split("\ndef test_b")[0],
        },
        "drop members",
    )
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert not any("still referenced" in r for r in impact.reasons)
    use = WRAPPERS["pkg/use.py"].replace("    return wrapper\n", "    return wrapper.flush()\n")
    commit(root, {"pkg/use.py": use}, "flush the wrapper")
    impact = Engine.open(root).pr(base="HEAD~2").impact
    assert impact is not None
    assert "Wrapper.flush was deleted but is still referenced (1): pkg/use.py:10" in impact.reasons


def test_a_go_method_deleted_while_another_method_of_its_type_calls_it(tmp_path: Path) -> None:
    """Go names its receivers freely (``c *Command``): a call inside the type's own methods counts."""
    source = (
        "package cmd\n"
        "\n"
        "type Command struct{}\n"
        "\n"
        'func (c *Command) Name() string { return "x" }\n'
        "\n"
        "func (c *Command) Use() string { return c.Name() }\n"
    )
    root = make_repo(tmp_path / "r", {"go.mod": "module example.com/cmd\n", "cmd/command.go": source})
    commit(
        root,
        {"cmd/command.go": source.replace('func (c *Command) Name() string { return "x" }\n\n', "")},
        "drop",
    )
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert "Command.Name was deleted but is still referenced (1): cmd/command.go:5" in impact.reasons


def test_a_subclass_calling_a_deleted_base_method_through_self_still_references_it(tmp_path: Path) -> None:
    base = "class Base:\n    def hook(self):\n        return 1\n"
    sub = "from pkg.base import Base\n\nclass Sub(Base):\n    def run(self):\n        return self.hook()\n"
    root = make_repo(tmp_path / "r", {"pkg/__init__.py": "", "pkg/base.py": base, "pkg/sub.py": sub})
    commit(root, {"pkg/base.py": "class Base:\n    pass\n"}, "drop hook")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert "Base.hook was deleted but is still referenced (1): pkg/sub.py:5" in impact.reasons


def test_a_method_turned_into_an_attribute_of_its_class_is_not_gone(tmp_path: Path) -> None:
    """``should_ignore_error`` stops being a method and becomes a setting the class still declares:
    the subclass's ``self.should_ignore_error`` reads the attribute, nothing dangles."""
    base = "class App:\n    def should_ignore(self, error):\n        return False\n"
    sub = (
        "from pkg.base import App\n\nclass Flask(App):\n    def run(self, e):\n"
        "        return self.should_ignore is not None and self.should_ignore(e)\n"
    )
    root = make_repo(tmp_path / "r", {"pkg/__init__.py": "", "pkg/base.py": base, "pkg/sub.py": sub})
    commit(root, {"pkg/base.py": "class App:\n    should_ignore: None = None\n"}, "deprecate the hook")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert not any("still referenced" in r for r in impact.reasons)


TYPED = {
    "shop/__init__.py": "",
    "shop/pricing.py": (
        "from typing import List, Optional\n"
        "\n"
        "def price(items: List[int], rate: Optional[float] = None) -> Optional[int]:\n"
        "    return sum(items) if rate is None else int(sum(items) * rate)\n"
    ),
    "shop/cart.py": "from shop.pricing import price\n\ndef total():\n    return price([1])\n",
}


def test_annotations_respelled_alike_are_no_signature_change(tmp_path: Path) -> None:
    """A move to PEP 604 unions and builtin generics changes no signature; a new type does."""
    respelled = impact_of_edit(
        tmp_path / "a",
        TYPED,
        "shop/pricing.py",
        ("from typing import List, Optional\n", ""),
        (
            "items: List[int], rate: Optional[float] = None) -> Optional[int]",
            'items: list[int], rate: "float | None" = None) -> int | None',
        ),
    )
    assert not any("signature" in r for r in respelled.reasons)
    assert not respelled.callers
    retyped = impact_of_edit(
        tmp_path / "b", TYPED, "shop/pricing.py", ("-> Optional[int]", "-> Optional[str]")
    )
    assert "public signature changed: price" in retyped.reasons
    assert {s.symbol.name for s in retyped.callers} == {"total"}


def test_a_range_that_only_deletes_tests_says_so(tmp_path: Path) -> None:
    files = {
        "tool/__init__.py": "",
        "tool/used.py": "def pad(s):\n    return s.ljust(3)\n",
        "tests/test_used.py": (
            "from tool import used\n\n\ndef test_pad():\n    assert used.pad('a')\n\n\n"
            "def test_pad_more():\n    def check(s):\n        return used.pad(s)\n\n    assert check('ab')\n"
        ),
    }
    root = make_repo(tmp_path / "repo", files)
    commit(
        root,
        {"tests/test_used.py": files["tests/test_used.py"].split("\n\n\ndef test_pad_more")[0] + "\n"},
        "drop",
    )
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert (impact.risk, list(impact.reasons)) == ("low", ["tests deleted: test_pad_more"])
