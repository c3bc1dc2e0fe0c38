"""What the walks to tests read besides the graph (a caller's source and the ``if`` guarding its call)
is kept per index generation and per store: an edit that puts a call under an opt-in flag, once
indexed, changes the callee's tests in the same process, and two stores of one index agree."""

from __future__ import annotations

from pathlib import Path

from helpers import commit, make_repo

from mnemo_core.change import impact
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.store import Store

INIT = "class Command:\n    def __init__(self, name, deprecated=False):\n        self.name = name\n"
INIT += "        self.deprecated = deprecated\n\n"
PLAIN = INIT + "    def run(self):\n        warn(self.name)\n        return self.name\n"
GUARDED = INIT + "    def run(self):\n        if self.deprecated:\n"
GUARDED += "            warn(self.name)\n        return self.name\n"
WARN = "\n\ndef warn(name):\n    return name + ' is deprecated'\n"
TESTS = (
    "from cli.command import Command\n\n"
    "def test_run():\n    assert Command('a').run() == 'a'\n\n"
    "def test_deprecated():\n    assert Command('a', deprecated=True).run() == 'a'\n\n"
    "def test_other():\n    assert Command('b').run() == 'b'\n\n"
    "def test_third():\n    assert Command('c').run() == 'c'\n"
)
RUNNERS = {"test_run", "test_deprecated", "test_other", "test_third"}


def _sure_tests(store: Store, name: str) -> set[str]:
    sid = next(s.id for s in store.find_symbols(name) if s.name == name)
    sure = impact.tests_reaching(store, [sid])[sid].sure
    return {s.short_name for s in store.symbols_by_ids(sure).values()}


def test_a_new_guard_changes_the_tests_within_one_process(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo", {"cli/__init__.py": "", "cli/command.py": PLAIN + WARN, "tests/test_cli.py": TESTS}
    )
    index_repo(repo)
    store = Store.open(repo)
    assert _sure_tests(store, "warn") == RUNNERS
    commit(repo, {"cli/command.py": GUARDED + WARN}, "warn only when deprecated")
    index_repo(repo)
    assert _sure_tests(store, "warn") == {"test_deprecated"}  # the guard read anew, not remembered
    assert _sure_tests(Store.open(repo), "warn") == {"test_deprecated"}
    commit(repo, {"cli/command.py": PLAIN + WARN}, "always warn")
    index_repo(repo)
    assert _sure_tests(store, "warn") == RUNNERS


def test_a_batch_of_walks_reads_the_index_generation_once(tmp_path: Path) -> None:
    """Every walk and reader keys what it keeps by the index's generation: inside one batch (an
    index that does not change meanwhile) it is read from SQLite once, not once per walk and reader."""
    files = {"cli/__init__.py": "", "cli/command.py": GUARDED + WARN, "tests/test_cli.py": TESTS}
    repo = make_repo(tmp_path / "repo", files)
    index_repo(repo)
    store = Store.open(repo)
    ids = [s.id for s in store.symbols_in_file("cli/command.py")]
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    found = impact.tests_reaching(store, ids)
    store.conn.set_trace_callback(None)
    warn = next(s.id for s in store.symbols_in_file("cli/command.py") if s.name == "warn")
    assert {s.short_name for s in store.symbols_by_ids(found[warn].sure).values()} == {"test_deprecated"}
    reads = [s for s in statements if "FROM meta" in s and "generation" in s]
    assert len(reads) == 2, reads  # the batch's key, then the walks' and readers' one
