"""git: diffs -> changed line ranges; log and blame -> per-symbol recency and churn.

``git.py`` runs git (the only module that does); ``refs.py`` turns names into commits and finds
the default base; ``diff.py`` lists changed files with their hunks and reads file versions;
``history.py`` gives per-file dates from one ``git log`` pass; ``blame.py`` gives per-line commits
and the recency and churn of line spans, cached through ``cache.py``.
"""
