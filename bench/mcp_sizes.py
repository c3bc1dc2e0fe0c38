"""How big ``mnemo-mcp``'s budgeted answers are, as an agent receives them: the server started on
flask (a fetched mirror, never committed) and driven by the official MCP SDK client over stdio.

For ``task_context`` at budget 2,000 (five tasks) and ``change_context`` over the last 20 commits at
budget 4,000, both representations are measured: the text content and the structured content (as
``json.dumps`` writes it), each in characters / 4 and in mnemo's own token estimate. Also the
time of the first call on an unindexed copy and how many progress notifications it sent.

Floor (issue #40): each representation within 1.1x the budget at 4 characters a token.
Usage: ``python bench/mcp_sizes.py [--repo /path/to/flask] [--checkout DIR]`` (``--checkout``: the
mnemo whose server is measured, default this one).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_DIR, machine_info, machine_line, markdown_table, table, verdict, write_json

from mnemo_core.tokens import estimate_tokens

FLOOR = 1.1
TASKS = (
    "register a blueprint with url prefix",
    "session cookie signing",
    "load config from environment variables",
    "teardown app context on error",
    "render a template with context processors",
)
CALLS = [("task_context", {"task": task, "budget": 2000}) for task in TASKS] + [
    ("change_context", {"base": "HEAD~20", "budget": 4000})
]


def sizes(result: CallToolResult) -> dict[str, int]:
    """Both representations in characters / 4 and in mnemo's estimate."""
    text = "".join(b.text for b in result.content if isinstance(b, TextContent))
    structured = json.dumps(result.structured_content, ensure_ascii=False)
    return {
        "text_chars4": len(text) // 4,
        "text_est": estimate_tokens(text),
        "json_chars4": len(structured) // 4,
        "json_est": estimate_tokens(structured),
    }


async def measure(repo: Path, checkout: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-P", "-m", "mcp_server", "--repo", str(repo)],
        env={"PYTHONPATH": str(checkout), "HOME": str(repo.parent), "PATH": "/usr/bin:/bin"},
    )
    heard: list[float] = []

    async def note(progress: float, total: float | None, message: str | None) -> None:
        heard.append(progress)

    rows = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        started = time.perf_counter()
        first = await session.call_tool(*CALLS[0], progress_callback=note)
        cold = {"first_call_s": round(time.perf_counter() - started, 2), "progress_notifications": len(heard)}
        for name, arguments in CALLS:
            result = first if (name, arguments) == CALLS[0] else await session.call_tool(name, arguments)
            assert not result.is_error, result.content
            rows.append({"tool": name, "budget": arguments["budget"], **sizes(result)})
    return rows, cold


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, default=Path("/work/.mirror/pallets+flask/repo"))
    parser.add_argument("--checkout", type=Path, default=REPO_DIR)
    args = parser.parse_args()
    info = machine_info()
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "flask"
        subprocess.run(["git", "clone", "-q", str(args.repo), str(copy)], check=True)
        shutil.rmtree(copy / ".mnemo", ignore_errors=True)
        rows, cold = anyio.run(measure, copy, args.checkout)
    headers = ["tool", "budget", "text chars/4", "text est", "JSON chars/4", "JSON est", f"<= {FLOOR}x"]
    cells = [
        [
            r["tool"],
            r["budget"],
            r["text_chars4"],
            r["text_est"],
            r["json_chars4"],
            r["json_est"],
            verdict(max(r["text_chars4"], r["json_chars4"]) <= FLOOR * r["budget"]),
        ]
        for r in rows
    ]
    print(machine_line(info))
    print(table(headers, cells))
    print(markdown_table(headers, cells))
    notes = cold["progress_notifications"]
    print(f"first call on an unindexed copy: {cold['first_call_s']} s, {notes} progress notifications")
    write_json("mcp_sizes", {"machine": info, "rows": rows, "cold": cold})
    return 0


if __name__ == "__main__":
    sys.exit(main())
