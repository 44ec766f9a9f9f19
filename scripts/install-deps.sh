#!/usr/bin/env bash
# Installs what building Pipe needs on Debian 12 (bookworm), when missing:
# LLVM/MLIR 22 with lit and FileCheck, GoogleTest, CMake, Ninja, ccache,
# NumPy (the oracle tests'), and the libraries that LLVM's static archives
# link against. The CUDA
# toolkit is expected at /usr/local/cuda (headers; NVRTC at run time).
set -euo pipefail

packages=(cmake ninja-build g++ ccache pkg-config python3 python3-numpy python3-pytest file
          llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
          libgtest-dev libpng-dev libturbojpeg0-dev
          libzstd-dev zlib1g-dev libxml2-dev libedit-dev libffi-dev libz3-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "Installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
if [ ! -f "${PIPE_CUDA_ROOT:-/usr/local/cuda}/include/nvrtc.h" ]; then
  echo "error: the CUDA toolkit was not found at ${PIPE_CUDA_ROOT:-/usr/local/cuda}" >&2
  echo "       (install it, or set PIPE_CUDA_ROOT to where it is)" >&2
  exit 1
fi
