#!/usr/bin/env bash
# S3 benchmark: `hoist send s3://…` against `aws s3 cp` (PyPI awscli), both
# to one moto_server on 127.0.0.1, in turns, BENCH_ROUNDS rounds (default 5):
#   big   one 1 GiB file (multipart: 8 MiB parts, 4 at a time for hoist;
#         aws-cli's defaults: 8 MiB parts, 10 at a time)    (--quick: 256 MiB)
#   many  1,000 files of 16 KiB, one object each               (--quick: 200)
# Every run is checked: the object's size (and, in the first round, its
# SHA-256 through boto3) or the number of objects under the prefix. Prints
# medians of wall time, client CPU (user + sys) and peak RSS, the median of
# the per-round ratios hoist/aws, and moto's own CPU during each tool's runs
# (moto is slow: much of the wall time is the server's).
#
# Usage: bench/s3.sh [--quick]
# Env:   BENCH_ROUNDS=N
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case "${1:-}" in
  "") ;;
  --quick) quick=1 ;;
  *) echo "usage: bench/s3.sh [--quick]" >&2; exit 2 ;;
esac
die() { echo "bench/s3.sh: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "needs /usr/bin/time: apt-get install -y time"
command -v aws >/dev/null || die "needs aws-cli: pip install awscli"
command -v moto_server >/dev/null || die "needs moto_server: pip install 'moto[server]' boto3"

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
manydir="$out/s3-files-$many"
if [ ! -d "$manydir" ]; then
  mkdir -p "$manydir.tmp"
  inputs=("$dir"/*.bin)
  ln "${inputs[@]:0:$many}" "$manydir.tmp/"
  mv "$manydir.tmp" "$manydir"
fi

state="$PWD/$out/s3-state"
rm -rf "$state" && mkdir -p "$state"
export XDG_STATE_HOME="$state" HOME="$state" AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing
unset AWS_PROFILE
export AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null

moto_pid=""
cleanup() { [ -n "$moto_pid" ] && kill "$moto_pid" 2>/dev/null; true; }
trap cleanup EXIT
trap 'exit 130' INT TERM
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
moto_server -H 127.0.0.1 -p "$port" >"$out/s3-moto.log" 2>&1 &
moto_pid=$!
endpoint="http://127.0.0.1:$port"
export AWS_ENDPOINT_URL="$endpoint"
for _ in $(seq 100); do curl -sf "$endpoint/moto-api/" >/dev/null && break; sleep 0.1; done
python3 - "$endpoint" <<'PY' || die "cannot create the bucket on moto"
import sys, boto3
boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1").create_bucket(Bucket="bench")
PY

moto_cpu() { awk '{print $14 + $15}' "/proc/$moto_pid/stat"; }

# check KIND ROUND: the object's size (and SHA-256 in round 1), or the count under many/
check() {
  python3 - "$endpoint" "$1" "$size" "$sha" "$2" "$many" <<'PY' || die "$1: the server does not hold what was sent"
import sys, hashlib, boto3
endpoint, kind, size, sha, round_, many = sys.argv[1:7]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
if kind == "big":
    head = s3.head_object(Bucket="bench", Key="big.bin")
    assert head["ContentLength"] == int(size), head["ContentLength"]
    if round_ == "1":
        digest = hashlib.sha256()
        for chunk in s3.get_object(Bucket="bench", Key="big.bin")["Body"].iter_chunks(1 << 20):
            digest.update(chunk)
        assert digest.hexdigest() == sha
    s3.delete_object(Bucket="bench", Key="big.bin")
else:
    keys = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket="bench", Prefix="many/"):
        keys += [o["Key"] for o in page.get("Contents", [])]
    assert len(keys) == int(many), len(keys)
    for i in range(0, len(keys), 1000):
        s3.delete_objects(Bucket="bench", Delete={"Objects": [{"Key": k} for k in keys[i:i + 1000]]})
PY
}

# run NAME ROUND CMD...: sets wall (s), cpu (s), rss (KiB), server (moto CPU s)
run() {
  local name=$1 round=$2; shift 2
  cat "$big" >/dev/null
  local t0 t1 c0 c1
  c0=$(moto_cpu)
  t0=$(date +%s.%N)
  /usr/bin/time -f "%e %U %S %M" -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err" ||
    { tail -5 "$out/$name.err" >&2; die "$name failed: $*"; }
  t1=$(date +%s.%N)
  c1=$(moto_cpu)
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
    if [ $((i % 2)) = 1 ]; then order="hoist aws"; else order="aws hoist"; fi
    for tool in $order; do
      if [ "$kind" = big ]; then
        if [ $tool = hoist ]; then
          run hoist-s3-big "$i" "$hoist" send s3://bench/big.bin -T "$big" --json -s --no-history
        else
          run aws-s3-big "$i" aws s3 cp "$big" s3://bench/big.bin --only-show-errors
        fi
      else
        if [ $tool = hoist ]; then
          run hoist-s3-many "$i" "$hoist" send s3://bench/many/ -T "$manydir/*.bin" --concurrency 8 --json -s --no-history
        else
          run aws-s3-many "$i" aws s3 cp "$manydir" s3://bench/many/ --recursive --only-show-errors
        fi
      fi
      check "$kind" "$i"
      if [ $tool = hoist ]; then hw+=("$wall"); hc+=("$cpu"); hr+=("$rss"); hs+=("$server")
      else aw+=("$wall"); ac+=("$cpu"); ar+=("$rss"); as+=("$server"); fi
    done
    rw+=("$(awk -v a="${hw[-1]}" -v b="${aw[-1]}" 'BEGIN {printf "%.3f", a / b}')")
    rc+=("$(awk -v a="${hc[-1]}" -v b="${ac[-1]}" 'BEGIN {printf "%.3f", (a > 0.01 ? a : 0.01) / b}')")
    echo "  $kind round $i: hoist ${hw[-1]} s, ${hc[-1]} s CPU, moto ${hs[-1]} s | aws ${aw[-1]} s, ${ac[-1]} s CPU, moto ${as[-1]} s" >&2
  done
  results+=("$kind|$(median "${hw[@]}")|$(median "${aw[@]}")|$(median "${rw[@]}")|$(median "${hc[@]}")|$(median "${ac[@]}")|$(median "${rc[@]}")|$(maxof "${hr[@]}")|$(maxof "${ar[@]}")|$(median "${hs[@]}")|$(median "${as[@]}")")
}

echo "moto_server on $endpoint; $runs rounds per case, hoist and aws-cli alternating" >&2
bench_case big
bench_case many

printf '\n%-28s %8s %8s %7s %9s %9s %7s %9s %9s %8s %8s\n' case "hoist s" "aws s" wall "hoist CPU" "aws CPU" CPU \
  "hoist MiB" "aws MiB" "moto/h" "moto/a"
for r in "${results[@]}"; do
  IFS='|' read -r kind hw aw rw hc ac rc hr ar hs as <<<"$r"
  label=$([ "$kind" = big ] && echo "1 file, $mib MiB" || echo "$many x 16 KiB")
  awk -v l="$label" -v hw="$hw" -v aw="$aw" -v rw="$rw" -v hc="$hc" -v ac="$ac" -v rc="$rc" -v hr="$hr" -v ar="$ar" \
      -v hs="$hs" -v as="$as" 'BEGIN {
    printf "%-28s %8.2f %8.2f %6.2fx %9.2f %9.2f %6.2fx %9.1f %9.1f %8.2f %8.2f\n",
      l, hw, aw, rw, hc, ac, rc, hr / 1024, ar / 1024, hs, as }'
done
echo
echo "medians of $runs rounds; ratios are the median of the per-round ratios hoist/aws (targets: wall <= 1.0x,"
echo "CPU <= 0.5x, hoist RSS <= 64 MiB); moto/h and moto/a: moto's CPU seconds during hoist's and aws-cli's runs."
