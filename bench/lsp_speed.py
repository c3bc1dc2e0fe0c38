"""Speed of the language server as an editor sees it: hover and code lens latency over JSON-RPC.

Clones flask (a fetched mirror, never committed) into a temporary directory, builds its index, starts
``mnemo-lsp`` on stdio and drives it with pygls' language client. Times, at the client:

- hover on every definition name and call site of a ~1,000-line file (``src/flask/sansio/app.py``),
  after one warm-up pass, ``--rounds`` times;
- ``textDocument/codeLens`` for that file and for the largest file (``src/flask/app.py``): the first
  request (git blame not cached yet) and ``--repeat`` warm requests;
- the same lens request right after each of ``--repeat`` saves of another file (the re-index changes
  the graph, so its callers and tests are computed again: by the server, for the files whose lenses
  it showed lately, before it says the re-index is over), and how long each save took to get there.

Floors (warm): hover p95 <= 50 ms, code lens p95 <= 100 ms.
Usage: ``python bench/lsp_speed.py [--repo pallets/flask] [--rounds 3] [--repeat 20]``.

``--first-hovers DIR [DIR ...]``: instead, the first hover of every symbol, as an editor meets it:
a fresh server (the code of each checkout ``DIR`` in turn, interleaved over ``--rounds``) opens
the files of ``FIRST_HOVER_FILES`` one by one (``didOpen``, no pause) and hovers each definition of
the file once, in a shuffled order; blames cached on disk are removed before each server starts.
It reports p50/p95/max of those first hovers, how many answered with a quick card (its walks
still running), and how many were still quick when the file's definitions were hovered a second
time, after the first pass. Floor: first hover p95 < 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import git_head, machine_info, machine_line, markdown_table, table, verdict, write_json
from lsp_client import start_server, stop_server

from mnemo_core.repository import Repository

MIRROR_ROOT = Path("/work/.mirror")
HOVER_FILE = "src/flask/sansio/app.py"  # 1,010 lines
BIG_FILE = "src/flask/app.py"  # 1,625 lines, the largest module
SAVED_FILE = "src/flask/helpers.py"  # edited and saved between lens requests
HOVER_P95_MS = 50.0
FIRST_HOVER_P95_MS = 100.0
FIRST_HOVER_FILES = (  # flask's core modules, in the order a reader might open them
    "src/flask/app.py",
    "src/flask/sansio/app.py",
    "src/flask/helpers.py",
    "src/flask/ctx.py",
    "src/flask/cli.py",
    "src/flask/blueprints.py",
)
QUICK_CARD = "being counted; hover again"  # a card answered before its walks ended
DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)")
LENS_P95_MS = 100.0
READY_TIMEOUT_S = 120.0
NAME = re.compile(r"\b(?:def|class)\s+([A-Za-z_]\w*)|\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = frozenset(
    {
        "if",
        "elif",
        "while",
        "for",
        "return",
        "and",
        "or",
        "not",
        "in",
        "print",
        "assert",
        "with",
        "except",
        "lambda",
        "yield",
        "await",
        "del",
        "is",
    }
)


@dataclass(frozen=True)
class Sample:
    """Latencies in milliseconds."""

    first: float
    warm: list[float]

    def summary(self) -> dict[str, float]:
        """first, p50, p95 and max of the warm requests."""
        ordered = sorted(self.warm)
        return {
            "first_ms": round(self.first, 2),
            "p50_ms": round(statistics.median(ordered), 2),
            "p95_ms": round(percentile(ordered, 0.95), 2),
            "max_ms": round(ordered[-1], 2),
            "n": len(ordered),
        }


def percentile(ordered: list[float], q: float) -> float:
    """The nearest-rank percentile of sorted values."""
    return ordered[max(0, min(len(ordered) - 1, round(q * len(ordered) + 0.5) - 1))]


def checkout(repo: str, workdir: Path) -> Path:
    """Clone the fetched mirror of ``owner/name`` into ``workdir``."""
    mirror = MIRROR_ROOT / repo.replace("/", "+") / "repo"
    if not mirror.is_dir():
        raise SystemExit(f"{mirror} is missing: fetch github:{repo} with the search tool first")
    dest = workdir / repo.split("/")[1]
    subprocess.run(["git", "clone", "-q", str(mirror), str(dest)], check=True, capture_output=True)
    return dest


def positions(text: str) -> list[types.Position]:
    """Every definition name and call site of a file (0-based, on the identifier)."""
    found = []
    for number, line in enumerate(text.splitlines()):
        if line.lstrip().startswith("#"):
            continue
        for match in NAME.finditer(line):
            group = 1 if match.group(1) else 2
            if match.group(group) not in KEYWORDS:
                found.append(types.Position(line=number, character=match.start(group) + 1))
    return found


class Bench:
    """A pygls client on ``mnemo-lsp`` over stdio."""

    def __init__(self, root: Path, checkout: Path | None = None) -> None:
        self.root = root
        self.checkout = checkout  # the mnemo code the server runs (None: this interpreter's)
        self.client = LanguageClient("lsp-speed", "1")
        self.ready = asyncio.Event()

        def log_message(params: types.LogMessageParams) -> None:
            if params.message.startswith("index: "):  # the server's line when an index run ends
                self.ready.set()

        self.client.feature(types.WINDOW_LOG_MESSAGE)(log_message)

    async def start(self) -> None:
        await start_server(self.client, self.root, self.checkout)
        await asyncio.wait_for(self.ready.wait(), READY_TIMEOUT_S)

    async def stop(self) -> None:
        await stop_server(self.client)

    def document(self, path: str) -> types.TextDocumentIdentifier:
        return types.TextDocumentIdentifier(uri=(self.root / path).as_uri())

    async def hover(self, path: str, at: types.Position) -> tuple[float, bool]:
        started = time.perf_counter()
        found = await self.client.text_document_hover_async(types.HoverParams(self.document(path), at))
        return (time.perf_counter() - started) * 1000, found is not None

    async def card(self, path: str, at: types.Position) -> tuple[float, str]:
        """One hover's milliseconds and its Markdown ("" for none)."""
        started = time.perf_counter()
        found = await self.client.text_document_hover_async(types.HoverParams(self.document(path), at))
        elapsed = (time.perf_counter() - started) * 1000
        text = found.contents.value if found and isinstance(found.contents, types.MarkupContent) else ""
        return elapsed, text

    def open(self, path: str) -> None:
        """``didOpen`` a file, as an editor does when it shows it."""
        text = (self.root / path).read_text(encoding="utf-8")
        item = types.TextDocumentItem(uri=self.document(path).uri, language_id="python", version=1, text=text)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(item))

    async def save(self, path: str, marker: int) -> float:
        """Append a line to a file, send ``didSave`` and wait for its re-index (which computes the
        lenses of the files shown lately before it says so); the milliseconds that took."""
        with (self.root / path).open("a", encoding="utf-8") as handle:
            handle.write(f"\n# edit {marker}\n")
        self.ready.clear()
        started = time.perf_counter()
        self.client.text_document_did_save(types.DidSaveTextDocumentParams(self.document(path)))
        await asyncio.wait_for(self.ready.wait(), READY_TIMEOUT_S)
        return (time.perf_counter() - started) * 1000

    async def lens(self, path: str) -> tuple[float, int]:
        started = time.perf_counter()
        found = await self.client.text_document_code_lens_async(types.CodeLensParams(self.document(path)))
        return (time.perf_counter() - started) * 1000, len(found or [])


