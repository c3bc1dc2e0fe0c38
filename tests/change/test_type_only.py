"""A TypeScript interface or type alias holds no code a test could run: changing one is not an
untested change (the compiler checks it), while a function changed beside it still is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import commit, make_repo

from mnemo_core.cli import main

TYPES = "export interface Options {\n  retries: number;\n}\n\nexport type Delay = number;\n"
CODE = (
    "import type {Options} from './types';\n"
    "\n"
    "export function retries(options: Options): number {\n"
    "  return options.retries;\n"
    "}\n"
)


def test_a_changed_interface_is_not_called_untested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo", {"src/types.ts": TYPES, "src/code.ts": CODE})
    commit(
        root,
        {
            "src/types.ts": TYPES.replace(
                "retries: number;", "retries: number;\n  jitter?: boolean;"
            ).replace("= number", "= number | string"),
            "src/code.ts": CODE.replace("return options.retries;", "return options.retries + 1;"),
        },
        "jitter",
    )
    assert main(["pr", "--repo", str(root), "--base", "HEAD~1", "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    changed = {s["name"]: s["reasons"] for s in answer["symbols"] if s["changed"]}
    assert set(changed) == {"Options", "Delay", "retries"}
    assert [r for r in answer["impact"]["reasons"] if r.startswith("no test reaches")] == [
        "no test reaches: retries"
    ]
    assert any("a type: no code of its own" in r for r in changed["Options"])
