"""Retrieval-quality benchmark for task context: tasks mined from real git history.

``mining`` turns commits into tasks (cleaned message -> the functions the commit changed, at its
parent), ``metrics`` scores a ranking against them, ``evaluate`` runs mnemo's full pipeline and the
BM25 channel alone on each task's parent tree, and ``run`` is the command line
(``python -m bench.quality --help``). See ``bench/quality/README.md``.
"""