async def measure(root: Path, rounds: int, repeat: int) -> dict[str, Any]:
    bench = Bench(root)
    await bench.start()
    try:
        lens_counts: dict[str, int] = {}
        lenses: dict[str, Sample] = {}
        for path in (HOVER_FILE, BIG_FILE):
            first, lens_counts[path] = await bench.lens(path)
            lenses[path] = Sample(first, [(await bench.lens(path))[0] for _ in range(repeat)])
        after_save, reindex = [], []
        for marker in range(repeat):
            reindex.append(await bench.save(SAVED_FILE, marker))
            after_save.append((await bench.lens(HOVER_FILE))[0])
        lenses[f"{HOVER_FILE}, after a save"] = Sample(after_save[0], after_save[1:])
        lens_counts[f"{HOVER_FILE}, after a save"] = lens_counts[HOVER_FILE]
        spots = positions((root / HOVER_FILE).read_text(encoding="utf-8"))
        first_hover, _ = await bench.hover(HOVER_FILE, spots[0])
        cards = sum([(await bench.hover(HOVER_FILE, at))[1] for at in spots])  # warm-up pass
        warm = [(await bench.hover(HOVER_FILE, at))[0] for _ in range(rounds) for at in spots]
    finally:
        await bench.stop()
    return {
        "hover": Sample(first_hover, warm).summary() | {"positions": len(spots), "cards": cards},
        "lens": {path: sample.summary() | {"lenses": lens_counts[path]} for path, sample in lenses.items()},
        "save": Sample(reindex[0], reindex[1:]).summary(),
    }


def definitions(text: str) -> list[types.Position]:
    """The name of every ``def`` and ``class`` of a file (0-based, on the identifier)."""
    found = []
    for number, line in enumerate(text.splitlines()):
        if match := DEFINITION.match(line):
            found.append(types.Position(line=number, character=match.start(1) + 1))
    return found


async def first_hovers(root: Path, checkout: Path, seed: int) -> dict[str, Any]:
    """Open each file of ``FIRST_HOVER_FILES`` and hover each of its definitions once."""
    shutil.rmtree(root / ".mnemo" / "blame", ignore_errors=True)
    bench = Bench(root, checkout)
    await bench.start()
    shuffle = random.Random(seed)
    latencies: list[float] = []
    quick = quick_again = 0
    try:
        for path in FIRST_HOVER_FILES:
            bench.open(path)
            spots = definitions((root / path).read_text(encoding="utf-8"))
            shuffle.shuffle(spots)
            for at in spots:
                elapsed, text = await bench.card(path, at)
                latencies.append(elapsed)
                quick += QUICK_CARD in text
            for at in spots:  # the second hover of each, once the file's pass is over
                quick_again += QUICK_CARD in (await bench.card(path, at))[1]
    finally:
        await bench.stop()
    return {"latencies": latencies, "quick": quick, "quick_again": quick_again}


