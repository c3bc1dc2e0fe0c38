"""The index database: schema, opening (with rebuild of old or damaged files), reads and writes.

One SQLite file per repository at ``.mnemo/index.db`` in WAL mode, so readers (the language
server, a CI job) never block the one writer. All SQL of the engine lives in this package.
Symbol ids are stable across re-indexing: a re-parsed file's symbols keep the id of the old
symbol with the same qualified name, kind and ordinal, so edges from other files stay valid.

The store's rooms share one connection (:class:`Connection`): ``schema`` (tables, version, opening
a file), ``writes`` (the indexer's), ``resolver_reads``, ``symbols`` (symbols and edges, the
walks' queries), ``search`` (full text, BM25) and ``commits`` (commit memory); :class:`Store`
is all of them over one open database.
"""

from __future__ import annotations

from mnemo_core.index.store.commits import FileCommits, PastCommit
from mnemo_core.index.store.database import Store
from mnemo_core.index.store.schema import (
    ANALYSIS_META,
    ANALYSIS_VERSION,
    SCHEMA_VERSION,
    db_size,
    index_path,
    prepare_index_dir,
)
from mnemo_core.index.store.writes import EdgeRow, EncodedRefs, FileFacts, FileRow, encode_refs

__all__ = [
    "ANALYSIS_META",
    "ANALYSIS_VERSION",
    "SCHEMA_VERSION",
    "EdgeRow",
    "EncodedRefs",
    "FileCommits",
    "FileFacts",
    "FileRow",
    "PastCommit",
    "Store",
    "db_size",
    "encode_refs",
    "index_path",
    "prepare_index_dir",
]
