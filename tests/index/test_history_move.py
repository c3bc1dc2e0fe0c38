"""Moving through history: an index brought up to date after a checkout equals a cold index of the
same tree, and resolves again only the files whose resolution read what differs."""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from helpers import cold_snapshot, commit, git, index_snapshot, make_repo

from mnemo_core.index import indexer
from mnemo_core.index.depends import note_file
from mnemo_core.index.indexer import PRELOAD_SHARE, index_repo
from mnemo_core.index.store import Store, index_path
from mnemo_core.index.world import Reads, World

FIRST = {
    "app/__init__.py": "",
    "app/models.py": (
        "class Base:\n    def save(self):\n        return 1\n\n"
        "class User(Base):\n    @property\n    def name(self):\n        return 'u'\n"
    ),
    "app/service.py": (  # app.extra comes later; render is defined once, then four times
        "from app.models import User\nfrom app import helpers\nfrom app.extra import thing\n\n"
        "def register():\n    u = User()\n    u.save()\n    return u.name\n\n"
        "def audit(x):\n    return helpers.stamp(x) + render(x) + thing()\n"
    ),
    "app/helpers.py": "def stamp(x):\n    return x\n",
    "app/views.py": (  # purge is defined later
        "def render(x):\n    return x\n\nclass Page:\n    def render(self):\n"
        "        return cleanup() + purge()\n"
    ),
    "app/solo.py": "def use():\n    return purge() + render(1)\n",  # reads those two names only
    "app/jobs.py": "def cleanup():\n    return 0\n",
    "app/bases.py": "class A:\n    def hello(self):\n        return 1\n",
    "app/bases2.py": "class B:\n    def hello(self):\n        return 2\n",
    "app/alias.py": "from app.bases import A as Parent\n",
    "app/mid.py": "from app.alias import Parent\n\nclass Mid(Parent):\n    pass\n",
    "app/leaf.py": (  # its base's base comes out otherwise: only that tells it
        "from app.mid import Mid\n\nclass Leaf(Mid):\n    def go(self):\n        return self.hello()\n"
    ),
    "app/factory.py": (  # what make returns changes, nothing else of the file
        "from app.bases import A\nfrom app.bases2 import B\n\ndef make() -> A:\n    return A()\n"
    ),
    "app/client.py": "from app.factory import make\n\ndef run():\n    return make().hello()\n",
    "app/holder.py": (  # what one attribute holds changes (a symbol's typings, key ``yf``)
        "from app.bases import A\nfrom app.bases2 import B\n\nclass Holder:\n    def __init__(self):\n"
        "        self.part = A()\n        self.keep = A()\n"
    ),
    "app/holder_use.py": "from app.holder import Holder\n\ndef go(h: Holder):\n    return h.part.hello()\n",
    "app/local.py": (  # its base turns external (a symbol's bases as written, key ``ys``)
        "from requests import Session\n\nclass Local(dict):\n    def fetch_all(self):\n        return 1\n"
    ),
    "app/local_use.py": (  # calls back its protected method once Local extends an external class
        "from app.local import Local\n\nclass Sub(Local):\n    def _hook(self):\n        return 1\n\n"
        "    def go(self):\n        return self.send()\n"
    ),
    "tests/conftest.py": (  # admin turns a fixture (a symbol's decorators, key ``yd``)
        "import pytest\n\n@pytest.fixture\ndef user():\n    return 1\n\ndef admin():\n    return 2\n"
    ),
    "tests/test_admin.py": "def test_admin(admin):\n    assert admin\n",
    "app/sub/mod.py": (  # a package __init__ comes that its relative import names by path only
        "from . import thing\n\ndef go():\n    return thing()\n"
    ),
    "app/sub/other.py": "def other():\n    return 1\n",
    "tests/sub/test_near.py": "def test_near(user):\n    assert user\n",  # a nearer fixture comes
    "tests/test_service.py": (
        "from app.service import register\n\ndef test_register(user):\n    assert register()\n"
    ),
}
SECOND = {  # names appear and get ambiguous, bases move, modules appear, a property goes, files go
    "app/models.py": (
        "class Root:\n    def save(self):\n        return 0\n\n"
        "class Base(Root):\n    pass\n\n"
        "class User(Base):\n    def name(self):\n        return 'u'\n"
    ),
    "app/other.py": (
        "def render(x):\n    return 2\n\ndef cleanup():\n    return 1\n\ndef purge():\n    return 1\n"
    ),
    "app/more.py": "def render(x):\n    return 3\n\nclass Page:\n    def render(self):\n        return 4\n",
    "app/extra.py": "def render(x):\n    return 5\n\ndef thing():\n    return 6\n",
    "app/alias.py": "from app.bases2 import B as Parent\n",
    "app/helpers/__init__.py": "def stamp(x):\n    return 2 * x\n",
    "app/helpers.py": None,
    "app/jobs.py": None,
    "app/factory.py": (
        "from app.bases import A\nfrom app.bases2 import B\n\ndef make() -> B:\n    return B()\n"
    ),
    "tests/sub/conftest.py": "import pytest\n\n@pytest.fixture\ndef user():\n    return 2\n",
    "app/sub/__init__.py": "def thing():\n    return 1\n",
    "app/holder.py": (
        "from app.bases import A\nfrom app.bases2 import B\n\nclass Holder:\n    def __init__(self):\n"
        "        self.part = B()\n        self.keep = A()\n"
    ),
    "app/local.py": (
        "from requests import Session\n\nclass Local(Session):\n    def fetch_all(self):\n        return 1\n"
    ),
    "tests/conftest.py": (
        "import pytest\n\n@pytest.fixture\ndef user():\n    return 1\n\n@pytest.fixture\ndef admin():\n"
        "    return 2\n"
    ),
}
THIRD = {  # only a body changes: nothing others read differs
    "app/views.py": (
        "def render(x):\n    # a comment\n    return x + 1\n\nclass Page:\n    def render(self):\n"
        "        return cleanup() + purge()\n"
    ),
}


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, list[str]]:
    repo = make_repo(tmp_path / "repo", FIRST)
    revs = [git(repo, "rev-parse", "HEAD").strip()]
    for files in (SECOND, THIRD):
        commit(repo, files, "next")
        revs.append(git(repo, "rev-parse", "HEAD").strip())
    return repo, revs


