"""The language server builds the semantic channel's vectors after its index, in the background,
with a progress bar when there are many to encode."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_repo
from lsp_session import start, start_client, wait_for_index, wait_until
from lsprotocol import types

from lsp_server.indexing import VECTOR_BAR_MIN, VECTOR_TITLE
from mnemo_core.semantic.encoder import MODEL_ID, available
from mnemo_core.semantic.vectors import VectorStore

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.skipif(not available(), reason="the semantic extra is not installed"),
]


async def test_the_server_encodes_missing_vectors_after_the_index(tmp_path: Path) -> None:
    count = VECTOR_BAR_MIN + 2
    files = {f"pkg/m{i}.py": f"def step_{i}(value):\n    return value * {i}\n" for i in range(count)}
    root = make_repo(tmp_path / "ws", files)
    client = await start_client(tmp_path)
    try:
        await start(client, root)
        await wait_for_index(client, ends=2)  # the index's progress, then the vectors'
        titles = [
            [r.title for r in reports if isinstance(r, types.WorkDoneProgressBegin)]
            for reports in client.progress_reports.values()
        ]
        assert [VECTOR_TITLE] in titles
        vectors = VectorStore.open(root, MODEL_ID, create=False)
        assert vectors is not None
        try:
            assert vectors.count() == count
        finally:
            vectors.close()
        await wait_until(
            client,
            lambda: any(m.message.startswith(f"vectors: {count} of {count}") for m in client.log_messages),
            "the vectors' log line",
        )
    finally:
        await client.shutdown_session()
        await client.stop()
