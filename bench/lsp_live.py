"""The language server's live view, through a real client (pygls' language client over stdio):

- **untracked file**: on an indexed clone, with a client that offers no file watching (the server
  watches the tree itself), a new file is written outside the editor, never added to git; the time
  until a hover on its function shows a card and call hierarchy finds it (``--files`` new files).
  Floor: within 5 s.
- **first index**: on a clone never indexed, ``mnemo.contextForTask`` sent 1 s after ``initialized``
  and then every few seconds until the first build ends: when each answered, whether it said it is
  partial, how many symbols and indexed files it had. Floor: it answers (not an error), and with
  content once the build has stored files.

Usage: ``python bench/lsp_live.py [--repo pallets/flask] [--first-index-repo saleor/saleor]
[--checkout DIR]`` (repositories: fetched mirrors under /work/.mirror, cloned, never committed;
``--checkout``: the mnemo whose server runs, default this one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_DIR, git_head, machine_info, machine_line, markdown_table, verdict, write_json
from lsp_client import start_server, stop_server

from mnemo_core.repository import Repository

MIRROR_ROOT = Path("/work/.mirror")
SEEN_WITHIN_S = 5.0
READY_TIMEOUT_S = 900.0
ASK_EVERY_S = 3.0
TASK = "apply a discount to the checkout"  # any words: the answer's size is what is measured
NEW_FILE = '''def added_helper_{n}(app):
    """A helper an agent wrote outside the editor."""
    return app.make_response("added {n}")
'''


def clone(repo: str, workdir: Path) -> Path:
    """A clone of the fetched mirror of ``owner/name``."""
    mirror = MIRROR_ROOT / repo.replace("/", "+") / "repo"
    if not mirror.is_dir():
        raise SystemExit(f"{mirror} is missing: fetch github:{repo} with the search tool first")
    dest = workdir / repo.split("/")[1]
    subprocess.run(["git", "clone", "-q", str(mirror), str(dest)], check=True, capture_output=True)
    return dest


class Client:
    """A pygls client on ``mnemo-lsp`` (the code of ``checkout``) that offers no file watching."""

    def __init__(self, root: Path, checkout: Path) -> None:
        self.root, self.checkout = root, checkout
        self.client = LanguageClient("lsp-live", "1")
        self.ended = asyncio.Event()
        self.logs: list[str] = []

        def log_message(params: types.LogMessageParams) -> None:
            self.logs.append(params.message)
            if params.message.startswith("index: "):  # the server's line when an index run ends
                self.ended.set()

        self.client.feature(types.WINDOW_LOG_MESSAGE)(log_message)

    async def start(self) -> float:
        """Start and initialize; the perf_counter time of ``initialized``."""
        await start_server(self.client, self.root, self.checkout)
        return time.perf_counter()

    async def stop(self) -> None:
        await stop_server(self.client)

    def document(self, path: str) -> types.TextDocumentIdentifier:
        return types.TextDocumentIdentifier(uri=(self.root / path).as_uri())

    async def sees(self, path: str) -> tuple[bool, bool]:
        """Whether a hover on the function of line 1 of ``path`` shows a card, and whether call
        hierarchy finds it."""
        at = types.Position(line=0, character=5)
        card = await self.client.text_document_hover_async(types.HoverParams(self.document(path), at))
        items = await self.client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(self.document(path), at)
        )
        return card is not None, bool(items)

    async def task(self) -> dict[str, Any]:
        answer = await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(
                command="mnemo.contextForTask", arguments=[{"task": TASK, "budget": 2000}]
            )
        )
        found: dict[str, Any] = json.loads(json.dumps(answer, default=lambda o: o.__dict__))
        return found


async def untracked(root: Path, checkout: Path, files: int) -> list[float]:
    """Seconds until each new untracked file is in hover and call hierarchy (None: never)."""
    client = Client(root, checkout)
    await client.start()
    await asyncio.wait_for(client.ended.wait(), READY_TIMEOUT_S)
    waited = []
    try:
        for n in range(files):
            path = f"src/added_{n}.py"
            (root / path).write_text(NEW_FILE.format(n=n), encoding="utf-8")
            written = time.perf_counter()
            while (time.perf_counter() - written) < 4 * SEEN_WITHIN_S:
                if all(await client.sees(path)):
                    break
                await asyncio.sleep(0.1)
            waited.append(time.perf_counter() - written)
    finally:
        await client.stop()
    return waited


async def first_index(root: Path, checkout: Path) -> list[dict[str, Any]]:
    """Each ``contextForTask`` during the first build: when sent, how long it took, what it said."""
    client = Client(root, checkout)
    started = await client.start()
    await asyncio.sleep(1.0)
    answers = []
    try:
        while True:
            sent = time.perf_counter()
            try:
                answer = await client.task()
                row = {
                    "partial": bool(answer.get("partial")),
                    "symbols": len(answer.get("symbols", [])),
                    "index_files": answer.get("stats", {}).get("index_files"),
                }
            except Exception as exc:
                row = {"error": str(exc)}
            answers.append(
                {"sent_s": round(sent - started, 1), "took_s": round(time.perf_counter() - sent, 1)} | row
            )
            if client.ended.is_set():
                break
            await asyncio.sleep(ASK_EVERY_S)
        await asyncio.wait_for(client.ended.wait(), READY_TIMEOUT_S)
        answers.append({"build_ended_s": round(time.perf_counter() - started, 1)})
    finally:
        await client.stop()
    return answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default="pallets/flask")
    parser.add_argument("--first-index-repo", default="pallets/flask")
    parser.add_argument("--checkout", type=Path, default=REPO_DIR)
    parser.add_argument("--files", type=int, default=3, help="new untracked files written one after another")
    args = parser.parse_args()
    info = machine_info()
    checkout = args.checkout.resolve()
    with tempfile.TemporaryDirectory(prefix="mnemo-lsp-live-") as workdir:
        root = clone(args.repo, Path(workdir) / "a")
        Repository.open(root).update_index()
        waited = asyncio.run(untracked(root, checkout, args.files))
        fresh = clone(args.first_index_repo, Path(workdir) / "b")
        answers = asyncio.run(first_index(fresh, checkout))
    print(machine_line(info), f"server: {checkout} ({git_head(checkout)})")
    rows = [
        [f"new untracked file {n} in hover and call hierarchy", f"{s:.1f} s", verdict(s <= SEEN_WITHIN_S)]
        for n, s in enumerate(waited)
    ]
    print(markdown_table(["measure", "value", "floor 5 s"], rows))
    print(f"\ncontextForTask during the first index of {args.first_index_repo}:")
    for answer in answers:
        print(json.dumps(answer))
    asked = [a for a in answers if "sent_s" in a]
    ok = all("error" not in a for a in asked) and any(a.get("symbols") for a in asked)
    print(f"answers, not errors, with content: {verdict(ok)}")
    out = write_json("lsp_live", {"machine": info, "untracked_s": waited, "first_index": answers})
    print(f"wrote {out}")
    return 0 if ok and all(s <= SEEN_WITHIN_S for s in waited) else 1


if __name__ == "__main__":
    sys.exit(main())
