#!/usr/bin/env bash
# Writes the seed corpora under fuzz/corpus/<target>/: valid files made by
# the project's own CLI (setup, prove with a recording beside the parameter
# file) for a four-step mul-chain, and truncations of each (one byte short,
# half, a quarter, the first 20 bytes).
#
# Usage: fuzz/seeds.sh [path to a cuzk binary]  (default: target/debug/cuzk,
# built with `CUZK_NO_CUDA=1 cargo build -p cuzk`)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cuzk=${1:-$here/../target/debug/cuzk}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$cuzk" setup --circuit mul-chain --size 4 --out "$work/s.params" >/dev/null
"$cuzk" prove --circuit mul-chain --size 4 --batch 3 --params "$work/s.params" --out "$work/s.proofs" --backend cpu >/dev/null
recording=$(ls "$work"/s.params.*.r1cs)

# seed TARGET NAME MODE FILE: FILE and its truncations, after the mode byte
# MODE (empty: none).
seed() {
    local dir="$here/corpus/$1" name=$2 mode=$3 file=$4 len cut
    mkdir -p "$dir"
    len=$(stat -c %s "$file")
    for cut in "$len" $((len - 1)) $((len / 2)) $((len / 4)) 20; do
        { [ -z "$mode" ] || printf "\\x$mode"; head -c "$cut" "$file"; } >"$dir/$name${mode:+-m$mode}-$cut"
    done
}

# Parameter files: no point checks with one-point chunks (mode 00), subgroup
# checks with 401-byte chunks (mode 62).
seed params s 00 "$work/s.params"
seed params s 62 "$work/s.params"
# The key: six fixed points (864 bytes), the IC count, the IC points.
ic=$((0x$(od -An -t x1 -j 864 -N 4 "$work/s.params" | tr -d ' \n')))
vk_len=$((864 + 4 + 96 * ic))
head -c "$vk_len" "$work/s.params" >"$work/s.vk"
seed verifying_key vk "" "$work/s.vk"
seed proof three "" "$work/s.proofs"
head -c 192 "$work/s.proofs" >"$work/one.proof"
seed proof one "" "$work/one.proof"
seed inputs_json inputs "" "$work/s.proofs.inputs.json"
# Recordings: the whole file (mode 00), and its body alone (mode 01: the
# target frames it with a valid header and checksum).
seed recording file 00 "$recording"
tail -c +21 "$recording" | head -c -32 >"$work/body"
seed recording body 01 "$work/body"
for t in params verifying_key proof inputs_json recording; do
    echo "corpus/$t: $(ls "$here/corpus/$t" | wc -l) seeds"
done
