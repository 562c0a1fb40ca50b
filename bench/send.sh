#!/usr/bin/env bash
# Upload benchmark: `hoist send` against curl, both posting multipart/form-data
# to a local sink (bench/sink) that reads every body to its end before it
# answers {"received": N}. Every run is checked against the byte count the sink
# reports; a run that fails the check stops the benchmark (false figures are
# worse than none).
#
# Cases:
#   big   one 1 GiB file, -F file=@...              (--quick: 256 MiB)
#   many  1,000 files of 16 KiB, one request each, 8 at a time  (--quick: 200);
#         each round also runs hoist-bench-floor, AsyncHTTPClient alone posting
#         the same files, to show the HTTP library's share of hoist's time
#   tiny  10,000 files of 1 KiB, 4 at a time: peak RSS (3 rounds; --quick: 2,000)
#   one   one 1 KiB file, start-up included (30 rounds, timed around the process)
# Each case runs 9 rounds of hoist and curl, alternating which goes first, each
# under /usr/bin/time -v (9, not 5: this machine's speed drifts by 20-30%
# within minutes, and a median of 5 ratios moved by 0.1 between runs). Prints medians, the median of the per-round ratios
# hoist/curl, the peak RSS of each tool, and whether the targets are met.
#
# With --tls the sink serves HTTPS (a self-signed certificate, HTTP/1.1):
# hoist runs with -k, curl with -k --http1.1, its fastest upload mode here
# (its default HTTP/2 upload was 1.8x slower). Targets: 1 GiB <= 1.0x, 1,000
# files <= 1.5x.
#
# Usage: bench/send.sh [--quick] [--tls]
# Env:   HOIST_SCRATCH=DIR  build hoist with --scratch-path DIR (default .build)
#        BENCH_ROUNDS=N     rounds per case (default 9); ONE_ROUNDS=N for the one-file case (30)
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
tls=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --tls) tls=1 ;;
    *) echo "usage: bench/send.sh [--quick] [--tls]" >&2; exit 2 ;;
  esac
done

die() { echo "bench/send.sh: $*" >&2; exit 1; }

missing=()
command -v go >/dev/null || missing+=(golang-go)
[ -x /usr/bin/time ] || missing+=(time)
command -v curl >/dev/null || missing+=(curl)
command -v python3 >/dev/null || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench/send.sh needs: ${missing[*]}" >&2
  echo "install them with: apt-get install -y ${missing[*]}" >&2
  exit 1
fi

out=bench/out
mkdir -p "$out"
runs=${BENCH_ROUNDS:-9}
# A state folder of the benchmark's own: its thousands of uploads never go
# into the user's history (whose rotation would drop the older half) or journal.
state="$PWD/$out/send-state"
rm -rf "$state" && mkdir -p "$state"
export XDG_STATE_HOME="$state"
if [ $quick = 1 ]; then big_mib=256; many=200; else big_mib=1024; many=1000; fi
concurrency=8

# --- build -------------------------------------------------------------------
echo "building the sink (go, offline) ..." >&2
(cd bench/sink && GOCACHE="$PWD/../out/gocache" GOPATH="$PWD/../out/gopath" \
  GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local go build -o ../out/sink .) ||
  die "go build of bench/sink failed"

echo "building hoist (release) ..." >&2
# As a release of hoist ships (see the script).
hoist="$(scripts/build-release.sh --product hoist)/hoist" || die "swift build of hoist failed"
[ -x "$hoist" ] || die "no hoist binary at $hoist"
"$hoist" send --help >/dev/null 2>&1 || die "$hoist has no working 'send' subcommand"
# AsyncHTTPClient alone, with nothing of hoist's: what the library costs (bench/FloorBench).
floor="$(scripts/build-release.sh --product hoist-bench-floor)/hoist-bench-floor" || die "swift build of hoist-bench-floor failed"

# --- inputs (created once, kept in bench/out) --------------------------------
big="$out/input-${big_mib}MiB.bin"   # same name as bench/encode.sh uses
if [ ! -f "$big" ]; then
  echo "creating $big ..." >&2
  head -c $((big_mib << 20)) /dev/urandom >"$big.tmp" && mv "$big.tmp" "$big"
