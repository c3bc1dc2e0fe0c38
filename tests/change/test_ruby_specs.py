"""Ruby's tests as its runners see them: RSpec (and minitest/spec) groups and examples, the
``let``/``subject``/``before`` blocks run for every example of their group, ``described_class``
and ``subject``, minitest's ``test_*`` methods and ``setup``, mixins and classes reopened across
files, on a real repository through ``pr``."""

from __future__ import annotations

from pathlib import Path

from helpers import commit, make_repo

from mnemo_core.engine import Engine

CART = (
    "module Shop\n"
    "  module Pricing\n"
    "    def discount(total)\n"
    "      total * 0.9\n"
    "    end\n"
    "  end\n"
    "\n"
    "  class Cart\n"
    "    include Pricing\n"
    "\n"
    "    def initialize(items)\n"
    "      @items = items\n"
    "    end\n"
    "\n"
    "    def total\n"
    "      discount(@items.sum)\n"
    "    end\n"
    "  end\n"
    "end\n"
)
CHECKOUT = (
    "module Shop\n"
    "  class Checkout\n"
    "    def initialize\n"
    "      @paid = false\n"
    "    end\n"
    "\n"
    "    def pay(items)\n"
    "      Cart.new(items).total\n"
    "    end\n"
    "  end\n"
    "end\n"
)
FILES = {
    "lib/shop/cart.rb": CART,
    "lib/shop/checkout.rb": CHECKOUT,
    "spec/cart_spec.rb": (
        "require 'shop/cart'\n"
        "\n"
        "RSpec.describe Shop::Cart do\n"
        "  subject { described_class.new([1, 2]) }\n"
        "\n"
        "  describe '#total' do\n"
        "    it 'sums the items' do\n"
        "      expect(subject.total).to eq 2.7\n"
        "    end\n"
        "  end\n"
        "\n"
        "  describe 'through a let' do\n"
        "    let(:cart) { Shop::Cart.new([3]) }\n"
        "\n"
        "    context 'when checked' do\n"
        "      it 'totals' do\n"
        "        expect(cart.total).to eq 2.7\n"
        "      end\n"
        "    end\n"
        "  end\n"
        "\n"
        "  it { expect(1).to eq 1 }\n"
        "end\n"
    ),
    "spec/checkout_spec.rb": (
        "require 'shop/checkout'\n"
        "\n"
        "describe 'paying' do\n"
        "  context 'with items' do\n"
        "    before { Shop::Checkout.new.pay([1]) }\n"
        "\n"
        "    it 'pays' do\n"
        "      expect(true).to be true\n"
        "    end\n"
        "\n"
        "    context 'twice' do\n"
        "      it 'pays again' do\n"
        "        expect(true).to be true\n"
        "      end\n"
        "    end\n"
        "  end\n"
        "\n"
        "  it 'needs nothing' do\n"
        "    expect(true).to be true\n"
        "  end\n"
        "end\n"
    ),
    "test/checkout_test.rb": (
        "require 'minitest/autorun'\n"
        "\n"
        "class CheckoutTest < Minitest::Test\n"
        "  def setup\n"
        "    @checkout = Shop::Checkout.new\n"
        "  end\n"
        "\n"
        "  def test_builds\n"
        "    assert @checkout\n"
        "  end\n"
        "\n"
        "  def helper\n"
        "    1\n"
        "  end\n"
        "end\n"
    ),
}


def impacted(tmp_path: Path, path: str, old: str, new: str) -> list[tuple[str, str]]:
    root = make_repo(tmp_path / "repo", FILES)
    commit(root, {path: FILES[path].replace(old, new)}, "edit")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert not impact.possible_tests
    return sorted((t.symbol.name, t.reasons[0].split(" (")[0]) for t in impact.tests)


