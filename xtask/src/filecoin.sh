#!/bin/sh
# filecoin.sh KIND SIZE [OUTDIR]: one Filecoin proof kind measured end to end
# on the machine the GPU bundle runs on (docs/PERF.md), from inputs
# and parameters made there: synthetic inputs (`cuzk filecoin test-data
# --synthetic`), test parameters (`cuzk filecoin params --write-test-params`,
# on the GPU unless SETUP=cpu), the first proof after start in a fresh
# process, then the steady state (`--jobs N --clients C`), each written
# proof checked by filecoin-proofs' own verifier.
#
# KIND: porep | wpost | winning | snap. SIZE: 2KiB 8MiB 512MiB 32GiB 64GiB.
# OUTDIR: $3, else $OUT/fil, else ./results/fil. Inputs and parameters go
# to $WORK (default /tmp/cuzk-fil) and are kept for the next run; other
# kinds' parameter files are deleted first (the disk holds one 32 GiB kind).
#
# Environment:
#   CUZK=path        the cuzk binary (default: bin/cuzk beside this script)
#   SETUP=gpu|cpu    where the parameters are generated (default gpu)
#   COLD=1           drop the page cache before the first proof (needs root),
#                    so the parameter file is read from disk as at a cold start
#   FIRST=0          skip the first proof (a second call on a warm machine,
#                    whose first call made the inputs, parameters and first proof)
#   STEADY=N         proofs in the steady state after a warm-up (default 3; 0: none)
#   CLIENTS=C        callers at once in the steady state (default 2)
#   ENGINE_ARGS=...  more engine arguments for both runs (e.g. --synth-workers 16)
#
# Output in OUTDIR: one log per step (NAME.log: stdout and stderr), the
# proofs' JSON lines (NAME.json), a JSON-lines timeline per run
# (NAME.timeline.jsonl), peak RSS per step (the process's VmHWM, sampled
# every second, in NAME.rss), the CPU time the process used in each
# second of its wall time (NAME.cpu: elapsed seconds, cores busy), and
# summary.txt. Exit status: non-zero if a
# step failed or a proof did not verify.
set -u
here=$(cd "$(dirname "$0")" && pwd)
kind=${1:?usage: filecoin.sh porep|wpost|winning|snap SIZE [OUTDIR]}
size=${2:?usage: filecoin.sh KIND 2KiB|8MiB|512MiB|32GiB|64GiB [OUTDIR]}
out=${3:-${OUT:-$here/results}/fil}
cuzk=${CUZK:-$here/bin/cuzk}
work=${WORK:-/tmp/cuzk-fil}
steady=${STEADY:-3}
clients=${CLIENTS:-2}
engine_args=${ENGINE_ARGS:-}

case $size in
2KiB) suffix=2k ;; 8MiB) suffix=8m ;; 512MiB) suffix=512m ;; 32GiB) suffix=32g ;; 64GiB) suffix=64g ;;
*) echo "filecoin.sh: unknown sector size $size" >&2; exit 2 ;;
esac
case $kind in
porep) key=porep ;; wpost) key=window_post ;; winning) key=winning_post ;; snap) key=snap ;;
*) echo "filecoin.sh: unknown kind $kind" >&2; exit 2 ;;
esac
id=$kind-$suffix
[ -x "$here/run.sh" ] && [ "$cuzk" = "$here/bin/cuzk" ] && "$here/run.sh" --unpack
[ -x "$cuzk" ] || { echo "filecoin.sh: no cuzk binary at $cuzk" >&2; exit 2; }
mkdir -p "$out" "$work/params"
td=$work/td-$size
params=$work/params
summary=$out/summary.txt
failed=0
hz=$(getconf CLK_TCK)

say() { echo "$*" | tee -a "$summary"; }

