"""The impact benchmark's repositories: where their code is, how their tests run, their clones and venvs.

Each repository is a bare mirror brought onto the machine by the search tool's ``fetch``
(``/work/.mirror/<owner>+<name>/repo``). The benchmark clones it once into its own work directory
(``/tmp/mnemo-impact/<name>``, apart from other benchmarks' clones because it edits files and
checks out pinned commits) and installs the repository's test dependencies into a dedicated
virtualenv beside it (``/tmp/mnemo-impact/venv-<name>``), never into the interpreter that runs
mnemo. Commits and test requirements are pinned so that a rerun measures the same oracle.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MIRRORS = Path("/work/.mirror")
DEFAULT_WORKDIR = Path(tempfile.gettempdir()) / "mnemo-impact"
MIRROR_SUBDIR = "repo"
COVERAGE_REQUIREMENT = "coverage>=7,<8"


@dataclass(frozen=True)
class ImpactRepo:
    """A repository of the benchmark and how to run its test suite."""

    name: str
    source: str  # owner/name on GitHub
    commit: str  # the pinned commit the oracle and the evaluation use
    package: str  # the measured code, relative to the root (non-test code)
    tests: str  # where the test files live, relative to the root (inside ``package`` or not)
    requirements: tuple[str, ...]  # the test dependencies, installed with the repository itself
    pytest_args: tuple[str, ...] = ()
    quality: bool = True  # False: used for timing only (its suite is not run)
    held_out: bool = False  # only its aggregates are read; never tuned on (README)


REPOS = {
    r.name: r
    for r in (
        # pytest 9.2 and 9.0 both run click's suite; the versions are pinned so reruns agree.
        ImpactRepo(
            "click",
            "pallets/click",
            "2c8cd3ac958a7eb316d67f2d316c27086c4c0369",
            "src/click",
            "tests",
            ("pytest==9.2.0",),
        ),
        # flask's tests import pytest internals (``_pytest.monkeypatch.notset``) gone in pytest 9.2.
        ImpactRepo(
            "flask",
            "pallets/flask",
            "2ac89889f4cc330eabd50f295dcef02828522c69",
            "src/flask",
            "tests",
            ("pytest==9.0.2", "asgiref", "greenlet", "python-dotenv"),
        ),
        # more styles (dynamic dispatch): a template engine of registries and visitors (tuning),
        # werkzeug (tuning since its aggregate led a change) and attrs (held out: its per-function
        # failures are never read while tuning)
        ImpactRepo(
            "jinja",
            "pallets/jinja",
            "5ef70112a1ff19c05324ff889dd30405b1002044",
            "src/jinja2",
            "tests",
            ("pytest==9.0.2", "trio"),
        ),
        ImpactRepo(
            "werkzeug",
            "pallets/werkzeug",
            "1b00618e787f40dfb21eba29caf8f8be7c8e1d93",
            "src/werkzeug",
            "tests",
            ("pytest==9.0.2", "ephemeral-port-reserve", "pytest-timeout", "watchdog", "cryptography"),
            ("-p", "no:cacheprovider", "--ignore=tests/live_apps", "--ignore=tests/test_serving.py"),
        ),
        ImpactRepo(
            "attrs",
            "python-attrs/attrs",
            "c1dc5dcba16ed827aa6dcad896b41a3afedb4e32",
            "src/attr",
            "tests",
            ("pytest==9.0.2", "hypothesis", "cloudpickle"),
            held_out=True,
        ),
        # held out: a template compiler of visitors (``visitNode`` dispatch), tag registries and
        # filter names looked up from template text; its optional test extras are pinned
        ImpactRepo(
            "mako",
            "sqlalchemy/mako",
            "222b76b6b92b4b35571635804c1a1bb225ffe350",
            "mako",
            "test",
            ("pytest==9.0.2", "pygments==2.19.2", "babel==2.17.0", "beaker==1.13.0", "dogpile.cache==1.4.1"),
            held_out=True,
        ),
        # held out (added 2026-11-24, chosen before any result): a checker of visitor dispatch by node
        # class name (``getattr(self, node.__class__.__name__.upper())``) whose unittest-style tests
        # live inside the package, and a converter of processor and pattern registries (``Registry``
        # by name and priority) with extensions loaded by name; Pygments (which pytest installs) is
        # pinned and tidylib left out, so the tests that need them skip the same way on every machine
        # (no ``PYGMENTS_VERSION`` to match, no tidylib)
        ImpactRepo(
            "pyflakes",
            "PyCQA/pyflakes",
            "59ec4593efd4c69ce00fdb13c40fcf5f3212ab10",
            "pyflakes",
            "pyflakes/test",
            ("pytest==9.0.2",),
            held_out=True,
        ),
        ImpactRepo(
            "markdown",
            "Python-Markdown/markdown",
            "bb50627dc07fde6ee5ed7478464062c537ebad2c",
            "markdown",
            "tests",
            ("pytest==9.0.2", "pygments==2.19.2", "pyyaml==6.0.3"),
            # its suite is unittest classes, which pytest collects whatever their names; no class
            # names besides: ``from unittest import TestSuite`` would warn, under the ``error``
            # filter ``tests/test_apis.py`` sets on import, and stop the collection
            ("-o", "python_classes="),
            held_out=True,
        ),
        # tuning (added 2026-11-24 by the lead; its dispatch led a change): a dead-code finder whose
        # ``visit`` builds ``method = "visit_" + ...`` and dispatches through ``getattr(self, method)``
        ImpactRepo(
            "vulture",
            "jendrikseipp/vulture",
            "51a13e9467e3dea6ea5ddb74422a0eba87367ef5",
            "vulture",
            "tests",
            ("pytest==9.0.2", "pint"),
            ("-o", "addopts="),  # its own addopts ask for pytest-cov's reports
        ),
        # tuning (added 2026-11-24 for issue #14's coverage floor, in the styles of the held-out attrs
        # and pyflakes): a conversion library that writes its (un)structuring functions as source text
        # and ``exec``s them (linecache), with closures and a hypothesis suite; hypothesis runs its
        # ``fast`` profile (10 examples) with a fixed seed, so that two runs of the suite agree; the
        # optional serialisers its ``preconf`` tests import are installed too
        ImpactRepo(
            "cattrs",
            "python-attrs/cattrs",
            "fd887b7b268d5e2b550beafe0cbde5e6f514646b",  # v26.1.0
            "src/cattrs",
            "tests",
            (
                "pytest==9.0.2",
                "hypothesis",
                "pytest-benchmark",
                "immutables",
                "ujson",
                "orjson",
                "msgpack",
                "pyyaml",
                "tomlkit",
                "cbor2",
                "pymongo",
                "msgspec",
                "tomli-w",
            ),
            ("--hypothesis-profile=fast", "--hypothesis-seed=0"),
        ),
        # tuning: a C parser of visitor dispatch (``getattr(self, 'visit_' + node.__class__.__name__)``),
        # PLY grammar rules found by name (``p_*``) and unittest classes; release 2.23 (2025-09), whose
        # 30 first-parent commits before go back to 2023-01 (3.00's thirty span two days of reformatting)
        ImpactRepo(
            "pycparser",
            "eliben/pycparser",
            "5b60167602e7914139b3e277266ccdff5c24dbf2",  # release_v2.23
            "pycparser",
            "tests",
            ("pytest==9.0.2",),
        ),
        # tuning (added 2026-11-27 for plugins loaded by name): a Markdown parser whose plugins sit
        # in a private table of dotted paths (``_plugins = {"table": "mistune.plugins.table.table"}``)
        # imported at run time, and most of whose tests are methods ``load_fixtures`` attaches from
        # text files (no static tool sees them)
        ImpactRepo(
            "mistune",
            "lepture/mistune",
            "b5dd9949baf3729a709ef8ae591eab86e72a9e46",
            "src/mistune",
            "tests",
            ("pytest==9.0.2",),
        ),
        ImpactRepo(
            "pytest",
            "pytest-dev/pytest",
            "df87db7b0462fb764ef73fa00561adf8ad047572",
            "src/_pytest",
            "testing",
            (),
            quality=False,
        ),
        # timing only (issue 42): a parser combinator library whose core.py (6,000 lines, one class
        # hierarchy) made single-function edits take tens of seconds
        ImpactRepo(
            "pyparsing",
            "pyparsing/pyparsing",
            "efd56db4e59f36b1673ce0eb0823e3afaa9d1201",
            "pyparsing",
            "tests",
            (),
            quality=False,
        ),
        # timing only (issue 42): a saleor-size repository (4,300 files) for `pr --base HEAD~5`
        ImpactRepo(
            "saleor",
            "saleor/saleor",
            "723cd4eba87dfc72822ade45dc08a3caa548428d",
            "saleor",
            "saleor/tests",
            (),
            quality=False,
        ),
    )
}
DEFAULT_QUALITY_REPOS = tuple(r.name for r in REPOS.values() if r.quality)


def lookup(name: str) -> ImpactRepo:
    """A benchmark repository by short name."""
    if name not in REPOS:
        raise SystemExit(f"unknown repository {name!r}: use one of {', '.join(REPOS)}")
    return REPOS[name]


def package_sources(repo: ImpactRepo, root: Path) -> list[Path]:
    """The measured code's Python files in ``root`` (a clone or a worktree of it), sorted; test files
    kept inside the package (``pyflakes/test``) are not measured code."""
    tests = root / repo.tests
    return [p for p in sorted((root / repo.package).rglob("*.py")) if not p.is_relative_to(tests)]


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd``; its stdout, or SystemExit with git's message."""
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed in {cwd}: {done.stderr.strip()}")
    return done.stdout


