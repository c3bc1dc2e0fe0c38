"""Each definition's own terms per field: tokens, fields from the grammar, and the stored postings
kept in step with incremental indexing of a real git repository."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import commit, make_repo

from mnemo_core.index.extract import extract
from mnemo_core.index.indexer import index_repo
from mnemo_core.index.languages import language_for_path
from mnemo_core.index.store import index_path
from mnemo_core.index.terms import FIELDS, tokenize

SOURCE = '''\
import os

LIMIT = 10  # a constant: a value, not searched by its words


class UploadClient:
    """Send files to the storage server."""

    def retry_upload(self, path):
        """Retry a failed upload of path."""
        # back off before the retry
        delay = compute_backoff(path, 500)
        log("upload failed, retrying", delay)

        def inner_helper():
            return os.getcwd()

        return inner_helper
'''


def fields_of(name: str, source: str = SOURCE, path: str = "pkg/client.py") -> dict[str, dict[str, int]]:
    spec = language_for_path(path)
    assert spec is not None
    symbol = next(s for s in extract(path, source.encode(), spec).symbols if s.name == name)
    return {
        field: {term: counts[i] for term, *counts in symbol.terms if counts[i]}
        for i, field in enumerate(FIELDS)
    }


def test_compounds_give_their_parts_and_the_whole_unstemmed_and_stop_words_go() -> None:
    assert tokenize("getURLPath for the retry_uploads of x") == [
        "get",
        "url",
        "path",
        "geturlpath",
        "retry",
        "uploads",
        "retry_uploads",
    ]


def test_a_method_s_own_words_are_sorted_into_name_docstring_comment_string_and_code() -> None:
    fields = fields_of("UploadClient.retry_upload")
    assert fields["name"] == {
        "pkg": 1,
        "client": 2,
        "py": 1,
        "upload": 2,
        "uploadclient": 1,
        "retry": 1,
        "retry_upload": 1,
    }
    assert fields["doc"] == {"retry": 1, "failed": 1, "upload": 1, "path": 1}
    assert fields["comment"] == {"back": 1, "off": 1, "before": 1, "retry": 1}
    assert fields["string"] == {"upload": 1, "failed": 1, "retrying": 1}  # the docstring is not counted twice
    assert fields["ident"]["compute_backoff"] == 1 and fields["ident"]["path"] == 2
    assert "500" not in fields["ident"]  # numbers in code are not words
    assert "getcwd" not in fields["ident"]  # the nested function's words are its own
    assert fields_of("UploadClient.retry_upload.inner_helper")["ident"] == {
        "inner": 1,
        "helper": 1,
        "inner_helper": 1,
        "os": 1,
        "getcwd": 1,
    }


def test_a_class_document_holds_its_own_lines_only_and_constants_have_none() -> None:
    fields = fields_of("UploadClient")
    assert fields["doc"] == {"send": 1, "files": 1, "storage": 1, "server": 1}
    assert "compute_backoff" not in fields["ident"]
    assert fields_of("LIMIT") == {field: {} for field in FIELDS}


def test_test_files_have_no_terms() -> None:
    assert fields_of("test_retry", "def test_retry():\n    retry_upload()\n", "tests/test_client.py") == {
        field: {} for field in FIELDS
    }


def postings(root: Path) -> set[tuple[str, str]]:
    with sqlite3.connect(index_path(root)) as conn:
        rows = conn.execute(
            "SELECT p.term, s.name FROM term_postings p JOIN symbols s ON s.id = p.symbol_id"
        ).fetchall()
        docs = conn.execute("SELECT count(*) FROM term_docs").fetchone()[0]
        orphans = conn.execute(
            "SELECT count(*) FROM term_docs WHERE symbol_id NOT IN (SELECT id FROM symbols)"
        ).fetchone()[0]
    assert orphans == 0
    assert docs == len({name for _, name in rows})
    return set(rows)


def test_incremental_indexing_replaces_a_changed_file_s_postings_and_drops_a_removed_one_s(
    tmp_path: Path,
) -> None:
    root = make_repo(
        tmp_path / "repo",
        {
            "pkg/client.py": "def upload(path):\n    # compress first\n    return path\n",
            "pkg/server.py": "def serve(port):\n    return port\n",
        },
    )
    index_repo(root)
    before = postings(root)
    assert {("compress", "upload"), ("upload", "upload"), ("serve", "serve")} <= before

    commit(root, {"pkg/client.py": "def upload(path):\n    # encrypt first\n    return path\n"}, "encrypt")
    stats = index_repo(root)
    assert stats.parsed == 1
    after = postings(root)
    assert ("compress", "upload") not in after and ("encrypt", "upload") in after
    assert {("serve", "serve"), ("port", "serve")} <= after

    commit(
        root, {"pkg/client.py": None, "pkg/uploads.py": "def send_chunk(chunk):\n    return chunk\n"}, "move"
    )
    index_repo(root)
    final = postings(root)
    assert not {term for term, name in final if name == "upload"}
    assert ("send_chunk", "send_chunk") in final and ("uploads", "send_chunk") in final
