"""Session and task memory end to end: a real git repository, the engine and the CLI in process,
the memory file in ``.mnemo/memory.db``, and a clock the tests move."""

from __future__ import annotations

import gc
import json
import re
import sqlite3
from pathlib import Path

import pytest
from helpers import SHOP_FILES, commit, git, make_repo, write_files

from mnemo_core.cli import main
from mnemo_core.engine import Engine
from mnemo_core.errors import MnemoError
from mnemo_core.memory.store import MAX_EVENTS, MemoryStore
from mnemo_core.model import ContextPack
from mnemo_core.retrieve.recall import SESSION_HALF_LIFE_S, SESSION_WINDOW_S, Event
from mnemo_core.retrieve.score import WEIGHTS

FILES = {
    **SHOP_FILES,
    "mail/send.py": (
        "def send_invoice(address, invoice):\n    return deliver(address, render_invoice(invoice))\n\n\n"
        "def render_invoice(invoice):\n    return str(invoice)\n\n\n"
        "def deliver(address, body):\n    return (address, body)\n\n\n"
        "def bounce_report(address):\n    return address\n"
    ),
}
TASK = "item price in the cart"
SIMILAR = "cart item price rounding"
UNRELATED = "send the invoice by mail"
T0 = 1_800_000_000.0


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop", FILES)


def memory_file(root: Path) -> Path:
    return root / ".mnemo" / "memory.db"


def rank(pack: ContextPack, name: str) -> int:
    return next(i for i, s in enumerate(pack.symbols, start=1) if s.symbol.name == name)


def scored(pack: ContextPack, name: str) -> tuple[float, dict[str, float], tuple[str, ...]]:
    found = next(s for s in pack.symbols if s.symbol.name == name)
    return found.score, found.components, found.reasons


def baseline(root: Path, task: str) -> ContextPack:
    with Engine(root, memory=False) as engine:
        return engine.task(task)


def test_a_hovered_symbol_ranks_higher_in_the_next_task(repo: Path) -> None:
    before = baseline(repo, TASK)
    clock = Clock()
    with Engine(repo, clock=clock) as engine:
        engine.noticed_symbol("hovered", engine.find("remove_item")[0])
        clock.now += 60
        after = engine.task(TASK)
    assert rank(after, "remove_item") < rank(before, "remove_item")
    score, components, reasons = scored(after, "remove_item")
    assert score > scored(before, "remove_item")[0]
    assert components["session"] == pytest.approx(0.6 * 0.5 ** (60 / SESSION_HALF_LIFE_S), abs=1e-4)
    assert "you hovered this 1 minute ago" in reasons
    assert scored(before, "remove_item")[1]["session"] == 0.0


def test_an_edited_line_and_an_opened_file_count_for_their_symbols(repo: Path) -> None:
    with Engine(repo, clock=Clock()) as engine:
        engine.noticed("edited", "shop/cart.py", [6])  # inside remove_item
        engine.noticed("opened", str(repo / "shop" / "pricing.py"))  # a whole file, by absolute path
        pack = engine.task(TASK)
    assert scored(pack, "remove_item")[1]["session"] == 1.0
    assert "you edited this just now" in scored(pack, "remove_item")[2]
    assert scored(pack, "price_item")[1]["session"] == 0.4
    assert "you opened its file just now" in scored(pack, "price_item")[2]
    assert scored(pack, "add_item")[1]["session"] == 0.0


def test_the_session_boost_decays_and_ends_with_the_session(repo: Path) -> None:
    clock = Clock()
    with Engine(repo, clock=clock) as engine:
        engine.noticed("edited", "shop/cart.py", [6])
        values = []
        for elapsed in (0.0, SESSION_HALF_LIFE_S, 2 * SESSION_HALF_LIFE_S, SESSION_WINDOW_S + 1):
            clock.now = T0 + elapsed
            explanation = engine.explain(UNRELATED + " cart remove", "remove_item")
            values.append(next(c.value for c in explanation.contributions if c.name == "session"))
    assert values[0] == 1.0
    assert values[1] == pytest.approx(0.5, abs=1e-3)
    assert values[2] == pytest.approx(0.25, abs=1e-3)
    assert values[3] == 0.0


def test_repeated_edits_are_capped_and_not_remembered_twice(repo: Path) -> None:
    clock = Clock()
    with Engine(repo, clock=clock) as engine:
        for _ in range(5):  # keystrokes: the same symbol within seconds is one event
            engine.noticed("edited", "shop/cart.py", [6])
            clock.now += 1
        events = engine.memory.store()
        assert events is not None and len(events.events(0)) == 1
        for _ in range(3):
            clock.now += 60
            engine.noticed("edited", "shop/cart.py", [6])
        pack = engine.task(TASK)
    assert scored(pack, "remove_item")[1]["session"] == 1.0  # three fresh edits, capped at 1


