"""How close in meaning a task is to its best candidates: the cosine of their vectors.

A query encodes only the task's text, with numpy alone (``query.py``: no ONNX Runtime to load);
the candidates' vectors come from the vector file that ``mnemo index`` keeps (``vectors.py``).
Without the extra, or before any vector exists, nothing of the extra is imported, every similarity
is absent and the ranking is the lexical/structural one; the :class:`Meaning` says which case
holds, for ``mnemo why``.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from mnemo_core.errors import MnemoError
from mnemo_core.index.store import Store
from mnemo_core.model import Symbol

if TYPE_CHECKING:
    from mnemo_core.semantic.query import QueryEncoder

State = Literal["absent", "empty", "ready"]
# "encode": encode the candidates that lack a vector (benchmarks); "off": leave the channel out
VectorUse = Literal["stored", "encode", "off"]

INSTALL_HINT = "pip install 'mnemo[semantic]'"


@dataclass(frozen=True)
class Meaning:
    """The semantic channel's answer for one task: its state, and the cosine of each candidate
    compared (only those with a vector)."""

    state: State
    similarity: dict[int, float] = field(default_factory=dict)

    @property
    def note(self) -> str:
        """The channel's state in words."""
        if self.state == "absent":
            return f"semantic channel absent: its extra is not installed ({INSTALL_HINT})"
        if self.state == "empty":
            return "semantic channel absent: no vectors yet (`mnemo index` computes them)"
        return f"semantic channel: {len(self.similarity)} candidates compared with the task by meaning"

    def rank_of(self, sid: int) -> int | None:
        """The candidate's place among those compared, closest first (1-based)."""
        if sid not in self.similarity:
            return None
        mine = self.similarity[sid]
        return 1 + sum(1 for other, value in self.similarity.items() if (value, -other) > (mine, -sid))


ABSENT = Meaning("absent")
_query_loaded: list[QueryEncoder] = []  # likewise the task's encoder


def query_encoder() -> QueryEncoder:
    """The process's encoder of task texts (numpy), loaded on first use."""
    if not _query_loaded:
        from mnemo_core.semantic.query import QueryEncoder

        _query_loaded.append(QueryEncoder.load())
    return _query_loaded[0]


def meaning(
    store: Store, root: Path, text: str, candidates: list[Symbol], use: VectorUse = "stored"
) -> Meaning:
    """The cosine between the task and each candidate with a vector."""
    from mnemo_core.semantic.encoder import MODEL_ID, available, shared_encoder

    if not available():
        return ABSENT
    from mnemo_core.blas import one_blas_thread
    from mnemo_core.semantic.vectors import VectorStore, encode_missing, symbol_texts

    try:
        vectors = VectorStore.open(root, MODEL_ID, create=use == "encode")
    except (sqlite3.Error, OSError, MnemoError):
        return Meaning("empty")
    if vectors is None:
        return Meaning("empty")
    one_blas_thread()  # numpy from here on: the vectors' cosines
    try:
        texts = symbol_texts(store, root, candidates, MODEL_ID)
        if use == "encode":
            encode_missing(vectors, shared_encoder(), dict(texts.values()))
        stored = vectors.get(key for key, _ in texts.values())
        if not stored and vectors.count() == 0:
            return Meaning("empty")
    except sqlite3.Error:
        return Meaning("empty")
    finally:
        vectors.close()
    if not stored:
        return Meaning("ready")
    query = query_encoder().encode(text)
    return Meaning(
        "ready", {sid: float(stored[key] @ query) for sid, (key, _) in texts.items() if key in stored}
    )
