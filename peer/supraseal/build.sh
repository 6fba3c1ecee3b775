#!/usr/bin/env bash
# Builds peer-supraseal for the H200 machine (sm_90, driver 580 = CUDA 13.0,
# no Rust, no network): CUDA runtime and libstdc++ linked statically, release
# profile without debug info. Prints the binary's path.
#
#   peer/supraseal/build.sh            # CUDA from target/cuda/nvidia/cu13
#   CUDA_ROOT=/usr/local/cuda peer/supraseal/build.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cuda="${CUDA_ROOT:-$repo/target/cuda/nvidia/cu13}"
[[ -x "$cuda/bin/nvcc" ]] || { echo "build.sh: no nvcc under $cuda (run cargo xtask cuda, or set CUDA_ROOT)" >&2; exit 1; }
[[ -f "$cuda/lib/libcudart_static.a" ]] || { echo "build.sh: no libcudart_static.a under $cuda/lib" >&2; exit 1; }
cxx_lib="$(dirname "$(g++ -print-file-name=libstdc++.a)")"

export NVCC_REAL="$cuda/bin/nvcc"
export NVCC="$here/sm90/nvcc"
export CXXSTDLIB_STATIC=1
export RUSTFLAGS="-L native=$cuda/lib -L native=$cxx_lib"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/peer}"

cd "$here"
cargo build --release --locked >&2
echo "$CARGO_TARGET_DIR/release/peer-supraseal"
