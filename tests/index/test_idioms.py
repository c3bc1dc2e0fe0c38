"""Definitions written in a language's idioms rather than its syntax for them: JavaScript's methods
written as assignments (Express and much of npm: ``res.send = function send(body) {...}``,
``Router.prototype.route = function (path) {...}`` are methods of ``res`` and ``Router``, so a change
to one is that method, not "module-level code"), and GoogleTest's ``TEST(Suite, Name) {...}``."""

from __future__ import annotations

import textwrap

from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path

SOURCE = textwrap.dedent(
    """\
    var res = Object.create(null);

    res.send = function send(body) {
      return this.end(body);
    };

    function Router() {}

    Router.prototype.route = function (path) {
      return path;
    };

    exports.helper = () => 1;
    module.exports.other = 2;
    """
)


def test_assigned_functions_are_methods_of_the_object_or_the_prototype_s_constructor() -> None:
    found = extract("lib/response.js", SOURCE.encode(), language_for_path("lib/response.js"))
    symbols = [(s.name, s.kind, s.start_line, s.end_line) for s in found.symbols if s.kind != "module"]
    assert symbols == [
        ("res.send", "method", 3, 5),
        ("Router", "function", 7, 7),
        ("Router.route", "method", 9, 11),
        ("helper", "function", 13, 13),
    ]


def test_googletest_s_tests_are_test_cases_named_by_suite_and_name() -> None:
    source = b"TEST(MathTest, Adds) {\n  EXPECT_EQ(add(1, 2), 3);\n}\n\nint helper() {\n  return 1;\n}\n"
    found = extract("test/math_test.cc", source, language_for_path("test/math_test.cc"))
    symbols = [(s.name, s.kind, s.is_test_case) for s in found.symbols if s.kind != "module"]
    assert symbols == [("MathTest.Adds", "method", True), ("helper", "function", False)]
