"""The task's vector without ONNX Runtime: the same int8 encoder, run by numpy over mapped arrays.

A query encodes one short text. Loading ONNX Runtime, its session and the ``tokenizers`` library
costs a process about 0.3 s of CPU before that text is encoded in a few milliseconds; this module
does the same arithmetic with numpy alone. After a vector build (or by the first query, when
missing) the built encoder's quantized tensors are written once beside the ONNX file as one array
file (safetensors' layout: an 8-byte header length, a JSON header, raw data), which a query maps into
memory and reads in place:

- the embedding tables stay uint8 with their scale and zero point (a query reads only its rows);
- each matrix is kept as its int8 values (as float32, so no conversion per query) with its
  per-column scale;
- every other tensor (biases, layer norms, constants) as it is.

The forward pass is the ONNX graph's, step for step, including ONNX Runtime's dynamic quantization
of each matrix product's input (uint8, one scale per tensor, round half to even): the products are
then exact integers in float32, as the runtime's are (the encoder's 7-bit weights keep its x86
kernels from saturating). A test holds the vectors to the runtime's (cosine >= 0.99).

numpy's BLAS is kept to one thread (``mnemo_core.blas``): the matrices of one short text are small,
and OpenBLAS's spinning threads cost more CPU than they save.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemo_core.blas import one_blas_thread
from mnemo_core.errors import MnemoError
from mnemo_core.semantic.encoder import HEADS, HIDDEN, LAYER_NORM_EPS, LAYERS, MAX_TOKENS, weights_dir
from mnemo_core.semantic.wordpiece import WordPiece

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array = npt.NDArray[Any]

QUANTIZED = "_quantized"  # ONNX Runtime's suffixes for a quantized tensor's parts
SCALE, ZERO_POINT = "_scale", "_zero_point"
MATRIX = ".wt"  # the graph's name for a linear layer's (transposed) weight
EMBEDDINGS = ("word_emb", "pos_emb")  # gathered, then dequantized (DequantizeLinear)
UINT8_LEVELS = 255.0  # DynamicQuantizeLinear's output range is 0..255
HEADER_ALIGN = 8  # the data starts at a multiple of 8 bytes, so every float32 array is aligned
_DTYPES = {"F32": "float32", "U8": "uint8"}
ERF_P = 0.3275911  # Abramowitz and Stegun 7.1.26: erf to 1.5e-7, numpy has none of its own
ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def arrays_path(model: Path) -> Path:
    """The array file of a built ONNX model."""
    return model.with_suffix(".arrays")


def built_arrays(model: Path) -> Path:
    """The model's array file, written from the ONNX file when missing (needs ``onnx``)."""
    target = arrays_path(model)
    if target.is_file():
        return target
    one_blas_thread()
    import numpy as np
    import onnx
    from onnx import numpy_helper

    tensors = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(model)).graph.initializer}
    arrays: dict[str, Array] = {}
    for name, value in tensors.items():
        if name.endswith(QUANTIZED) and name.removesuffix(QUANTIZED).endswith(MATRIX):
            base = name.removesuffix(QUANTIZED)
            integers = value.astype(np.float32) - tensors[base + ZERO_POINT].astype(np.float32)
            arrays[base] = np.ascontiguousarray(integers)
            arrays[base + SCALE] = tensors[base + SCALE].astype(np.float32)
        elif name.removesuffix(QUANTIZED) in EMBEDDINGS or name.removesuffix(SCALE) in EMBEDDINGS:
            arrays[name] = value
        elif name.removesuffix(ZERO_POINT) in EMBEDDINGS:
            arrays[name] = value.astype(np.float32)
        elif value.dtype == np.float32 and not name.endswith((SCALE, ZERO_POINT)):
            arrays[name] = value
    _write_arrays(arrays, target)
    return target


def _write_arrays(arrays: dict[str, Array], target: Path) -> None:
    """One file: the header's length, the header (name -> dtype, shape, offsets), the data."""
    codes = {"float32": "F32", "uint8": "U8"}
    header, blobs, offset = {}, [], 0
    for name, value in arrays.items():
        blob = value.tobytes()
        header[name] = {
            "dtype": codes[value.dtype.name],
            "shape": list(value.shape),
            "data_offsets": [offset, offset + len(blob)],
        }
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * (-(8 + len(text)) % HEADER_ALIGN)
    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as handle:
        handle.write(struct.pack("<Q", len(text)) + text)
        for blob in blobs:
            handle.write(blob)
    os.replace(handle.name, target)  # atomic: a concurrent builder writes the same bytes


def map_arrays(path: Path) -> dict[str, Array]:
    """The arrays of an array file, read in place from a read-only memory map."""
    one_blas_thread()
    import numpy as np

    with path.open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    (length,) = struct.unpack("<Q", mapped[:8])
    try:
        header = json.loads(mapped[8 : 8 + length])
        out = {}
        for name, info in header.items():
            start, end = info["data_offsets"]
            dtype = np.dtype(_DTYPES[info["dtype"]])
            flat = np.frombuffer(
                mapped, dtype=dtype, count=(end - start) // dtype.itemsize, offset=8 + length + start
            )
            out[name] = flat.reshape(info["shape"])
    except (ValueError, KeyError, TypeError) as exc:
        raise MnemoError(
            f"{path}: not an encoder array file mnemo wrote ({exc}); delete it to rebuild"
        ) from exc
    return out


