"""The report of the call-graph benchmark (``callgraph.py``): totals over repositories, the text
report with its disagreement patterns and Jedi's votes, the Markdown summary, and the floors."""

from __future__ import annotations

from collections import Counter
from typing import Any

from common import machine_line, markdown_table, table, verdict

FLOORS = {"precision": 0.90, "recall": 0.80}
TOP_PATTERNS = 15
EXAMPLES_PER_PATTERN = 3
FORM_COLUMNS = ("oracle", "found", "recall", "judged", "tp", "precision")


def ratio(a: int, b: int) -> float:
    return round(a / b, 4) if b else 0.0


SUMMARY_HEADERS = (
    "repo",
    "commit",
    "files",
    "oracle sites repo/ext/unres",
    "oracle pairs",
    "mnemo pairs",
    "judged",
    "TP",
    "precision",
    "recall",
    "precision+ext",
)


def overall_row(total: dict[str, Any]) -> list[object]:
    """The summary table's last row: the totals over every repository."""
    keys = ("oracle_pairs", "mnemo_pairs", "judged", "tp", "precision", "recall", "precision_ext")
    return ["overall", "", "", "", *(total[k] for k in keys)]


def summary_row(r: dict[str, Any]) -> list[object]:
    """One repository's headline numbers."""
    m, s = r["metrics"], r["sites"]
    return [
        r["repo"],
        r["commit"][:8],
        f"{r['files']} ({r['files_not_parsed']} unparsed)",
        f"{s.get('repo', 0)}/{s.get('external', 0)}/{s.get('unresolved', 0)}",
        m["oracle_pairs"],
        m["mnemo_pairs"],
        m["judged"],
        m["tp"],
        m["precision"],
        m["recall"],
        m["precision_ext"],
    ]


