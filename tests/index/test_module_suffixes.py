"""Python's module lookup by dotted suffix, listed a group (the module name's last word) at a time."""

from __future__ import annotations

from collections import defaultdict

from mnemo_core.index.languages import registry
from mnemo_core.index.languages.python import module_parts

PATHS = [
    "pkg/__init__.py",
    "pkg/mod.py",
    "pkg/mod.pyi",
    "mod.py",
    "src/pkg/sub/mod.py",
    "other/pkg/__init__.pyi",
    "dotted.dir/mod.py",
    "deep/dotted.dir/__init__.py",
    "z/a.b.py",
    "tests/test_mod.py",
]


def test_every_suffix_names_the_paths_a_full_listing_gives_in_its_order() -> None:
    listed: dict[str, list[str]] = defaultdict(list)
    for path in PATHS:
        parts = module_parts(path)
        for i in range(len(parts)):
            listed[".".join(parts[i:])].append(path)
    for paths in listed.values():
        paths.sort(key=lambda p: (p.count("/"), p.endswith(".pyi"), p))
    index = registry()["python"].hooks.module_index(PATHS)
    assert index.packages == {"pkg", "other/pkg", "deep/dotted.dir"}  # type: ignore[attr-defined]
    suffixes = index.by_suffix  # type: ignore[attr-defined]
    for suffix, paths in listed.items():
        assert suffixes.get(suffix, []) == paths, suffix
    assert listed["mod"] == ["mod.py", "dotted.dir/mod.py", "pkg/mod.py", "pkg/mod.pyi", "src/pkg/sub/mod.py"]
    assert listed["dir.mod"] == [] and suffixes.get("dir.mod", []) == [], "a dot inside a part splits nothing"
    assert suffixes.get("nothing", []) == [] and suffixes.get("", []) == []
