from __future__ import annotations

from mnemo_core.index.bodytext import MAX_REPEATS, body_texts
from mnemo_core.index.extract import extract
from mnemo_core.index.languages import language_for_path

SOURCE = b'''"""Uploads."""
RETRY_LIMIT = 3
register_mirrors()


class UploadClient:
    timeout = 30  # seconds before giving up

    def send(self, chunk):
        # retry when the server is busy
        return self.transport.post_chunk(chunk, "multipart/form-data")

    def close(self):
        def drainQueue():
            flushPending()
        drainQueue()
'''


def bodies() -> dict[str, str]:
    spec = language_for_path("up.py")
    assert spec is not None
    return {s.name: s.body for s in extract("up.py", SOURCE, spec).symbols}


def test_each_word_belongs_to_the_innermost_definition() -> None:
    words = {name: set(body.split()) for name, body in bodies().items()}
    assert {"retry", "server", "busy", "transport", "post", "chunk", "multipart", "form", "data"} <= words[
        "UploadClient.send"
    ]
    assert {"flush", "pending"} <= words["UploadClient.close.drainQueue"]
    assert "flush" not in words["UploadClient.close"] and "retry" not in words["UploadClient"]
    assert {"timeout", "seconds", "giving"} <= words["UploadClient"]
    assert {"register", "mirrors", "uploads"} <= words["up"]  # module-level code belongs to the module


def test_syntax_words_are_dropped_and_repeats_are_capped() -> None:
    source = b"def f():\n    return self.xs + self.xs + xs_xs_xs_xs_xs\n"
    text = body_texts(source, [(0, len(source))])[0].split()
    assert "return" not in text and "self" not in text and "def" not in text
    assert text.count("xs") == MAX_REPEATS


def test_test_files_get_no_body_text() -> None:
    spec = language_for_path("tests/test_up.py")
    assert spec is not None
    symbols = extract("tests/test_up.py", b"def test_send():\n    retry_upload()\n", spec).symbols
    assert all(s.body == "" for s in symbols)
