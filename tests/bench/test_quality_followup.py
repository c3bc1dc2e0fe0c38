"""The follow-up benchmark's pairing on a real repository: a task's predecessor is the commit before
it, a follow-up when the two changed a same file."""

from __future__ import annotations

from pathlib import Path

from helpers import commit, git, make_repo

from bench.quality.followup import more_tasks, pairs
from bench.quality.mining import Task, mine

A = "def first(x):\n    return x + 1\n\n\ndef second(x):\n    return x * 2\n"
B = "def other(x):\n    return x - 1\n"


def _task(root: Path, sha: str, position: int, *truth: str) -> Task:
    parent = git(root, "rev-parse", f"{sha}^1").strip()
    return Task(sha, parent, position, "subject", "a task", truth)


def test_a_task_pairs_with_the_commit_before_it(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", {"pkg/a.py": A, "pkg/b.py": B})
    commit(root, {"pkg/a.py": A.replace("x + 1", "x + 10")}, "Make the first increment larger")
    follow = commit(
        root,
        {"pkg/a.py": A.replace("x + 1", "x + 10").replace("x * 2", "x * 3")},
        "Triple the second value for its callers",
    )
    unrelated = commit(root, {"pkg/b.py": B.replace("x - 1", "x - 2")}, "Decrement other by two")
    found = pairs(
        root, [_task(root, unrelated, 1, "pkg/b.py:other"), _task(root, follow, 2, "pkg/a.py:second")]
    )
    assert [(p.task.id, p.follow_up) for p in found] == [(follow, True), (unrelated, False)]
    assert found[0].previous.text == "Make the first increment larger"
    assert found[0].previous.ground_truth == ("pkg/a.py:first",)
    assert found[1].previous.ground_truth == ("pkg/a.py:second",)


def test_more_tasks_are_the_next_ones_the_same_mining_finds(tmp_path: Path) -> None:
    code = "\n\n".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(6))
    root = make_repo(tmp_path / "r", {"pkg/a.py": code})
    for i in range(6):
        code = code.replace(f"return x + {i}\n", f"return x + {i} * 10\n")
        commit(root, {"pkg/a.py": code}, f"Make step number {i} ten times larger")
    head = git(root, "rev-parse", "HEAD").strip()
    known = mine(root, head, 2, 7, 100)
    more = more_tasks(root, head, known, 3, 7, 100)
    assert len(known) == 2 and len(more) == 3
    assert not {t.id for t in known} & {t.id for t in more}
    assert {t.id for t in [*known, *more]} == {t.id for t in mine(root, head, 5, 7, 100)}
    assert all(len(t.ground_truth) == 1 for t in more)
    assert len(more_tasks(root, head, known, 10, 7, 100)) == 4  # six commits in all: only four more