# step NAME CMD...: runs CMD with its output in NAME.log, its peak RSS in
# NAME.rss, and a summary line with the exit status and wall time.
step() {
    name=$1
    shift
    start=$(date +%s.%N)
    "$@" >"$out/$name.log" 2>&1 &
    pid=$!
    peak=0
    ticks=0
    last=$start
    : >"$out/$name.cpu"
    while kill -0 "$pid" 2>/dev/null; do
        hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
        [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
        # utime + stime of all the process's threads (fields 14 and 15).
        now=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null)
        t=$(date +%s.%N)
        [ -n "$now" ] && {
            awk "BEGIN { printf \"%.1f %.2f\\n\", $t - $start, ($now - $ticks) / $hz / ($t - $last) }" >>"$out/$name.cpu"
            ticks=$now
        }
        last=$t
        sleep 1
    done
    wait "$pid"
    rc=$?
    secs=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
    echo "$peak" >"$out/$name.rss"
    cores=$(awk "BEGIN { printf \"%.1f\", $ticks / $hz / $secs }")
    say "$name: exit $rc, $secs s, peak RSS >= $peak kB (sampled each second), >= $cores cores busy on average"
    [ "$rc" -eq 0 ] || { failed=1; tail -5 "$out/$name.log" | tee -a "$summary"; }
    return "$rc"
}

# args WHAT: the manifest's argument list for this kind, one per line, with
# `verify` for `prove` when WHAT is verify.
args() {
    python3 - "$td/manifest.json" "$key" "$1" <<'EOF'
import json, sys
manifest, key, what = sys.argv[1:]
a = json.load(open(manifest))[key]["prove_args"]
if what == "verify":
    a = ["verify" if x == "prove" else x for x in a]
print("\n".join(a))
EOF
}

: >"$summary"
commit=$(sed -n 's/^commit=//p' "$here/run.sh" 2>/dev/null)
say "filecoin.sh $kind $size: $("$cuzk" --version) of commit ${commit:-unknown}, $(date -u +%FT%TZ), $(nproc) cores"
command -v nvidia-smi >/dev/null && say "$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
say "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"

if [ ! -f "$td/manifest.json" ]; then
    step test-data "$cuzk" filecoin test-data --synthetic --sector-size "$size" --out "$td" || exit 1
fi
# The parameter files are named as in Filecoin's cache, not by $id, so the
# files each id's setup wrote are listed in $work/$id.files: found complete,
# they are used again; another id's are deleted before a new setup.
listed() { [ -s "$1" ] && while read -r f; do [ -f "$f" ] || return 1; done <"$1"; }
if ! listed "$work/$id.files"; then
    for other in "$work"/*.files; do
        [ -e "$other" ] && [ "$other" != "$work/$id.files" ] && xargs rm -f <"$other" && rm -f "$other"
    done
    gpu=--gpu beside=--recordings-beside-params
    [ "${SETUP:-gpu}" = cpu ] && gpu= beside=
    ls "$params" >"$work/before.ls"
    step params "$cuzk" filecoin params --params-dir "$params" --write-test-params "$id" $gpu $beside || exit 1
    ls "$params" | grep -vxF -f "$work/before.ls" | sed "s|^|$params/|" >"$work/$id.files"
fi

# The argument lists hold absolute paths without spaces (the manifest's).
prove=$(args prove | tr '\n' ' ')
verify=$(args verify | tr '\n' ' ')

# Every run prints the host call's per-stage CUZK_TIMING lines. Recordings
# go beside the test parameters (--recordings-beside-params), as in every
# measurement so far, not into the user cache of the machine.
export CUZK_TIMING=1
if [ "${FIRST:-1}" != 0 ]; then
    if [ "${COLD:-0}" = 1 ]; then
        sync && echo 3 >/proc/sys/vm/drop_caches && say "page cache dropped before the first proof"
    fi
    # shellcheck disable=SC2086 # word splitting of the argument lists is meant
    step first "$cuzk" $prove --params-dir "$params" --recordings-beside-params --json --out "$out/first.proof" \
        --timeline "$out/first.timeline.jsonl" $engine_args
    grep '^{' "$out/first.log" >"$out/first.json"
    # shellcheck disable=SC2086
    step verify-first "$cuzk" $verify --params-dir "$params" --proof "$out/first.proof" --verifier filecoin-proofs
fi

if [ "$steady" -gt 0 ]; then
    # shellcheck disable=SC2086
    step steady "$cuzk" $prove --params-dir "$params" --recordings-beside-params --json --out "$out/steady.proof" \
        --jobs "$steady" --clients "$clients" --timeline "$out/steady.timeline.jsonl" $engine_args
    grep '^{' "$out/steady.log" >"$out/steady.json"
    tail -1 "$out/steady.json" | tee -a "$summary"
    # shellcheck disable=SC2086
    step verify-steady "$cuzk" $verify --params-dir "$params" --proof "$out/steady.proof" --verifier filecoin-proofs
fi
say "done: $([ "$failed" = 0 ] && echo all steps passed || echo a step failed)"
exit $failed
