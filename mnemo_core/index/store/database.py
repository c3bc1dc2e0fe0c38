"""The index database as one object: every room of the store over one open connection."""

from __future__ import annotations

from mnemo_core.index.store.commits import Commits
from mnemo_core.index.store.graphlog import GraphLog
from mnemo_core.index.store.resolver_reads import ResolverReads
from mnemo_core.index.store.shelf import Shelf
from mnemo_core.index.store.symbols import SymbolReads
from mnemo_core.index.store.writes import Writes


class Store(Writes, ResolverReads, SymbolReads, Commits, Shelf, GraphLog):
    """An open index database."""
