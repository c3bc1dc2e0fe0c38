"""Vectors per symbol text: an index layer beside the structural index, in its own SQLite file.

A symbol's text is its path and qualified name, then its source (a class: its header and its
members' signatures), cut at ``MAX_TEXT_CHARS``. A vector is keyed by the hash of the model and that
text, not by the symbol, so a checkout, a rebase or an ``--at`` tree reuses every vector whose text
it still has and encodes only new text. Vectors are float16 (768 bytes for 384 dimensions).

``build_vectors`` runs after the structural index is written (never inside it): it lists the
product symbols (not tests: they are demoted for most tasks and are two thirds of a typical
repository's definitions), skips the texts already stored, and encodes the rest in batches of
similar length, committing each batch, so an interrupted run keeps what it did.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mnemo_core.at_commit import AT_DIR, TREE_DIR
from mnemo_core.index.store import Store
from mnemo_core.model import CLASS_KINDS, Symbol
from mnemo_core.retrieve.snippets import SourceCache, full_text
from mnemo_core.statedir import STATE_NAME, own_database, private_dir, state_dir

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from mnemo_core.semantic.encoder import Encoder

VECTORS_DB = "vectors.db"
MAX_TEXT_CHARS = 2000  # about 500 tokens of code: more than the encoder reads (256), less to tokenize
BATCH = 8  # texts per encoder call: larger batches pad more and ran slower on two cores
BUSY_TIMEOUT_S = 5.0

Progress = Callable[[str, int, int], None]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vectors(key BLOB PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID;
"""


@dataclass(frozen=True, slots=True)
class VectorStats:
    """What one vector build did."""

    symbols: int  # product symbols in the index
    encoded: int  # texts encoded now
    reused: int  # texts whose vector was already stored
    elapsed_ms: int


def vectors_path(root: Path, create: bool = False) -> Path:
    """The vector file, beside the index in mnemo's state directory (``mnemo_core.statedir``; never
    a link). An ``--at`` tree (``<state>/at/tree``) shares its repository's, so a past commit reuses
    its vectors."""
    state = root.parent.parent
    if root.name == TREE_DIR and root.parent.name == AT_DIR and _is_state_dir(state):
        return own_database(state / VECTORS_DB)
    return own_database(state_dir(root, create=create) / VECTORS_DB)


def _is_state_dir(path: Path) -> bool:
    """Whether ``path`` is a repository's state directory (``.mnemo`` or the private one)."""
    return path.name == STATE_NAME or path.parent == private_dir(path).parent


def symbol_text(symbol: Symbol, source: SourceCache, members: Iterable[Symbol] = ()) -> str:
    """What the encoder reads of a symbol: where it is, its name, and its code (a class's outline)."""
    body = full_text(symbol, source, members if symbol.kind in CLASS_KINDS else ())
    return f"{symbol.path} {symbol.name}\n{body}"[:MAX_TEXT_CHARS]


def text_key(model: str, text: str) -> bytes:
    """The key of a text's vector: its hash with the model's name."""
    return hashlib.sha1(f"{model}\0{text}".encode("utf-8", "surrogatepass")).digest()


class VectorStore:
    """The vectors of one repository (any commit of it), for one model."""

    def __init__(self, conn: sqlite3.Connection, model: str) -> None:
        self.conn = conn
        self.model = model

    @classmethod
    def open(cls, root: Path, model: str, create: bool = True) -> VectorStore | None:
        """The repository's vector file for ``model``; None when there is none and ``create`` is
        off. A file made by another model is emptied (its vectors mean nothing to this one)."""
        path = vectors_path(root, create=create)
        if not create and not path.is_file():
            return None
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(_SCHEMA)
            row = conn.execute("SELECT value FROM meta WHERE key='model'").fetchone()
            if row is None or row[0] != model:
                with conn:
                    conn.execute("DELETE FROM vectors")
                    conn.execute("INSERT OR REPLACE INTO meta VALUES('model', ?)", (model,))
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return cls(conn, model)

    def close(self) -> None:
        self.conn.close()

    def count(self) -> int:
        """Vectors stored."""
        return int(self.conn.execute("SELECT count(*) FROM vectors").fetchone()[0])

    def known(self, keys: Iterable[bytes]) -> set[bytes]:
        """Which of ``keys`` have a vector."""
        found: set[bytes] = set()
        wanted = list(dict.fromkeys(keys))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(f"SELECT key FROM vectors WHERE key IN ({marks})", chunk)
            found.update(r[0] for r in rows)
        return found

    def get(self, keys: Iterable[bytes]) -> dict[bytes, npt.NDArray[np.float32]]:
        """The stored vectors of ``keys`` (float32 again)."""
        import numpy as np

        out: dict[bytes, npt.NDArray[np.float32]] = {}
        wanted = list(dict.fromkeys(keys))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.conn.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", chunk)
            out.update((k, np.frombuffer(v, dtype=np.float16).astype(np.float32)) for k, v in rows)
        return out

    def put(self, items: Iterable[tuple[bytes, npt.NDArray[np.float32]]]) -> None:
        """Store vectors (as float16), in one transaction."""
        import numpy as np

        with self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO vectors VALUES(?, ?)",
                ((k, np.asarray(v, dtype=np.float16).tobytes()) for k, v in items),
            )


