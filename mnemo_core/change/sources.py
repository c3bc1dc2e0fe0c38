"""The source lines the readers of a change read, shared by them per index generation.

The walks to tests read callers' and tests' sources: the opt-in guards around call sites
(``flags``), the receivers of calls matched by name (``receivers``), registries' keys
(``registry_keys``), tests' words and string literals (``receivers``, ``literals``). Each read a
file through its own cache, so a file several of them need was read (and its path resolved inside
the repository) once per reader: on saleor's ``pr --base HEAD~5``, 569 reads of 439 distinct files.
They share one cache for the index generation instead: what each keeps of a file is a pure
function of the index and the files it indexed, as their own per-generation caches already assume.
"""

from __future__ import annotations

from mnemo_core.index.store import Store
from mnemo_core.memo import BoundedCache
from mnemo_core.retrieve.snippets import SourceCache

SOURCES_CACHED = 4  # index generations whose read files are kept (a server's few stores, as the readers')
_SOURCES: BoundedCache[tuple[str, str, int], SourceCache] = BoundedCache(SOURCES_CACHED)


def generation_sources(store: Store) -> SourceCache:
    """The source lines read for ``store``'s index generation, read once each."""
    key = (str(store.root), str(store.path), store.generation())
    known = _SOURCES.get(key)
    return known if known is not None else _SOURCES.put(key, SourceCache(store.root))
