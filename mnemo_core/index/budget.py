"""How much of one file's syntax tree extraction may query: work bounded by size, not by shape.

tree-sitter's query cursor pays, at every node it visits, for the partial matches its ancestors
hold open: its cost is about ``nodes * NODE_COST + (sum of node depths)`` (in units of one level),
so ``f(f(f(...)))`` nested thousands deep costs the square of its depth (a 15 KB file took 47 s).
Two bounds keep it linear, and below a few seconds for any file the index reads:

- matches start at most ``MAX_QUERY_DEPTH`` levels down (the cursor goes no deeper), and a tree
  with deeper nodes is indexed to that depth;
- that cost, depths capped, stays under ``MAX_QUERY_WORK``: past it, only the lines before the
  node where it ran out are parsed and queried.

Both are read from the tree without querying it. A subtree of ``n`` nodes reaches at most ``n - 1``
levels below its root, so the depth test walks only the few subtrees large enough to pass the limit;
the cost is at most ``nodes * (NODE_COST + MAX_QUERY_DEPTH)``, so only larger files (beyond some
55,000 nodes, 200 KB of code) are walked node by node to sum it, a tenth of what querying them costs.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node, Parser, Query, QueryCursor

# real code nests at most ~70 levels deep (jQuery's tests; Python, Go and Rust stay under 50)
MAX_QUERY_DEPTH = 256
NODE_COST = 20  # a node costs the cursor about as much as 20 levels of depth (~8 us against 0.4 us)
# the cost a file may take, in levels: ~6 s on a loaded 2-core machine; real code costs ~25 a node
# (defs.rs of ripgrep: 62,000 nodes, 1.6 million), so files of real code up to ~600,000 nodes pass
MAX_QUERY_WORK = 16_000_000


@dataclass(frozen=True, slots=True)
class Bounded:
    """The tree extraction queries and the source it was parsed from (a prefix of the file when
    the whole costs too much), and why it is not the whole file ("" when it is)."""

    root: Node
    source: bytes
    partial: str = ""


def parse_bounded(parser: Parser, source: bytes) -> Bounded:
    """Parse ``source``; when querying all of it would cost more than ``MAX_QUERY_WORK``, parse
    again only the lines before the node where the cost runs out (a query bounded by a byte range
    still walks every statement its root-level patterns hold open)."""
    root = parser.parse(source).root_node
    reasons = []
    nodes = root.descendant_count
    stop = _work_runs_out(root) if nodes * (NODE_COST + MAX_QUERY_DEPTH) > MAX_QUERY_WORK else None
    if stop is not None:
        source = source[: source.rfind(b"\n", 0, stop.start_byte) + 1]
        root = parser.parse(source).root_node
        lines = source.count(b"\n")
        reasons.append(f"too large to query whole: indexed up to line {lines}")
    if root.descendant_count > MAX_QUERY_DEPTH and _deeper_than(root, MAX_QUERY_DEPTH):
        reasons.insert(0, f"nested deeper than {MAX_QUERY_DEPTH} levels")
    return Bounded(root, source, "; ".join(reasons))


def cursor(query: Query) -> QueryCursor:
    """A query cursor that starts no match deeper than ``MAX_QUERY_DEPTH``."""
    found = QueryCursor(query)
    found.set_max_start_depth(MAX_QUERY_DEPTH)
    return found


def _deeper_than(root: Node, limit: int) -> bool:
    """Whether some node lies more than ``limit`` levels below ``root``: a child ``depth`` levels
    down with ``n`` nodes in its subtree (itself included) reaches at most ``depth + n - 1``."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in node.children if depth + child.descendant_count > limit)
    return False


def _work_runs_out(root: Node) -> Node | None:
    """The node, in document order, at which the query's cost (nodes deeper than
    ``MAX_QUERY_DEPTH`` are not visited) passes ``MAX_QUERY_WORK``; None when it never does."""
    walk = root.walk()
    depth = work = 0
    while True:
        work += NODE_COST + depth
        if work > MAX_QUERY_WORK:
            return walk.node
        if depth < MAX_QUERY_DEPTH and walk.goto_first_child():
            depth += 1
            continue
        while not walk.goto_next_sibling():
            if not walk.goto_parent():
                return None
            depth -= 1