@pytest.mark.parametrize("preload_share", [PRELOAD_SHARE, 1.0])  # 1.0: rows written in place
def test_back_and_forth_equals_a_cold_index(
    tmp_path: Path, history: tuple[Path, list[str]], preload_share: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, revs = history
    monkeypatch.setattr(indexer, "PRELOAD_SHARE", preload_share)
    index_repo(repo)
    colds = {rev: cold_snapshot(tmp_path, repo, rev) for rev in revs}
    for rev in (revs[0], revs[2], revs[1], revs[0], revs[1], revs[2]):
        git(repo, "checkout", "-q", rev)
        index_repo(repo)
        assert index_snapshot(repo).differences(colds[rev]) == [], rev


def test_rows_written_in_place_equal_rows_written_anew(
    tmp_path: Path, history: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move that writes only the edges and ``deps`` rows that differ leaves the same rows, ids
    included, as one that deletes the resolved files' rows and writes them all again."""
    repo, revs = history
    index_repo(repo)
    anew = tmp_path / "anew"
    shutil.copytree(repo, anew, symlinks=True)
    for rev in (revs[0], revs[1], revs[2]):
        rows = {}
        for share, root in ((1.0, repo), (0.0, anew)):  # 0.0: the whole index is loaded, rows rewritten
            monkeypatch.setattr(indexer, "PRELOAD_SHARE", share)
            git(root, "checkout", "-q", rev)
            index_repo(root)
            with sqlite3.connect(index_path(root)) as conn:
                rows[share] = [Counter(conn.execute(f"SELECT * FROM {table}")) for table in ("edges", "deps")]
        assert rows[1.0] == rows[0.0], rev
        assert rows[1.0][1], "no keys stored"


def test_a_body_change_resolves_only_its_file(
    history: tuple[Path, list[str]], caplog: pytest.LogCaptureFixture
) -> None:
    repo, revs = history
    git(repo, "checkout", "-q", revs[1])
    index_repo(repo)
    git(repo, "checkout", "-q", revs[2])
    with caplog.at_level("INFO", logger="mnemo_core.index.indexer"):
        index_repo(repo)
    assert "0 files read what changed" in caplog.text
    assert "resolved 1 files" in caplog.text


def test_a_new_typed_attribute_resolves_no_reader_of_the_others(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    holder = "from app.bases import A\n\nclass Holder:\n    def __init__(self):\n        self.part = A()\n"
    repo = make_repo(
        tmp_path / "repo",
        {
            "app/__init__.py": "",
            "app/bases.py": FIRST["app/bases.py"],
            "app/holder.py": holder,
            "app/use.py": "from app.holder import Holder\n\ndef go(h: Holder):\n    return h.part.hello()\n",
        },
    )
    index_repo(repo)
    commit(repo, {"app/holder.py": holder + "        self.extra = A()\n"}, "an attribute more")
    with caplog.at_level("INFO", logger="mnemo_core.index.indexer"):
        index_repo(repo)
    assert "0 files read what changed" in caplog.text
    assert "resolved 1 files" in caplog.text


def test_a_signature_is_keyed_apart_from_its_symbol(tmp_path: Path) -> None:
    """A reader of a function's parameters notes them apart (``yp``); a change of them alone
    changes that key, not the function's own (``y``), which its callers read."""
    repo = make_repo(
        tmp_path / "repo",
        {
            "app/__init__.py": "",
            "app/f.py": "def make(kind):\n    return 1\n",
            "app/g.py": "from app.f import make\n\ndef go():\n    return make(1)\n",
        },
    )
    index_repo(repo)
    store = Store.open(repo)
    try:
        f, g = store.files()["app/f.py"].id, store.files()["app/g.py"].id
        before = store.resolver_view(f)
        (sid,) = [s for s, row in before[0].items() if row[1] == "make"]
        world = World(store, set())
        world.reads = Reads(owner=g)
        assert world.params(sid) == ("kind",)
        assert {f"y\t{sid}", f"yp\t{sid}"} <= world.reads.keys()
    finally:
        store.close()
    commit(repo, {"app/f.py": "def make(kind, more):\n    return 1\n"}, "a parameter more")
    index_repo(repo)
    store = Store.open(repo)
    try:
        change = Reads()
        note_file(change, f, "python", "app/f.py", before, store.resolver_view(f))
    finally:
        store.close()
    keys = change.keys()
    assert f"yp\t{sid}" in keys
    assert f"y\t{sid}" not in keys


def test_a_class_that_moves_its_bases_resolves_only_its_followers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    two = (
        "from app.bases import A\nfrom app.bases2 import B\n\n"
        "class One(A):\n    pass\n\nclass Two(A):\n    pass\n"
    )
    repo = make_repo(
        tmp_path / "repo",
        {
            "app/__init__.py": "",
            "app/bases.py": FIRST["app/bases.py"],
            "app/bases2.py": FIRST["app/bases2.py"],
            "app/two.py": two,
            "app/use.py": "from app.two import Two\n\ndef go(t: Two):\n    return t.hello()\n",
        },
    )
    index_repo(repo)
    commit(repo, {"app/two.py": two.replace("class One(A)", "class One(B)")}, "One's base moves")
    with caplog.at_level("INFO", logger="mnemo_core.index.indexer"):
        index_repo(repo)
    assert "0 files followed base classes that changed" in caplog.text  # use.py follows Two only
    assert "resolved 1 files" in caplog.text


CORE = (  # v1 of a file edited inside: a body, the order of definitions, a decorator, an import
    "from app.util import a\n\ndef first():\n    return a()\n\ndef second():\n    return first()\n\n"
    "class Box:\n    def open(self):\n        return second()\n"
)
CORE_EDITED = (  # first's body grows and second moves above it; open turns static (an indexed column)
    "from app.util import a\n\ndef second():\n    return first()\n\ndef first():\n    x = 1\n"
    "    return a() + x\n\nclass Box:\n    @staticmethod\n    def open():\n        return second()\n"
)
CORE_IMPORT = CORE_EDITED.replace("from app.util import a\n", "from app.util import b as a\n")


@pytest.mark.parametrize("preload_share", [PRELOAD_SHARE, 1.0])
def test_edits_inside_a_file_equal_a_cold_index(
    tmp_path: Path, preload_share: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose function is edited, whose definitions move within it, one gaining a decorator,
    and then whose import alone changes: each move equals a cold index, kept symbols keep their ids."""
    monkeypatch.setattr(indexer, "PRELOAD_SHARE", preload_share)
    repo = make_repo(
        tmp_path / "repo",
        {
            "app/__init__.py": "",
            "app/util.py": "def a():\n    return 1\n\ndef b():\n    return 2\n",
            "app/core.py": CORE,
            "app/use.py": "from app.core import Box, first\n\ndef go():\n    return Box().open() + first()\n",
        },
    )
    revs = [git(repo, "rev-parse", "HEAD").strip()]
    for text in (CORE_EDITED, CORE_IMPORT):
        commit(repo, {"app/core.py": text}, "edit core")
        revs.append(git(repo, "rev-parse", "HEAD").strip())
    colds = {rev: cold_snapshot(tmp_path, repo, rev) for rev in revs}
    ids = set()
    for rev in (revs[0], revs[1], revs[2], revs[0], revs[2], revs[1]):
        git(repo, "checkout", "-q", rev)
        index_repo(repo)
        assert index_snapshot(repo).differences(colds[rev]) == [], rev
        with sqlite3.connect(index_path(repo)) as conn:
            found = conn.execute("SELECT id FROM symbols WHERE name IN ('first', 'Box.open')")
            ids |= {row[0] for row in found}
    assert len(ids) == 2  # neither was deleted and inserted anew


def test_a_move_parsed_in_forked_workers_equals_a_cold_index(
    tmp_path: Path, history: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update of many files parses here and in forked workers, the history read in a thread
    started after them: the same index as a cold one."""
    repo, revs = history
    monkeypatch.setattr(indexer, "UPDATE_PARALLEL_MIN_FILES", 1)
    index_repo(repo)
    for rev in (revs[0], revs[2]):
        cold = cold_snapshot(tmp_path, repo, rev)
        git(repo, "checkout", "-q", rev)
        index_repo(repo)
        assert index_snapshot(repo).differences(cold) == [], rev
