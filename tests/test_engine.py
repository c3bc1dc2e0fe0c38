"""The engine's front door: every verb on a real throwaway repository, one index refresh and one
resolution of each ref per call, and front ends that import nothing deeper than the facade."""

from __future__ import annotations

import ast
import os
import shutil
import stat
from pathlib import Path

import pytest
from helpers import CORE_FILES, commit, git, make_repo

from mnemo_core.engine import Engine
from mnemo_core.errors import MnemoError

REPO_ROOT = Path(__file__).resolve().parents[1]
FILES = CORE_FILES
FRONT_ENDS = ("mnemo_core/cli.py", "mnemo_core/commands", "lsp_server", "ci", "mcp_server")
ALLOWED = {  # the facade, the vocabulary, errors, the renderers, and leaf helpers
    "mnemo_core",
    "mnemo_core.engine",
    "mnemo_core.model",
    "mnemo_core.errors",
    "mnemo_core.render",
    "mnemo_core.render_review",
    "mnemo_core.render_budget",
    "mnemo_core.config",
    "mnemo_core.defaults",
    "mnemo_core.boundary",
    "mnemo_core.safepath",
    "mnemo_core.tokens",
    "mnemo_core.statedir",
    "mnemo_core.terminal",
    "mnemo_core.covmap.fast",  # `mnemo tests` from the coverage map alone: loading the engine is its cost
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """``main`` with the files above; ``topic`` changes ``helper``."""
    root = make_repo(tmp_path / "r", FILES)
    git(root, "checkout", "-q", "-b", "topic")
    commit(root, {"app/core.py": FILES["app/core.py"].replace("return x", "return x + 0")}, "tweak helper")
    return root


def test_task_answers_with_head_as_its_commit(repo: Path) -> None:
    with Engine.open(repo) as engine:
        pack = engine.task("helper box open", limit=5)
    assert pack.mode == "task"
    assert pack.commit == git(repo, "rev-parse", "HEAD").strip()
    assert {"helper", "Box.open"} <= {s.symbol.name for s in pack.symbols}
    assert pack.stats["index_files"] == 2


def test_pr_files_tests_and_blast_radius_agree(repo: Path) -> None:
    engine = Engine.open(repo / "app")  # any directory inside the repository
    assert engine.root == repo.resolve()
    pr = engine.pr(base="main")
    assert pr.impact is not None
    assert [s.symbol.name for s in pr.impact.changed] == ["helper"]
    assert {s.symbol.name for s in pr.impact.callers} == {"main", "Box.open"}
    tests = {t.symbol.name for t in engine.tests(base="main")}
    assert tests == {s.symbol.name for s in pr.impact.tests} == {"test_main", "test_box"}
    blast = engine.blast_radius_at("app/core.py", 5, "helper")
    assert (blast.mode, blast.query) == ("files", "app/core.py:helper")
    assert blast.impact is not None and {s.symbol.name for s in blast.impact.tests} == tests
    files = engine.files(["app/core.py"])
    assert files.impact is not None
    assert {s.symbol.name for s in files.impact.changed} == {"helper", "main", "Box", "Box.open"}


def test_lookups_cards_and_lenses(repo: Path) -> None:
    engine = Engine.open(repo)
    assert [s.name for s in engine.find("help*")] == ["helper"]
    callers = engine.callers("helper", depth=2)
    reached = {(h.symbol.name, h.depth) for h in callers.hops}
    assert reached == {("main", 1), ("Box.open", 2), ("test_main", 2)}
    assert [h.symbol.name for h in engine.callees("main").hops] == ["helper"]
    helper = engine.definition_at("app/core.py", 5, "helper")
    card = engine.card(helper)
    assert (card.callers, card.tests) == (1, 2)
    assert {lens.symbol.name: lens.callers for lens in engine.lenses("app/core.py")}["helper"] == 1
    assert engine.stats()["symbols"]["function"] == 4
    assert engine.explain("helper box", "helper").symbol == helper


def test_an_editors_lookups_names_ids_and_one_call_away(repo: Path) -> None:
    engine = Engine.open(repo)
    assert [s.name for s in engine.search_names("HELPER")] == ["helper"]
    assert [s.name for s in engine.search_names("box")] == ["Box", "test_box"]  # the name, then containing it
    assert len(engine.search_names("", limit=3)) == 3
    helper = engine.definition_at("app/core.py", 5, "helper")
    assert engine.symbols([helper.id, -1]) == {helper.id: helper}
    assert engine.symbol_named("app/core.py", "helper", "function") == helper
    assert engine.symbol_named("app/core.py", "helper", "class") is None
    assert [(h.symbol.name, h.via.line) for h in engine.calls(helper, "in")] == [("main", 5)]
    main = engine.definition_at("app/core.py", 4, "main")
    assert [h.symbol.name for h in engine.calls(main, "out")] == ["helper"]


def test_each_call_brings_the_index_up_to_date_unless_told_not_to(repo: Path) -> None:
    reader = Engine(repo.resolve(), update_index=False)
    writer = Engine.open(repo)
    assert writer.find("later") == []
    (repo / "app/later.py").write_text("def later():\n    return 1\n", encoding="utf-8")
    assert [s.name for s in writer.find("later")] == ["later"]  # refreshed by the call itself
    (repo / "app/last.py").write_text("def last():\n    return 1\n", encoding="utf-8")
    assert reader.find("last") == []  # the language server's engines leave that to its indexer
    reader.index()
    assert [s.name for s in reader.find("last")] == ["last"]


def test_the_project_settings_fill_in_what_a_call_leaves_out(repo: Path) -> None:
    (repo / "mnemo.toml").write_text("budget = 120\ndepth = 1\n", encoding="utf-8")
    engine = Engine.open(repo)
    assert engine.pr(base="main").budget_tokens == 120
    assert {s.symbol.name for s in engine.pr(base="main").impact.callers} == {"main"}  # type: ignore[union-attr]
    assert engine.pr(base="main", budget=500, depth=2).budget_tokens == 500


def test_bad_arguments_fail_before_any_work(repo: Path) -> None:
    engine = Engine.open(repo)
    with pytest.raises(MnemoError, match="token budget must be a positive number"):
        engine.task("helper", budget=0)
    with pytest.raises(MnemoError, match="choose one of --staged and --worktree"):
        engine.pr(staged=True, worktree=True)
    assert not (repo / ".mnemo").exists()  # refused before the index was even opened
    with pytest.raises(MnemoError, match=r"no definition at app/core\.py:3"):
        engine.blast_radius_at("app/core.py", 3)


def _logging_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put a ``git`` on PATH that logs its arguments, then runs the real git."""
    real = shutil.which("git")
    assert real is not None
    log = tmp_path / "git.log"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def test_a_change_resolves_each_ref_once(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = Engine.open(repo)
    engine.index()
    log = _logging_git(tmp_path, monkeypatch)
    pack = engine.pr(base="main", head="topic")
    assert pack.impact is not None and pack.impact.changed
    calls = log.read_text(encoding="utf-8").splitlines()
    resolved = [c for c in calls if "rev-parse --verify" in c]
    assert len(resolved) == 2, calls  # "main" and "topic", once each
    assert sum("merge-base" in c for c in calls) == 1


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_front_ends_import_only_the_facade(front_end: str) -> None:
    where = REPO_ROOT / front_end
    files = [where] if where.is_file() else sorted(where.rglob("*.py"))
    imported = {
        node.module
        for path in files
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mnemo_core")
    }
    deeper = {m for m in imported if m not in ALLOWED and not m.startswith("mnemo_core.commands")}
    assert not deeper, f"{front_end} imports {sorted(deeper)}; go through mnemo_core.engine"
