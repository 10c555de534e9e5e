"""Baseline for `npm run bench -- embedding`: the same ONNX file on ONNX Runtime's own Python package.

Reads {"model", "tokenizer", "texts", "batchSize", "threads", "maxSequence", "repeats"} as JSON on
stdin and prints {"seconds", "passagesPerSecond", "version"}: the same work as our Node path —
tokenise (HF tokenizers, Rust), sort by length, pad per batch, run, mean-pool, L2-normalise — with
the same intra-op threads and batch size. Session creation and one warm-up pass are not timed.
Needs `sh scripts/setup-python-tools.sh` (onnxruntime 1.30.0 in a venv).
"""

import json
import sys
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

job = json.load(sys.stdin)
tokenizer = Tokenizer.from_file(job["tokenizer"])
tokenizer.no_padding()
tokenizer.enable_truncation(job["maxSequence"])
options = ort.SessionOptions()
options.intra_op_num_threads = job["threads"]
options.inter_op_num_threads = 1
options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
session = ort.InferenceSession(job["model"], options, providers=["CPUExecutionProvider"])
inputs = [item.name for item in session.get_inputs()]


def embed(texts):
    order = sorted(range(len(texts)), key=lambda index: -len(texts[index]))
    vectors = [None] * len(texts)
    for start in range(0, len(order), job["batchSize"]):
        batch = order[start : start + job["batchSize"]]
        encodings = tokenizer.encode_batch([texts[index] for index in batch])
        width = max(len(encoding.ids) for encoding in encodings)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = session.run(None, {name: feeds[name] for name in inputs})[0]
        pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        for row, index in enumerate(batch):
            vectors[index] = pooled[row]
    return vectors


embed(job["texts"][: job["batchSize"]])
started = time.perf_counter()
for _ in range(job["repeats"]):
    embed(job["texts"])
seconds = time.perf_counter() - started
print(
    json.dumps(
        {
            "seconds": seconds,
            "passagesPerSecond": len(job["texts"]) * job["repeats"] / seconds,
            "version": ort.__version__,
        }
    )
)
