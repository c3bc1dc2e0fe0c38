"""Functions held in an object literal or handed to a call by name are indexed (the multi-language
benchmark found axios's ``defaults.transformRequest: [function (data) {...}]`` and
``new Promise(function dispatchXhrRequest(...) {...})`` missing: tasks name them as often as
declared functions)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import indexed_symbols, make_repo

from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store

DEFAULTS = """var defaults = {
  adapter: getDefaultAdapter(),
  transformRequest: [function transformRequest(data, headers) {
    return data;
  }],
  transformResponse: [function (data) {
    return data;
  }],
  validateStatus: function validateStatus(status) {
    return status >= 200;
  },
  parse(text) { return text; },
  next: (value) => value + 1,
  hooks: [first, second],
};
forEach(['delete', 'get'], function forEachMethodNoData(method) {
  defaults.headers[method] = {};
});
module.exports = function xhrAdapter(config) {
  return new Promise(function dispatchXhrRequest(resolve, reject) {
    resolve(config);
  });
};
"""
SPEC = """describe('defaults', function suite() {
  it('parses', function named() {});
});
"""


@pytest.mark.parametrize("suffix", ["js", "ts"])
def test_object_literal_and_callback_functions_are_symbols(tmp_path: Path, suffix: str) -> None:
    repo = make_repo(tmp_path / "repo", {f"lib/defaults.{suffix}": DEFAULTS})
    index_repo(repo)
    symbols = indexed_symbols(repo)
    path = f"lib/defaults.{suffix}"
    assert symbols[f"{path}:transformRequest"] == ("function", 3, 5)
    assert symbols[f"{path}:transformResponse"] == ("function", 6, 8)
    assert symbols[f"{path}:validateStatus"] == ("function", 9, 11)
    assert symbols[f"{path}:parse"] == ("function", 12, 12)
    assert symbols[f"{path}:next"] == ("function", 13, 13)
    assert symbols[f"{path}:forEachMethodNoData"] == ("function", 16, 18)
    assert symbols[f"{path}:xhrAdapter.dispatchXhrRequest"] == ("function", 20, 22)
    assert f"{path}:adapter" not in symbols and f"{path}:hooks" not in symbols  # values, not functions
    assert stored_tests(repo, path) == set()  # a callback handed to forEach or a Promise is product code


def stored_tests(repo: Path, path: str) -> set[str]:
    store = Store.open(repo)
    try:
        rows = store.conn.execute(
            "SELECT s.name FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND s.is_test",
            (path,),
        )
        return {name for (name,) in rows}
    finally:
        store.close()


def test_a_named_test_callback_stays_named_by_its_description(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"test/defaults.test.js": SPEC})
    index_repo(repo)
    names = {key.split(":", 1)[1] for key, (kind, _, _) in indexed_symbols(repo).items() if kind != "module"}
    assert names == {"'defaults'", "'defaults'.'parses'"}
    assert names <= stored_tests(repo, "test/defaults.test.js")
