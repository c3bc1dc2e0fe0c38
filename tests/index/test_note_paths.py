"""Files added or removed: the imports of the other files that now bind elsewhere, each import
compared once per what resolving it reads (a relative import its importer's directory too)."""

from __future__ import annotations

import json

from mnemo_core.index.depends import note_paths
from mnemo_core.index.world import Reads


def _imports(*rows: tuple[str, str, str, int, int, str]) -> str:
    return json.dumps([list(row) for row in rows])


def test_equal_imports_in_other_directories_are_told_apart() -> None:
    kept = ["app/__init__.py", "app/a/__init__.py", "app/a/one.py", "app/b/__init__.py", "app/b/two.py"]
    kept += ["app/c/__init__.py", "app/c/three.py", "app/a/four.py", "app/util.py", "app/c/util.py"]
    before = {path: "python" for path in [*kept, "app/old.py"]}
    after = {path: (i, "python") for i, path in enumerate([*kept, "app/a/util.py"])}
    ids = {path: fid for path, (fid, _) in after.items()}
    relative = ("", "util", "util", 1, 1, "")  # from . import util: one directory gained it
    absolute = ("app.util", "helper", "helper", 2, 0, "")  # names a word, binds as before
    gone = ("app.old", "x", "x", 3, 0, "")  # bound to a file that went
    imports = {
        ids["app/a/one.py"]: _imports(relative, absolute),
        ids["app/b/two.py"]: _imports(relative, absolute),  # the same rows, a directory without util
        ids["app/a/four.py"]: _imports(relative),  # the same directory as one.py: the same answer
        ids["app/c/three.py"]: _imports(absolute, gone),
    }
    change = Reads()
    note_paths(change, before, after, imports, [])
    assert change.bindings == {ids["app/a/one.py"], ids["app/a/four.py"], ids["app/c/three.py"]}
    one, four, three = ids["app/a/one.py"], ids["app/a/four.py"], ids["app/c/three.py"]
    assert change.bound == {(one, "util"), (four, "util"), (three, "x")}
