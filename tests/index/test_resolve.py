"""Resolution of Python references into typed edges: scopes and imports before names."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import indexed_edges, write_files

from mnemo_core.index.indexer import index_repo

PROJECT = {
    "pkg/__init__.py": "from .models import User\n",
    "pkg/models.py": (
        "class Base:\n"
        "    def save(self):\n"
        "        return self.validate()\n"
        "    def validate(self):\n"
        "        return True\n"
        "\n"
        "class User(Base):\n"
        "    def __init__(self, name):\n"
        "        self.name = name\n"
        "    def validate(self):\n"
        "        return super().validate()\n"
    ),
    "pkg/views.py": (
        "from .models import User\n"
        "from pkg import models as m\n"
        "import pkg.util\n"
        "from requests import get\n"
        "\n"
        "def create(name):\n"
        "    user = User(name)\n"
        "    m.Base().save()\n"
        "    pkg.util.slugify(name)\n"
        "    get(name)\n"
        "    return render(user)\n"
        "\n"
        "def render(user):\n"
        "    return user\n"
    ),
    "pkg/util.py": "def slugify(text):\n    return text.lower()\n\ndef get(x):\n    return x\n",
    "other/jobs.py": "def run():\n    return unique_helper()\n\ndef twice():\n    return common()\n",
    "other/helpers.py": "def unique_helper():\n    return 1\n",
    **{f"dups/d{i}.py": "def common():\n    return 0\n" for i in range(5)},
}


@pytest.fixture(scope="module")
def edges(tmp_path_factory: pytest.TempPathFactory) -> set[tuple[str, str, str]]:
    root = tmp_path_factory.mktemp("resolve")
    write_files(root, PROJECT)
    index_repo(root)
    return indexed_edges(root)


@pytest.mark.parametrize(
    ("src", "dst", "edge_type", "resolution"),
    [
        ("pkg/views.py:create", "pkg/models.py:User", "calls", "import"),
        ("pkg/views.py:create", "pkg/models.py:User.__init__", "calls", "import"),
        ("pkg/views.py:create", "pkg/models.py:Base.save", "calls", "import"),
        ("pkg/views.py:create", "pkg/util.py:slugify", "calls", "import"),
        ("pkg/views.py:create", "pkg/views.py:render", "calls", "local"),
        ("pkg/models.py:Base.save", "pkg/models.py:Base.validate", "calls", "self"),
        ("pkg/models.py:User.validate", "pkg/models.py:Base.validate", "calls", "self"),
        ("pkg/models.py:User", "pkg/models.py:Base", "inherits", "local"),
        ("pkg/models.py:User.validate", "pkg/models.py:Base.validate", "overrides", "derived"),
        ("other/jobs.py:run", "other/helpers.py:unique_helper", "calls", "name"),
        ("pkg/__init__.py:pkg", "pkg/models.py:User", "imports", "import"),
    ],
)
def test_resolved_edges(edges: set[tuple[str, str, str]], src: str, dst: str, edge_type: str,
                        resolution: str, tmp_path: Path) -> None:
    assert (src, dst, resolution) in edges


def test_an_import_that_leaves_the_repo_is_not_linked_by_name(edges: set[tuple[str, str, str]]) -> None:
    assert not any(s == "pkg/views.py:create" and d == "pkg/util.py:get" for s, d, _ in edges)


def test_ambiguous_names_do_not_flood_the_graph(edges: set[tuple[str, str, str]]) -> None:
    assert not any(s == "other/jobs.py:twice" for s, _, _ in edges)


def test_pytest_fixtures_link_tests_to_what_the_fixture_calls(tmp_path: Path) -> None:
    write_files(tmp_path, {
        "app/core.py": "def make_app():\n    return 1\n\ndef serve(a):\n    return a\n",
        "tests/conftest.py": (
            "import pytest\nfrom app.core import make_app\n\n@pytest.fixture\ndef app():\n    return make_app()\n"
        ),
        "tests/unit/test_serve.py": (
            "from app.core import serve\n\ndef test_serve(app):\n    assert serve(app)\n"
        ),
    })
    index_repo(tmp_path)
    calls = indexed_edges(tmp_path, "calls")
    tests = indexed_edges(tmp_path, "tests")
    assert ("tests/unit/test_serve.py:test_serve", "tests/conftest.py:app", "fixture") in calls
    assert ("tests/conftest.py:app", "app/core.py:make_app", "import") in calls
    assert ("tests/unit/test_serve.py:test_serve", "app/core.py:serve", "derived") in tests
