"""Every language against a fixture project, plus the import hooks of the languages that resolve imports.

Each ``fixtures/<language>/`` is a small project (a model with a base type, a service using it through
imports and receivers, a test calling the service) with an ``expected.json`` listing:

- ``symbols``: every stored symbol as ``path:Qualified.name kind start-end`` plus the flags
  ``exported``, ``test`` and ``test-case`` that apply;
- ``details``: the signature and docstring of a few symbols;
- ``edges``: every stored edge as ``type src -> dst (resolution)``.

The project is indexed from scratch and compared whole, so a missing edge and a spurious one both fail.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import indexed_edges

from mnemo_core.index import indexer
from mnemo_core.index.extract import extract
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.languages import language_for_path, registry
from mnemo_core.index.store import Store
from mnemo_core.model import EDGE_TYPES, RawImport, Symbol

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED = "expected.json"
LANGUAGES = sorted(p.name for p in FIXTURES.iterdir() if (p / EXPECTED).is_file())
TESTED_ELSEWHERE = {"python"}  # tests/index/test_extract.py and test_resolve.py


@dataclass(frozen=True)
class Indexed:
    """A fixture project after indexing, next to what it should contain."""

    expected: dict[str, Any]
    symbols: list[Symbol]
    edges: list[str]


def _symbol_line(s: Symbol) -> str:
    flags = {"exported": s.exported, "test": s.is_test, "test-case": s.is_test_case}
    return " ".join([s.key, s.kind, f"{s.start_line}-{s.end_line}", *(f for f, on in flags.items() if on)])


def _expected(language: str) -> dict[str, Any]:
    expected: dict[str, Any] = json.loads((FIXTURES / language / EXPECTED).read_text(encoding="utf-8"))
    return expected


def _copy_fixture(language: str, root: Path) -> None:
    shutil.copytree(FIXTURES / language, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(EXPECTED))


def _edges(root: Path) -> list[str]:
    return sorted(
        f"{t} {src} -> {dst} ({how})" for t in EDGE_TYPES for src, dst, how in indexed_edges(root, t)
    )


@pytest.fixture(scope="module", params=LANGUAGES)
def indexed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Indexed:
    root = tmp_path_factory.mktemp(request.param)
    _copy_fixture(request.param, root)
    index_repo(root)
    store = Store.open(root)
    try:
        symbols = [s for path in sorted(store.files()) for s in store.symbols_in_file(path)]
    finally:
        store.close()
    return Indexed(_expected(request.param), symbols, _edges(root))


def test_every_language_has_a_fixture() -> None:
    assert set(registry()) - TESTED_ELSEWHERE == set(LANGUAGES)


def test_symbols(indexed: Indexed) -> None:
    assert [_symbol_line(s) for s in indexed.symbols] == indexed.expected["symbols"]


def test_signatures_and_docstrings(indexed: Indexed) -> None:
    by_key = {s.key: s for s in indexed.symbols if s.kind != "module"}
    found = {
        key: {"signature": by_key[key].signature, "docstring": by_key[key].docstring}
        for key in indexed.expected["details"]
    }
    assert found == indexed.expected["details"]


def test_edges(indexed: Indexed) -> None:
    assert indexed.edges == indexed.expected["edges"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_reindexing_one_file_at_a_time_keeps_every_edge(
    language: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lazily loaded resolver (package, crate and module-family scopes) agrees with a cold build."""
    monkeypatch.setattr(indexer, "PRELOAD_SHARE", 1.0)
    _copy_fixture(language, tmp_path)
    index_repo(tmp_path)
    for path in sorted(p for p in tmp_path.rglob("*") if p.is_file() and language_for_path(str(p))):
        path.write_bytes(path.read_bytes() + b"\n")
        index_repo(tmp_path)
        assert _edges(tmp_path) == _expected(language)["edges"], path.relative_to(tmp_path)