def test_off_writes_no_file_and_changes_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = baseline(repo, TASK)
    with Engine(repo, memory=False) as engine:
        engine.noticed_symbol("hovered", engine.find("remove_item")[0])
        engine.noticed("edited", "shop/cart.py", [6])
        again = engine.task(TASK)
        with pytest.raises(MnemoError, match="memory is off"):
            engine.feedback(TASK, used=["remove_item"])
    assert [s.symbol.name for s in again.symbols] == [s.symbol.name for s in before.symbols]
    assert main(["task", TASK, "--repo", str(repo), "--no-memory", "--format", "json"]) == 0
    assert (
        main(["feedback", "--task", TASK, "--used", "remove_item", "--repo", str(repo), "--no-memory"]) == 1
    )
    assert "memory is off" in capsys.readouterr().err
    write_files(repo, {"mnemo.toml": "memory = false\n"})
    assert main(["task", TASK, "--repo", str(repo), "--format", "json"]) == 0
    assert not memory_file(repo).exists()
    write_files(repo, {"mnemo.toml": "memory = true\n"})
    assert main(["task", TASK, "--repo", str(repo), "--format", "json"]) == 0
    assert memory_file(repo).exists()


def test_a_bad_memory_setting_is_one_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_files(repo, {"mnemo.toml": 'memory = "yes"\n'})
    assert main(["task", TASK, "--repo", str(repo)]) != 0
    err = capsys.readouterr().err
    assert "memory must be true or false (got 'yes')" in err and "Traceback" not in err


