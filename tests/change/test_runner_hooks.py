"""Code a test runner runs for tests that never call it: unittest's ``setUp`` (inherited too),
pytest's ``setup_method`` and ``setup_module``, and ``autouse`` fixtures (a conftest's for its
directory only), and the set-ups of JUnit, xUnit, NUnit, MSTest, PHPUnit and Ruby's runners. A change to what
they call reaches exactly the tests in their scope, on real repositories, through ``mnemo tests`` and
``pr``."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import commit, make_repo

from mnemo_core.engine import Engine

CORE = (
    "def prepare():\n"
    "    return 1\n"
    "\n"
    "def connect():\n"
    "    return 2\n"
    "\n"
    "def reset():\n"
    "    return 3\n"
    "\n"
    "def warm():\n"
    "    return 4\n"
    "\n"
    "def compute(x):\n"
    "    return x * 2\n"
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": CORE,
    "tests/__init__.py": "",
    "tests/base.py": (
        "import unittest\n"
        "from pkg.core import prepare\n"
        "\n"
        "class ServiceCase(unittest.TestCase):\n"
        "    def setUp(self):\n"
        "        self.state = prepare()\n"
        "\n"
        "    def test_inherited(self):\n"
        "        assert self.state\n"
    ),
    "tests/test_units.py": (
        "from pkg.core import compute, connect\n"
        "from tests.base import ServiceCase\n"
        "\n"
        "class TestCompute(ServiceCase):\n"
        "    def test_double(self):\n"
        "        self.assertEqual(compute(2), 4)\n"
        "\n"
        "class TestPlain:\n"
        "    def setup_method(self):\n"
        "        connect()\n"
        "\n"
        "    def test_one(self):\n"
        "        assert compute(1) == 2\n"
        "\n"
        "def test_alone():\n"
        "    assert compute(3) == 6\n"
    ),
    "tests/test_module.py": (
        "import pytest\n"
        "from pkg.core import compute, reset\n"
        "\n"
        "def setup_module():\n"
        "    reset()\n"
        "\n"
        "def test_first():\n"
        "    assert compute(1)\n"
    ),
    "tests/api/__init__.py": "",
    "tests/api/conftest.py": (
        "import pytest\n"
        "from pkg.core import warm\n"
        "\n"
        "@pytest.fixture(autouse = True)\n"
        "def warmed():\n"
        "    return warm()\n"
        "\n"
        "@pytest.fixture\n"
        "def cold():\n"
        "    return warm()\n"
    ),
    "tests/api/test_api.py": "from pkg.core import compute\n\ndef test_api():\n    assert compute(2)\n",
}


def impacted_by(tmp_path: Path, function: str) -> set[str]:
    root = make_repo(tmp_path / "repo", FILES)
    commit(
        root,
        {"pkg/core.py": CORE.replace(f"def {function}():\n    return", f"def {function}():\n    return -")},
        "edit",
    )
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    return {f"{t.symbol.path}:{t.symbol.name}" for t in (*impact.tests, *impact.possible_tests)}


def test_a_setup_method_runs_for_its_class_its_subclasses_and_what_they_inherit(tmp_path: Path) -> None:
    assert impacted_by(tmp_path, "prepare") == {
        "tests/base.py:ServiceCase.test_inherited",
        "tests/test_units.py:TestCompute.test_double",
    }


def test_pytest_setup_method_and_setup_module(tmp_path: Path) -> None:
    assert impacted_by(tmp_path / "a", "connect") == {"tests/test_units.py:TestPlain.test_one"}
    assert impacted_by(tmp_path / "b", "reset") == {"tests/test_module.py:test_first"}


def test_a_conftest_autouse_fixture_runs_for_its_directory_only(tmp_path: Path) -> None:
    assert impacted_by(tmp_path, "warm") == {"tests/api/test_api.py:test_api"}


def test_the_reason_says_the_runner_runs_it(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    commit(root, {"pkg/core.py": CORE.replace("return 4", "return 5")}, "edit")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    (test,) = impact.tests
    assert test.reasons[0].startswith("runs warmed -> calls warm")


CODEC = (
    "package com.acme;\n\npublic final class Codec {\n"
    "  public static int decode(int x) {\n    return x;\n  }\n}\n"
)
JUNIT = {
    "src/main/java/com/acme/Codec.java": CODEC,
    "src/test/java/com/acme/CodecTest.java": (
        "package com.acme;\n"
        "\n"
        "import org.junit.jupiter.api.BeforeEach;\n"
        "import org.junit.jupiter.api.Test;\n"
        "\n"
        "public class CodecTest {\n"
        "  private int decoded;\n"
        "\n"
        "  @BeforeEach\n"
        "  void prepare() {\n"
        "    decoded = Codec.decode(1);\n"
        "  }\n"
        "\n"
        "  @Test\n"
        "  void decodes() {\n"
        "    assertEquals(1, decoded);\n"
        "  }\n"
        "\n"
        "  void helper() {\n"
        "    decoded = 0;\n"
        "  }\n"
        "}\n"
    ),
    "src/test/java/com/acme/OtherTest.java": (
        "package com.acme;\n\npublic class OtherTest {\n  @Test\n  void other() {\n    assertEquals(1, 1);\n"
        "  }\n}\n"
    ),
}


def test_junit_runs_a_before_each_method_for_every_test_of_its_class(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", JUNIT)
    commit(root, {"src/main/java/com/acme/Codec.java": CODEC.replace("return x;", "return -x;")}, "edit")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert [(t.symbol.name, t.reasons[0].split(" (")[0]) for t in impact.tests] == [
        ("CodecTest.decodes", "runs CodecTest.prepare -> calls Codec.decode")
    ]


CODEC_CS = (
    "public static class Codec\n{\n    public static int Decode(int x)\n    {\n        return x;\n    }\n}\n"
)
CODEC_KT = "object Codec {\n    fun decode(x: Int): Int {\n        return x\n    }\n}\n"
RUNNERS = {  # language -> (product file, its text, test file, its text, the test case, the set-up)
    "csharp (xUnit: a constructor)": (
        "src/Codec.cs",
        CODEC_CS,
        "tests/Codec.Tests/CodecTests.cs",
        "public class CodecTests\n{\n    private int decoded;\n\n    public CodecTests()\n    {\n"
        "        decoded = Codec.Decode(1);\n    }\n\n    [Fact]\n    public void Decodes()\n    {\n"
        "        Assert.Equal(1, decoded);\n    }\n}\n",
        "CodecTests.Decodes",
        "CodecTests.CodecTests",
    ),
    "csharp (NUnit: [SetUp])": (
        "src/Codec.cs",
        CODEC_CS,
        "tests/Codec.Tests/CodecTests.cs",
        "public class CodecTests\n{\n    private int decoded;\n\n"
        "    [SetUp]\n    public void Prepare()\n    {\n"
        "        decoded = Codec.Decode(1);\n    }\n\n    [Test]\n    public void Decodes()\n    {\n"
        "        Assert.AreEqual(1, decoded);\n    }\n}\n",
        "CodecTests.Decodes",
        "CodecTests.Prepare",
    ),
    "php (PHPUnit)": (
        "src/Codec.php",
        "<?php\nclass Codec\n{\n    public static function decode($x)\n    {\n        return $x;\n    }\n}\n",
        "tests/CodecTest.php",
        "<?php\nclass CodecTest extends TestCase\n{\n    protected function setUp(): void\n    {\n"
        "        $this->decoded = Codec::decode(1);\n    }\n\n    public function testDecodes()\n    {\n"
        "        $this->assertSame(1, $this->decoded);\n    }\n\n    private function helper()\n    {\n"
        "        return 1;\n    }\n}\n",
        "CodecTest.testDecodes",
        "CodecTest.setUp",
    ),
    "kotlin (JUnit 5)": (
        "src/main/kotlin/Codec.kt",
        CODEC_KT,
        "src/test/kotlin/CodecTest.kt",
        "class CodecTest {\n    private var decoded = 0\n\n    @BeforeEach\n    fun prepare() {\n"
        "        decoded = Codec.decode(1)\n    }\n\n    @Test\n    fun decodes() {\n"
        "        assertEquals(1, decoded)\n    }\n}\n",
        "CodecTest.decodes",
        "CodecTest.prepare",
    ),
}


@pytest.mark.parametrize("runner", sorted(RUNNERS))
def test_the_runner_s_set_up_reaches_its_class_s_tests(tmp_path: Path, runner: str) -> None:
    product, code, test_file, test, case, setup = RUNNERS[runner]
    root = make_repo(tmp_path / "repo", {product: code, test_file: test})
    commit(root, {product: code.replace("return ", "return -")}, "edit")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    reached = [(t.symbol.name, t.reasons[0].split(" -> ")[0]) for t in impact.tests]
    assert reached == [(case, f"runs {setup}")]


FORMATS = ("html", "rst", "text", "json")
ATTACHED = {
    "pkg/__init__.py": "",
    "pkg/render.py": "def configure():\n    return {}\n\n"
    + "".join(f"def to_{f}(text):\n    return '{f}:' + text\n\n" for f in FORMATS),
    "tests/__init__.py": (
        "import unittest\n"
        "from pkg.render import configure\n"
        "\n"
        "class BaseCase(unittest.TestCase):\n"
        "    @classmethod\n"
        "    def load_cases(cls, name):\n"
        "        def attach(n, text):\n"
        "            def method(self):\n"
        "                self.assert_case(text)\n"
        "            setattr(cls, 'test_' + n, method)\n"
        "        for n, text in enumerate(open(name).read().split()):\n"
        "            attach(str(n), text)\n"
        "\n"
        "    def setUp(self):\n"
        "        self.options = configure()\n"
        "\n"
        "    def parse(self, text):\n"
        "        raise NotImplementedError\n"
        "\n"
        "    def assert_case(self, text):\n"
        "        assert self.parse(text)\n"
    ),
    **{
        f"tests/test_{f}.py": (
            f"from pkg.render import to_{f}\n"
            "from tests import BaseCase\n"
            "\n"
            f"class Test{f.title()}(BaseCase):\n"
            "    def parse(self, text):\n"
            f"        return to_{f}(text)\n"
            "\n"
            f"Test{f.title()}.load_cases('{f}.txt')\n"
        )
        for f in FORMATS
    },
}


def test_tests_attached_at_run_time_are_their_class_s(tmp_path: Path) -> None:
    """``TestHtml.load_cases(...)`` at a test module's top level attaches one test per fixture case to
    the class (``setattr(cls, 'test_' + n, method)``): a change reaches the class whose ``parse``
    calls it, the selection a user runs (``tests/test_html.py::TestHtml``), not the other classes."""
    root = make_repo(tmp_path / "repo", ATTACHED)
    commit(root, {"pkg/render.py": ATTACHED["pkg/render.py"].replace("'html:'", "'<p>'")}, "edit")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert [f"{t.symbol.path}:{t.symbol.name}" for t in impact.tests] == ["tests/test_html.py:TestHtml"]
    assert impact.possible_tests == ()


def test_a_set_up_runs_for_every_class_whose_tests_are_attached_at_run_time(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", ATTACHED)
    commit(root, {"pkg/render.py": ATTACHED["pkg/render.py"].replace("return {}", "return {'x': 1}")}, "edit")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert sorted(t.symbol.name for t in impact.tests) == [f"Test{f.title()}" for f in sorted(FORMATS)]
