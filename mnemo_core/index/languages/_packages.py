"""Source directories found by the tail of their path: Go import paths and Java packages name a
directory by its last components (``github.com/acme/shop/internal/store`` -> ``internal/store``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath


@dataclass
class PackageIndex:
    """Package directories (by every suffix of their path) and their files."""

    files: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    by_suffix: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


def package_index(paths: Iterable[str]) -> PackageIndex:
    """Index the directories holding ``paths``."""
    index = PackageIndex()
    for path in paths:
        index.files[str(PurePosixPath(path).parent)].append(path)
    for directory in index.files:
        parts = directory.split("/")
        for i in range(len(parts)):
            index.by_suffix["/".join(parts[i:])].append(directory)
    return index
