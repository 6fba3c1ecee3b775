#!/usr/bin/env bash
# The peer's GPU comparison cases (docs/PERF.md) on the GPU machine, from the parameter
# files cuzk proves from (named as `cuzk bench --params-dir DIR` caches them):
#   DIR/sha256-160.params          sha256 N=160, batch 1 (3 reps), 4 (2), 10 (1)
#   DIR/mul-chain-1048576.params   mul-chain 2^20, batch 1 (2 reps)
# then the engine comparison: 3 jobs x 4 partitions of sha256 N=160.
#
# usage: peer/supraseal/run.sh DIR
#   PEER  the binary            [target/devrun/peer-supraseal]
#   OUT   where results go      [.]: peer-supraseal.jsonl (every JSON line),
#                                    peer-supraseal.log (commands, stderr, GPU)
#   CUZK  a cuzk binary: when set, a missing parameter file is made with
#         `$CUZK setup` first (otherwise a missing file is an error)
set -uo pipefail
dir="${1:?usage: run.sh PARAMS_DIR (see the header of this script)}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
peer="${PEER:-$repo/target/devrun/peer-supraseal}"
out="${OUT:-.}"
mkdir -p "$out"
lines="$out/peer-supraseal.jsonl"
log="$out/peer-supraseal.log"
: >"$lines"
: >"$log"
[[ -x "$peer" ]] || { echo "run.sh: no peer binary at $peer (build it with peer/supraseal/build.sh)" >&2; exit 1; }

sha="$dir/sha256-160.params"
mul="$dir/mul-chain-1048576.params"
for spec in "sha256 160 $sha" "mul-chain 1048576 $mul"; do
    read -r circuit size file <<<"$spec"
    [[ -f "$file" ]] && continue
    if [[ -z "${CUZK:-}" ]]; then
        echo "run.sh: $file is missing (set CUZK=path/to/cuzk to make it)" >&2
        exit 1
    fi
    mkdir -p "$dir"
    echo "+ $CUZK setup --circuit $circuit --size $size --out $file" | tee -a "$log" >&2
    "$CUZK" setup --circuit "$circuit" --size "$size" --out "$file" 2>>"$log" || exit 1
done

{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv || true; nproc; } >>"$log" 2>&1

failed=0
case_() {
    echo "+ peer-supraseal $*" | tee -a "$log" >&2
    "$peer" --json "$@" 2>>"$log" | tee -a "$lines" || { failed=$((failed + 1)); echo "run.sh: failed: $*" | tee -a "$log" >&2; }
}
case_ --params "$sha" --circuit sha256 --size 160 --batch 1 --reps 3
case_ --params "$sha" --circuit sha256 --size 160 --batch 4 --reps 2
case_ --params "$sha" --circuit sha256 --size 160 --batch 10 --reps 1
case_ --params "$mul" --circuit mul-chain --size 2^20 --batch 1 --reps 2
case_ --params "$sha" --circuit sha256 --size 160 --batch 4 --jobs 3
echo "run.sh: $failed case(s) failed; lines in $lines, log in $log" >&2
exit $((failed > 0))