def overall(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Micro-averaged totals over the repositories."""
    tot: Counter[str] = Counter()
    for r in results:
        for k in ("oracle_pairs", "mnemo_pairs", "judged", "tp", "judged_ext"):
            tot[k] += r["metrics"][k]
    return {
        **tot,
        "precision": ratio(tot["tp"], tot["judged"]),
        "recall": ratio(tot["tp"], tot["oracle_pairs"]),
        "precision_ext": ratio(tot["tp"], tot["judged_ext"]),
    }


def breakdown_rows(results: list[dict[str, Any]], key: str, columns: tuple[str, ...]) -> list[list[object]]:
    """Per-repository rows of a breakdown (by resolution or by form)."""
    rows = []
    for r in results:
        for name, row in r["metrics"][key].items():
            rows.append([r["repo"], name, *(row[c] for c in columns)])
    return rows


def floor_lines(results: list[dict[str, Any]], total: dict[str, Any]) -> list[str]:
    """PASS/FAIL per repository and overall, per floor."""
    lines = []
    for label, m in [*((r["repo"], r["metrics"]) for r in results), ("overall", total)]:
        for metric, limit in FLOORS.items():
            lines.append(
                f"{verdict(m[metric] >= limit)}  [{label}] {metric} {m[metric]:.3f} (floor >= {limit})"
            )
    return lines


def report(info: dict[str, Any], results: list[dict[str, Any]], total: dict[str, Any]) -> str:
    """The printed report."""
    out = [
        f"machine: {machine_line(info)}",
        "",
        table(
            SUMMARY_HEADERS,
            [
                *(summary_row(r) for r in results),
                overall_row(total),
            ],
        ),
        "",
        "by mnemo resolution (pairs; judged = at a site the oracle resolved in the repo):",
        table(
            ("repo", "resolution", "all", "judged", "TP", "precision"),
            breakdown_rows(results, "by_resolution", ("all", "judged", "tp", "precision")),
        ),
        "",
        "by oracle call form:",
        table(
            ("repo", "form", "oracle", "found", "recall", "judged", "TP", "precision"),
            breakdown_rows(results, "by_form", ("oracle", "found", "recall", "judged", "tp", "precision")),
        ),
        "",
    ]
    for r in results:
        out.append(f"{r['repo']}: mnemo {r['mnemo_index']['output']}")
        out.append(
            f"  mnemo pair verdicts: {r['metrics']['mnemo_pair_verdicts']}; "
            "unjudged (oracle unresolved) by reason: "
            f"{r['metrics']['mnemo_pairs_at_unresolved_sites_by_reason']}"
        )
        if r["jedi"]:
            j = r["jedi"]
            out.append(
                f"  jedi ({j['seconds']} s) on samples: oracle sites {_votes(j['oracle_sites'])}; "
                f"extension sites {_votes(j['oracle_extension_sites'])}; "
                f"FP {_votes(j['FP'])}; FN {_votes(j['FN'])}"
            )
            for group in ("oracle_sites", "oracle_extension_sites"):
                out += [f"      jedi differs from the oracle: {e}" for e in j[group]["examples"]]
            for resolution, v in j["unjudged"].items():
                out.append(
                    f"    mnemo [{resolution}] pairs the oracle cannot judge: {v['pool']}; sample "
                    f"{_votes({k: x for k, x in v.items() if k not in {'pool', 'est_precision'}})}; "
                    f"jedi-estimated precision {v['est_precision']:.2f}"
                )
                out += [f"      e.g. {e}" for e in v["examples_jedi_disagrees"][:EXAMPLES_PER_PATTERN]]
    out += [
        "",
        "extension (not in the headline): receivers typed by `v = C(...)` or an annotation `p: C`",
        table(
            ("repo", "form", "oracle", "found", "recall", "judged", "TP", "precision"),
            [
                [r["repo"], form, *(row[k] for k in FORM_COLUMNS)]
                for r in results
                for form, row in r["extension"]["by_form"].items()
            ],
        ),
    ]
    out += [
        f"  [{r['repo']}] all forms with the extension: precision {r['extension']['precision']:.3f}, "
        f"recall {r['extension']['recall']:.3f}; by resolution: "
        + ", ".join(f"{k} {v['tp']}/{v['judged']}" for k, v in r["extension"]["by_resolution"].items())
        for r in results
    ]
    for r in results:
        for p in r["extension"]["patterns"]:
            out.append(f"{p['count']:6d}  [{r['repo']}] {p['pattern']}")
            out += [f"          e.g. {e}" for e in p["examples"][:2]]
    out += ["", "mnemo self/local/import pairs at sites the oracle leaves unresolved (not in precision):"]
    for r in results:
        for p in r["unjudged_confident_patterns"]:
            out.append(f"{p['count']:6d}  [{r['repo']}] {p['pattern']}")
            out += [f"          e.g. {e}" for e in p["examples"][:2]]
    out += ["", "mnemo pairs at sites the oracle resolves outside the repository (in precision+ext only):"]
    for r in results:
        for p in r["external_site_patterns"]:
            out.append(f"{p['count']:6d}  [{r['repo']}] {p['pattern']}")
            out += [f"          e.g. {e}" for e in p["examples"][:2]]
    out += ["", f"top {TOP_PATTERNS} disagreement patterns (all repositories):"]
    for p in merge_patterns(results):
        out.append(f"{p['count']:6d}  {p['pattern']}")
        out += [f"          e.g. {e}" for e in p["examples"]]
    out += ["", *floor_lines(results, total)]
    return "\n".join(out)


def _votes(votes: dict[str, Any]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in votes.items() if isinstance(v, int))


def merge_patterns(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The repositories' patterns merged by name, most common first (examples from each repo)."""
    merged: dict[str, dict[str, Any]] = {}
    for r in results:
        for p in r["patterns"]:
            m = merged.setdefault(p["pattern"], {"pattern": p["pattern"], "count": 0, "examples": []})
            m["count"] += p["count"]
            m["examples"] += [f"{r['repo']}: {e}" for e in p["examples"]]
    ranked = sorted(merged.values(), key=lambda p: -p["count"])[:TOP_PATTERNS]
    for p in ranked:
        p["examples"] = p["examples"][:EXAMPLES_PER_PATTERN]
    return ranked


def markdown(results: list[dict[str, Any]], total: dict[str, Any]) -> str:
    """The summary table in Markdown (for RESULTS.md)."""
    rows = [
        *(summary_row(r) for r in results),
        overall_row(total),
    ]
    return markdown_table(SUMMARY_HEADERS, rows)
