"""The graph file's format: what ``.mnemo/graph-<index id>-<generation>.bin`` holds, written and read.

A header (a magic line with the format and the byte order, the index id and generation the graph
was built from, a CRC-32 of the whole file, the arrays' lengths) followed by the arrays as 64-bit
numbers in the machine's byte order, each at a multiple of 8 bytes, in the order ``graphcache``
gives them. A reader maps the file and hands out the arrays as ``memoryview``s of the mapping (no
copy). It checks the header's stamp (the index id and generation must be the store's own), the
size against the lengths, and the CRC over every byte, so a file damaged anywhere (a value flipped
inside an array still has the right size) is refused, never walked. The CRC reads the whole file
once (zlib, ~2 GB/s: ~50 ms for the 115 MB of ten stdlib copies, whose queries touch half of its
pages anyway) and the pages it brought in are then released from the process (``madvise``), so a
query still holds only the pages of the rows it walks. The standard library alone reads the file:
a task that never walks never imports numpy.

The file is written whole under a temporary name and renamed, so a reader sees the old file or the
new one; a file that cannot be written just means each process builds its own graph.
"""

from __future__ import annotations

import logging
import mmap
import struct
import sys
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mnemo_core.statedir import replacing

log = logging.getLogger(__name__)

MAGIC = f"mnemo graph 4 {sys.byteorder[0]}\n".encode()  # 16 bytes; a file of the other byte order is rebuilt
ARRAYS = 9  # ids; the walk's indptr, indices, data; the directed matrix's; the fan-in's ids, counts
# magic, index id, generation, CRC-32 (of the file with this field zero), lengths: 8-byte aligned
HEADER = struct.Struct(f"=16s16sqQ{ARRAYS}q")
_CRC_AT = 16 + 16 + 8  # the CRC field's offset in the header
ITEM_BYTES = 8
_CRC_CHUNK = 1 << 24  # bytes checked at a time, then released: the check never holds the whole file


@dataclass(frozen=True)
class Stamp:
    """What a graph file was built from: the index's id and generation."""

    index_id: str
    generation: int


def write(path: Path, stamp: Stamp, lengths: Sequence[int], pieces: Iterable[memoryview[int]]) -> bool:
    """Write the graph file of ``stamp`` at ``path`` from its arrays' ``lengths`` (in items) and
    their bytes, ``pieces`` of them in file order (so no array need be whole in memory): under a
    temporary name, then renamed. False (one log line) when it could not be written."""
    if len(lengths) != ARRAYS or min(lengths) < 0:
        raise ValueError(f"a graph file holds {ARRAYS} arrays")
    header = HEADER.pack(MAGIC, stamp.index_id.encode(), stamp.generation, 0, *lengths)
    try:
        with replacing(path) as out:
            out.write(header)
            crc, size = zlib.crc32(header), 0
            for piece in pieces:
                data = piece.cast("B")
                out.write(data)
                crc, size = zlib.crc32(data, crc), size + len(data)
            if size != ITEM_BYTES * sum(lengths):
                raise ValueError(f"{size} bytes of arrays written for lengths {list(lengths)}")
            out.seek(_CRC_AT)
            out.write(struct.pack("=Q", crc))
    except OSError as exc:
        log.info("graph cache not written to %s: %s", path.parent, exc)
        return False
    return True


def read(path: Path, stamp: Stamp, check: bool = True) -> list[memoryview[int]] | None:
    """The arrays of the graph file at ``path``, read in place (bytes; ``cast`` them), or None when
    there is none, or it is another index's or generation's, or damaged (one log line says which).
    ``check=False`` skips the CRC: only for a file this process has just written."""
    try:
        with path.open("rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # ValueError: an empty file cannot be mapped
        log.info("graph cache %s not loaded (%s); rebuilding it", path, exc)
        return None
    view = memoryview(mapped)
    lengths = _lengths(view, stamp)
    if lengths is None:
        log.info("graph cache %s is another index's or generation's, or cut short; rebuilding it", path)
        return None
    if check and not _crc_matches(mapped, view):
        log.warning("graph cache %s is damaged (its checksum does not match); rebuilding it", path)
        return None
    parts: list[memoryview[int]] = []
    offset = HEADER.size
    for length in lengths:
        parts.append(view[offset : offset + ITEM_BYTES * length])
        offset += ITEM_BYTES * length
    return parts


def _lengths(view: memoryview[int], stamp: Stamp) -> tuple[int, ...] | None:
    """The arrays' lengths from the header; None when its magic, stamp or the file's size is wrong."""
    if len(view) < HEADER.size:
        return None
    magic, index_id, generation, _crc, *lengths = HEADER.unpack_from(view)
    if magic != MAGIC or (index_id.rstrip(b"\0").decode(errors="replace"), generation) != (
        stamp.index_id,
        stamp.generation,
    ):
        return None
    if min(lengths) < 0 or len(view) != HEADER.size + ITEM_BYTES * sum(lengths):
        return None
    return tuple(lengths)


def _crc_matches(mapped: mmap.mmap, view: memoryview[int]) -> bool:
    """Whether the file's CRC-32 (of every byte, the field itself read as zero) is the stored one.
    The pages read for it are released as it goes (the mapping is read-only and file-backed: a
    later read maps them again from the page cache)."""
    stored = struct.unpack_from("=Q", view, _CRC_AT)[0]
    crc = zlib.crc32(bytes(view[:_CRC_AT]) + bytes(8) + bytes(view[_CRC_AT + 8 : HEADER.size]))
    for start in range(HEADER.size, len(view), _CRC_CHUNK):
        crc = zlib.crc32(view[start : start + _CRC_CHUNK], crc)
        _release(mapped, start, min(_CRC_CHUNK, len(view) - start))
    return bool(crc == stored)


def _release(mapped: mmap.mmap, start: int, length: int) -> None:
    """Drop a checked range's pages from this process (they stay in the page cache)."""
    page = mmap.PAGESIZE
    first = (start + page - 1) // page * page  # madvise takes page-aligned starts
    if first < start + length and hasattr(mmap, "MADV_DONTNEED"):
        mapped.madvise(mmap.MADV_DONTNEED, first, start + length - first)