def test_feedback_raises_the_useful_and_lowers_the_useless_for_a_similar_task_only(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    similar_before, unrelated_before = baseline(repo, SIMILAR), baseline(repo, UNRELATED)
    argv = ["feedback", "--task", TASK, "--used", "cart_total", "--useless", "price_item"]
    assert main([*argv, "--repo", str(repo), "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["schema"] == 1 and answer["task"] == TASK
    assert [s["name"] for s in answer["used"]] == ["cart_total"]
    assert [s["name"] for s in answer["useless"]] == ["price_item"]
    with Engine(repo, clock=Clock()) as engine:
        similar = engine.task(SIMILAR)
        unrelated = engine.task(UNRELATED)
    assert rank(similar, "cart_total") == 1 < rank(similar_before, "cart_total")
    _, components, reasons = scored(similar, "cart_total")
    assert components["memory"] == 1.0
    assert f'useful for a similar task: "{TASK}"' in reasons
    assert scored(similar, "price_item")[0] < scored(similar_before, "price_item")[0]
    assert rank(similar, "price_item") > rank(similar_before, "price_item")
    assert any(r.startswith("said useless for a similar task") for r in scored(similar, "price_item")[2])
    assert [(s.symbol.name, s.score) for s in unrelated.symbols] == [
        (s.symbol.name, s.score) for s in unrelated_before.symbols
    ]


def test_why_shows_the_session_and_memory_components(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["feedback", "--task", TASK, "--used", "cart_total", "--repo", str(repo)]) == 0
    assert "useful   shop/cart.py:cart_total" in capsys.readouterr().out
    assert main(["files", "shop/cart.py", "--repo", str(repo), "--format", "json"]) == 0  # shown: session
    capsys.readouterr()
    assert main(["why", "--task", SIMILAR, "cart_total", "--repo", str(repo), "--format", "json"]) == 0
    why = json.loads(capsys.readouterr().out)
    assert why["components"]["memory"] == {"value": 1.0, "weight": 0.2, "contribution": 0.2}
    session_value = why["components"]["session"]["value"]
    assert 0.24 < session_value <= 0.25  # "returned" (0.25), decayed by the seconds the commands took
    assert why["components"]["session"]["weight"] == WEIGHTS["session"] > 0
    assert {"channel": "memory", "rank": 1, "detail": f'useful for a similar task: "{TASK}"'} in why[
        "channels"
    ]
    assert "session: you were shown this just now" in why["notes"]
    assert main(["why", "--task", SIMILAR, "cart_total", "--repo", str(repo)]) == 0
    text = capsys.readouterr().out
    assert "memory      1.0000 x  0.20 =  0.2000" in text
    session = re.search(r"^\s*session\s+(\d\.\d{4}) x\s+(\d\.\d\d) =\s+(\d\.\d{4})$", text, re.MULTILINE)
    assert session is not None, text
    value, weight, contribution = (float(g) for g in session.groups())
    assert 0.24 < value <= 0.25 and weight == round(WEIGHTS["session"], 2)
    assert contribution == pytest.approx(value * WEIGHTS["session"], abs=1e-4)
    assert main(["why", "--task", SIMILAR, "cart_total", "--repo", str(repo), "--no-memory"]) == 0
    assert "memory      0.0000 x  0.20 =  0.0000" in capsys.readouterr().out


def test_a_landed_commit_is_remembered_as_used_for_its_task(repo: Path) -> None:
    with Engine(repo, clock=Clock()) as engine:
        engine.task("round the cart total to cents")
    changed = FILES["shop/cart.py"].replace("return sum(cart)", "return round(sum(cart), 2)")
    sha = commit(repo, {"shop/cart.py": changed}, "Round cart totals")
    with Engine(repo, clock=Clock()) as engine:
        later = engine.task("cart total rounding of item price")
        unrelated = engine.task(UNRELATED)
    _, components, reasons = scored(later, "cart_total")
    assert components["memory"] == 1.0
    assert f'changed by commit {sha[:7]} for a similar task: "round the cart total to cents"' in reasons
    assert all(s.components["memory"] == 0.0 for s in unrelated.symbols)


def test_a_task_whose_head_moved_elsewhere_is_not_credited(repo: Path) -> None:
    from helpers import git

    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, {"shop/cart.py": FILES["shop/cart.py"] + "\n\ndef side_thing():\n    return 1\n"}, "side")
    with Engine(repo, clock=Clock()) as engine:
        engine.task("round the cart total to cents")
    git(repo, "checkout", "-q", "main")
    commit(repo, {"shop/pricing.py": FILES["shop/pricing.py"].replace("* pct", "* pct / 100")}, "percent")
    with Engine(repo, clock=Clock()) as engine:
        later = engine.task("cart total rounding")
        store = engine.memory.store()
        assert store is not None and store.open_tasks()[-1].text == "cart total rounding"
    assert all(s.components["memory"] == 0.0 for s in later.symbols)


def test_memory_is_bounded_and_outlives_a_rebuilt_index(repo: Path) -> None:
    clock = Clock()
    with Engine(repo, clock=clock) as engine:
        store = engine.memory.store()
        assert store is not None
        store.add_events([Event(T0 - SESSION_WINDOW_S - 1, "hovered", "old.py", "f", "function")])
        store.add_events([Event(T0, "returned", "a.py", f"f{i}", "function") for i in range(MAX_EVENTS + 50)])
        events = store.events(0)
        assert len(events) == MAX_EVENTS and events[0].name == "f50"
        engine.feedback(TASK, used=["cart_total"])
        engine.index(full=True)
        assert "memory" in scored(engine.task(SIMILAR), "cart_total")[1]
        assert scored(engine.task(SIMILAR), "cart_total")[1]["memory"] == 1.0


def test_a_damaged_memory_file_is_moved_aside_without_a_traceback(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory_file(repo).parent.mkdir(exist_ok=True)
    memory_file(repo).write_bytes(b"this is not a database" * 100)
    damaged = memory_file(repo).with_name("memory.db.damaged")
    assert main(["feedback", "--task", TASK, "--used", "cart_total", "--repo", str(repo)]) == 0
    capsys.readouterr()
    assert main(["task", SIMILAR, "--repo", str(repo), "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["symbols"][0]["name"] == "cart_total"
    with sqlite3.connect(memory_file(repo)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert isinstance(MemoryStore.open(memory_file(repo).parent), MemoryStore)
    assert damaged.read_bytes() == b"this is not a database" * 100  # kept, not deleted


def test_a_memory_file_the_repository_commits_is_neither_read_nor_replaced(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["feedback", "--task", TASK, "--used", "cart_total", "--repo", str(repo)]) == 0
    gc.collect()  # the in-process command's connection closes (and checkpoints) before the file is committed
    git(repo, "add", "-f", ".mnemo/memory.db")
    git(repo, "commit", "-q", "-m", "plant a memory")
    planted = memory_file(repo).read_bytes()
    capsys.readouterr()
    assert main(["task", SIMILAR, "--repo", str(repo), "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert all(not s["components"].get("memory") for s in answer["symbols"])
    assert memory_file(repo).read_bytes() == planted


def test_feedback_needs_a_task_and_a_known_symbol(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["feedback", "--task", " ", "--used", "cart_total", "--repo", str(repo)]) == 1
    assert main(["feedback", "--task", TASK, "--repo", str(repo)]) == 1
    assert main(["feedback", "--task", TASK, "--used", "no_such_thing", "--repo", str(repo)]) == 1
    err = capsys.readouterr().err
    assert "the task is empty" in err and "--used or --useless" in err and "no symbol named" in err
    assert "Traceback" not in err
