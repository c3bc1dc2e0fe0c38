"""Does extraction give the same answer on two code trees? Every file's ``FileExtract``, compared.

Extraction is pure (bytes in, symbols, references and imports out), so the strictest check that a
faster extractor changed nothing is to run both on every indexable file of some repositories and
compare what they return, field by field. Each code tree runs in its own interpreter
(``PYTHONPATH=<tree>``) and writes one line per file: the path, a digest of the extract's ``repr``
and the repr itself; the lines are then compared and the first differences printed.

Run: ``python bench/same_extract.py --base DIR --new DIR REPO...`` (exit status 1 when some file
differs). ``--cpu`` also prints each side's CPU seconds spent in ``extract`` (one process, no pool).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SHOWN_DIFFERENCES = 5  # files whose differing extracts are printed in full

# Run in a fresh interpreter with one code tree first on the path: extract every file of argv[1].
DUMP_CODE = """
import hashlib, json, sys, time
from pathlib import Path
from mnemo_core.index.discovery import read_discovery
from mnemo_core.index.extract import extract
from mnemo_core.index.files import list_files, read_source
from mnemo_core.index.languages import language_for_path
root = Path(sys.argv[1])
discovery = read_discovery(root)
cpu = 0.0
with open(sys.argv[2], "w") as out:
    for path in list_files(root).paths:
        content = read_source(root, path)
        spec = language_for_path(path)
        if content.data is None or spec is None:
            continue
        spec.query  # compiled outside the timing, as once per process
        started = time.process_time()
        found = repr(extract(path, content.data, spec, discovery))
        cpu += time.process_time() - started
        digest = hashlib.blake2b(found.encode(), digest_size=12).hexdigest()
        out.write(json.dumps([path, digest, found]) + "\\n")
print(json.dumps({"extract_cpu_s": cpu}))
"""


def dump(code: Path, repo: Path, out: Path) -> float:
    """Extract every file of ``repo`` with the code in ``code``; the CPU seconds ``extract`` took."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run(
        [sys.executable, "-c", DUMP_CODE, str(repo), str(out)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return float(json.loads(done.stdout.strip().splitlines()[-1])["extract_cpu_s"])


def read_dump(path: Path) -> dict[str, tuple[str, str]]:
    """path -> (digest, repr)."""
    found = {}
    with path.open() as lines:
        for line in lines:
            name, digest, text = json.loads(line)
            found[name] = (digest, text)
    return found


MISSING = ("", "-")  # a file one side did not extract


def compare(repo: Path, base: Path, new: Path, cpu: bool) -> int:
    """The number of files whose extracts differ (printing the first few)."""
    with tempfile.TemporaryDirectory() as scratch:
        base_cpu = dump(base, repo, Path(scratch) / "base")
        new_cpu = dump(new, repo, Path(scratch) / "new")
        before, after = read_dump(Path(scratch) / "base"), read_dump(Path(scratch) / "new")
    paths = before.keys() | after.keys()
    differing = sorted(p for p in paths if before.get(p, MISSING) != after.get(p, MISSING))
    timing = f"; extract CPU {base_cpu:.2f} s -> {new_cpu:.2f} s ({new_cpu / base_cpu:.2f}x)" if cpu else ""
    print(f"{repo.name}: {len(before)} files, {len(differing)} differ{timing}")
    for path in differing[:SHOWN_DIFFERENCES]:
        print(f"--- {path}")
        print(f" base: {before.get(path, MISSING)[1][:3000]}")
        print(f" new:  {after.get(path, MISSING)[1][:3000]}")
    return len(differing)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", type=Path, required=True, help="the reference code tree")
    parser.add_argument("--new", type=Path, required=True, help="the code tree under test")
    parser.add_argument("--cpu", action="store_true", help="print each side's CPU seconds in extract")
    parser.add_argument("repos", type=Path, nargs="+", help="repositories (or directories) to extract")
    args = parser.parse_args(argv)
    differing = sum(compare(repo, args.base, args.new, args.cpu) for repo in args.repos)
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