@pytest.mark.parametrize(
    ("path", "source", "imports"),
    [
        pytest.param(
            "src/a.ts",
            "import def, { a as b, c } from './x';\nimport * as ns from '../y';\nimport './side';\n"
            "export { d as e } from './d';\nexport * from './all';\nexport * as all from './all';\n"
            "import legacy = require('./legacy');\n",
            [
                ("./x", "def", "def"),
                ("./x", "a", "b"),
                ("./x", "c", "c"),
                ("../y", "", "ns"),
                ("./side", "", ""),
                ("./d", "d", "e"),
                ("./all", "*", "*"),
                ("./all", "", "all"),
                ("./legacy", "", "legacy"),
            ],
            id="typescript",
        ),
        pytest.param(
            "lib/a.js",
            "const m = require('./m');\nconst { a, b: c } = require('./n');\nvar v = require(name);\n",
            [("./m", "", "m"), ("./n", "a", "a"), ("./n", "b", "c")],
            id="javascript-require",
        ),
        pytest.param(
            "svc/a.go",
            'import (\n\t"fmt"\n\tm "example.com/shop/models"\n\t. "strings"\n\t_ "embed"\n'
            '\t"example.com/api/v2"\n)\n',
            [
                ("fmt", "", "fmt"),
                ("example.com/shop/models", "", "m"),
                ("strings", "*", "*"),
                ("embed", "", ""),
                ("example.com/api/v2", "", "v2"),
                ("example.com/api/v2", "", "api"),
            ],
            id="go",
        ),
        pytest.param(
            "src/a.rs",
            "use crate::models::{User, repo::{Repo as R, self}, *};\nuse std::fmt;\nmod util;\n"
            "mod tests {\n    use super::*;\n}\n",
            [
                ("crate::models", "User", "User"),
                ("crate::models::repo", "Repo", "R"),
                ("crate::models", "repo", "repo"),
                ("crate::models", "*", "*"),
                ("std", "fmt", "fmt"),
                ("self", "util", "util"),
                ("self", "*", "*"),
            ],
            id="rust",
        ),
        pytest.param(
            "src/main/java/com/acme/A.java",
            "import com.acme.model.User;\nimport com.acme.model.*;\n"
            "import static com.acme.util.Strings.trim;\nimport com.acme.Outer.Inner;\n",
            [
                ("com.acme.model", "User", "User"),
                ("com.acme.model", "*", "*"),
                ("com.acme.util", "Strings.trim", "trim"),
                ("com.acme", "Outer.Inner", "Inner"),
            ],
            id="java",
        ),
    ],
)
def test_imports(path: str, source: str, imports: list[tuple[str, str, str]]) -> None:
    spec = language_for_path(path)
    assert spec is not None
    found = extract(path, source.encode(), spec).imports
    assert [(i.module, i.name, i.alias) for i in found] == imports


@pytest.mark.parametrize(
    ("importer", "module", "name", "paths", "resolved"),
    [
        pytest.param(
            "src/app/main.ts",
            "../lib/user.js",
            "User",
            ["src/lib/user.ts"],
            ["src/lib/user.ts"],
            id="ts-compiled-extension",
        ),
        pytest.param(
            "src/app/main.ts",
            "./widgets",
            "Card",
            ["src/app/widgets/index.tsx"],
            ["src/app/widgets/index.tsx"],
            id="ts-directory-index",
        ),
        pytest.param(
            "src/app/main.ts",
            "@/lib/user",
            "User",
            ["src/lib/user.ts"],
            ["src/lib/user.ts"],
            id="ts-src-alias",
        ),
        pytest.param(
            "src/app/main.ts", "lib/user", "User", ["src/lib/user.ts"], ["src/lib/user.ts"], id="ts-base-url"
        ),
        pytest.param("src/app/main.ts", "react", "useState", ["src/react.ts"], [], id="ts-package"),
        pytest.param(
            "packages/zod/tests/a.test.ts",
            "zod/v4",
            "",
            ["packages/zod/src/v4/index.ts", "packages/zod/src/index.ts"],
            ["packages/zod/src/v4/index.ts"],
            id="ts-workspace-package",
        ),
        pytest.param(
            "apps/web/main.ts",
            "@acme/ui",
            "Button",
            ["packages/ui/index.ts", "packages/ui/button.ts"],
            ["packages/ui/index.ts"],
            id="ts-scoped-workspace-package",
        ),
        pytest.param(
            "apps/web/main.ts",
            "vitest",
            "test",
            ["packages/ui/index.ts"],
            [],
            id="ts-package-not-in-workspace",
        ),
        pytest.param(
            "cmd/main.go",
            "example.com/shop/internal/store",
            "",
            ["internal/store/db.go", "internal/store/db_test.go"],
            ["internal/store/db.go"],
            id="go-module-path",
        ),
        pytest.param("cmd/main.go", "net/http", "", ["http/server.go"], [], id="go-standard-library"),
        pytest.param(
            "cmd/main.go",
            "github.com/other/lib/store",
            "",
            ["internal/store/db.go"],
            [],
            id="go-external-suffix",
        ),
        pytest.param(
            "src/a/b.rs",
            "super",
            "c",
            ["src/lib.rs", "src/a.rs", "src/a/c.rs"],
            ["src/a.rs"],
            id="rust-super",
        ),
        pytest.param(
            "src/a/b.rs",
            "crate::a",
            "c",
            ["src/lib.rs", "src/a/mod.rs", "src/a/c.rs"],
            ["src/a/mod.rs"],
            id="rust-crate",
        ),
        pytest.param(
            "crates/api/src/lib.rs",
            "shop_core::models",
            "User",
            ["crates/shop-core/src/lib.rs", "crates/shop-core/src/models.rs"],
            ["crates/shop-core/src/models.rs"],
            id="rust-workspace-crate",
        ),
        pytest.param(
            "src/test/java/com/acme/ATest.java",
            "com.acme.model",
            "User",
            ["src/main/java/com/acme/model/User.java", "src/main/java/com/acme/model/Role.java"],
            ["src/main/java/com/acme/model/User.java"],
            id="java-class",
        ),
    ],
)
def test_resolve_module(importer: str, module: str, name: str, paths: list[str], resolved: list[str]) -> None:
    spec = language_for_path(importer)
    assert spec is not None
    hooks = spec.hooks
    index = hooks.module_index([importer, *paths])
    assert hooks.resolve_module(importer, RawImport(module, name, name, 1), index) == resolved
