"""Hover cards and code lenses from the index and git."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import CORE_FILES, commit, make_repo

from mnemo_core.engine import Engine
from mnemo_core.errors import MnemoError
from mnemo_core.insight import file_lenses, symbol_at, symbol_card
from mnemo_core.repository import Repository

FILES = CORE_FILES


@pytest.fixture
def repo(tmp_path: Path) -> Repository:
    root = make_repo(tmp_path / "r", FILES, date="2026-03-01T09:00:00+00:00")
    commit(
        root,
        {"app/core.py": FILES["app/core.py"].replace("return x", "return x + 0")},
        "tweak helper",
        date="2026-03-05T09:00:00+00:00",
        author=("Bo Maker", "bo@example.com"),
    )
    opened = Repository.open(root)
    opened.update_index()
    return opened


def test_symbol_at_definition_and_at_a_call(repo: Repository) -> None:
    at_def = symbol_at(repo, "app/core.py", 1, "helper")
    assert at_def is not None and at_def.name == "helper"
    at_call = symbol_at(repo, "app/core.py", 5, "helper")
    assert at_call is not None and at_call.name == "helper"
    inside = symbol_at(repo, "app/core.py", 9)
    assert inside is not None and inside.name == "Box.open"


def test_a_function_that_is_the_whole_file_is_found_not_its_module(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "one", {"one.py": "def only(app):\n    return app\n"})
    opened = Repository.open(root)
    opened.update_index()
    found = symbol_at(opened, "one.py", 1, "only")
    assert found is not None and (found.name, found.kind) == ("only", "function")


def test_symbol_card(repo: Repository) -> None:
    helper = symbol_at(repo, "app/core.py", 1, "helper")
    assert helper is not None
    card = symbol_card(repo, helper)
    assert card.callers == 1 and [s.name for s in card.top_callers] == ["main"]
    assert card.blast_radius == 2  # main, Box.open
    assert card.tests == 2 and {s.name for s in card.top_tests} == {"test_main", "test_box"}
    assert card.last_change is not None
    assert (card.last_change.author, card.last_change.summary) == ("Bo Maker", "tweak helper")


def test_a_quick_card_reads_the_index_alone(repo: Repository) -> None:
    helper = symbol_at(repo, "app/core.py", 1, "helper")
    assert helper is not None
    quick, whole = symbol_card(repo, helper, walks=False), symbol_card(repo, helper)
    assert (quick.callers, quick.top_callers) == (whole.callers, whole.top_callers)
    assert not quick.walked and (quick.blast_radius, quick.tests, quick.last_change) == (0, 0, None)
    assert whole.walked


def test_lenses(repo: Repository) -> None:
    lenses = {lens.symbol.name: lens for lens in file_lenses(repo, "app/core.py")}
    assert set(lenses) == {"helper", "main", "Box", "Box.open"}
    assert (lenses["helper"].callers, lenses["helper"].tests) == (1, 2)
    assert (lenses["Box.open"].callers, lenses["Box.open"].tests) == (1, 1)
    assert lenses["main"].title.startswith("2 callers · 2 tests · changed ")


def test_uncommitted_edits_show_in_lenses(repo: Repository) -> None:
    (repo.root / "app/core.py").write_text(
        FILES["app/core.py"].replace("return helper(1)", "return helper(2)")
    )
    repo.update_index()
    lenses = {lens.symbol.name: lens for lens in file_lenses(repo, "app/core.py")}
    assert lenses["main"].title.endswith("uncommitted changes")


def test_blast_radius_at_a_call(repo: Repository) -> None:
    pack = Engine(repo.root).blast_radius_at("app/core.py", 5, "helper")
    assert (pack.mode, pack.query) == ("files", "app/core.py:helper")
    assert pack.impact is not None
    assert [s.symbol.name for s in pack.impact.changed] == ["helper"]
    assert {s.symbol.name for s in pack.impact.callers} == {"main", "Box.open"}
    assert {s.symbol.name for s in pack.impact.tests} == {"test_main", "test_box"}


def test_blast_radius_at_nothing(repo: Repository) -> None:
    (repo.root / "app/empty.py").write_text("import os\n")
    with pytest.raises(MnemoError, match=r"no definition at app/empty\.py:1"):
        Engine(repo.root).blast_radius_at("app/empty.py", 1)


def test_lenses_follow_a_re_index(repo: Repository) -> None:
    assert {lens.symbol.name: lens.callers for lens in file_lenses(repo, "app/core.py")}["helper"] == 1
    (repo.root / "app/more.py").write_text(
        "from app.core import helper\n\ndef more():\n    return helper(2)\n"
    )
    repo.update_index()
    assert {lens.symbol.name: lens.callers for lens in file_lenses(repo, "app/core.py")}["helper"] == 2
