"""Floors and held-out hygiene of the quality benchmark's report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.quality import report, run
from bench.quality.repos import GROUPS, HELD_OUT_REPOS, expand


def _summary(full: float, bm25: float) -> dict[str, dict[str, float]]:
    return {"full": {"R@10": full, "MRR": full}, "bm25": {"R@10": bm25, "MRR": bm25}}


def test_ratio_floors_per_repository_and_macro() -> None:
    assert [f.ok for f in report.ratio_floors("httpx", _summary(0.6, 0.5))] == [True, True]  # 1.2x
    assert [f.ok for f in report.ratio_floors("httpx", _summary(0.55, 0.5))] == [False, False]  # 1.1x
    macro = report.macro_floors([_summary(0.6, 0.5), _summary(0.7, 0.5)])  # 1.3 / 1.0
    assert [(f.value, f.ok) for f in macro] == [("1.30x", True), ("1.30x", True)]
    assert not report.ratio_floors("rich", {"full": {"R@10": 0.5, "MRR": 0.5}})[0].ok  # no baseline row


def test_groups_expand_and_hold_out() -> None:
    assert [r.name for r in expand("heldout")] == list(HELD_OUT_REPOS)
    assert all(r.held_out for r in expand("heldout")) and not any(r.held_out for r in expand("tuning"))
    assert len(expand("all")) == len(GROUPS["all"]) == 9


def _output(repo: str, held_out: bool) -> dict[str, Any]:
    ranked = {"metrics": {"MRR": 0.0, "R@10": 0.0}, "ranks": {"a.py:f": None}, "top": []}
    task = {
        "id": f"{repo}-task",
        "source": "pr",
        "text": f"secret text of {repo}",
        "error": None,
        "unindexed": [],
        "ground_truth": ["a.py:f"],
        "full": ranked,
        "bm25": ranked,
    }
    return {"repo": repo, "held_out": held_out, "tasks": [task]}


@pytest.mark.parametrize(("final", "shown"), [(False, False), (True, True)])
def test_dump_hides_held_out_tasks_unless_final(
    final: bool, shown: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    run.print_dump([_output("pytest", False), _output("httpx", True)], 5, final)
    out = capsys.readouterr().out
    assert "secret text of pytest" in out
    assert ("secret text of httpx" in out) is shown


def test_more_tuning_repositories_are_never_held_out() -> None:
    more = expand("moretuning")
    assert len(more) == 6 and not any(r.held_out for r in more)
    assert not {r.name for r in more} & set(HELD_OUT_REPOS)


def test_candidate_rankers_score_under_the_candidate_weights_then_restore(tmp_path: Path) -> None:
    from bench.quality import evaluate
    from mnemo_core.retrieve.score import WEIGHTS

    path = tmp_path / "weights.json"
    path.write_text('{"body": 0.5, "semantic": 0}', encoding="utf-8")
    before = dict(WEIGHTS)
    args = run.parse_args(["--repos", "attrs", "--rankers", "candidate,full", "--candidate", str(path)])
    assert args.rankers == ["candidate", "full"]
    with evaluate.candidate_weights():
        assert (WEIGHTS["body"], WEIGHTS["semantic"], WEIGHTS["lexical"]) == (0.5, 0.0, before["lexical"])
    assert before == WEIGHTS
    with pytest.raises(RuntimeError), evaluate.candidate_weights():
        raise RuntimeError
    assert before == WEIGHTS
    evaluate.CANDIDATE_WEIGHTS.clear()


@pytest.mark.parametrize("content", ['{"bodyy": 1}', "[1]", "not json"])
def test_a_candidate_file_without_known_weights_is_refused(tmp_path: Path, content: str) -> None:
    path = tmp_path / "weights.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit, match="--candidate"):
        run.parse_args(["--rankers", "candidate", "--candidate", str(path)])
    with pytest.raises(SystemExit):
        run.parse_args(["--rankers", "candidate-lexical"])


def test_once_ranks_a_task_a_single_time() -> None:
    from bench.quality import evaluate

    calls: list[str] = []

    def ranker(repo: object, text: str) -> list[str]:
        calls.append(text)
        return ["a.py:f"]

    once = evaluate.timed(ranker, None, "task", once=True)  # type: ignore[arg-type]
    assert (once.keys, once.again_ms, calls) == (["a.py:f"], 0.0, ["task"])
    evaluate.timed(ranker, None, "task")  # type: ignore[arg-type]
    assert len(calls) == 3
