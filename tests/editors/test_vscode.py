"""The VS Code extension's manifest agrees with its code, and it packages as one bundled ``.vsix``
with its licence (built with the extension's own esbuild and vsce when ``npm ci`` has run)."""

from __future__ import annotations

import json
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"
BIN = EXTENSION / "node_modules" / ".bin"
MANIFEST = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
SOURCE = (EXTENSION / "src" / "extension.ts").read_text(encoding="utf-8")


def test_every_contributed_command_is_registered_and_every_registered_one_contributed() -> None:
    contributed = {c["command"] for c in MANIFEST["contributes"]["commands"]}
    registered = set(re.findall(r"registerCommand\('([\w.]+)'", SOURCE))
    assert contributed == registered
    assert "mnemo.palette.restart" in contributed


def test_every_setting_is_read_and_tracing_is_the_clients_own() -> None:
    properties = MANIFEST["contributes"]["configuration"]["properties"]
    assert properties["mnemo.trace.server"]["enum"] == ["off", "messages", "verbose"]
    assert "new LanguageClient(SECTION," in SOURCE and "const SECTION = 'mnemo'" in SOURCE
    for name in set(properties) - {"mnemo.trace.server"}:
        assert f"'{name.split('.', 1)[1]}'" in SOURCE, f"{name} is never read"


def test_the_licence_travels_with_the_extension() -> None:
    assert MANIFEST["license"] == "MIT" and "private" not in MANIFEST
    assert (EXTENSION / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()


@pytest.mark.skipif(not (BIN / "vsce").exists(), reason="the extension's npm packages are not installed")
def test_the_extension_packages_as_one_bundled_vsix(tmp_path: Path) -> None:
    bundled = tmp_path / "extension.js"
    esbuild = MANIFEST["scripts"]["bundle"].split()
    esbuild = [
        str(BIN / "esbuild"),
        *(f"--outfile={bundled}" if a.startswith("--outfile=") else a for a in esbuild[1:]),
    ]
    subprocess.run(esbuild, cwd=EXTENSION, check=True, capture_output=True, timeout=120)
    text = bundled.read_text(encoding="utf-8")
    assert 'require("vscode-languageclient' not in text and "LanguageClient" in text  # bundled in
    vsix = tmp_path / "mnemo.vsix"
    out = EXTENSION / "out"
    out.mkdir(exist_ok=True)
    (out / "extension.js").write_text(text, encoding="utf-8")
    package = [
        str(BIN / "vsce"),
        "package",
        "--no-dependencies",
        "--allow-missing-repository",
        "--out",
        str(vsix),
    ]
    done = subprocess.run(package, cwd=EXTENSION, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    names = set(zipfile.ZipFile(vsix).namelist())
    assert {"extension/package.json", "extension/out/extension.js", "extension/LICENSE.txt"} <= names
    assert not any("node_modules" in n or n.endswith(".ts") for n in names)
