"""How far a tree-sitter extraction can go below issue 42's cold-index floor: the costs under mnemo's Python.

The floor of issue 42 is a bare tree-sitter parse of every indexable file in one process. Any
extraction built on tree-sitter queries pays, besides the parse, for the query cursor's walk over
every node of every tree, before a line of mnemo's own Python runs. This benchmark measures, for
each repository, in one fresh process and in CPU seconds (``time.process_time``):

- ``parse``: read and parse every file mnemo would index (the issue's floor);
- ``query``: run each language's compiled query (mnemo's own ``.scm`` patterns) over those trees,
  its matches built and dropped: what the query engine and the binding cost;
- ``one pattern``: the same with a query of a single pattern (functions only): the walk alone;
- ``extract``: mnemo's ``extract`` of every file (parse included), what a parse worker does;

and reports each as a multiple of ``parse``. With the cold index at 3x the floor in CPU, ``parse +
query`` is what is left for everything else (extraction's Python, resolution, storage, history).

Run: ``python bench/extract_floor.py DIR... [--code TREE]`` (``--code``: the mnemo tree to import,
default this checkout; a copy of the standard library as ``bench/index_speed.py`` makes it, without
``site-packages``, is one of the issue's repositories).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_DIR, machine_info, machine_line, table, write_json

NAME = "extract_floor"
ONE_PATTERN = {  # a pattern per grammar that every query of its language holds: its functions
    "python": "(function_definition name: (identifier) @name) @definition.function",
    "go": "(function_declaration name: (identifier) @name) @definition.function",
}

# Run in a fresh interpreter with the mnemo tree on the path: the four measures of argv[1].
MEASURE_CODE = """
import json, sys, time
from pathlib import Path
from tree_sitter import Query, QueryCursor
from mnemo_core.index.discovery import read_discovery
from mnemo_core.index.extract import extract
from mnemo_core.index.files import list_files, read_source
from mnemo_core.index.languages import language_for_path
root, one_pattern = Path(sys.argv[1]), json.loads(sys.argv[2])
files = []
for path in list_files(root).paths:
    spec = language_for_path(path)
    data = read_source(root, path).data
    if spec is not None and data is not None:
        files.append((path, spec, data))
specs = {spec.name: spec for _, spec, _ in files}
queries = {name: spec.query for name, spec in specs.items()}
single = {n: Query(s.ts_language, one_pattern[n]) for n, s in specs.items() if n in one_pattern}
started = time.process_time()
trees = [(spec.name, spec.parser.parse(data)) for _, spec, data in files]
parse = time.process_time() - started
started = time.process_time()
matches = sum(len(QueryCursor(queries[name]).matches(tree.root_node)) for name, tree in trees)
query = time.process_time() - started
started = time.process_time()
for name, tree in trees:
    if name in single:
        QueryCursor(single[name]).matches(tree.root_node)
walk = time.process_time() - started
discovery = read_discovery(root)
started = time.process_time()
for path, spec, data in files:
    extract(path, data, spec, discovery)
whole = time.process_time() - started
print(json.dumps({"files": len(files), "bytes": sum(len(d) for _, _, d in files), "matches": matches,
                  "parse_s": parse, "query_s": query, "walk_s": walk, "extract_s": whole,
                  "walked_languages": sorted(single)}))
"""


def measure(root: Path, code: Path) -> dict[str, float]:
    """The four CPU measures of ``root`` in a fresh interpreter importing mnemo from ``code``."""
    env = {**os.environ, "PYTHONPATH": str(code.resolve())}
    done = subprocess.run(
        [sys.executable, "-c", MEASURE_CODE, str(root), json.dumps(ONE_PATTERN)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"measuring {root} failed: {done.stderr.strip().splitlines()[-1:]}")
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+", type=Path, help="repository directories")
    parser.add_argument("--code", type=Path, default=REPO_DIR, help="the mnemo tree to measure")
    args = parser.parse_args()
    rows, found = [], {}
    for repo in args.repos:
        m = found[str(repo)] = measure(repo, args.code)
        rows.append(
            (
                repo.name,
                m["files"],
                m["matches"],
                f"{m['parse_s']:.2f}",
                f"{m['query_s']:.2f} ({m['query_s'] / m['parse_s']:.2f}x)",
                f"{m['walk_s']:.2f} ({m['walk_s'] / m['parse_s']:.2f}x)",
                f"{m['extract_s']:.2f} ({m['extract_s'] / m['parse_s']:.2f}x)",
                f"{(m['parse_s'] + m['query_s']) / m['parse_s']:.2f}x",
            )
        )
    info = machine_info()
    print(machine_line(info))
    headers = ("repository", "files", "matches", "parse s", "query s", "one pattern s", "extract s")
    print(table((*headers, "parse+query"), rows))
    write_json(NAME, {"machine": info, "repos": found})


if __name__ == "__main__":
    main()
