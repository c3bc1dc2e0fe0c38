"""Overloads of one method (C#, Java) are one definition to a name guess: a call links to each of
them at the confidence of a single match, and they do not count toward the ambiguity limit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import write_files

from mnemo_core.index.indexer import index_repo

GUARD = (
    "public static class Guard\n{\n"
    "    public static int Null(int x) { return x; }\n"
    "    public static string Null(string x) { return x; }\n"
    "    public static object Null(object x) { return x; }\n"
    "    public static long Null(long x) { return x; }\n"
    "}\n"
)
USER = (
    "public class User\n{\n    public int Check(int age)\n    {\n        return Guard.Null(age);\n    }\n}\n"
)


def test_a_call_links_to_every_overload_as_one_definition(tmp_path: Path) -> None:
    write_files(tmp_path, {"src/Guard.cs": GUARD, "src/User.cs": USER})
    index_repo(tmp_path)
    db = sqlite3.connect(tmp_path / ".mnemo" / "index.db")
    try:
        rows = db.execute(
            "SELECT d.start_line, e.resolution, e.confidence FROM edges e JOIN symbols s ON s.id = e.src"
            " JOIN symbols d ON d.id = e.dst WHERE s.name = 'User.Check' AND e.type = 'calls'"
            " ORDER BY d.start_line"
        ).fetchall()
    finally:
        db.close()
    assert rows == [(line, "name", 0.5) for line in (3, 4, 5, 6)]  # four overloads, more than the limit of 3
