"""A metaclass runs when each class that names it, or inherits it, is defined: a change to what its
``__init__`` or ``__new__`` calls reaches the tests of those classes (a real repository and commit)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import commit, make_repo

from mnemo_core.cli import main

META = (
    "class SchemaMeta(type):\n"
    "    def __init__(cls, name, bases, attrs):\n"
    "        super().__init__(name, bases, attrs)\n"
    "        cls.hooks = cls.resolve_hooks()\n"
    "\n"
    "    def resolve_hooks(cls):\n"
    "        return [n for n in dir(cls) if n.startswith('on_')]\n"
    "\n"
    "\n"
    "class Schema(metaclass=SchemaMeta):\n"
    "    def dump(self, obj):\n"
    "        return dict(obj)\n"
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/schema.py": META,
    "pkg/plain.py": "class Plain:\n    def dump(self, obj):\n        return obj\n",
    "tests/test_schema.py": (
        "from pkg.schema import Schema\n"
        "from pkg.plain import Plain\n"
        "\n"
        "class UserSchema(Schema):\n"
        "    def on_load(self):\n"
        "        return 1\n"
        "\n"
        "def test_hooks():\n"
        "    assert UserSchema().hooks == ['on_load']\n"
        "\n"
        "def test_plain():\n"
        "    assert Plain().dump(1) == 1\n"
    ),
}


def test_a_change_the_metaclass_runs_reaches_the_tests_of_its_classes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    commit(root, {"pkg/schema.py": META.replace("startswith('on_')", "startswith('on')")}, "hooks")
    assert main(["tests", "--repo", str(root), "--base", "HEAD~1", "--format", "pytest"]) == 0
    assert capsys.readouterr().out.split() == ["tests/test_schema.py::test_hooks"]
