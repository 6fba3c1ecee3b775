#!/usr/bin/env bash
# Builds peer-filecoin for the H200 machine (sm_90, driver 580 = CUDA 13.0,
# no Rust, no network): release profile without debug info, CUDA runtime and
# libstdc++ linked statically, the CUDA driver library (libcuda.so.1) linked
# dynamically, since every machine with a driver has it. Prints the binary's path.
#
#   peer/filecoin/build.sh            # CUDA from target/cuda/nvidia/cu13
#   CUDA_ROOT=/usr/local/cuda peer/filecoin/build.sh
#
# A machine without a driver (this project's build machines) has no
# libcuda.so to link against, and the pip CUDA packages bring no stub: the
# first link then fails naming the driver functions it needs, and a stub
# library with those names and the driver's soname is made from that list
# for the second link. The stub is never loaded: at run time the name
# libcuda.so.1 resolves to the driver's own library.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cuda="${CUDA_ROOT:-$repo/target/cuda/nvidia/cu13}"
[[ -x "$cuda/bin/nvcc" ]] || { echo "build.sh: no nvcc under $cuda (run cargo xtask cuda, or set CUDA_ROOT)" >&2; exit 1; }
[[ -f "$cuda/lib/libcudart_static.a" ]] || { echo "build.sh: no libcudart_static.a under $cuda/lib" >&2; exit 1; }
cxx_lib="$(dirname "$(g++ -print-file-name=libstdc++.a)")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/peer}"
stub="$CARGO_TARGET_DIR/libcuda-stub"
mkdir -p "$stub"

# supraseal-c2 (sppark's build helper) through the sm_90-only nvcc wrapper.
export NVCC_REAL="$cuda/bin/nvcc"
export NVCC="$repo/peer/supraseal/sm90/nvcc"
export CXXSTDLIB_STATIC=1
# bellperson's and neptune's kernels (ec-gpu-gen runs `nvcc` from PATH).
export PATH="$cuda/bin:$PATH"
export EC_GPU_CUDA_NVCC_ARGS="--fatbin --gpu-architecture=sm_90 --generate-code=arch=compute_90,code=sm_90"
export CUDA_LIBRARY_PATH="$stub"
export RUSTFLAGS="-L native=$cuda/lib -L native=$cxx_lib -L native=$stub"

driver=""
for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/cuda/lib64; do
    [[ -e "$d/libcuda.so" ]] && driver="$d/libcuda.so" && break
done
make_stub() { # make_stub [SYMBOL…]: libcuda.so with these functions and the driver's soname
    printf 'int %s(void) { return 999; }\n' "$@" > "$stub/stub.c"
    gcc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$stub/libcuda.so" "$stub/stub.c"
}
if [[ -n "$driver" ]]; then
    ln -sf "$driver" "$stub/libcuda.so"
elif [[ ! -e "$stub/libcuda.so" ]]; then
    make_stub cuInit
fi

cd "$here"
log="$CARGO_TARGET_DIR/peer-filecoin-build.log"
# Each failed link names some of the driver functions it lacks (lld stops
# listing after 20): add them to the stub and link again, until it links.
known=()
[[ -f "$stub/symbols" ]] && mapfile -t known < "$stub/symbols"
until cargo build --release --locked 2> "$log"; do
    cat "$log" >&2
    [[ -z "$driver" ]] || exit 1
    # GNU ld says "undefined reference to `cuInit'", lld "undefined symbol: cuInit".
    mapfile -t found < <(grep -oE "(undefined reference to \`|undefined symbol: )cu[A-Za-z0-9_]+" "$log" | grep -oE "cu[A-Za-z0-9_]+$" || true)
    mapfile -t all < <(printf '%s\n' "${known[@]}" "${found[@]}" | grep . | sort -u)
    if ((${#all[@]} == ${#known[@]})); then
        echo "build.sh: the build failed for another reason than the driver's symbols" >&2
        exit 1
    fi
    known=("${all[@]}")
    printf '%s\n' "${known[@]}" > "$stub/symbols"
    echo "build.sh: a stub libcuda.so with ${#known[@]} driver functions for the link" >&2
    make_stub "${known[@]}"
done
cat "$log" >&2
echo "$CARGO_TARGET_DIR/release/peer-filecoin"
