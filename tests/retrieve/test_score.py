"""The composite score: non-product code is demoted unless the task names it; each language is scored
by its own weights."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import make_repo

from mnemo_core.cli import main
from mnemo_core.model import Symbol
from mnemo_core.retrieve.keywords import extract_keywords
from mnemo_core.retrieve.score import (
    NAMED,
    NON_PRODUCT_DEMOTION,
    OTHER_LANGUAGES,
    OTHER_SEMANTIC_FLOOR,
    SEMANTIC_FLOOR,
    WEIGHTS,
    Parts,
    multipliers_for,
    non_product_dir,
    ranked,
    semantic_floor_for,
    weights_for,
    with_semantic,
)


def function(path: str) -> Symbol:
    return Symbol(
        id=1,
        path=path,
        name="main",
        kind="function",
        language="python",
        signature="def main()",
        docstring="",
        start_line=1,
        end_line=3,
        size=30,
        is_test=False,
        is_test_case=False,
        exported=True,
    )


def test_a_script_is_demoted_unless_the_task_names_its_directory_or_its_file() -> None:
    path = "scripts/generate_schema.py"
    assert non_product_dir(path, extract_keywords("improve the schema generator")) == "scripts"
    assert multipliers_for(function(path), extract_keywords("improve the schema generator")) == {
        "non-product": NON_PRODUCT_DEMOTION
    }
    for task in (
        "Improve generate_schema.py for click 8.3",  # the file, as it is written
        "call `generate_schema.main` from the release job",  # the module
        "the scripts print the schema twice",  # the directory
    ):
        assert non_product_dir(path, extract_keywords(task)) is None, task
        assert multipliers_for(function(path), extract_keywords(task)) == {}, task


def test_a_plain_word_or_a_short_name_does_not_name_the_file() -> None:
    assert non_product_dir("scripts/release.py", extract_keywords("release the new parser")) == "scripts"
    assert non_product_dir("examples/app.py", extract_keywords("fix `app.py` routing")) == "examples"
    assert non_product_dir("docs/__init__.py", extract_keywords("`__init__` of the parser")) == "docs"


def test_a_symbol_the_task_names_as_code_steps_ahead_outside_python() -> None:
    go = replace(function("app/cli.go"), language="go")

    def named(task: str, symbol: Symbol = go) -> bool:
        return "named" in multipliers_for(symbol, extract_keywords(task))

    assert named("make `main` exit with the status")  # a backtick term
    assert named("call `app/cli.go:Runner.main` from the hook")  # the last part of a qualified one
    assert named("main() exits with the status")  # a call as written
    assert not named("the main window exits")  # a plain word names nothing
    assert not named("fix `main_loop` exit status")  # nor does a longer name holding it
    assert not named("make `main` exit with the status", function("app/cli.py"))  # Python: held out, no


def test_adding_the_cosines_afterwards_scores_as_one_pass_does() -> None:
    parts = [
        Parts(
            sid,
            {"lexical": 1 / sid, "body": (sid % 3) / 3, "file": 0.5},
            {"kind": 0.7} if sid % 4 else {"named": NAMED} if sid % 8 else {},
        )
        for sid in range(1, 40)
    ]
    semantic = {5: 0.9, 17: 0.4, 30: -0.2, 38: 0.7}
    once = ranked(parts, semantic)
    assert with_semantic(ranked(parts), parts, semantic) == once
    assert [s.symbol_id for s in once[:2]] != [s.symbol_id for s in ranked(parts)[:2]]
    # the task's names count without the channel only: with cosines, its meaning says them
    assert sorted(s.symbol_id for s in ranked(parts) if "named" in s.multipliers) == [4, 12, 20, 28, 36]
    assert not any("named" in s.multipliers for s in once)


def test_a_cosine_counts_by_how_far_it_exceeds_the_floor() -> None:
    parts = [Parts(sid, {"lexical": 0.5}, {}) for sid in (1, 2, 3)]
    cosines = {1: SEMANTIC_FLOOR - 0.05, 2: SEMANTIC_FLOOR + 0.3}
    scored = {s.symbol_id: s for s in ranked(parts, cosines)}
    assert scored[1].components["semantic"] == 0.0
    assert scored[1].score == scored[3].score
    assert scored[2].components["semantic"] == pytest.approx(0.3)
    assert scored[2].score == pytest.approx(scored[3].score + WEIGHTS["semantic"] * 0.3)


def test_outside_python_a_cosine_counts_above_its_own_floor() -> None:
    cosine = SEMANTIC_FLOOR - 0.05
    parts = [
        Parts(1, {"lexical": 0.5}, {}, weights_for("python"), semantic_floor_for("python")),
        Parts(2, {"lexical": 0.5}, {}, weights_for("go"), semantic_floor_for("go")),
    ]
    python, go = sorted(ranked(parts, {1: cosine, 2: cosine}), key=lambda s: s.symbol_id)
    assert python.components["semantic"] == 0.0
    assert go.components["semantic"] == pytest.approx(cosine - OTHER_SEMANTIC_FLOOR)
    counted = cosine - OTHER_SEMANTIC_FLOOR
    assert go.score == pytest.approx(python.score + weights_for("go")["semantic"] * counted)


def test_a_language_scores_by_its_own_weights() -> None:
    parts = [
        Parts(1, {"text": 1.0, "body": 0.5}, {}, weights_for("python")),
        Parts(2, {"text": 1.0, "body": 0.5}, {}, weights_for("go")),
    ]
    python, go = sorted(ranked(parts), key=lambda s: s.symbol_id)
    assert python.score == pytest.approx(WEIGHTS["text"] + 0.5 * WEIGHTS["body"])
    assert go.score == pytest.approx(OTHER_LANGUAGES["text"] + 0.5 * WEIGHTS["body"])
    assert weights_for("python") is WEIGHTS
    assert {n: w for n, w in weights_for("rust").items() if w != WEIGHTS[n]} == OTHER_LANGUAGES


GO_ROUTER = """package web

// Route finds the handler of a request path.
func Route(path string) string { return path }
"""
PY_ROUTER = '''def route(path):
    """Find the handler of a request path."""
    return path
'''


def test_why_shows_the_weights_of_the_symbols_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", {"web/router.go": GO_ROUTER, "web/router.py": PY_ROUTER})

    def text_weight(handle: str) -> float:
        argv = ["why", "--repo", str(repo), "--format", "json", "--task", "route a request path", handle]
        assert main(argv) == 0
        weight: float = json.loads(capsys.readouterr().out)["components"]["text"]["weight"]
        return weight

    assert text_weight("web/router.py:route") == WEIGHTS["text"]
    assert text_weight("web/router.go:Route") == OTHER_LANGUAGES["text"]
