"""Vendored and minified files: found by their directory, their name or their lines, and demoted."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from mnemo_core.index.indexer import index_repo
from mnemo_core.model import Symbol
from mnemo_core.pipelines import recency_lookup
from mnemo_core.repository import Repository
from mnemo_core.retrieve.keywords import extract_keywords
from mnemo_core.retrieve.reasons import task_reasons
from mnemo_core.retrieve.score import VENDORED_DEMOTION, multipliers_for
from mnemo_core.retrieve.task import rank_task
from mnemo_core.retrieve.vendored import MINIFIED_MIN_BYTES, vendored_paths
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


def test_minified_files_vendor_directories_and_min_names_are_found(tmp_path: Path) -> None:
    assert len(MINIFIED_JS) >= MINIFIED_MIN_BYTES and len(READABLE_JS) >= MINIFIED_MIN_BYTES
    files = {"app/debug.js": READABLE_JS, "app/shared/lib.js": MINIFIED_JS, "pkg/vendor/six.py": UPLOAD}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    paths = [symbol("app/debug.js"), symbol("app/shared/lib.js"), symbol("pkg/vendor/six.py", "python")]
    paths.append(symbol("static/jquery.min.js"))  # by its name: no need to read it (it is not even there)
    found = vendored_paths(tmp_path, paths, extract_keywords("retry the upload"))
    assert found == {"app/shared/lib.js", "pkg/vendor/six.py", "static/jquery.min.js"}


def test_a_task_naming_the_file_or_directory_keeps_it() -> None:
    root = Path("/nonexistent")
    paths = [symbol("pkg/vendor/six.py", "python"), symbol("static/jquery.min.js")]
    assert vendored_paths(root, paths, extract_keywords("update the vendored copy in vendor/")) == {
        "static/jquery.min.js"
    }
    assert vendored_paths(root, paths, extract_keywords("upgrade `jquery.min.js`")) == {"pkg/vendor/six.py"}


def test_python_files_are_never_read_for_long_lines(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "table.py").write_text("TABLE = " + "1," * 5000 + "\n", encoding="utf-8")
    assert vendored_paths(tmp_path, [symbol("pkg/table.py", "python")], extract_keywords("table")) == set()


def test_the_vendored_multiplier_comes_after_tests() -> None:
    keywords = extract_keywords("retry the upload")
    assert multipliers_for(symbol("a/lib.js"), keywords, True) == {"vendored": VENDORED_DEMOTION}
    test = replace(symbol("tests/lib.js"), is_test=True)
    assert "vendored" not in multipliers_for(test, keywords, True)


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
    assert ranking.vendored == {"pkg/shared/retry.js"}
    js = [s for s in ranking.scored if ranking.symbols[s.symbol_id].path == "pkg/shared/retry.js"]
    assert js and all(s.multipliers.get("vendored") == VENDORED_DEMOTION for s in js)
    assert "vendored or minified code, demoted (the task does not name its file)" in task_reasons(
        ranking, js[0].symbol_id
    )
