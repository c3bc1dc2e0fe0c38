"""Direct questions to the index: find a symbol, walk its callers or callees, count what is there."""

from __future__ import annotations

import difflib
from collections import deque
from dataclasses import dataclass

from mnemo_core.errors import MnemoError
from mnemo_core.index.indexer import partial_files
from mnemo_core.model import Edge, Symbol, runs_target
from mnemo_core.repository import Repository

SUGGESTIONS = 5
# Close enough to be a typo: one or two characters off scores above this (helpr/helper 0.91);
# an unrelated name sharing a word scores below (nonexistent_function/new_function 0.69).
SUGGEST_CUTOFF = 0.8


@dataclass(frozen=True, slots=True)
class Hop:
    """A symbol reached by a walk, how far away, and the edge that reached it."""

    symbol: Symbol
    depth: int
    via: Edge


def find(repo: Repository, pattern: str, limit: int = 50) -> list[Symbol]:
    """Symbols whose name, qualified name or ``path:name`` matches ``pattern`` (globs allowed)."""
    return repo.store.find_symbols(pattern, limit)


def resolve_symbol(repo: Repository, handle: str) -> list[Symbol]:
    """The symbols a user means by ``handle`` (``name``, ``Class.method``, ``path:name`` or the
    dotted ``package.module.Class.method``).

    Raises a MnemoError that suggests close names when nothing matches.
    """
    found = repo.store.find_symbols(handle, limit=20) or _in_dotted_module(repo, handle)
    if found:
        exact = [s for s in found if s.key == handle or s.name == handle]
        return exact or found
    raise MnemoError(f"no symbol named {handle!r} in the index{_suggest(repo, handle)}")


def _in_dotted_module(repo: Repository, handle: str) -> list[Symbol]:
    """``pkg.mod.Class.method`` as a name in a module: the longest dotted prefix that names a module,
    then the rest of the handle in that module's file."""
    parts = handle.split(".")
    if any(c in handle for c in "*?[:"):
        return []
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        paths = [s.path for s in repo.store.find_symbols(module) if s.kind == "module" and s.name == module]
        if paths:
            rest = ".".join(parts[cut:])
            return [s for path in paths for s in repo.store.find_symbols(f"{path}:{rest}", limit=20)]
    return []


def _suggest(repo: Repository, handle: str) -> str:
    short = handle.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
    names = [r[0] for r in repo.store.conn.execute("SELECT DISTINCT short_name FROM symbols")]
    close = difflib.get_close_matches(short, names, n=SUGGESTIONS, cutoff=SUGGEST_CUTOFF)
    return f"; did you mean {', '.join(close)}?" if close else ""


def walk(repo: Repository, start: list[Symbol], direction: str, depth: int) -> list[Hop]:
    """Breadth-first over calls and the links through which code runs without one (``runs_target``:
    a function handed over, registered, decorated): ``direction='in'`` finds callers, ``'out'``
    callees. A constant is not called: its callers are the code that reads it (``references``),
    wherever the walk meets it (``FILTERS`` registers ``do_upper``, ``render`` reads ``FILTERS``)."""
    if depth < 1:
        raise MnemoError(f"--depth must be at least 1 (got {depth})")
    symbols = {s.id: s for s in start}
    seen = set(symbols)
    frontier = deque((s.id, 0) for s in start)
    hops: list[tuple[int, int, Edge]] = []
    while frontier:
        node, d = frontier.popleft()
        if d >= depth:
            continue
        read = direction == "in" and symbols[node].kind == "constant"
        reached: list[tuple[int, Edge]] = []
        for edge in sorted(
            repo.store.edges_touching([node], direction), key=lambda e: (-e.confidence, e.src, e.dst)
        ):
            if not runs_target(edge) and not (read and edge.type == "references"):
                continue
            other = edge.src if direction == "in" else edge.dst
            if other not in seen:
                seen.add(other)
                reached.append((other, edge))
        symbols.update(repo.store.symbols_by_ids(i for i, _ in reached))
        for other, edge in reached:
            if other in symbols:
                hops.append((other, d + 1, edge))
                frontier.append((other, d + 1))
    return [Hop(symbols[i], d, e) for i, d, e in hops]


def stats(repo: Repository) -> dict[str, object]:
    """What the index holds: files by language, symbols by kind, edges by type and resolution."""
    store = repo.store
    counts = store.counts()
    return {
        "repo": str(repo.root),
        "files": counts["files"],
        "symbols": counts["symbols"],
        "edges": counts["edges"],
        "resolution": counts["resolution"],
        "partial": partial_files(store),
        "index_bytes": repo.index_bytes(),
        "commit": store.meta("commit") or None,
        "indexed_at": int(store.meta("indexed_at") or 0) or None,
    }
