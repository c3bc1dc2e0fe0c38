"""A CommonJS module's one function, ``module.exports = function name(...) {...}``, is indexed by its
own name (the multi-language benchmark found axios's adapters missing from the index)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import indexed_symbols, make_repo

from mnemo_core.index.indexer import index_repo

XHR = """var utils = require('./utils');

module.exports = function xhrAdapter(resolve, reject, config) {
  var request = new XMLHttpRequest();
  request.onreadystatechange = function () {
    resolve(request);
  };
};
"""
ANONYMOUS = """module.exports = function (config) {
  return config;
};
"""


@pytest.mark.parametrize("suffix", ["js", "ts"])
def test_module_exports_of_a_named_function_is_that_function(tmp_path: Path, suffix: str) -> None:
    repo = make_repo(tmp_path / "repo", {f"lib/xhr.{suffix}": XHR, f"lib/identity.{suffix}": ANONYMOUS})
    index_repo(repo)
    symbols = indexed_symbols(repo)
    assert symbols[f"lib/xhr.{suffix}:xhrAdapter"] == ("function", 3, 8)
    assert symbols[f"lib/xhr.{suffix}:request.onreadystatechange"] == ("method", 5, 7)
    anonymous = [key for key, (kind, _, _) in symbols.items() if "identity" in key and kind != "module"]
    assert anonymous == []  # nothing to call it by: the module itself answers
