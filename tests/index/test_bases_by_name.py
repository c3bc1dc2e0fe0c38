"""Languages whose imports mnemo does not read (PHP, Kotlin, C#, C++) find a base class in another
file by its name, as a name guess: inheritance, overrides and inherited members follow from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import indexed_edges, write_files

from mnemo_core.index.indexer import index_repo

PROJECTS = {
    "php": {
        "src/Shape.php": (
            "<?php\nabstract class Shape {\n"
            "    public function describe() { return $this->area(); }\n"
            "    abstract public function area();\n}\n"
        ),
        "src/Circle.php": (
            "<?php\nclass Circle extends Shape {\n    public function area() { return 3; }\n}\n"
        ),
    },
    "kotlin": {
        "src/Shape.kt": (
            "abstract class Shape {\n    fun describe() = area()\n    abstract fun area(): Int\n}\n"
        ),
        "src/Circle.kt": "class Circle : Shape() {\n    override fun area() = 3\n}\n",
    },
    "csharp": {
        "src/Shape.cs": "public abstract class Shape {\n    public int Describe() { return Area(); }\n"
        "    public abstract int Area();\n}\n",
        "src/Circle.cs": ("public class Circle : Shape {\n    public override int Area() { return 3; }\n}\n"),
    },
}
SHAPE = {"php": "src/Shape.php", "kotlin": "src/Shape.kt", "csharp": "src/Shape.cs"}
CIRCLE = {"php": "src/Circle.php", "kotlin": "src/Circle.kt", "csharp": "src/Circle.cs"}
AREA = {"php": "area", "kotlin": "area", "csharp": "Area"}


@pytest.mark.parametrize("language", sorted(PROJECTS))
def test_a_base_in_another_file_is_found_by_its_name(tmp_path: Path, language: str) -> None:
    write_files(tmp_path, PROJECTS[language])
    index_repo(tmp_path)
    circle, shape = CIRCLE[language], SHAPE[language]
    assert indexed_edges(tmp_path, "inherits") == {(f"{circle}:Circle", f"{shape}:Shape", "name")}
    area = AREA[language]
    assert (f"{circle}:Circle.{area}", f"{shape}:Shape.{area}", "derived") in indexed_edges(
        tmp_path, "overrides"
    )
