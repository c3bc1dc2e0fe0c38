"""Go's constant reads: a package-level name read bare, an exported name of the package, an imported
package's export; found with patterns compiled once, whatever the file's own names."""

from __future__ import annotations

from tree_sitter_language_pack import get_parser

from mnemo_core.index.languages.go import HOOKS

SOURCE = """package store

import "example.com/mux"

const limit = 3
var ErrGone = errors.New("gone")
var größe = 2

// Other in a comment, limit too
func Get(k Key) error {
	if k.Size > limit || größe > 1 {
		return ErrGone
	}
	x := mux.ErrNotFound
	y := mux.
		Missing
	z := mux.New()
	s := "Quoted"
	w := T{Field: limit2}
	return Other
}
"""


def reads(names: frozenset[str], modules: frozenset[str]) -> list[tuple[int, str]]:
    source = SOURCE.encode()
    root = get_parser("go").parse(source).root_node
    found = HOOKS.constant_uses(root, source, names, modules)
    assert all(source[start:].startswith(text.encode()) for start, _, text in found)
    return [(line, text) for _, line, text in found]


def test_bare_names_exported_names_and_a_package_s_exports_are_read_in_order() -> None:
    assert reads(frozenset({"limit", "ErrGone"}), frozenset({"mux"})) == [
        (11, "limit"),
        (12, "ErrGone"),
        (19, "Field"),  # a composite literal's key reads as a value (the grammar cannot tell)
        (20, "Other"),
        (14, "mux.ErrNotFound"),
    ]


def test_a_name_that_is_not_one_ascii_word_is_read_too() -> None:
    assert reads(frozenset({"limit", "größe"}), frozenset()) == [
        (11, "limit"),
        (11, "größe"),
        (12, "ErrGone"),
        (19, "Field"),  # a composite literal's key reads as a value (the grammar cannot tell)
        (20, "Other"),
    ]


def test_no_names_leaves_the_exported_ones() -> None:
    assert reads(frozenset(), frozenset()) == [(12, "ErrGone"), (19, "Field"), (20, "Other")]
