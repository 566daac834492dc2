#!/usr/bin/env bash
# Installs what Kiln needs on Debian 12 (bookworm) and nothing else; safe to
# re-run: it only installs what is missing.
set -euo pipefail

APT_PACKAGES=(
  cmake ninja-build g++ git
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libzstd-dev zlib1g-dev
  protobuf-compiler libprotobuf-dev
  libabsl-dev
  flatbuffers-compiler libflatbuffers-dev
  libgtest-dev
  python3 python3-pip
)
# nvidia-cuda-nvdisasm: nvdisasm (the toolkit here has ptxas, not nvdisasm),
# for the SASS check of the wgmma kernels (scripts/wgmma_hazards.py).
PIP_PACKAGES=(onnx==1.20.1 onnxruntime==1.23.2 "numpy>=1.26" nvidia-cuda-nvdisasm==13.5.37)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# A python3 that is not Debian's (pyenv, venv) brings its own pip.
if command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1; then
  missing=("${missing[@]/python3-pip}")
  missing=("${missing[@]/python3}")
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

need_pip=0
python3 - <<'PY' || need_pip=1
import importlib
for m in ("onnx", "onnxruntime", "numpy"):
    importlib.import_module(m)
PY
# nvdisasm where the SASS check looks for it (PATH, the toolkit, the wheel).
python3 "$(dirname "$0")/wgmma_hazards.py" --which > /dev/null || need_pip=1
if ((need_pip)); then
  echo "bootstrap: installing ${PIP_PACKAGES[*]}"
  python3 -m pip install -q "${PIP_PACKAGES[@]}" 2>/dev/null ||
    python3 -m pip install -q --break-system-packages "${PIP_PACKAGES[@]}"
fi
test -x /usr/lib/llvm-22/bin/lit || { echo "bootstrap: llvm-22-tools did not install lit" >&2; exit 1; }
echo "bootstrap: all dependencies present"