def compare_first_hovers(root: Path, checkouts: list[Path], rounds: int) -> list[list[object]]:
    """Rows of first-hover latencies per checkout, the servers interleaved round by round."""
    found: dict[Path, list[float]] = {c: [] for c in checkouts}
    quick: dict[Path, int] = dict.fromkeys(checkouts, 0)
    quick_again: dict[Path, int] = dict.fromkeys(checkouts, 0)
    for number in range(rounds):
        for checkout in checkouts:
            result = asyncio.run(first_hovers(root, checkout, number))
            found[checkout] += result["latencies"]
            quick[checkout] += result["quick"]
            quick_again[checkout] += result["quick_again"]
    rows: list[list[object]] = []
    for checkout, latencies in found.items():
        ordered = sorted(latencies)
        p95 = percentile(ordered, 0.95)
        rows.append(
            [
                f"{checkout} ({git_head(checkout) or '?'})",
                len(ordered),
                round(statistics.median(ordered), 1),
                round(p95, 1),
                round(ordered[-1], 1),
                quick[checkout],
                quick_again[checkout],
                verdict(p95 < FIRST_HOVER_P95_MS),
            ]
        )
    return rows


def row(request: str, numbers: dict[str, float], floor: float) -> list[object]:
    """A table row: the numbers of one kind of request against its p95 floor."""
    timings = [numbers[key] for key in ("n", "first_ms", "p50_ms", "p95_ms", "max_ms")]
    return [request, *timings, f"p95 <= {floor:.0f}", verdict(numbers["p95_ms"] <= floor)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", default="pallets/flask", help="a fetched mirror under /work/.mirror")
    parser.add_argument("--rounds", type=int, default=3, help="warm passes over the hover positions")
    parser.add_argument("--repeat", type=int, default=20, help="warm code lens requests per file")
    parser.add_argument("--first-hovers", nargs="+", type=Path, metavar="DIR", help="checkouts to compare")
    args = parser.parse_args()
    info = machine_info()
    if args.first_hovers:
        return first_hover_table(args.repo, args.first_hovers, args.rounds, info)
    with tempfile.TemporaryDirectory(prefix="mnemo-lsp-speed-") as workdir:
        root = checkout(args.repo, Path(workdir))
        repo = Repository.open(root)
        stats = repo.update_index()
        repo.close()
        results = asyncio.run(measure(root, args.rounds, args.repeat))
    hover = results["hover"]
    rows: list[list[object]] = [row("hover " + HOVER_FILE, hover, HOVER_P95_MS)]
    rows += [
        row(f"code lens {path} ({lens['lenses']} lenses)", lens, LENS_P95_MS)
        for path, lens in results["lens"].items()
    ]
    save = results["save"]
    timings = [save[key] for key in ("n", "first_ms", "p50_ms", "p95_ms", "max_ms")]
    rows.append([f"save {SAVED_FILE} -> re-indexed, lenses computed (no floor)", *timings, "-", "-"])
    headers = ["request", "n", "first ms", "p50 ms", "p95 ms", "max ms", "floor", "verdict"]
    print(machine_line(info))
    print(
        f"{args.repo}: {stats.files} files, {stats.symbols} symbols, {stats.edges} edges; "
        f"{hover['positions']} hover positions, {hover['cards']} with a card"
    )
    print(table(headers, rows))
    index = {"files": stats.files, "symbols": stats.symbols, "edges": stats.edges}
    out = write_json("lsp_speed", {"machine": info, "repo": args.repo, "index": index, **results})
    print(f"wrote {out}")
    print()
    print(markdown_table(headers, rows))
    return 0 if all(row[-1] in ("PASS", "-") for row in rows) else 1


def first_hover_table(repo: str, checkouts: list[Path], rounds: int, info: dict[str, Any]) -> int:
    """Print and record the first-hover comparison of some checkouts."""
    with tempfile.TemporaryDirectory(prefix="mnemo-lsp-speed-") as workdir:
        root = checkout(repo, Path(workdir))
        opened = Repository.open(root)
        stats = opened.update_index()
        opened.close()
        rows = compare_first_hovers(root, [c.resolve() for c in checkouts], rounds)
    headers = [
        "server code",
        "first hovers",
        "p50 ms",
        "p95 ms",
        "max ms",
        "quick cards",
        "quick on 2nd hover",
        "p95 < 100 ms",
    ]
    print(machine_line(info))
    print(f"{repo}: {stats.files} files, {stats.symbols} symbols; {rounds} rounds, servers interleaved")
    print(table(headers, rows))
    out = write_json("lsp_first_hover", {"machine": info, "repo": repo, "rows": rows})
    print(f"wrote {out}")
    print()
    print(markdown_table(headers, rows))
    return 0 if rows[-1][-1] == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
