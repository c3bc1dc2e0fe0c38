"""Tests for ci/precommit.py (``mnemo-precommit``): the policy through ``main([...])``, a real
``git commit`` through pre-commit, and the published hook through ``pre-commit try-repo``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ci_helpers import HOOK_ID, SHOP, run_tool, try_repo
from helpers import commit, git, make_repo, write_files

from ci.guard import EXIT_POLICY
from ci.precommit import main
from mnemo_core.boundary import EXIT_ERROR

MODIFIED = {"shop/pricing.py": SHOP["shop/pricing.py"].replace("item * 2", "item * 3")}
DELETED = {"shop/pricing.py": "def total(items):\n    return sum(price(i) for i in items)\n"}
UNTESTED = {"shop/cart.py": SHOP["shop/cart.py"] + "\n\ndef unused():\n    return 0\n"}


def staged(root: Path, files: dict[str, str]) -> Path:
    """``SHOP`` committed at ``root``, then ``files`` written and staged."""
    make_repo(root, SHOP)
    write_files(root, files)
    git(root, "add", "-A")
    return root


def hook(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main([*args, "--repo", str(root)])
    out, err = capsys.readouterr()
    return code, out + err


def test_a_modified_function_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = hook(staged(tmp_path / "r", MODIFIED), capsys)
    assert code == 0, out
    assert out.splitlines()[0] == (
        "mnemo: staged change: risk LOW · 1 changed symbol · 2 impacted callers · 1 impacted test"
        " · passed (default settings, fail_on = high)"
    )


def test_full_shows_the_table_of_a_passing_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = hook(staged(tmp_path / "r", MODIFIED), capsys, "--full")
    assert code == 0, out
    assert out.splitlines() == [
        "mnemo: staged change: risk LOW · 1 changed symbol · 2 impacted callers · 1 impacted test",
        "  why: public API touched: price",
        "  changed symbol  where              change    callers  tests",
        "  price           shop/pricing.py:1  modified        2      1",
        "  callers (2): total, checkout",
        "  tests (1): tests/test_cart.py::test_checkout",
        "  run: pytest tests/test_cart.py::test_checkout",
        "mnemo: passed (default settings, fail_on = high)",
    ]


def test_a_deleted_function_still_called_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = hook(staged(tmp_path / "r", DELETED), capsys)
    assert code == EXIT_POLICY
    assert "  why: price was deleted but is still referenced (1): shop/pricing.py:2" in out
    assert "mnemo: FAILED: risk high is at or above fail_on = high (default settings and options)" in out
    assert f"SKIP={HOOK_ID} git commit" in out


@pytest.mark.parametrize(
    ("files", "args", "config", "expected"),
    [
        (DELETED, ["--fail-on", "never"], "", 0),
        (MODIFIED, ["--fail-on", "low"], "", EXIT_POLICY),
        (MODIFIED, ["--max-callers", "1"], "", EXIT_POLICY),
        (MODIFIED, ["--max-callers", "2"], "", 0),
        (UNTESTED, ["--require-tests"], "", EXIT_POLICY),
        (UNTESTED, [], "require_tests = true\n", EXIT_POLICY),
        (UNTESTED, ["--no-require-tests"], "require_tests = true\n", 0),
        (DELETED, [], 'fail_on = "never"\n', 0),
        (DELETED, ["--fail-on", "high"], 'fail_on = "never"\n', EXIT_POLICY),
    ],
)
def test_policy_from_config_and_args(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    args: list[str],
    config: str,
    expected: int,
) -> None:
    root = staged(tmp_path / "r", files)
    if config:
        (root / "mnemo.toml").write_text(config, encoding="utf-8")
    code, out = hook(root, capsys, *args)
    assert code == expected, out


def test_policy_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = staged(tmp_path / "r", UNTESTED)
    (root / "pyproject.toml").write_text("[tool.mnemo]\nmax_callers = 0\n", encoding="utf-8")
    code, out = hook(root, capsys, "--require-tests")
    assert code == EXIT_POLICY
    assert (
        "mnemo: FAILED: require_tests: no test reaches unused "
        f"(settings from {root / 'pyproject.toml'} [tool.mnemo] and options)"
    ) in out


def test_pre_push_analyses_the_pushed_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path / "r", SHOP)
    base = git(root, "rev-parse", "HEAD").strip()
    head = commit(root, DELETED, "drop price")
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", base)
    monkeypatch.setenv("PRE_COMMIT_TO_REF", head)
    code, out = hook(root, capsys)
    assert code == EXIT_POLICY
    assert out.startswith(f"mnemo: pushed commits {base[:10]}..{head[:10]}: risk HIGH")
    assert f"to push anyway: SKIP={HOOK_ID} git push" in out


def test_the_first_commit_of_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_repo(tmp_path / "r")
    write_files(root, SHOP)
    git(root, "add", "-A")
    code, out = hook(root, capsys, "--full")
    assert code == 0, out
    assert "mnemo: staged change: risk" in out and "added" in out


def test_bad_input_is_one_line_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = hook(tmp_path, capsys)
    assert code == EXIT_ERROR
    assert out.startswith(f"mnemo-precommit: error: {tmp_path} is not inside a git work tree; ")
    assert out.count("\n") == 1
    root = staged(tmp_path / "r", MODIFIED)
    (root / "mnemo.toml").write_text('fail_on = "sometimes"\n', encoding="utf-8")
    code, out = hook(root, capsys)
    assert code == EXIT_ERROR and "fail_on must be one of low, medium, high, never (got 'sometimes')" in out


def test_git_commit_through_pre_commit_reads_the_commits_index(tmp_path: Path) -> None:
    """The real pre-commit and git: unstaged edits are stashed, and ``commit -a`` stages into a temporary
    index that the hook must read (here with the installed console script as a local hook)."""
    script = Path(sys.executable).with_name("mnemo-precommit")
    if not script.exists():
        pytest.skip("mnemo-precommit is not installed next to this Python (pip install -e .)")
    root = make_repo(tmp_path / "r", SHOP)
    config = (
        "repos:\n- repo: local\n  hooks:\n  - id: mnemo-blast-radius\n    name: mnemo blast radius\n"
        f"    entry: {script}\n    language: system\n    pass_filenames: false\n    always_run: true\n"
        "    verbose: true\n"
    )
    commit(root, {".pre-commit-config.yaml": config}, "add the hook")
    assert run_tool(sys.executable, "-m", "pre_commit", "install", cwd=root).returncode == 0
    write_files(root, DELETED)
    write_files(root, {"README.md": "# shop\n\nunstaged edit\n"})
    git(root, "add", "shop/pricing.py")
    refused = run_tool("git", "commit", "-m", "drop price", cwd=root)  # git sends hook output to stderr
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "price was deleted but is still referenced" in refused.stderr
    assert (root / "README.md").read_text(encoding="utf-8").endswith("unstaged edit\n")  # stash restored
    git(root, "reset", "-q")
    write_files(root, MODIFIED)
    passed = run_tool("git", "commit", "-a", "-m", "price x3", cwd=root)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "mnemo: staged change: risk LOW · 1 changed symbol" in passed.stderr
    assert "· passed (default settings" in passed.stderr and "shop/pricing.py:1" not in passed.stderr


@pytest.mark.slow  # try-repo is run by default with a failing commit below; the passing one runs with -m slow
def test_try_repo_passes_a_safe_commit(tmp_path: Path, try_repo_env: dict[str, str]) -> None:
    done = try_repo(staged(tmp_path / "r", MODIFIED), try_repo_env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mnemo blast radius" in done.stdout and "Passed" in done.stdout
    assert "mnemo: staged change: risk LOW" in done.stdout and "· passed (default settings" in done.stdout
    assert "run: pytest" not in done.stdout  # a passing change is one line


def test_try_repo_fails_a_commit_that_deletes_a_called_function(
    tmp_path: Path, try_repo_env: dict[str, str]
) -> None:
    done = try_repo(staged(tmp_path / "r", DELETED), try_repo_env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout and f"- exit code: {EXIT_POLICY}" in done.stdout
    assert "price was deleted but is still referenced (1): shop/pricing.py:2" in done.stdout
    assert "mnemo: FAILED: risk high is at or above fail_on = high" in done.stdout


def test_a_passing_change_that_reaches_tests_says_how_to_run_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = hook(staged(tmp_path / "r", MODIFIED), capsys)
    assert code == 0, out
    assert out.splitlines()[1:] == ["mnemo: run the impacted tests: pytest tests/test_cart.py::test_checkout"]


def test_the_headline_counts_the_references_a_deletion_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = hook(staged(tmp_path / "r", DELETED), capsys)
    assert code == EXIT_POLICY
    headline = out.splitlines()[0]
    assert "1 stale reference ·" in headline and "still referenced 1x" in out
