#!/usr/bin/env bash
# Bandwidth limit benchmark: how exactly `hoist send --limit-rate` keeps to
# its budget, beside curl's --limit-rate on the same sink (bench/sink, which
# reads every body to its end and answers {"received": N}; every run is
# checked against that count).
#
# Cases:
#   one   one 50 MiB file at --limit-rate 5M: the ideal is 10.00 s
#   four  four 12.5 MiB files at once under one 5M budget (hoist --each,
#         --concurrency 4): the ideal is 10.00 s for all, each upload the same
#         time. curl's limit is per transfer, so curl -Z gets 4 × 1.25M.
# Prints each tool's wall time, its error against the ideal, the spread of
# the four uploads (slowest over fastest), and peak RSS.
#
# Usage: bench/limit-rate.sh
# Env:   HOIST_SCRATCH=DIR  build hoist with --scratch-path DIR (default .build)
#        BENCH_ROUNDS=N     rounds per case (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "bench/limit-rate.sh: $*" >&2; exit 1; }
for tool in go curl python3; do command -v $tool >/dev/null || die "needs $tool"; done
[ -x /usr/bin/time ] || die "needs /usr/bin/time (apt-get install -y time)"

out=bench/out
mkdir -p "$out"
runs=${BENCH_ROUNDS:-3}
rate=5M
rate_bytes=$((5 << 20))

echo "building the sink (go, offline) ..." >&2
(cd bench/sink && GOCACHE="$PWD/../out/gocache" GOPATH="$PWD/../out/gopath" \
  GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local go build -o ../out/sink .) || die "go build of bench/sink failed"
echo "building hoist (release) ..." >&2
hoist="$(scripts/build-release.sh --product hoist)/hoist" || die "swift build failed"

one="$out/limit-50MiB.bin"
[ -f "$one" ] || head -c $((50 << 20)) /dev/urandom >"$one"
four="$out/limit-four"
if [ ! -d "$four" ]; then
  mkdir -p "$four.tmp"
  for i in 1 2 3 4; do head -c $((25 << 19)) /dev/urandom >"$four.tmp/part$i.bin"; done
  mv "$four.tmp" "$four"
fi

sink_pid=""
cleanup() { [ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null; true; }
trap cleanup EXIT
"$out/sink" >"$out/sink.addr" 2>"$out/sink.log" &
sink_pid=$!
for _ in $(seq 50); do [ -s "$out/sink.addr" ] && break; sleep 0.1; done
url="http://$(head -1 "$out/sink.addr")/upload"

# timed NAME CMD...: wall seconds in $wall, peak RSS KiB in $rss, stdout in $out/NAME.out
timed() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -v -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err" ||
    { tail -5 "$out/$name.err" >&2; die "$name failed: $*"; }
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/$name.time")
}

# check NAME FILES BYTES: the sink's counts (hoist's --json lines, or curl's bodies) cover every file.
check() {
  python3 - "$out/$1.out" "$2" "$3" <<'PY' || die "verification failed for $1: the figures would be false"
import json, re, sys
text, want, least = open(sys.argv[1]).read(), int(sys.argv[2]), int(sys.argv[3])
got = [int(x) for x in re.findall(r'"received": ?(\d+)', text)]
if len(got) != want or any(g < least for g in got):
    sys.exit(f"{len(got)} answers {got}, expected {want} of at least {least} bytes")
PY
}

spread() {  # the slowest upload over the fastest, from hoist's --json lines
  python3 -c 'import json,sys; d=[json.loads(l)["duration_ms"] for l in open(sys.argv[1]) if l.strip()]; print(f"{max(d)/min(d):.3f}")' "$1"
}

printf '%-6s %-6s %9s %8s %8s %9s\n' case tool wall error spread "rss MiB"
for round in $(seq "$runs"); do
  timed hoist-one "$hoist" send "$url" -F "file=@$one" --limit-rate $rate --json -s --no-history --no-journal
  check hoist-one 1 $((50 << 20))
  printf '%-6s %-6s %8ss %7s%% %8s %9d\n' one hoist "$wall" \
    "$(awk -v w="$wall" 'BEGIN {printf "%+.1f", (w / 10 - 1) * 100}')" - $((rss / 1024))
  timed curl-one curl -sS -F "file=@$one" --limit-rate $rate "$url"
  check curl-one 1 $((50 << 20))
  printf '%-6s %-6s %8ss %7s%% %8s %9d\n' one curl "$wall" \
    "$(awk -v w="$wall" 'BEGIN {printf "%+.1f", (w / 10 - 1) * 100}')" - $((rss / 1024))
  timed hoist-four "$hoist" send "$url" --each "file=@$four/*.bin" --concurrency 4 --limit-rate $rate \
    --json -s --no-history --no-journal
  check hoist-four 4 $((25 << 19))
  printf '%-6s %-6s %8ss %7s%% %8s %9d\n' four hoist "$wall" \
    "$(awk -v w="$wall" 'BEGIN {printf "%+.1f", (w / 10 - 1) * 100}')" "$(spread "$out/hoist-four.out")" $((rss / 1024))
  curl_args=()
  # curl's options hold until --next: each transfer gets its own quarter.
  for f in "$four"/*.bin; do curl_args+=(-sS --limit-rate $((rate_bytes / 4)) -F "file=@$f" "$url" --next); done
  unset 'curl_args[${#curl_args[@]}-1]'
  timed curl-four curl -Z "${curl_args[@]}"
  check curl-four 4 $((25 << 19))
  printf '%-6s %-6s %8ss %7s%% %8s %9d\n' four curl "$wall" \
    "$(awk -v w="$wall" 'BEGIN {printf "%+.1f", (w / 10 - 1) * 100}')" - $((rss / 1024))
done
