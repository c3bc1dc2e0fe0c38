"""Plain text stays plain: no control character from a repository reaches a terminal.

Paths, names, commit subjects and snippets come from the repository, and a file named
``x\\x1b]0;PWNED\\x07.py`` or a subject holding OSC 52 (a clipboard write) would act on the user's
terminal if printed raw. Every entry point writes through :func:`escaped_output`, which replaces
each control character (C0 but tab and newline, DEL, C1) and each bidirectional override with its
``\\uXXXX`` spelling: visible in text, and the same character again inside a JSON string, so JSON
output stays valid and exact. mnemo's own terminal drawing (the progress bar) writes to
:func:`unfiltered` instead.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def escape_controls(text: str) -> str:
    """``text`` with every control and bidirectional-override character spelled ``\\uXXXX``."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


class EscapingStream(io.TextIOBase):
    """A text stream that escapes control characters on their way to ``inner``."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(escape_controls(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", "utf-8")


@contextmanager
def escaped_output(stdout: bool = True) -> Iterator[None]:
    """Escape control characters in everything written to stderr, and to stdout unless it carries
    a protocol (``stdout=False``: the language and MCP servers), within the block."""
    saved = sys.stdout, sys.stderr
    if stdout:
        sys.stdout = EscapingStream(saved[0])
    sys.stderr = EscapingStream(saved[1])
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, EscapingStream):
                with contextlib.suppress(ValueError, OSError):  # a closed pipe has nothing left to flush
                    stream.flush()
        sys.stdout, sys.stderr = saved


def unfiltered(stream: TextIO) -> TextIO:
    """The stream under an escaping one, for mnemo's own terminal drawing."""
    return stream.inner if isinstance(stream, EscapingStream) else stream
