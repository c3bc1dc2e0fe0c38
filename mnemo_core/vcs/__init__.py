"""git: diffs -> changed line ranges; log and blame -> per-symbol recency and churn."""