def test_an_example_reaches_a_mixin_through_the_described_class_and_its_subject(tmp_path: Path) -> None:
    paying = "describe 'paying'.context 'with items'"
    through_before = f"runs {paying}.before -> calls Shop.Checkout.pay -> calls Shop.Cart.total"
    assert impacted(tmp_path, "lib/shop/cart.rb", "total * 0.9", "total * 0.8") == [
        (f"{paying}.context 'twice'.it 'pays again'", f"{through_before} -> calls Shop.Pricing.discount"),
        (f"{paying}.it 'pays'", f"{through_before} -> calls Shop.Pricing.discount"),
        (
            "describe Shop::Cart.describe '#total'.it 'sums the items'",
            "calls Shop.Cart.total -> calls Shop.Pricing.discount",
        ),
        (
            "describe Shop::Cart.describe 'through a let'.context 'when checked'.it 'totals'",
            "calls Shop.Cart.total -> calls Shop.Pricing.discount",
        ),
    ]


def test_a_before_block_runs_for_the_examples_nested_in_its_group_only(tmp_path: Path) -> None:
    tests = impacted(tmp_path, "lib/shop/cart.rb", "discount(@items.sum)", "discount(@items.sum(0))")
    via_before = [name for name, reason in tests if reason.startswith("runs ")]
    assert via_before == [
        "describe 'paying'.context 'with items'.context 'twice'.it 'pays again'",
        "describe 'paying'.context 'with items'.it 'pays'",
    ]


def test_minitest_runs_setup_for_the_tests_of_its_class(tmp_path: Path) -> None:
    assert impacted(tmp_path, "lib/shop/checkout.rb", "@paid = false", "@paid = nil") == [
        ("CheckoutTest.test_builds", "runs CheckoutTest.setup -> calls Shop.Checkout.initialize"),
        (
            "describe 'paying'.context 'with items'.context 'twice'.it 'pays again'",
            "runs describe 'paying'.context 'with items'.before -> calls Shop.Checkout.initialize",
        ),
        (
            "describe 'paying'.context 'with items'.it 'pays'",
            "runs describe 'paying'.context 'with items'.before -> calls Shop.Checkout.initialize",
        ),
    ]


def test_a_bare_call_in_a_block_reaches_a_module_method_by_its_name(tmp_path: Path) -> None:
    helpers = "module Web\n  module Helpers\n    def redirect(uri)\n      uri\n    end\n  end\nend\n"
    spec = (
        "describe 'redirect' do\n"
        "  it 'redirects' do\n"
        "    app { redirect '/foo' }\n"  # run on the app, whatever object the block is given to
        "  end\n"
        "end\n"
    )
    root = make_repo(tmp_path / "repo", {"lib/web/helpers.rb": helpers, "spec/redirect_spec.rb": spec})
    commit(root, {"lib/web/helpers.rb": helpers.replace("      uri\n", "      uri.to_s\n")}, "edit")
    impact = Engine.open(root).pr(base="HEAD~1").impact
    assert impact is not None
    assert [(t.symbol.name, t.reasons[0]) for t in impact.tests] == [
        ("describe 'redirect'.it 'redirects'", "calls Web.Helpers.redirect (changed, 1 hop)")
    ]
    (hop,) = Engine.open(root).callers("Web.Helpers.redirect").hops
    assert hop.via.resolution == "name"  # a guess, and said so


def test_a_let_types_its_name_for_the_examples_of_its_group(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    hops = Engine.open(root).callers("Shop.Cart.total").hops
    via = {h.symbol.name: h.via.resolution for h in hops}
    assert via["describe Shop::Cart.describe 'through a let'.context 'when checked'.it 'totals'"] == "typed"
    assert (
        via["describe Shop::Cart.describe '#total'.it 'sums the items'"] == "package"
    )  # the described class


def test_an_instance_variable_set_from_a_constructor_types_it_in_every_method(tmp_path: Path) -> None:
    client = "module Http\n  class Client\n    def get(path)\n      path\n    end\n  end\nend\n"
    api = (
        "class Api\n"
        "  def initialize\n"
        "    @client = Http::Client.new\n"
        "  end\n"
        "\n"
        "  def fetch\n"
        "    @client.get('/items')\n"
        "  end\n"
        "end\n"
    )
    root = make_repo(tmp_path / "repo", {"lib/http/client.rb": client, "lib/api.rb": api})
    (hop,) = Engine.open(root).callers("Http.Client.get").hops
    assert (hop.symbol.name, hop.via.resolution) == ("Api.fetch", "typed")
