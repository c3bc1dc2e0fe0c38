"""GitHub Actions workflow commands and step outputs for ``mnemo-ci``.

Annotations are ``::error file=...,line=...::message`` lines on stdout, escaped as the runner
expects (``%``, CR and LF in the message; also ``:`` and ``,`` in a property). Outputs are appended
to the ``GITHUB_OUTPUT`` file as ``name=value`` lines; every value is one line.
"""

from __future__ import annotations

from mnemo_core.errors import MnemoError
from mnemo_core.model import Impact

TITLE = "mnemo: dangling reference"
MAX_ANNOTATIONS = 50  # GitHub shows at most 10 error annotations per step; a few more cost nothing
OUTPUTS = ("risk", "changed", "impacted", "tests", "passed", "comment-action", "comment-url")


def annotation_lines(impact: Impact) -> list[str]:
    """One ``::error`` line for each line that still uses a deleted or renamed symbol."""
    lines = []
    for ref in impact.left_references[:MAX_ANNOTATIONS]:
        message = f"{ref.name} was deleted or renamed by this change but is still used here (in {ref.scope})"
        lines.append(
            f"::error file={_property(ref.path)},line={ref.line},title={_property(TITLE)}::{_data(message)}"
        )
    return lines


def write_outputs(path: str | None, impact: Impact, passed: bool, published: dict[str, str]) -> None:
    """Append the step outputs to ``GITHUB_OUTPUT`` (nothing outside Actions)."""
    if not path:
        return
    values = {
        "risk": impact.risk,
        "changed": str(len(impact.changed)),
        "impacted": str(len(impact.callers)),
        "tests": str(len(impact.tests)),
        "passed": "true" if passed else "false",
        "comment-action": published.get("comment-action", "none"),
        "comment-url": published.get("comment-url", ""),
    }
    try:
        with open(path, "a", encoding="utf-8") as out:
            out.writelines(f"{name}={_one_line(value)}\n" for name, value in values.items())
    except OSError as exc:
        raise MnemoError(f"cannot write the step outputs GITHUB_OUTPUT={path}: {exc.strerror}") from exc


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _one_line(text: str) -> str:
    return " ".join(text.split())
