#!/usr/bin/env bash
# Encoder benchmark: a form with a large file, encoded to /dev/null by a
# release build. Prints throughput and peak RSS, and the ratio to dd copying
# the same file to /dev/null with the same 1 MiB buffer (the reference).
# Usage: bench/encode.sh [SIZE_MIB ...]   (default: 64 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-64 1024}")
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time: apt-get install -y time" >&2; exit 1; }

# The same release build as bench/send.sh measures.
bin="$(scripts/build-release.sh --product hoist-bench-encode)/hoist-bench-encode"
mkdir -p bench/out
runs=5

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-9s %12s %12s %10s %14s\n' "file" "hoist GB/s" "dd GB/s" "ratio" "peak RSS MiB"
for size in ${sizes[@]}; do
  input="bench/out/input-${size}MiB.bin"
  [ -f "$input" ] || head -c $((size << 20)) /dev/urandom > "$input"
  cat "$input" > /dev/null   # page cache warm: measure the encoder, not the disk
  bytes=$(stat -c %s "$input")
  rates=(); dds=(); rss=()
  for _ in $(seq $runs); do
    out=$(/usr/bin/time -v "$bin" "$input" 2>bench/out/time.txt)
    rates+=("$(sed -E 's/.*GB\/s=([0-9.]+).*/\1/' <<<"$out")")
    rss+=("$(awk -F: '/Maximum resident set size/ {gsub(/ /,"",$2); print $2}' bench/out/time.txt)")
    start=$(date +%s.%N)
    dd if="$input" of=/dev/null bs=1M status=none
    end=$(date +%s.%N)
    dds+=("$(awk -v b="$bytes" -v s="$start" -v e="$end" 'BEGIN {printf "%.3f", b / (e - s) / 1e9}')")
  done
  rate=$(printf '%s\n' "${rates[@]}" | median)
  dd_rate=$(printf '%s\n' "${dds[@]}" | median)
  peak=$(printf '%s\n' "${rss[@]}" | sort -g | tail -1)
  printf '%-9s %12s %12s %10s %14s\n' "${size}MiB" "$rate" "$dd_rate" \
    "$(awk -v a="$rate" -v b="$dd_rate" 'BEGIN {printf "%.2fx", a / b}')" \
    "$(awk -v k="$peak" 'BEGIN {printf "%.1f", k / 1024}')"
done
echo "median of $runs runs; ratio = hoist / dd (higher is better); peak RSS is the largest of the runs"
