"""Call hierarchy (prepare, incoming, outgoing) and workspace symbols from the graph."""

from __future__ import annotations

import pytest
from lsp_session import Session
from lsprotocol import types
from pygls.exceptions import JsonRpcException

pytestmark = pytest.mark.asyncio(loop_scope="module")

Calls = list[tuple[str, str, list[tuple[int, int, int]]]]  # (name, file, [(line, start, end)])


async def prepare(session: Session, path: str, line: int, character: int) -> list[types.CallHierarchyItem]:
    return list(
        await session.client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(
                text_document=types.TextDocumentIdentifier(uri=session.uri(path)),
                position=types.Position(line=line, character=character),
            )
        )
        or []
    )


def _ranges(ranges: list[types.Range]) -> list[tuple[int, int, int]]:
    assert all(r.start.line == r.end.line for r in ranges)
    return [(r.start.line, r.start.character, r.end.character) for r in ranges]


async def incoming(session: Session, item: types.CallHierarchyItem) -> Calls:
    calls = await session.client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=item)
    )
    found = [(c.from_.name, c.from_.uri, _ranges(c.from_ranges)) for c in calls or []]
    return sorted((name, uri.rsplit("/", 1)[-1], ranges) for name, uri, ranges in found)


async def outgoing(session: Session, item: types.CallHierarchyItem) -> Calls:
    calls = await session.client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=item)
    )
    found = [(c.to.name, c.to.uri, _ranges(c.from_ranges)) for c in calls or []]
    return sorted((name, uri.rsplit("/", 1)[-1], ranges) for name, uri, ranges in found)


async def test_the_server_offers_call_hierarchy_and_workspace_symbols(shared: Session) -> None:
    capabilities = shared.result.capabilities
    assert capabilities.call_hierarchy_provider and capabilities.workspace_symbol_provider


async def test_prepare_on_a_definition_and_on_a_call(shared: Session) -> None:
    (item,) = await prepare(shared, "app/core.py", 3, 5)  # def helper
    assert (item.name, item.kind, item.detail) == ("helper", types.SymbolKind.Function, "app/core.py")
    assert item.uri == shared.uri("app/core.py")
    assert (item.range.start.line, item.range.end.line) == (3, 6)
    assert _ranges([item.selection_range]) == [(3, 4, 10)]
    assert await prepare(shared, "app/core.py", 9, 26) == [item]  # the call helper(2)
    (method,) = await prepare(shared, "app/core.py", 13, 9)  # def open inside class Box
    assert (method.name, method.kind, method.detail) == ("open", types.SymbolKind.Method, "Box.open")
    assert await prepare(shared, "app/core.py", 0, 3) == []  # the module docstring: nothing to call


async def test_incoming_calls_with_the_call_lines(shared: Session) -> None:
    (helper,) = await prepare(shared, "app/core.py", 3, 5)
    assert await incoming(shared, helper) == [("main", "core.py", [(9, 11, 17)])]
    (main,) = await prepare(shared, "app/core.py", 8, 5)
    assert await incoming(shared, main) == [
        ("open", "core.py", [(14, 15, 19)]),
        ("test_main", "test_core.py", [(4, 11, 15)]),
    ]


async def test_outgoing_calls_with_the_call_lines(shared: Session) -> None:
    (main,) = await prepare(shared, "app/core.py", 8, 5)
    assert await outgoing(shared, main) == [("helper", "core.py", [(9, 11, 17)])]
    (test_box,) = await prepare(shared, "tests/test_core.py", 7, 6)
    assert await outgoing(shared, test_box) == [
        ("Box", "core.py", [(8, 11, 14)]),
        ("open", "core.py", [(8, 17, 21)]),
    ]
    (helper,) = await prepare(shared, "app/core.py", 3, 5)
    assert await outgoing(shared, helper) == []


async def test_an_item_the_server_did_not_prepare(shared: Session) -> None:
    (helper,) = await prepare(shared, "app/core.py", 3, 5)
    helper.data = None
    with pytest.raises(JsonRpcException, match="no mnemo data; prepare it again"):
        await incoming(shared, helper)
    helper.data = {"id": 10**9, "name": "gone", "kind": "function"}
    with pytest.raises(JsonRpcException, match=r"gone is no longer in app/core\.py"):
        await outgoing(shared, helper)


async def symbols(session: Session, query: str) -> list[tuple[str, types.SymbolKind, str | None, str, int]]:
    found = await session.client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
    out = []
    for s in found or []:
        assert isinstance(s, types.SymbolInformation)
        location = s.location
        out.append(
            (s.name, s.kind, s.container_name, location.uri.rsplit("/", 1)[-1], location.range.start.line)
        )
    return out


async def test_workspace_symbols(shared: Session) -> None:
    assert await symbols(shared, "HELP") == [
        ("helper", types.SymbolKind.Function, "app/core.py", "core.py", 3)
    ]
    assert await symbols(shared, "open") == [("open", types.SymbolKind.Method, "Box", "core.py", 13)]
    mains = await symbols(shared, "main")
    assert [name for name, *_ in mains] == ["main", "test_main"]  # the exact name first, tests last
    everything = {name for name, *_ in await symbols(shared, "")}
    assert everything == {"helper", "main", "Box", "open", "test_main", "test_box"}
    assert await symbols(shared, "no_such_name") == []