@dataclass(frozen=True)
class QueryEncoder:
    """The encoder for one text at a time: ``encode(text)`` gives its normalized float32 vector."""

    arrays: dict[str, Array]
    tokenizer: WordPiece

    @classmethod
    def load(cls) -> QueryEncoder:
        """Map the built encoder's arrays (building the model and arrays first when missing)."""
        from mnemo_core.semantic.encoder import built_model, model_path

        model = model_path()
        path = arrays_path(model)
        if not path.is_file():
            path = built_arrays(built_model())
        tokenizer = WordPiece.from_vocab_file(weights_dir() / "vocab.txt", MAX_TOKENS)
        return cls(map_arrays(path), tokenizer)

    def encode(self, text: str) -> npt.NDArray[np.float32]:
        """The mean-pooled, normalized vector of ``text``."""
        import numpy as np

        hidden = self.hidden(self.tokenizer.ids(text))
        pooled = hidden.mean(axis=0)
        vector: npt.NDArray[np.float32] = (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(
            np.float32
        )
        return vector

    def hidden(self, ids: list[int]) -> Array:
        """The last hidden states of one unpadded sequence (tokens x HIDDEN)."""
        import numpy as np

        a = self.arrays
        length = len(ids)
        words = _dequantized(a, "word_emb", a["word_emb" + QUANTIZED][np.asarray(ids)])
        positions = _dequantized(a, "pos_emb", a["pos_emb" + QUANTIZED][:length])
        x = _layer_norm(words + positions + a["type_emb"], a, "embeddings.LayerNorm")
        head = HIDDEN // HEADS
        for i in range(LAYERS):
            p = f"encoder.layer.{i}"
            xq, xs = _quantized(x)
            q = (
                _linear(a, xq, xs, f"{p}.attention.self.query")
                .reshape(length, HEADS, head)
                .transpose(1, 0, 2)
            )
            k = _linear(a, xq, xs, f"{p}.attention.self.key").reshape(length, HEADS, head).transpose(1, 2, 0)
            v = (
                _linear(a, xq, xs, f"{p}.attention.self.value")
                .reshape(length, HEADS, head)
                .transpose(1, 0, 2)
            )
            scores = (q @ k) * a["scale"]
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            probs = scores / scores.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(1, 0, 2).reshape(length, HIDDEN)
            attended = _linear(a, *_quantized(context), f"{p}.attention.output.dense")
            x = _layer_norm(attended + x, a, f"{p}.attention.output.LayerNorm")
            inner = _linear(a, *_quantized(x), f"{p}.intermediate.dense")
            gate = (_erf(inner / a["sqrt2"]) + a["one"]) * a["half"]
            out = _linear(a, *_quantized(inner * gate), f"{p}.output.dense")
            x = _layer_norm(out + x, a, f"{p}.output.LayerNorm")
        return x


def _dequantized(a: dict[str, Array], name: str, rows: Array) -> Array:
    """DequantizeLinear of gathered uint8 rows."""
    import numpy as np

    return (rows.astype(np.float32) - a[name + ZERO_POINT]) * a[name + SCALE]


def _quantized(x: Array) -> tuple[Array, Any]:
    """DynamicQuantizeLinear, zero point subtracted: (the integers as float32, the scale)."""
    import numpy as np

    low = min(0.0, float(x.min()))
    high = max(0.0, float(x.max()))
    scale = np.float32((high - low) / UINT8_LEVELS) if high > low else np.float32(1.0)
    zero = np.float32(np.clip(np.rint(-low / scale), 0, UINT8_LEVELS))
    integers = np.clip(np.rint(x / scale) + zero, 0, UINT8_LEVELS) - zero
    return integers.astype(np.float32), scale


def _linear(a: dict[str, Array], integers: Array, scale: Any, prefix: str) -> Array:
    """MatMulInteger, scaled back per column, plus the bias."""
    base = prefix + MATRIX
    out: Array = (integers @ a[base]) * (scale * a[base + SCALE]) + a[prefix + ".b"]
    return out


def _layer_norm(x: Array, a: dict[str, Array], prefix: str) -> Array:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    out: Array = centred / np.sqrt(variance + np.float32(LAYER_NORM_EPS)) * a[prefix + ".g"]
    return out + a[prefix + ".beta"]


def _erf(x: Array) -> Array:
    import numpy as np

    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + ERF_P * x)
    a1, a2, a3, a4, a5 = ERF_A
    poly = ((((a5 * t + a4) * t + a3) * t + a2) * t + a1) * t
    out: Array = sign * (1.0 - poly * np.exp(-x * x))
    return out
