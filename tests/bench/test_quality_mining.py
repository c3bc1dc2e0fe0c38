"""Task mining of the quality benchmark: message cleaning, diff parsing, diff -> functions, sampling."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import commit, git, make_repo

from bench.quality.metrics import RANK_DEPTH, first_files, task_metrics
from bench.quality.mining import (
    OldSideChange,
    clean_message,
    ground_truth,
    is_bot,
    is_descriptive,
    is_source_path,
    mine,
    parse_zero_context_diff,
    pr_message,
    same_code,
    source_changes,
    source_of,
    touched_functions,
)
from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path
from mnemo_core.model import RawSymbol

MODULE = '''import os


class Greeter:
    """Says hello."""

    greeting = "hi"

    def greet(self, name):
        return f"{self.greeting} {name}"

    @staticmethod
    def shout(name):
        def upper(text):
            return text.upper()
        return upper(name)


def helper(x):
    y = x + 1
    return y
'''
# Line map of MODULE: Greeter 4-16, Greeter.greet 9-10, Greeter.shout 12-16 (decorator included),
# Greeter.shout.upper 14-15, helper 19-21; line 7 is a class attribute, line 1 module code.


# -- messages -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (
            "Fix crash in parser (#1234)\n\nSigned-off-by: A <a@x.org>\nCo-authored-by: B <b@x.org>\n",
            "Fix crash in parser",
        ),
        (
            "Handle empty config (gh-77)\n\nThe loader failed on an empty file.\n\nFixes #12\n"
            "Closes o/r#99\n",
            "Handle empty config\n\nThe loader failed on an empty file.",
        ),
        (
            "Retry uploads\n\nSee https://example.com/issue/5 and [the docs](https://example.com/d) for why.",
            "Retry uploads\n\nSee and the docs for why.",
        ),
        (
            "* Fix chained output\n\nCo-authored-by: B <x@y>\n\n* Add tests\n\n-------\n\n"
            "Co-authored-by: B <x@y>",
            "* Fix chained output\n\n* Add tests",
        ),
        (
            "Speed up eq\n\n* Speed up eq\n\n* [pre-commit.ci] auto fixes\n\nfor more information, see https://x.org\n\n"
            "* Update src/attr/_make.py\n\n* Apply suggestions from code review\n\n"
            "* Merge branch 'main' into eq",
            "Speed up eq\n\n* Speed up eq",
        ),
        (
            "Backport the loader fix (issue-42, bpo-7)\n\n(cherry picked from commit 0123abcd)\n",
            "Backport the loader fix",
        ),
    ],
)
def test_clean_message_strips_trailers_references_and_urls(message: str, expected: str) -> None:
    assert clean_message(message) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fix crash when the config file is empty", True),
        ("Avoid quadratic node removal in fmt: off blocks", True),
        ("wip", False),
        ("Update foo.py", False),
        ("Fix typo in the error message of the loader", False),
        ("Bump version to 8.1.0 for the release", False),
        ("Merge branch 'stable' into main please", False),
        ("Release 3.0.0 with all the new things", False),
        ("8.1.2 and some other words here", False),
        ("[pre-commit.ci] auto fixes from pre-commit.com hooks", False),
    ],
)
def test_is_descriptive(text: str, expected: bool) -> None:
    assert is_descriptive(text) is expected


def test_bots_are_recognised_by_author() -> None:
    assert is_bot("dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>")
    assert is_bot("pytest bot <pytestbot@users.noreply.github.com>")
    assert not is_bot("Ada Tester <ada@example.com>")


# -- diffs --------------------------------------------------------------------------------------
DIFF = """diff --git a/pkg/mod.py b/pkg/mod.py
index 1111111..2222222 100644
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -10 +10 @@ class Greeter:
-        return f"{self.greeting} {name}"
+        return f"{self.greeting}, {name}"
@@ -20,0 +21,2 @@ def helper(x):
+    z = y
+    y = z
@@ -30,3 +31,0 @@ def gone():
--- a/not/a/header.py
-    removed
-    lines
diff --git a/old/name.py b/new/name.py
similarity index 90%
rename from old/name.py
rename to new/name.py
--- a/old/name.py
+++ b/new/name.py
@@ -5,2 +5,3 @@
-a
-b
+c
+d
+e
diff --git a/added.py b/added.py
new file mode 100644
--- /dev/null
+++ b/added.py
@@ -0,0 +1,2 @@
+def new():
+    pass
"""


def test_parse_zero_context_diff_reads_parent_side_lines() -> None:
    changes = parse_zero_context_diff(DIFF)
    assert set(changes) == {"pkg/mod.py", "old/name.py"}  # added files have no parent side
    assert changes["pkg/mod.py"].changed == [(10, 10), (30, 32)]
    assert changes["pkg/mod.py"].inserted_after == [20]
    assert changes["old/name.py"].changed == [(5, 6)]
    assert changes["old/name.py"].new_path == "new/name.py"


def _symbols() -> list[RawSymbol]:
    spec = language_for_path("pkg/mod.py")
    assert spec is not None
    return list(extract("pkg/mod.py", MODULE.encode(), spec).symbols)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (OldSideChange([(10, 10)], []), ["Greeter.greet"]),
        (OldSideChange([(15, 15)], []), ["Greeter.shout.upper"]),  # innermost, not shout, not Greeter
        (OldSideChange([(12, 12)], []), ["Greeter.shout"]),  # the decorator belongs to the method
        (OldSideChange([(7, 7), (1, 1)], []), []),  # class attribute and module code: no function
        (OldSideChange([(9, 21)], []), ["Greeter.greet", "Greeter.shout", "Greeter.shout.upper", "helper"]),
        (OldSideChange([], [19]), ["helper"]),  # inserted after the def line: inside the body
        (OldSideChange([], [20]), ["helper"]),
        (OldSideChange([], [21]), []),  # after the last line: appended, outside
        (OldSideChange([], [18]), []),  # before the def
        (OldSideChange([], [10]), []),  # between two methods
    ],
)
def test_touched_functions_maps_lines_to_innermost(change: OldSideChange, expected: list[str]) -> None:
    assert sorted(touched_functions(_symbols(), change)) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("pkg/mod.py", True),
        ("src/pkg/testing.py", True),
        ("tests/test_mod.py", False),
        ("pkg/conftest.py", False),
        ("pkg/testsuite/helpers.py", False),
        ("docs/conf.py", False),
        ("pkg/data.json", False),
    ],
)
def test_is_source_path(path: str, expected: bool) -> None:
    assert is_source_path(path) is expected


def test_same_code_ignores_docstrings_comments_and_layout() -> None:
    before = b'def f(x):\n    """Old."""\n    return x  # note\n'
    assert same_code(before, b'def f(x):\n    """New words."""\n\n    return (x)\n')
    assert not same_code(before, b'def f(x):\n    """Old."""\n    return -x\n')
    assert not same_code(b"print 'python 2'\n", b"print 'python 2'\n")  # unparsable counts as code


# -- against a real repository ------------------------------------------------------------------
def _history(root: Path) -> dict[str, str]:
    """A small history: one commit of each kind the miner must accept or reject."""
    make_repo(root, {"pkg/mod.py": MODULE, "tests/test_mod.py": "def test_greet():\n    assert True\n"})
    shas = {
        "good": commit(
            root,
            {
                "pkg/mod.py": MODULE.replace("{self.greeting} {name}", "{self.greeting}, {name}")
                + "\n\ndef added():\n    return 1\n",
                "tests/test_mod.py": "def test_greet():\n    assert 1\n",
            },
            "Separate the greeting from the name with a comma (#12)\n\nSigned-off-by: Ada <ada@example.com>",
        )
    }
    typo = MODULE.replace("x + 1", "x + 2")
    shas["typo"] = commit(root, {"pkg/mod.py": typo}, "fix typo")
    documented = typo.replace('"Says hello."', '"Greets."').replace("    y = x", "    # one more\n    y = x")
    shas["docs"] = commit(root, {"pkg/mod.py": documented}, "Explain what the greeter and the helper are for")
    shas["tests_only"] = commit(
        root,
        {"tests/test_mod.py": "def test_greet():\n    assert 2\n"},
        "Make the greeting test stricter than before",
    )
    shas["bot"] = commit(
        root,
        {"pkg/mod.py": documented.replace("x + 2", "x + 3")},
        "Apply automatic fixes from the linter",
        author=("ci[bot]", "bot@example.com"),
    )
    many = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(10))
    commit(root, {"pkg/many.py": many}, "Add ten small functions to the package")
    shas["big"] = commit(
        root,
        {"pkg/many.py": many.replace("return", "return -")},
        "Negate every small function result in the package",
    )
    return shas


def test_ground_truth_is_parent_side_non_test_functions(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shas = _history(root)
    # the test file and the added function are not part of the answer
    good = source_changes(root, f"{shas['good']}~1", shas["good"])
    assert list(good) == ["pkg/mod.py"]
    assert ground_truth(root, f"{shas['good']}~1", good) == ["pkg/mod.py:Greeter.greet"]
    assert source_changes(root, f"{shas['tests_only']}~1", shas["tests_only"]) == {}


def test_mine_keeps_only_descriptive_small_commits_by_people(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shas = _history(root)
    tasks = list(mine(root, "HEAD", count=10, seed=0, window=100))
    assert [t.id for t in tasks] == [shas["good"]]
    task = tasks[0]
    assert task.text == "Separate the greeting from the name with a comma"
    assert task.parent == git(root, "rev-parse", f"{shas['good']}~1").strip()
    assert task.ground_truth == ("pkg/mod.py:Greeter.greet",)


# -- metrics ------------------------------------------------------------------------------------
def test_task_metrics_definitions() -> None:
    ranking = ["a.py:x", "b.py:y", "a.py:z", "c.py:w", "d.py:v", "e.py:u", "f.py:t"]
    metrics = task_metrics(ranking, ["a.py:z", "g.py:missing"])
    assert metrics == {
        "R@5": 0.5,
        "R@10": 0.5,
        "Acc@10": 0.0,
        "P@10": 0.1,
        "MRR": 1 / 3,
        "fileAcc@5": 0.0,
        "R@all": 0.5,
    }
    assert task_metrics(ranking, ["b.py:y", "d.py:v"])["fileAcc@5"] == 1.0
    assert first_files(ranking, 3) == ["a.py", "b.py", "c.py"]
    deep = [f"x.py:f{i}" for i in range(RANK_DEPTH)] + ["y.py:g"]
    assert task_metrics(deep, ["y.py:g"])["MRR"] == 0.0  # found, but past the depth MRR counts
    assert task_metrics(deep, ["y.py:g"])["R@all"] == 1.0


# -- pull requests ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "merge", "expected"),
    [
        ("Merge pull request #5 from ada/fix\n\nFix the loader", True, "pr"),
        ("Merge pull request #6 from pallets/dependabot/pip/x\n\nBump x", True, None),  # a bot's PR
        ("Merge branch 'stable'", True, None),
        ("Fix the loader (#7)\n\n* fix\n* test", False, "pr"),  # a squash merge
        ("Fix the loader", False, "commit"),
    ],
)
def test_source_of(message: str, merge: bool, expected: str | None) -> None:
    assert source_of(message, merge) == expected


def test_pr_message_drops_the_merge_line_then_cleans_like_commits() -> None:
    message = (
        "Merge pull request #5 from ada/comma\n\nSeparate the greeting with a comma\n\n"
        "Fixes #4, see https://example.com/x\n\nCo-authored-by: B <b@x.org>\n"
    )
    assert clean_message(pr_message(message)) == "Separate the greeting with a comma"


def _merge(root: Path, branch: str, files: dict[str, str], message: str, date: str) -> str:
    """Commit ``files`` on a new ``branch`` and merge it into main with ``--no-ff`` and ``message``."""
    git(root, "checkout", "-q", "-b", branch)
    commit(root, files, "work in progress on the branch", date=date)
    git(root, "checkout", "-q", "main")
    env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    git(root, "merge", "-q", "--no-ff", "-m", message, branch, env=env)
    sha: str = git(root, "rev-parse", "HEAD").strip()
    return sha


def test_mine_reads_merged_pull_requests_on_the_first_parent_line(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, {"pkg/mod.py": MODULE})
    merged = _merge(
        root,
        "comma",
        {"pkg/mod.py": MODULE.replace("{self.greeting} {name}", "{name}")},
        "Merge pull request #5 from ada/comma\n\nGreet by name only, without the greeting\n\nCloses #4",
        date="2026-01-02T12:00:00+00:00",
    )
    _merge(
        root,
        "stable",
        {"pkg/mod.py": MODULE.replace("x + 1", "x + 3")},
        "Merge branch 'stable'",
        date="2026-01-03T12:00:00+00:00",
    )
    squashed = commit(
        root,
        {"pkg/mod.py": MODULE.replace("x + 1", "x + 2")},
        "Add two instead of one in the helper (#9)\n\n* Add two\n* Adjust the helper",
        date="2026-01-04T12:00:00+00:00",
    )
    direct = commit(
        root,
        {"pkg/mod.py": MODULE.replace("x + 1", "x + 4")},
        "Add four instead of two in the helper",
        date="2026-01-05T12:00:00+00:00",
    )
    tasks = {t.id: t for t in mine(root, "HEAD", count=10, seed=0, window=100)}
    assert set(tasks) == {merged, squashed, direct}  # the "Merge branch" merge is no task
    pr = tasks[merged]
    assert (pr.source, pr.text, pr.ground_truth) == (
        "pr",
        "Greet by name only, without the greeting",
        ("pkg/mod.py:Greeter.greet",),
    )
    assert pr.parent == git(root, "rev-parse", f"{merged}^1").strip()
    assert tasks[squashed].source == "pr" and tasks[squashed].text.startswith("Add two instead of one")
    assert tasks[direct].source == "commit" and tasks[direct].ground_truth == ("pkg/mod.py:helper",)


def test_mine_caps_the_share_of_pull_requests(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, {"pkg/mod.py": MODULE})
    for i in range(3):
        commit(
            root,
            {"pkg/mod.py": MODULE.replace("x + 1", f"x + {i + 10}")},
            f"Change the helper increment to {i + 10} (#{i + 1})",
        )
    commit(root, {"pkg/mod.py": MODULE.replace("x + 1", "x + 99")}, "Change the helper increment directly")
    sources = [t.source for t in mine(root, "HEAD", count=2, seed=0, window=100)]
    assert sorted(sources) == ["commit", "pr"]
    assert len(mine(root, "HEAD", count=4, seed=0, window=100)) == 4  # commits ran out: PRs fill up
