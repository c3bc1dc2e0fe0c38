"""Display names in each language's convention, through the real index and ``mnemo task``: the JSON's
``display_name`` and the text answer use them, while ``name`` (the index's key) stays dotted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import make_repo

from mnemo_core.cli import main

FILES = {
    "lib/jekyll/filters.rb": """module Jekyll
  module Filters
    def slugify(input)
      input.downcase
    end

    def self.build_slug(input)
      input
    end
  end
end
""",
    "render/json.go": """package render

type JSON struct{}

func (r JSON) Render() error { return nil }
""",
    "engine.go": """package gin

func Render() {}
""",
    "src/searcher.rs": """pub struct Searcher;

impl Searcher {
    pub fn search_slice(&self) {}
}
""",
    "src/matcher.cpp": """class Matcher {
public:
    int match_line(int line) { return line; }
};
""",
    "src/Slug.java": """class Slug {
    String slugify(String text) { return text; }
}
""",
}
EXPECTED = [
    ("Jekyll.Filters.slugify", "Jekyll::Filters#slugify"),
    ("Jekyll.Filters.build_slug", "Jekyll::Filters.build_slug"),
    ("Jekyll.Filters", "Jekyll::Filters"),
    ("JSON.Render", "render.JSON.Render"),
    ("Render", "Render"),  # engine.go sits at the root: no directory names its package
    ("Searcher.search_slice", "Searcher::search_slice"),
    ("Matcher.match_line", "Matcher::match_line"),
    ("Slug.slugify", "Slug.slugify"),  # Java writes the dotted name itself
]
TASK = "slugify build_slug render JSON search_slice match_line"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_repo(tmp_path_factory.mktemp("naming") / "repo", FILES)


def test_json_carries_the_language_s_own_name_beside_the_key(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["task", "--no-memory", "--repo", str(repo), "--format", "json", "--limit", "40", TASK]) == 0
    symbols = json.loads(capsys.readouterr().out)["symbols"]
    names = {s["name"]: s["display_name"] for s in symbols}
    for name, display in EXPECTED:
        assert names.get(name) == display, name


def test_text_answer_shows_the_display_name(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["task", "--no-memory", "--repo", str(repo), "--limit", "40", TASK]) == 0
    out = capsys.readouterr().out
    assert "  Jekyll::Filters#slugify  (method" in out
    assert "  render.JSON.Render  (method" in out
    assert "  Searcher::search_slice  (method" in out
