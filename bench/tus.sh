#!/usr/bin/env bash
# tus benchmark: one 1 GiB file sent as a tus upload (default chunk size:
# automatic) against the same file as one multipart POST, both with a release
# `hoist send` to the same embedded receiver (`hoist receive`, which writes
# both to disk), alternating which goes first, BENCH_ROUNDS rounds (default 9).
# Every run is checked: the receiver's saved file has the input's size (and
# its SHA-256 in the first round). Prints the median wall times, the median of
# the per-round ratios tus/multipart (target: <= 1.1), and peak RSS.
#
# Then the time from `hoist resume` to the first byte: a tus send of the file
# is killed with SIGKILL once the server holds half of it, and `hoist resume`
# is timed from its start until the server's partial file grows (a byte the
# resume sent has arrived), and to the end.
#
# Usage: bench/tus.sh [--quick]        (--quick: 256 MiB)
# Env:   BENCH_ROUNDS=N   rounds (default 9)
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case "${1:-}" in
  "") ;;
  --quick) quick=1 ;;
  *) echo "usage: bench/tus.sh [--quick]" >&2; exit 2 ;;
esac
die() { echo "bench/tus.sh: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "needs /usr/bin/time: apt-get install -y time"

out=bench/out
mkdir -p "$out"
runs=${BENCH_ROUNDS:-9}
if [ $quick = 1 ]; then mib=256; else mib=1024; fi

echo "building hoist (release) ..." >&2
hoist="$(HOIST_SCRATCH=${HOIST_SCRATCH:-.build-release} scripts/build-release.sh --product hoist)/hoist" ||
  die "swift build of hoist failed"

big="$out/input-${mib}MiB.bin"   # shared with bench/send.sh
if [ ! -f "$big" ]; then
  echo "creating $big ..." >&2
  head -c $((mib << 20)) /dev/urandom >"$big.tmp" && mv "$big.tmp" "$big"
fi
size=$(stat -c %s "$big")
sha=$(sha256sum "$big" | cut -c1-64)

# A state folder of the benchmark's own: journals and history never touch the user's.
state="$PWD/$out/tus-state"
rm -rf "$state" && mkdir -p "$state"
export XDG_STATE_HOME="$state"

recv_pid=""
cleanup() { [ -n "$recv_pid" ] && kill "$recv_pid" 2>/dev/null; true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_receiver DIR [ARGS...]: sets recv_pid and base
start_receiver() {
  local dir=$1; shift
  rm -rf "$dir" && mkdir -p "$dir"
  "$hoist" receive --port 0 --dir "$dir" "$@" >"$out/tus-recv.log" 2>&1 &
  recv_pid=$!
  for _ in $(seq 100); do grep -q "listening on" "$out/tus-recv.log" 2>/dev/null && break; sleep 0.05; done
  base=$(sed -n 's/.*listening on \(http:[^,]*\),.*/\1/p' "$out/tus-recv.log" | head -1)
  [ -n "$base" ] || die "the receiver did not start: $(cat "$out/tus-recv.log")"
}

received="$out/tus-received"
start_receiver "$received"

# run NAME CMD...: sets wall (s) and rss (KiB); checks the saved file
run() {
  local name=$1; shift
  rm -rf "${received:?}"/* "$received"/.tus
  cat "$big" >/dev/null
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -v -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err" ||
    { tail -5 "$out/$name.err" >&2; die "$name failed: $*"; }
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}')
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/$name.time")
  local saved
  saved=$(find "$received" -maxdepth 1 -type f | head -1)
  [ -n "$saved" ] && [ "$(stat -c %s "$saved")" = "$size" ] || die "$name: the receiver saved no file of $size bytes"
  if [ "$check_sha" = 1 ]; then
    [ "$(sha256sum "$saved" | cut -c1-64)" = "$sha" ] || die "$name: the saved file's SHA-256 differs"
  fi
}

tw=() mw=() ratios=() trss=() mrss=()
for i in $(seq "$runs"); do
  check_sha=$([ "$i" = 1 ] && echo 1 || echo 0)
  if [ $((i % 2)) = 1 ]; then order="tus multipart"; else order="multipart tus"; fi
  for kind in $order; do
    if [ $kind = tus ]; then
      run tus-big "$hoist" send --tus "$base/files" -T "$big" --json -s --no-history
      t=$wall; trss+=("$rss")
    else
      run multipart-big "$hoist" send "$base/upload" -F "file=@$big" --json -s --no-history
      m=$wall; mrss+=("$rss")
    fi
  done
  tw+=("$t"); mw+=("$m")
  ratios+=("$(awk -v a="$t" -v b="$m" 'BEGIN {printf "%.3f", a / b}')")
  echo "round $i: tus ${t}s  multipart ${m}s  ratio ${ratios[-1]}" >&2
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }
cleanup

# --- resume: time to the first byte ------------------------------------------
# 200 MiB/s: slow enough to kill the send at half.
resumed="$out/tus-resume-received"
start_receiver "$resumed" --read-rate $((200 << 20))
rm -rf "$state" && mkdir -p "$state"
"$hoist" send --tus "$base/files" -T "$big" --json -s --no-history >/dev/null 2>&1 &
send_pid=$!
resume_times=$(python3 - "$resumed/.tus" "$size" "$send_pid" "$hoist" <<'PY'
import os, signal, subprocess, sys, time
folder, size, pid, hoist = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def held():
    try:
        return max((os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder) if not n.endswith(".json")), default=0)
    except FileNotFoundError:
        return 0
while held() < size // 2:
    time.sleep(0.001)
os.kill(pid, signal.SIGKILL)
time.sleep(0.5)
before = held()
start = time.monotonic()
proc = subprocess.Popen([hoist, "resume", "--json", "-s", "--no-history"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
first = None
while proc.poll() is None:
    if first is None and held() > before:
        first = time.monotonic() - start
    time.sleep(0.0005)
total = time.monotonic() - start
out = proc.stdout.read().decode()
if proc.returncode != 0 or '"ok":true' not in out:
    sys.exit(f"hoist resume failed ({proc.returncode}): {out} {proc.stderr.read().decode()}")
print(f"{before} {first if first is not None else total:.4f} {total:.4f}")
PY
) || die "the resume measurement failed"
wait "$send_pid" 2>/dev/null || true
saved=$(find "$resumed" -maxdepth 1 -type f | head -1)
[ "$(sha256sum "$saved" | cut -c1-64)" = "$sha" ] || die "resume: the saved file's SHA-256 differs"
read -r held first total <<<"$resume_times"

printf '\n%s\n' "tus vs multipart, $mib MiB to hoist receive on 127.0.0.1, $runs rounds (medians)"
printf '  tus (auto chunks)   %6.2f s   peak RSS %6d KiB\n' "$(median "${tw[@]}")" "$(maxof "${trss[@]}")"
printf '  multipart           %6.2f s   peak RSS %6d KiB\n' "$(median "${mw[@]}")" "$(maxof "${mrss[@]}")"
ratio=$(median "${ratios[@]}")
verdict=$(awk -v r="$ratio" 'BEGIN {print (r <= 1.1) ? "met" : "NOT met"}')
printf '  tus / multipart     %6.3f   (target <= 1.1: %s)\n' "$ratio" "$verdict"
printf '%s\n' "resume after SIGKILL at $((held >> 20)) MiB of $mib MiB (receiver reading at 200 MiB/s):"
printf '  hoist resume to the first byte at the server  %6.1f ms\n' "$(awk -v s="$first" 'BEGIN {print s * 1000}')"
printf '  hoist resume to the end                       %6.2f s\n' "$total"