def clone_of(repo: ImpactRepo, workdir: Path, mirrors: Path = DEFAULT_MIRRORS) -> Path:
    """The benchmark's clone of ``repo`` at its pinned commit, clean (made from the mirror on first use)."""
    clone = workdir / repo.name
    if not (clone / ".git").exists():
        mirror = mirrors / repo.source.replace("/", "+") / MIRROR_SUBDIR
        if not mirror.exists():
            raise SystemExit(f"no mirror of {repo.source} at {mirror}: fetch github:{repo.source} first")
        workdir.mkdir(parents=True, exist_ok=True)
        git(workdir, "clone", "-q", "--no-hardlinks", str(mirror), clone.name)
    if git(clone, "rev-parse", "HEAD").strip() != repo.commit:
        git(clone, "checkout", "-q", "-f", "--detach", repo.commit)
    git(clone, "reset", "-q", "--hard")
    return clone


def venv_python(repo: ImpactRepo, workdir: Path) -> Path:
    """The interpreter of the repository's test virtualenv, created and filled on first use."""
    venv = workdir / f"venv-{repo.name}"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    marker = venv / "mnemo-impact-requirements.txt"
    wanted = "\n".join([COVERAGE_REQUIREMENT, *repo.requirements, f"-e {workdir / repo.name}"]) + "\n"
    if not marker.exists() or marker.read_text(encoding="utf-8") != wanted:
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                COVERAGE_REQUIREMENT,
                *repo.requirements,
                "-e",
                str(workdir / repo.name),
            ],
            check=True,
        )
        marker.write_text(wanted, encoding="utf-8")
    return python


def argument_parser(
    doc: str, workdir_help: str, repos: tuple[str, ...] = DEFAULT_QUALITY_REPOS
) -> argparse.ArgumentParser:
    """The options every script of the benchmark shares: ``--repos`` and ``--workdir``."""
    parser = argparse.ArgumentParser(
        description=doc.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--repos", default=",".join(repos), help=f"comma-separated repositories (default: {','.join(repos)})"
    )
    parser.add_argument(
        "--workdir", type=Path, default=DEFAULT_WORKDIR, help=f"{workdir_help} (default: {DEFAULT_WORKDIR})"
    )
    return parser
