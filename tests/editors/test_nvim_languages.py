"""The Neovim plugin's language list (``editors/nvim/lua/mnemo/languages.lua``) is data, so opening
a file never waits for ``mnemo-lsp --languages``; it must name what the server indexes, and the
plugin must run no process while it loads or opens a file."""

from __future__ import annotations

import re
from pathlib import Path

from mnemo_core.engine import languages

NVIM = Path(__file__).resolve().parents[2] / "editors" / "nvim"
ENTRY = re.compile(r"^  (\w+) = \{ (.*) \},$", re.MULTILINE)


def test_the_plugins_languages_are_the_servers() -> None:
    data = (NVIM / "lua" / "mnemo" / "languages.lua").read_text(encoding="utf-8")
    listed = {name: tuple(re.findall(r"'([^']+)'", exts)) for name, exts in ENTRY.findall(data)}
    assert listed == {name: tuple(e.lstrip(".") for e in exts) for name, exts in languages().items()}


def test_the_plugin_runs_no_process_but_in_its_health_check() -> None:
    runs = re.compile(r"vim\.fn\.system|vim\.fn\.systemlist|io\.popen|os\.execute|vim\.system")
    for path in (NVIM / "plugin").glob("*.lua"):
        assert not runs.search(path.read_text(encoding="utf-8")), path
    assert not runs.search((NVIM / "lua" / "mnemo" / "init.lua").read_text(encoding="utf-8"))
