"""A CommonJS module's one function, ``module.exports = function name(...) {...}``, is indexed by its
own name (the multi-language benchmark found axios's adapters missing from the index); an anonymous
one (``module.exports = function (config) {...}``, ``export default () => ...``) as its module
exports it, ``exports`` or ``default`` (axios's ``Gruntfile.js`` and ``karma.conf.js`` were missing)."""

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
ARROW = """module.exports = (config) => config;
"""
DEFAULT = """export default function (config) {
  return config;
}
"""


@pytest.mark.parametrize("suffix", ["js", "ts"])
def test_module_exports_of_a_function_is_that_function(tmp_path: Path, suffix: str) -> None:
    files = {f"lib/xhr.{suffix}": XHR, f"lib/identity.{suffix}": ANONYMOUS, f"lib/arrow.{suffix}": ARROW}
    repo = make_repo(tmp_path / "repo", {**files, f"lib/esm.{suffix}": DEFAULT})
    index_repo(repo)
    symbols = indexed_symbols(repo)
    assert symbols[f"lib/xhr.{suffix}:xhrAdapter"] == ("function", 3, 8)
    assert symbols[f"lib/xhr.{suffix}:request.onreadystatechange"] == ("method", 5, 7)
    assert f"lib/xhr.{suffix}:exports" not in symbols  # named: by its own name only
    assert symbols[f"lib/identity.{suffix}:exports"] == ("function", 1, 3)
    assert symbols[f"lib/arrow.{suffix}:exports"] == ("function", 1, 1)
    assert symbols[f"lib/esm.{suffix}:default"] == ("function", 1, 3)
