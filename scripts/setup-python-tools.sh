#!/bin/sh
# Python tools the embedding benchmark's baseline and the reference-embedding generator need:
# ONNX Runtime's own Python package (same version as onnxruntime-node), HF tokenizers and numpy, in a
# venv under the cache folder (nothing is installed into the system Python). Run once:
#   sh scripts/setup-python-tools.sh
# `npm run bench -- embedding` uses it when present and says so when not.
set -eu
venv="${ALEXANDRIA_PYTHON_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/alexandria/python-tools}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  onnxruntime==1.30.0 tokenizers==0.23.3 numpy 2>&1 | grep -v '^WARNING: Location' || true
"$venv/bin/python" -c 'import onnxruntime, tokenizers, numpy; print("python tools ready:", onnxruntime.__version__, tokenizers.__version__, numpy.__version__)'
echo "venv: $venv"
