"""Code nobody in the repository writes (build output, vendored, minified): each kind found by its
directory, its name or its lines, demoted by its own multiplier, and ``mnemo why`` says which."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from mnemo_core.cli import main
from mnemo_core.index.indexer import index_repo
from mnemo_core.model import Symbol
from mnemo_core.pipelines import recency_lookup
from mnemo_core.repository import Repository
from mnemo_core.retrieve.keywords import extract_keywords
from mnemo_core.retrieve.reasons import task_reasons
from mnemo_core.retrieve.score import multipliers_for
from mnemo_core.retrieve.task import rank_task
from mnemo_core.retrieve.vendored import DEMOTION, KINDS, MINIFIED_MIN_BYTES, Foreign, foreign_paths
from tests.helpers import make_repo

READABLE_JS = "".join(f"function step{i}(value) {{\n  return value + {i};\n}}\n\n" for i in range(300))
MINIFIED_JS = "/*! lib v1 */\n" + ";".join(f"function s{i}(e){{return e+{i}}}" for i in range(400)) + "\n"
UPLOAD = '''def upload_retry(data, attempts=3):
    """Retry the upload of data when the server times out."""
    for _ in range(attempts):
        data = send(data)
    return data


def send(data):
    return data
'''


def symbol(path: str, language: str = "javascript") -> Symbol:
    return Symbol(1, path, "f", "function", language, "function f()", "", 1, 3, 30, False, False, True)


def kinds(found: dict[str, Foreign]) -> dict[str, str]:
    return {path: kind.multiplier for path, kind in found.items()}


def test_each_kind_is_found_by_its_directory_its_name_or_its_lines(tmp_path: Path) -> None:
    assert len(MINIFIED_JS) >= MINIFIED_MIN_BYTES and len(READABLE_JS) >= MINIFIED_MIN_BYTES
    files = {"app/debug.js": READABLE_JS, "app/shared/lib.js": MINIFIED_JS, "pkg/vendor/six.py": UPLOAD}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    paths = [symbol("app/debug.js"), symbol("app/shared/lib.js"), symbol("pkg/vendor/six.py", "python")]
    paths.append(symbol("static/jquery.min.js"))  # by its name: no need to read it (it is not even there)
    paths.append(symbol("dist/axios.js"))  # build output, by its directory
    paths.append(symbol("pip/operations/build/wheel.py", "python"))  # a Python package named build
    found = foreign_paths(tmp_path, paths, extract_keywords("retry the upload"))
    assert kinds(found) == {
        "app/shared/lib.js": "minified",
        "pkg/vendor/six.py": "vendored",
        "static/jquery.min.js": "minified",
        "dist/axios.js": "generated",
    }


def test_a_task_naming_the_file_or_directory_keeps_it() -> None:
    root = Path("/nonexistent")
    paths = [symbol("pkg/vendor/six.py", "python"), symbol("static/jquery.min.js"), symbol("dist/axios.js")]
    assert kinds(foreign_paths(root, paths, extract_keywords("update the vendored copy in vendor/"))) == {
        "static/jquery.min.js": "minified",
        "dist/axios.js": "generated",
    }
    assert kinds(foreign_paths(root, paths, extract_keywords("upgrade `jquery.min.js` in dist"))) == {
        "pkg/vendor/six.py": "vendored"
    }
    browser = [symbol("dist/browser/axios.cjs")]  # another directory of the path named: still build output
    assert kinds(foreign_paths(root, browser, extract_keywords("fix browser environments"))) == {
        "dist/browser/axios.cjs": "generated"
    }


def test_only_javascript_and_typescript_files_are_read_for_long_lines(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    table = {"pkg/table.py": "python", "pkg/table.go": "go", "pkg/table.ts": "typescript"}
    for rel in table:
        (tmp_path / rel).write_text("TABLE = " + "1," * 5000 + "\n", encoding="utf-8")
    found = foreign_paths(tmp_path, [symbol(p, lang) for p, lang in table.items()], extract_keywords("x"))
    assert kinds(found) == {"pkg/table.ts": "minified"}


def test_the_vendored_multiplier_comes_after_tests() -> None:
    keywords = extract_keywords("retry the upload")
    vendored = next(kind for kind in KINDS if kind.multiplier == "vendored")
    assert multipliers_for(symbol("a/lib.js"), keywords, vendored) == {"vendored": DEMOTION}
    test = replace(symbol("tests/lib.js"), is_test=True)
    assert "vendored" not in multipliers_for(test, keywords, vendored)


def test_a_minified_copy_ranks_below_the_product_code(tmp_path: Path) -> None:
    body = "var a=upload(retry),b=server(times),c=out(a,b),d=[a,b,c].map(function(x){return x+1});return d"
    minified = "/*! retry */\n" + ";".join(f"function r{i}(upload,retry){{{body}}}" for i in range(40))
    assert len(minified) >= MINIFIED_MIN_BYTES
    root = make_repo(tmp_path / "r", {"pkg/upload.py": UPLOAD, "pkg/shared/retry.js": minified + "\n"})
    index_repo(root)
    repo = Repository.open(root)
    try:
        ranking = rank_task(
            repo.store, repo.root, "retry the upload when the server times out", recency_lookup(repo)
        )
    finally:
        repo.close()
    top = [ranking.symbols[s.symbol_id] for s in ranking.scored]
    assert top[0].name == "upload_retry"
    assert kinds(ranking.foreign) == {"pkg/shared/retry.js": "minified"}
    js = [s for s in ranking.scored if ranking.symbols[s.symbol_id].path == "pkg/shared/retry.js"]
    assert js and all(s.multipliers.get("minified") == DEMOTION for s in js)
    reason = "minified code (*.min.js, or lines a minifier writes), demoted (the task does not name its file)"
    assert reason in task_reasons(ranking, js[0].symbol_id)


UTILS = """/** Whether a value is form data. */
function isFormData(thing) {
  return thing instanceof FormData;
}
module.exports = { isFormData };
"""
BUNDLE = """(function () {
  /** Whether a value is form data. */
  function isFormData(thing) {
    return thing instanceof FormData;
  }
  window.axios = { isFormData };
})();
"""


def test_a_bundle_under_dist_is_demoted_unless_the_task_names_it_and_why_says_which_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo(tmp_path / "repo", {"lib/utils.js": UTILS, "dist/axios.js": BUNDLE})
    assert main(["task", "--no-memory", "--repo", str(repo), "--format", "json", "form data check"]) == 0
    first, second = json.loads(capsys.readouterr().out)["symbols"][:2]
    assert (first["path"], first["name"]) == ("lib/utils.js", "isFormData")
    assert second["path"] == "dist/axios.js"
    assert (
        "build output (a bundle under dist/ or build/), demoted (the task does not name its file)"
        in (second["reasons"])
    )

    def why(task: str) -> dict[str, float]:
        argv = ["why", "--repo", str(repo), "--format", "json", "--task", task, "dist/axios.js:isFormData"]
        assert main(argv) == 0
        multipliers: dict[str, float] = json.loads(capsys.readouterr().out)["multipliers"]
        return multipliers

    assert why("form data check")["generated"] == DEMOTION
    assert "generated" not in why("form data check in the dist bundle")
