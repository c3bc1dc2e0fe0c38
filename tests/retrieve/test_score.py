"""The multipliers of the composite score: non-product code is demoted unless the task names it."""

from __future__ import annotations

from mnemo_core.model import Symbol
from mnemo_core.retrieve.keywords import extract_keywords
from mnemo_core.retrieve.score import (
    NON_PRODUCT_DEMOTION,
    Parts,
    multipliers_for,
    non_product_dir,
    ranked,
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


def test_adding_the_cosines_afterwards_scores_as_one_pass_does() -> None:
    parts = [
        Parts(sid, {"lexical": 1 / sid, "body": (sid % 3) / 3, "file": 0.5}, {"kind": 0.7} if sid % 4 else {})
        for sid in range(1, 40)
    ]
    semantic = {5: 0.9, 17: 0.4, 30: -0.2, 38: 0.7}
    once = ranked(parts, semantic)
    assert with_semantic(ranked(parts), parts, semantic) == once
    assert [s.symbol_id for s in once[:2]] != [s.symbol_id for s in ranked(parts)[:2]]