def encode_missing(
    vectors: VectorStore,
    encoder: Encoder,
    texts: dict[bytes, str],
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
) -> int:
    """Encode and store the texts (by key) that have no vector yet; how many were encoded. ``stop``
    is asked between batches: when it says so, the batches stored so far are kept and the rest
    wait for the next run."""
    missing = sorted(set(texts) - vectors.known(texts), key=lambda k: (len(texts[k]), k))
    for start in range(0, len(missing), BATCH):
        if stop is not None and stop():
            return start
        keys = missing[start : start + BATCH]
        rows = encoder.encode([texts[k] for k in keys])
        vectors.put(zip(keys, rows, strict=True))
        if progress is not None:
            progress("vectors", start + len(keys), len(missing))
    return len(missing)


def symbol_texts(store: Store, root: Path, symbols: list[Symbol], model: str) -> dict[int, tuple[bytes, str]]:
    """Each symbol's (key, text)."""
    source = SourceCache(root)
    members = store.children_of(s.id for s in symbols if s.kind in CLASS_KINDS)
    out = {}
    for symbol in symbols:
        text = symbol_text(symbol, source, members.get(symbol.id, ()))
        out[symbol.id] = (text_key(model, text), text)
    return out


@dataclass(frozen=True)
class VectorPlan:
    """What a vector build has to do: the repository's product symbols, and the texts of theirs
    that have no vector yet (by key)."""

    root: Path
    symbols: int
    missing: dict[bytes, str]
    reused: int
    started: float  # perf_counter when the plan was made: the build's time counts the listing

    def run(self, progress: Progress | None = None, stop: Callable[[], bool] | None = None) -> VectorStats:
        """Encode the missing texts (``stop``: see :func:`encode_missing`)."""
        from mnemo_core.semantic.encoder import MODEL_ID, model_path, shared_encoder
        from mnemo_core.semantic.query import built_arrays

        encoded = 0
        if self.missing:
            vectors = VectorStore.open(self.root, MODEL_ID)
            assert vectors is not None
            try:
                encoded = encode_missing(vectors, shared_encoder(), self.missing, progress, stop)
            finally:
                vectors.close()
            built_arrays(model_path())  # the task's encoder of the same weights, ready for the first query
        elapsed = round((time.perf_counter() - self.started) * 1000)
        return VectorStats(self.symbols, encoded, self.reused, elapsed)


def plan_vectors(store: Store, root: Path) -> VectorPlan:
    """List the product symbols whose text has no vector yet (the extra must be installed)."""
    from mnemo_core.blas import one_blas_thread
    from mnemo_core.semantic.encoder import MODEL_ID

    one_blas_thread()
    started = time.perf_counter()
    symbols = store.product_symbols()
    texts = dict(symbol_texts(store, root, symbols, MODEL_ID).values())
    vectors = VectorStore.open(root, MODEL_ID)
    assert vectors is not None
    try:
        known = vectors.known(texts)
    finally:
        vectors.close()
    missing = {key: text for key, text in texts.items() if key not in known}
    return VectorPlan(root, len(symbols), missing, len(known), started)


def build_vectors(store: Store, root: Path, progress: Progress | None = None) -> VectorStats:
    """Bring the repository's vectors up to date with its index: encode every product symbol whose
    text has no vector yet."""
    return plan_vectors(store, root).run(progress)


def missing_vectors(root: Path) -> VectorPlan | None:
    """For a long-lived process (the language server, after its index is up to date): the plan of
    the repository's missing vectors, on an index connection of its own; None when the semantic
    extra is not installed or nothing is missing. ``plan.run(progress, stop)`` then encodes them,
    on any thread, stopping between batches when ``stop()`` says so (say, an index job is waiting);
    a later plan picks up what is left."""
    from mnemo_core.semantic.encoder import available

    if not available():
        return None
    store = Store.open(root, create=False)
    try:
        plan = plan_vectors(store, root)
    finally:
        store.close()
    return plan if plan.missing else None