fi
big_bytes=$(stat -c %s "$big")
[ "$big_bytes" = $((big_mib << 20)) ] || die "$big has $big_bytes bytes, expected $((big_mib << 20)); delete it"

# make_files DIR COUNT SIZE DIGITS: COUNT random files of SIZE bytes, fNNNN.bin
make_files() {
  [ -d "$1" ] && return
  echo "creating $1 ..." >&2
  rm -rf "$1.tmp" && mkdir -p "$1.tmp"
  head -c $(($2 * $3)) /dev/urandom | split -b "$3" -a "$4" -d --additional-suffix=.bin - "$1.tmp/f"
  mv "$1.tmp" "$1"
}
dir="$out/files-${many}x16KiB"
make_files "$dir" "$many" 16384 4
n_files=$(find "$dir" -maxdepth 1 -name '*.bin' -size 16384c | wc -l)
[ "$n_files" = "$many" ] || die "$dir holds $n_files files of 16 KiB, expected $many; delete it"

# page cache warm: measure the upload, not the disk
cat "$big" >/dev/null
cat "$dir"/*.bin >/dev/null

# --- sink --------------------------------------------------------------------
sink_pid=""
cleanup() { [ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null; true; }
trap cleanup EXIT
trap 'exit 130' INT TERM
sink_flags=()
[ $tls = 1 ] && sink_flags=(-tls)
"$out/sink" "${sink_flags[@]}" >"$out/sink.addr" 2>"$out/sink.log" &
sink_pid=$!
for _ in $(seq 50); do [ -s "$out/sink.addr" ] && break; sleep 0.1; done
addr=$(head -1 "$out/sink.addr")
[ -n "$addr" ] || die "the sink did not start: $(cat "$out/sink.log")"
scheme=http
hoist_tls=()
curl_tls=()
if [ $tls = 1 ]; then scheme=https; hoist_tls=(-k); curl_tls=(-k --http1.1); fi
url="$scheme://$addr/upload"

# curl_config DIR CFG: one curl config block per file of DIR, `next`-separated
curl_config() {
  local f first=1
  for f in "$1"/*.bin; do
    [ $first = 1 ] || echo "next"
    first=0
    printf 'url = "%s"\nform = "file=@%s"\nwrite-out = "%%{http_code}\\n"\n' "$url" "$f"
    [ $tls = 1 ] && printf 'insecure\nhttp1.1\n'
    true
  done >"$2"
}
cfg="$out/curl-many-$many.cfg"
curl_config "$dir" "$cfg"

# --- one timed run -----------------------------------------------------------
# run NAME CMD...: runs CMD under /usr/bin/time -v, stdout to $out/NAME.out;
# sets wall (s, from date), cpu (user+sys s) and rss (KiB).
run() {
  local name=$1; shift
  local t0 t1
  # Warm again before every run: this machine's proactive reclaim (DAMON,
  # kdamond) evicts pages it sees as cold, and a run that rereads part of
  # its input from disk measures the disk.
  case "$name" in
    *-big) cat "$big" >/dev/null ;;
    *-many) cat "$dir"/*.bin >/dev/null ;;
  esac
  t0=$(date +%s.%N)
  if ! /usr/bin/time -v -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err"; then
    t1=$(date +%s.%N)
    echo "--- stderr:" >&2; tail -20 "$out/$name.err" >&2
    echo "--- /usr/bin/time:" >&2; head -3 "$out/$name.time" >&2
    die "$name failed (exit status above): $*"
  fi
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}')
  cpu=$(awk -F': ' '/User time \(seconds\)/ {u=$2} /System time \(seconds\)/ {s=$2}
                   END {printf "%.2f", u + s}' "$out/$name.time")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/$name.time")
}

# verify KIND FILE: checks the sink's counts in the tool's output; dies on failure.
verify() {
  python3 - "$@" "$big_bytes" "$many" <<'PY' || die "verification failed for $1 ($2): the figures would be false"
import json, re, sys
kind, path, big_bytes, many = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
text = open(path).read()
def fail(msg):
    print(f"{kind}: {msg}", file=sys.stderr); sys.exit(1)
if kind in ("hoist-big", "hoist-many"):
    want, least = (1, big_bytes) if kind == "hoist-big" else (many, 16384)
    lines = [l for l in text.splitlines() if l.strip()]
    early = 0
    if len(lines) != want:
        fail(f"{len(lines)} JSON lines, expected {want}")
    for l in lines:
        t = json.loads(l)
        got = (t.get("json") or {}).get("received") if isinstance(t.get("json"), dict) else None
        if t.get("ok") is not True or t.get("status") != 200:
            fail(f"task not ok: {l[:300]}")
        if not isinstance(got, int):
            fail(f"no json.received in: {l[:300]}")
        if got != t.get("bytes_total") or got != t.get("bytes_sent"):
            fail(f"sink received {got} bytes, hoist reports bytes_total={t.get('bytes_total')} "
                 f"bytes_sent={t.get('bytes_sent')}")
        if got < least:
            fail(f"sink received {got} bytes, less than the file's {least}")
        # the sink's count is the ground truth; hoist's own flag is only reported
        early += bool(t.get("answered_early"))
        if t.get("attempts", 1) != 1:
            print(f"{kind}: warning: task {t.get('id')} took {t.get('attempts')} attempts", file=sys.stderr)
    if early:
        print(f"{kind}: note: hoist flagged {early} of {want} tasks answered_early, "
              "but the sink read every body in full", file=sys.stderr)
elif kind == "curl-big":
    m = re.fullmatch(r'\s*\{"received": (\d+)\}\s*', text)
    if not m:
        fail(f"unexpected response: {text[:300]!r}")
    got = int(m.group(1))
    # multipart framing (boundary, part headers) adds a few hundred bytes
    if not big_bytes < got <= big_bytes + 1024:
        fail(f"sink received {got} bytes for a file of {big_bytes}")
elif kind in ("curl-many", "floor-many"):
    got = [int(x) for x in re.findall(r'\{"received": (\d+)\}', text)]
    codes = re.findall(r'^(\d{3})$', text, re.M)
    if len(got) != many or sum(1 for g in got if 16384 < g <= 16384 + 1024) != many:
        fail(f"{len(got)} responses, {sum(1 for g in got if g > 16384)} with a full body; expected {many}")
    if kind == "curl-many" and (len(codes) != many or any(c != "200" for c in codes)):
        fail(f"{codes.count('200')} of {many} answered 200")
PY
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
maxof() { sort -g | tail -1; }

# --- cases -------------------------------------------------------------------
results=()
floor_walls=()  # "wall ratio-to-curl" of hoist-bench-floor, per round of the many case
bench_case() {
  local case=$1 label=$2
  local hw=() cw=() hc=() cc=() hr=() cr=() rw=() rc=()
  local i order tool
  for i in $(seq $runs); do
    if [ $((i % 2)) = 1 ]; then order="hoist curl"; else order="curl hoist"; fi
    for tool in $order; do
      if [ "$case" = big ]; then
        if [ $tool = hoist ]; then
          run hoist-big "$hoist" send "$url" -F "file=@$big" --json "${hoist_tls[@]}"
        else
          rm -f "$out/curl.json"
          run curl-big curl -sS "${curl_tls[@]}" -o "$out/curl.json" -F "file=@$big" "$url"
          cp "$out/curl.json" "$out/curl-big.out"
        fi
      else
        if [ $tool = hoist ]; then
          run hoist-many "$hoist" send "$url" --each "file=@$dir/*.bin" --concurrency $concurrency --json \
            "${hoist_tls[@]}"
        else
          run curl-many curl -sS --no-progress-meter -Z --parallel-max $concurrency -K "$cfg"
        fi
      fi
      verify "$tool-$case" "$out/$tool-$case.out"
      if [ $tool = hoist ]; then hw+=("$wall"); hc+=("$cpu"); hr+=("$rss")
      else cw+=("$wall"); cc+=("$cpu"); cr+=("$rss"); fi
    done
    if [ "$case" = many ]; then
      run floor-many "$floor" "${hoist_tls[@]}" "$url" $concurrency "$dir"/*.bin
      verify floor-many "$out/floor-many.out"
      floor_walls+=("$(awk -v a="$wall" -v b="${cw[-1]}" 'BEGIN {printf "%.4f %.4f", a, a / b}')")
    fi
    rw+=("$(awk -v a="${hw[-1]}" -v b="${cw[-1]}" 'BEGIN {printf "%.4f", a / b}')")
    # CPU times have 10 ms resolution: a 0.00 counts as 0.01
    rc+=("$(awk -v a="${hc[-1]}" -v b="${cc[-1]}" 'BEGIN {printf "%.4f", (a > 0.01 ? a : 0.01) / (b > 0.01 ? b : 0.01)}')")
    printf '  %-5s round %d: hoist %6.3fs %5.2fs CPU %7.1f MiB | curl %6.3fs %5.2fs CPU %7.1f MiB\n' \
      "$case" "$i" "${hw[-1]}" "${hc[-1]}" "$(awk -v k="${hr[-1]}" 'BEGIN {print k / 1024}')" \
      "${cw[-1]}" "${cc[-1]}" "$(awk -v k="${cr[-1]}" 'BEGIN {print k / 1024}')" >&2
  done
  results+=("$label|$(printf '%s\n' "${hw[@]}" | median)|$(printf '%s\n' "${cw[@]}" | median)|$(printf '%s\n' "${rw[@]}" | median)|$(printf '%s\n' "${hc[@]}" | median)|$(printf '%s\n' "${cc[@]}" | median)|$(printf '%s\n' "${rc[@]}" | median)|$(printf '%s\n' "${hr[@]}" | maxof)|$(printf '%s\n' "${cr[@]}" | maxof)|$case")
}

echo "sink on $addr; $runs rounds per case, hoist and curl alternating" >&2
bench_case big "1 file, ${big_mib} MiB"
bench_case many "${many} x 16 KiB, 8 at a time"

# --- table -------------------------------------------------------------------
printf '\n%-26s %9s %9s %7s %9s %9s %7s %9s %9s  %s\n' case "hoist s" "curl s" wall "hoist CPU" "curl CPU" CPU \
  "hoist MiB" "curl MiB" targets
for r in "${results[@]}"; do
  IFS='|' read -r label hw cw rw hc cc rc hr cr case <<<"$r"
  if [ "$case" = big ]; then
    if [ $tls = 1 ]; then
      verdict=$(awk -v w="$rw" 'BEGIN { printf "TLS wall<=1.0x %s", (w <= 1.0) ? "met" : "MISSED" }')
    else
      verdict=$(awk -v w="$rw" -v c="$rc" -v m="$hr" 'BEGIN {
        printf "wall<=1.0x %s, CPU<=0.75x %s, RSS<=40MiB %s",
          (w <= 1.0) ? "met" : "MISSED", (c <= 0.75) ? "met" : "MISSED", (m / 1024 <= 40) ? "met" : "MISSED" }')
    fi
  else
    limit=1.25
    [ $tls = 1 ] && limit=1.5
    verdict=$(awk -v w="$rw" -v l="$limit" 'BEGIN { printf "wall<=%gx %s", l, (w <= l) ? "met" : "MISSED" }')
  fi
  awk -v l="$label" -v hw="$hw" -v cw="$cw" -v rw="$rw" -v hc="$hc" -v cc="$cc" -v rc="$rc" \
      -v hr="$hr" -v cr="$cr" -v v="$verdict" 'BEGIN {
    printf "%-26s %9.3f %9.3f %6.2fx %9.2f %9.2f %6.2fx %9.1f %9.1f  %s\n",
      l, hw, cw, rw, hc, cc, rc, hr / 1024, cr / 1024, v }'
done

fw=$(printf '%s\n' "${floor_walls[@]}" | awk '{print $1}' | median)
fr=$(printf '%s\n' "${floor_walls[@]}" | awk '{print $2}' | median)
printf '%-26s %9.3f %9s %6.2fx   (AsyncHTTPClient alone, hoist-bench-floor: the library'"'"'s share)\n' \
  "  the same, no hoist" "$fw" "" "$fr"

# --- memory for 10,000 queued uploads -----------------------------------------
# 10,000 files of 1 KiB (--quick: 2,000) with --each, 4 at a time, against
# curl -Z --parallel-max 4 with one config block per file; 3 rounds,
# alternating; every answer counted. Target: hoist's peak RSS <= 1.5x curl's.
tiny=10000
[ $quick = 1 ] && tiny=2000
tinydir="$out/files-${tiny}x1KiB"
make_files "$tinydir" "$tiny" 1024 5
tinycfg="$out/curl-tiny-$tiny.cfg"
curl_config "$tinydir" "$tinycfg"
cat "$tinydir"/*.bin >/dev/null
hm=() cm=() hs=() cs=()
for i in 1 2 3; do
  if [ $((i % 2)) = 1 ]; then order="hoist curl"; else order="curl hoist"; fi
  for tool in $order; do
    if [ $tool = hoist ]; then
      run hoist-tiny "$hoist" send "$url" --each "file=@$tinydir/*.bin" --concurrency 4 --json "${hoist_tls[@]}"
      [ "$(grep -c '"ok":true' "$out/hoist-tiny.out")" = $tiny ] || die "hoist did not send all $tiny"
      hm+=("$rss"); hs+=("$wall")
    else
      run curl-tiny curl -sS --no-progress-meter -Z --parallel-max 4 -K "$tinycfg"
      [ "$(grep -cx 200 "$out/curl-tiny.out")" = $tiny ] || die "curl did not send all $tiny"
      cm+=("$rss"); cs+=("$wall")
    fi
  done
done
h=$(printf '%s\n' "${hm[@]}" | maxof); c=$(printf '%s\n' "${cm[@]}" | maxof)
awk -v h="$h" -v c="$c" -v n="$tiny" -v hs="$(printf '%s\n' "${hs[@]}" | median)" \
    -v cs="$(printf '%s\n' "${cs[@]}" | median)" 'BEGIN {
  printf "\n%d x 1 KiB, 4 at a time (3 rounds): peak RSS hoist %.1f MiB, curl %.1f MiB, %.2fx  RSS<=1.5x %s (wall %.2f s / %.2f s)\n",
    n, h / 1024, c / 1024, h / c, (h / c <= 1.5) ? "met" : "MISSED", hs, cs }'

# --- one small file: start-up ------------------------------------------------
# One 1 KiB file, as a script sends it: hoist with its history and journal on,
# and curl, alternating, ${ONE_ROUNDS:-30} rounds, each timed around the process
# (a 15 ms run is too short for /usr/bin/time's 10 ms resolution). Each
# answer is checked. Target: hoist <= 1.5x curl's wall time.
small="$out/input-1KiB.bin"
[ -f "$small" ] || head -c 1024 /dev/urandom >"$small"
python3 - "$hoist" "$url" "$small" "${ONE_ROUNDS:-30}" "$tls" <<'PY' || die "the one-file case failed"
import json, statistics, subprocess, sys, time
hoist, url, small, rounds, tls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
tools = {
    "hoist": [hoist, "send", url, "-F", f"file=@{small}", "--json"] + (["-k"] if tls else []),
    "curl": ["curl", "-sS", "-F", f"file=@{small}", url] + (["-k", "--http1.1"] if tls else []),
}
def received(tool, out):
    if tool == "hoist":
        line = json.loads(out)
        assert line["ok"] is True and line["status"] == 200, out
        return line["json"]["received"]
    return json.loads(out)["received"]
times = {t: [] for t in tools}
ratios = []
for i in range(rounds):
    order = ["hoist", "curl"] if i % 2 == 0 else ["curl", "hoist"]
    for tool in order:
        start = time.perf_counter()
        done = subprocess.run(tools[tool], capture_output=True, text=True)
        times[tool].append(time.perf_counter() - start)
        if done.returncode != 0 or received(tool, done.stdout) < 1024:
            sys.exit(f"{tool} failed: {done.returncode} {done.stdout[:200]} {done.stderr[:200]}")
    ratios.append(times["hoist"][-1] / times["curl"][-1])
h, c, r = (statistics.median(x) for x in (times["hoist"], times["curl"], ratios))
print(f"\none 1 KiB file ({rounds} rounds): hoist {h * 1000:.1f} ms, curl {c * 1000:.1f} ms, "
      f"{r:.2f}x  wall<=1.5x {'met' if r <= 1.5 else 'MISSED'}")
PY

echo
echo "seconds and CPU (user+sys) are medians of $runs runs; the ratios are the median of the"
echo "per-round ratios hoist/curl (lower is better); MiB is the peak RSS over all runs."
[ $quick = 1 ] && echo "--quick: ${big_mib} MiB and ${many} files; the targets are set for 1 GiB and 1,000 files."
true
