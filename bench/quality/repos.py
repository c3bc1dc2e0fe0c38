"""The benchmark's repositories, their working clones, and their task files.

Each repository is a bare mirror brought onto the machine by the search tool's ``fetch``
(``/work/.mirror/<owner>+<name>/repo``). The benchmark works in a clone of it outside the mnemo
checkout (``/tmp/mnemo-bench/<name>`` by default), kept between runs so the index there only needs
an incremental update. Tasks live in ``bench/quality/tasks/<name>.json`` and are reused while the
seed and window match and there are enough of them, so every run scores the same tasks.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.quality.mining import MAX_FUNCTIONS, Task, git, mine

TASKS_DIR = Path(__file__).resolve().parent / "tasks"
DEFAULT_MIRRORS = Path("/work/.mirror")
DEFAULT_WORKDIR = Path(tempfile.gettempdir()) / "mnemo-bench"
MIRROR_SUBDIR = "repo"
DEFAULT_REF = "refs/remotes/origin/HEAD"  # the mirror's default branch, whatever is checked out now


@dataclass(frozen=True)
class BenchRepo:
    """A repository of the benchmark; ``held_out`` ones are never used to tune the ranking."""

    name: str
    source: str  # owner/name on GitHub
    held_out: bool = False


REPOS = {
    r.name: r
    for r in (
        BenchRepo("pytest", "pytest-dev/pytest"),
        BenchRepo("black", "psf/black"),
        BenchRepo("attrs", "python-attrs/attrs"),
        BenchRepo("click", "pallets/click"),
        BenchRepo("werkzeug", "pallets/werkzeug"),
        # More tuning data (session 44): other kinds of code than the five above, so the weights
        # are not fitted to five projects' habits. Never held out, never in the floors.
        BenchRepo("marshmallow", "marshmallow-code/marshmallow"),
        BenchRepo("sqlparse", "andialbrecht/sqlparse"),
        BenchRepo("arrow", "arrow-py/arrow"),
        BenchRepo("pyflakes", "PyCQA/pyflakes"),
        BenchRepo("markdown", "Python-Markdown/markdown"),
        BenchRepo("mako", "sqlalchemy/mako"),
        # Held out: the ranking is never tuned on these, nor are their per-task failures read.
        BenchRepo("httpx", "encode/httpx", held_out=True),
        BenchRepo("rich", "Textualize/rich", held_out=True),
        BenchRepo("requests", "psf/requests", held_out=True),
        BenchRepo("jinja", "pallets/jinja", held_out=True),
        # Known, not run by default: flask is the held-out reserve, pydantic is 3x pytest's size.
        BenchRepo("flask", "pallets/flask", held_out=True),
        BenchRepo("pydantic", "pydantic/pydantic"),
    )
}
TUNING_REPOS = ("pytest", "black", "attrs", "click", "werkzeug")
MORE_TUNING_REPOS = ("marshmallow", "sqlparse", "arrow", "pyflakes", "markdown", "mako")
HELD_OUT_REPOS = ("httpx", "rich", "requests", "jinja")
GROUPS = {
    "tuning": TUNING_REPOS,
    "moretuning": MORE_TUNING_REPOS,
    "heldout": HELD_OUT_REPOS,
    "all": TUNING_REPOS + HELD_OUT_REPOS,
}
DEFAULT_REPOS = GROUPS["all"]


def expand(spec: str) -> list[BenchRepo]:
    """Comma-separated names, ``owner/name``s or groups (``tuning``, ``heldout``, ``all``)."""
    names = [n.strip() for n in spec.split(",") if n.strip()]
    return [lookup(name) for n in names for name in GROUPS.get(n, (n,))]


def lookup(spec: str) -> BenchRepo:
    """A repository by short name (``pytest``) or GitHub ``owner/name`` (any fetched repository)."""
    if spec in REPOS:
        return REPOS[spec]
    known = next((r for r in REPOS.values() if r.source == spec), None)
    if known is not None:
        return known
    if spec.count("/") != 1:
        raise SystemExit(f"unknown repository {spec!r}: use one of {', '.join(REPOS)} or an owner/name")
    return BenchRepo(spec.split("/")[1], spec)


def working_clone(repo: BenchRepo, mirrors: Path, workdir: Path) -> Path:
    """The benchmark's clone of ``repo`` (made from its mirror on first use)."""
    clone = workdir / repo.name
    if (clone / ".git").exists():
        return clone
    mirror = mirrors / repo.source.replace("/", "+") / MIRROR_SUBDIR
    if not mirror.exists():
        raise SystemExit(
            f"no mirror of {repo.source} at {mirror}: fetch github:{repo.source} first (or pass --mirrors)"
        )
    workdir.mkdir(parents=True, exist_ok=True)
    git(workdir, "clone", "-q", "--no-hardlinks", str(mirror), clone.name)
    return clone


def ensure_commits(clone: Path, shas: Iterable[str]) -> None:
    """Fetch from the mirror when a task's commit is missing from the clone (the mirror moved on)."""
    for sha in shas:
        try:
            git(clone, "cat-file", "-e", f"{sha}^{{commit}}")
        except RuntimeError:
            git(clone, "fetch", "-q", "origin")
            return


# -- task files -------------------------------------------------------------------------------
def tasks_path(repo: BenchRepo) -> Path:
    """Where the mined tasks of ``repo`` are kept."""
    return TASKS_DIR / f"{repo.name}.json"


def load_tasks(repo: BenchRepo, count: int, seed: int, window: int) -> list[Task] | None:
    """The first ``count`` stored tasks when they were mined with this seed and window, else None."""
    path = tasks_path(repo)
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    enough = len(data["tasks"]) >= count or data.get("exhausted", False)
    if data["seed"] != seed or data["window"] != window or not enough:
        return None
    return [Task.from_json(t) for t in data["tasks"][:count]]


def mine_tasks(
    repo: BenchRepo, clone: Path, count: int, seed: int, window: int, head: str | None
) -> list[Task]:
    """Mine ``count`` tasks from ``head`` (default: the stored head, else the mirror's default
    branch) and write the task file."""
    path = tasks_path(repo)
    if head is None and path.exists():
        head = json.loads(path.read_text(encoding="utf-8")).get("head")
    head = git(clone, "rev-parse", "--verify", f"{head or DEFAULT_REF}^{{commit}}").strip()
    tasks = list(mine(clone, head, count, seed, window))
    save_tasks(repo, tasks, head, seed, window, exhausted=len(tasks) < count)
    return tasks


def save_tasks(
    repo: BenchRepo, tasks: list[Task], head: str, seed: int, window: int, exhausted: bool
) -> None:
    """Write the task file (small: messages and symbol names, no code)."""
    data: dict[str, Any] = {
        "repo": repo.name,
        "source": repo.source,
        "head": head,
        "seed": seed,
        "window": window,
        "max_functions": MAX_FUNCTIONS,
        "exhausted": exhausted,
        "mined": dt.date.today().isoformat(),
        "tasks": [t.to_json() for t in tasks],
    }
    TASKS_DIR.mkdir(parents=True, exist_ok=True)
    tasks_path(repo).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
