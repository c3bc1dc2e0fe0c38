"""The offline refit of the multi-language benchmark reads what the product ranks: a task's cached
unfolded ranking, re-scored under the product's own weights and folded, scores exactly as the
product's folded ranking does."""

from __future__ import annotations

import pickle
from pathlib import Path

from helpers import make_repo

from bench.quality.metrics import task_metrics
from bench.quality.multilang import in_process
from bench.quality.multilang_learn import TYPE_FACTOR, case_of, metrics
from bench.quality.multilang_tasks import MultiTask, Truth, as_keys
from mnemo_core.index.indexer import index_repo
from mnemo_core.repository import Repository
from mnemo_core.retrieve.score import weights_for

SERVER = """package web

// Server serves requests with a router.
type Server struct{ routes map[string]string }

// NewServer makes a server with no routes.
func NewServer() *Server { return &Server{routes: map[string]string{}} }

// Route adds a route to the server's router.
func (s *Server) Route(path, name string) { s.routes[path] = name }

// Serve answers a request by its route.
func (s *Server) Serve(path string) string { return s.routes[path] }
"""
ROUTER = """package web

// Match finds the route of a path in the router.
func Match(routes map[string]string, path string) string { return routes[path] }
"""
TASK = "serve a request through the router's route"


def test_a_cached_ranking_rescored_by_the_product_weights_scores_as_the_product(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"web/server.go": SERVER, "web/router.go": ROUTER})
    index_repo(repo)
    opened = Repository.open(repo)
    try:
        cache = tmp_path / "task.pickle"
        product, _ = in_process(opened, TASK, cache)["mnemo"]
    finally:
        opened.close()
    truth = (Truth("web/server.go:Server.Serve", "web/server.go", "Serve", (13,)),)
    task = MultiTask("0" * 40, "1" * 40, 0, TASK, truth)
    case = case_of("gin", task, *pickle.loads(cache.read_bytes()))
    expected = task_metrics(as_keys(product, truth), [t.key for t in truth])
    assert metrics(case, {**weights_for("go"), TYPE_FACTOR: 1.0}) == expected
    assert expected["R@10"] == 1.0
