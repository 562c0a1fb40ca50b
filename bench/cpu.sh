#!/usr/bin/env bash
# CPU cost of `hoist send` for many small uploads, for before/after
# comparisons of two (or more) hoist binaries on a machine that is busy with
# something else: the binaries run interleaved, round after round, so a
# change in the machine's load hits them alike, and the figure compared is
# CPU time (user + sys), which a busy machine disturbs far less than wall time.
# It also prints the voluntary context switches (thread wake-ups and waits),
# which hardly depend on the load at all.
#
# Usage: bench/cpu.sh [-n ROUNDS] [-f FILES] [-x HOIST_ARG]... BIN [BIN ...]
#   -n rounds (default 11), -f the first FILES of the 1,000 inputs, -x an
#   argument added to every hoist command (e.g. -x --no-history)
#   e.g. cp .build/release/hoist /tmp/hoist.before; ...change, build...;
#        bench/cpu.sh -n 15 /tmp/hoist.before .build/release/hoist
# Needs the sink (bench/send.sh builds it into bench/out/sink) and the
# 1,000 x 16 KiB inputs that bench/send.sh creates.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=11
many=1000
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) rounds=$2; shift 2 ;;
    -f) many=$2; shift 2 ;;
    -x) extra+=("$2"); shift 2 ;;
    --) shift; break ;;
    -*) echo "usage: bench/cpu.sh [-n ROUNDS] [-f FILES] [-x HOIST_ARG]... BIN [BIN ...]" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: bench/cpu.sh [-n ROUNDS] [-f FILES] [-x HOIST_ARG]... BIN [BIN ...]" >&2; exit 2; }
out=bench/out
dir="$out/files-1000x16KiB"
[ -x "$out/sink" ] || { echo "no $out/sink: run bench/send.sh once" >&2; exit 1; }
[ -d "$dir" ] || { echo "no $dir: run bench/send.sh once" >&2; exit 1; }
files=("$dir"/*.bin)
files=("${files[@]:0:$many}")
# Journals and history of the benchmark's own, not the user's.
state="$PWD/$out/cpu-state"
rm -rf "$state" && mkdir -p "$state"
export XDG_STATE_HOME="$state"
sub="$out/cpu-files-$many"
if [ ! -d "$sub" ]; then
  mkdir -p "$sub.tmp" && ln "${files[@]}" "$sub.tmp/" && mv "$sub.tmp" "$sub"
fi
cat "$sub"/*.bin >/dev/null

sink_pid=""
cleanup() { [ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null; true; }
trap cleanup EXIT
rm -f "$out/cpu-sink.addr"
"$out/sink" >"$out/cpu-sink.addr" 2>"$out/cpu-sink.log" &
sink_pid=$!
for _ in $(seq 200); do [ -s "$out/cpu-sink.addr" ] && break; sleep 0.1; done
addr=$(head -1 "$out/cpu-sink.addr")
[ -n "$addr" ] || { echo "bench/cpu.sh: the sink did not start: $(cat "$out/cpu-sink.log")" >&2; exit 1; }
url="http://$addr/upload"

load="$(cut -d' ' -f1-3 /proc/loadavg)"
declare -A cpu wall cs
for r in $(seq "$rounds"); do
  n=0
  for bin in "$@"; do
    n=$((n + 1))
    t0=$(date +%s.%N)
    /usr/bin/time -f "%U %S %w" -o "$out/cpu.time" "$bin" send "$url" --each "file=@$sub/*.bin" \
      --concurrency 8 --json "${extra[@]}" >"$out/cpu.out" 2>"$out/cpu.err" ||
      { cat "$out/cpu.err" >&2; echo "bench/cpu.sh: $bin failed" >&2; exit 1; }
    t1=$(date +%s.%N)
    ok=$(grep -c '"ok":true' "$out/cpu.out" || true)
    [ "$ok" = "$many" ] || { echo "bench/cpu.sh: $bin: $ok of $many tasks ok" >&2; exit 1; }
    cpu[$n]+="$(awk '{printf "%.2f", $1 + $2}' "$out/cpu.time") "
    cs[$n]+="$(awk '{print $3}' "$out/cpu.time") "
    wall[$n]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') "
  done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "$many tasks, 8 at a time, $rounds rounds interleaved; load average before: $load, after: $(cut -d' ' -f1-3 /proc/loadavg)"
n=0
for bin in "$@"; do
  n=$((n + 1))
  printf '%-40s CPU median %5.2f s  (min %5.2f, max %5.2f)  wall median %6.3f s  voluntary switches median %6d\n' "$bin" \
    "$(echo "${cpu[$n]}" | median)" "$(echo "${cpu[$n]}" | tr ' ' '\n' | grep . | sort -g | head -1)" \
    "$(echo "${cpu[$n]}" | tr ' ' '\n' | grep . | sort -g | tail -1)" "$(echo "${wall[$n]}" | median)" "$(echo "${cs[$n]}" | median)"
done
