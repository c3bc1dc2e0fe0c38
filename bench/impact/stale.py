"""Coverage data taken some commits before the measured one, as ``mnemo --coverage`` reads it in CI.

A team keeps the data file of its default branch and passes it to the next checks (``docs/ci.md``),
so the data is always somewhat behind the change being judged. This module makes such a file: it
checks ``N`` first-parent commits before the pinned commit out in a git worktree beside the clone
(``<workdir>/<name>-back<N>``) and runs that commit's own suite under coverage with the oracle's
plugin (pytest-cov's ``<nodeid>|setup/run/teardown`` contexts), importing that commit's package
(its import root first on ``PYTHONPATH``, ahead of the venv's editable install of the pinned
clone). The data names files under the worktree, as a CI machine's data names its own checkout;
mnemo maps them by path. The file is cached per commit.
"""

from __future__ import annotations

from pathlib import Path

from bench.impact.oracle import (
    ORACLE_VERSION,
    PLUGIN_DIR,
    TESTS_ENV,
    RunFiles,
    _plugin_env,
    _run_logged,
    coverage_command,
)
from bench.impact.repos import ImpactRepo, clone_of, git, venv_python


def stale_coverage(repo: ImpactRepo, workdir: Path, back: int) -> tuple[Path, str]:
    """The coverage data file of the commit ``back`` first-parent commits before the pinned one,
    and that commit's sha (the suite runs once per commit, then the file is reused)."""
    clone = clone_of(repo, workdir)
    sha = git(clone, "rev-parse", f"{repo.commit}~{back}").strip()
    base = (
        workdir / f"stale-{repo.name}-{sha[:12]}-oracle{ORACLE_VERSION}"
    )  # the plugin's records change with it
    files = RunFiles(
        base.with_suffix(".coveragerc"),
        base.with_suffix(".coverage"),
        base.with_suffix(".tests.json"),
        base.with_suffix(".log"),
    )
    if files.data.exists():
        return files.data, sha
    tree = workdir / f"{repo.name}-back{back}"
    if not (tree / ".git").exists():
        git(clone, "worktree", "add", "-f", "--detach", str(tree), sha)
    git(tree, "checkout", "-q", "-f", "--detach", sha)
    python = venv_python(repo, workdir)
    files.rcfile.write_text(
        f"[run]\nsource = {tree / repo.package}\nbranch = false\ndata_file = {files.data}\n",
        encoding="utf-8",
    )
    env = _plugin_env(**{TESTS_ENV: str(files.tests)})
    env["PYTHONPATH"] = f"{(tree / repo.package).parent}:{PLUGIN_DIR}"
    print(f"[{repo.name}] the suite of {sha[:10]} ({back} commits back) under coverage ...", flush=True)
    # an older suite may trip the pinned pytest's deprecations under its own filterwarnings = error
    command = [*coverage_command(python, files, repo), "-W", "ignore::DeprecationWarning"]
    elapsed, summary = _run_logged(command, tree, env, files.log, f"the suite of {repo.name} at {sha[:10]}")
    print(f"[{repo.name}] {summary} ({elapsed:.0f} s)", flush=True)
    if not files.data.exists():
        raise SystemExit(f"the suite of {repo.name} at {sha[:10]} wrote no coverage data; see {files.log}")
    return files.data, sha
