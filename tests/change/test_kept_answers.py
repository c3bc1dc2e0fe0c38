"""A change's answer kept across processes (``change.answers``): read back only while nothing it
depends on moved, on real repositories."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from helpers import commit, git, make_repo, write_files

from mnemo_core.change.answers import SUBDIR, still_reads_the_same
from mnemo_core.engine import Engine
from mnemo_core.index.store import index_path
from mnemo_core.model import ContextPack
from mnemo_core.vcs.history import DAY_S

FILES = {
    "shop/__init__.py": "",
    "shop/pricing.py": (
        "def price(item):\n    return item * 2\n\n\ndef discount(x):\n    return x\n\n\ndef total(items):\n"
        "    return sum(price(i) for i in items)\n"
    ),
    "tests/test_pricing.py": (
        "from shop.pricing import price\n\n\ndef test_price():\n    assert price(1) == 2\n"
    ),
}
PRICE_EDIT = ("return item * 2", "return item * 3")
NEW_TEST = {
    "tests/test_more.py": "from shop.pricing import price\n\n\ndef test_more():\n    assert price(2) == 4\n"
}
PACK_QUERY = 1  # the place of ``query`` in a kept pack's fields


def _edited(root: Path, old: str, new: str) -> str:
    return (root / "shop/pricing.py").read_text(encoding="utf-8").replace(old, new)


def _repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "r", FILES)
    commit(root, {"shop/pricing.py": _edited(root, *PRICE_EDIT)}, "price triples")
    return root


def _entries(root: Path) -> list[Path]:
    return sorted((index_path(root).parent / SUBDIR).glob("*.json"))


def _tests(pack: ContextPack) -> set[str]:
    assert pack.impact is not None
    return {t.symbol.name for t in (*pack.impact.tests, *pack.impact.possible_tests)}


def _same(a: ContextPack, b: ContextPack) -> bool:
    return replace(a, stats={**a.stats, "elapsed_ms": 0}) == replace(b, stats={**b.stats, "elapsed_ms": 0})


def _rewrite(entry: Path, **changes: object) -> None:
    """Change a kept entry in place: ``query`` of its pack, or its own fields."""
    record = json.loads(entry.read_text(encoding="utf-8"))
    if "query" in changes:
        record["pack"][PACK_QUERY] = changes.pop("query")
    record.update(changes)
    entry.write_text(json.dumps(record), encoding="utf-8")


def test_a_repeated_question_is_read_back_whole(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    first = Engine.open(root).pr(base="HEAD~1")
    assert len(_entries(root)) == 1 and _tests(first) == {"test_price"}
    again = Engine.open(root).pr(base="HEAD~1")
    assert _same(first, again)  # every field of every symbol survives the round trip
    _rewrite(_entries(root)[0], query="kept")
    assert Engine.open(root).pr(base="HEAD~1").query == "kept"  # it was read, not computed again
    tests = Engine.open(root).tests(base="HEAD~1")  # ``mnemo tests`` asks the same question
    assert {t.symbol.name for t in tests} == {"test_price"} and len(_entries(root)) == 1


def test_an_edit_of_the_working_tree_is_not_answered_from_the_older_index(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    head = git(root, "rev-parse", "HEAD").strip()
    assert _tests(Engine.open(root).pr(base="HEAD~1", head=head)) == {"test_price"}
    write_files(root, NEW_TEST)  # not committed: the index of the working tree has it
    after = Engine.open(root).pr(base="HEAD~1", head=head)
    assert _tests(after) == {"test_price", "test_more"}
    for entry in _entries(root):
        entry.unlink()
    assert _same(after, Engine.open(root).pr(base="HEAD~1", head=head))  # as computed afresh
    assert len(_entries(root)) == 1  # the older generation's entry was removed


def test_a_commit_moves_the_answer(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    base, head = git(root, "rev-parse", "HEAD~1", "HEAD").split()
    assert _tests(Engine.open(root).pr(base=base, head=head)) == {"test_price"}
    commit(root, NEW_TEST, "another test")
    after = Engine.open(root).pr(base=base, head=head)
    assert _tests(after) == {"test_price", "test_more"} and after.commit != head


def test_the_staged_change_is_keyed_by_what_is_staged(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    write_files(root, {"shop/pricing.py": _edited(root, "return x", "return x + 1")})
    git(root, "add", "shop/pricing.py")
    first = Engine.open(root).pr(staged=True)
    assert first.impact is not None and [c.symbol.name for c in first.impact.changed] == ["discount"]
    write_files(root, {"shop/pricing.py": _edited(root, "return item * 3", "return item * 4")})
    git(root, "add", "shop/pricing.py")
    second = Engine.open(root).pr(staged=True)
    assert second.impact is not None
    assert sorted(c.symbol.name for c in second.impact.changed) == ["discount", "price"]


def test_an_answer_whose_dates_read_otherwise_now_is_computed_again(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    first = Engine.open(root).pr(base="HEAD~1")
    entry = _entries(root)[0]
    record = json.loads(entry.read_text(encoding="utf-8"))
    assert record["dated"], "the answer renders the commits' dates"
    _rewrite(entry, query="kept", made=record["made"] - 400 * DAY_S)  # "a year ago" then, not now
    again = Engine.open(root).pr(base="HEAD~1")
    assert again.query == first.query and _same(first, again)


def test_the_working_tree_and_coverage_answers_are_not_kept(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    write_files(root, {"shop/pricing.py": _edited(root, "return x", "return x + 1")})
    Engine.open(root).pr(worktree=True)
    assert _entries(root) == []


def test_dates_read_the_same_until_a_word_or_the_churn_window_moves() -> None:
    made = 1_800_000_000
    assert still_reads_the_same(made, made + 60, (made - 10 * DAY_S,))  # "10 days ago" both times
    assert not still_reads_the_same(made, made + 2 * DAY_S, (made - 10 * DAY_S,))  # 12 days
    window_edge = made - 90 * DAY_S + 30  # inside the churn window when made, outside a minute later
    assert not still_reads_the_same(made, made + 60, (window_edge,))
    assert still_reads_the_same(made, made + 3 * DAY_S, ())


_PROBE = """
import contextlib, io, json, sys
from mnemo_core.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
print(json.dumps(sorted(m for m in sys.modules if m.startswith("mnemo_core"))))
"""
ANALYSIS = ("mnemo_core.change.impact", "mnemo_core.change.context", "mnemo_core.change.diffmap")


def test_a_kept_answer_loads_no_analysis(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    code = Path(__file__).resolve().parents[2]
    env = {"PYTHONPATH": str(code), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}

    def loaded() -> list[str]:
        argv = ["pr", "--base", "HEAD~1", "--format", "json", "--repo", str(root)]
        run = subprocess.run(
            [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=True, env=env
        )
        modules: list[str] = json.loads(run.stdout.splitlines()[-1])
        return modules

    first, second = loaded(), loaded()
    assert set(ANALYSIS) <= set(first)  # computed
    assert "mnemo_core.change.answers" in second
    assert not [m for m in second if m in ANALYSIS or m == "mnemo_core.vcs.blame"]  # read back


def test_a_rebuilt_index_leaves_no_entry_of_the_old_one(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    Engine.open(root).pr(base="HEAD~1")
    old = _entries(root)
    index_path(root).unlink()  # as a rebuild for another schema does: a new index, a new name
    planted = index_path(root).parent / SUBDIR / "notes.json"  # not an entry's name: left alone
    planted.write_text("{}", encoding="utf-8")
    Engine.open(root).pr(base="HEAD~1")
    kept = _entries(root)
    assert len(old) == 1 and len(kept) == 2 and old[0] not in kept and planted in kept
