"""Retrieval-quality benchmark for task context: tasks mined from real git history.

``mining`` turns commits and merged pull requests into tasks (cleaned message -> the functions
they changed, at the parent), ``baseline`` is the honest BM25 a user would use instead (no part of
mnemo), ``metrics`` scores a ranking against a task, ``evaluate`` runs the rankers on each task's
parent tree, ``report`` summarises and checks the floors, ``run`` is the command line
(``python -m bench.quality --help``) and ``process_speed`` times whole processes. See
``bench/quality/README.md``.
"""
