#!/usr/bin/env bash
# Photo preparation benchmark (issue: prepare photos before they go).
#
# 40 phone-sized JPEGs (4032x3024, made here with Pillow), each prepared to a
# 2048 px maximum at quality 80, by:
#   hoist        hoist-bench-images (ImagePrep, libvips), 2 at a time (the cores)
#   vipsthumbnail  libvips's own tool, one process for all files
#   convert      ImageMagick's mogrify -resize, one process for all files
# Each runs BENCH_ROUNDS times (default 3) under /usr/bin/time -v; medians of
# wall time, the ratio hoist/vipsthumbnail, and peak RSS are printed.
#
# Then the whole job: prepare and upload the 40 photos to the embedded
# receiver (hoist receive, which saves and hashes each file), 2 at a time,
# each upload read at 5 MB/s (--read-rate: an uplink of about 40 Mbit/s;
# on loopback an upload costs nothing, and there is nothing to overlap)
#   overlapped   hoist send --each 'image=@DIR/*.jpg' --image-max-dim 2048 --image-quality 80
#   one by one   hoist-bench-images into a folder, then hoist send --each of the prepared files
# Every prepared output is checked (count, dimensions) before a figure is printed.
#
# Usage: bench/images.sh      Env: HOIST_SCRATCH=DIR, BENCH_ROUNDS=N
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "bench/images.sh: $*" >&2; exit 1; }

missing=()
command -v vipsthumbnail >/dev/null || missing+=(libvips-tools)
command -v mogrify >/dev/null || missing+=(imagemagick)
[ -x /usr/bin/time ] || missing+=(time)
[ ${#missing[@]} -eq 0 ] || die "needs: apt-get install -y ${missing[*]}"
python3 -c "import PIL" 2>/dev/null || die "needs Pillow: python3 -m pip install pillow"

out=bench/out
rounds=${BENCH_ROUNDS:-3}
photos="$out/photos-40x4032x3024"
mkdir -p "$out"

echo "building hoist and hoist-bench-images (release) ..." >&2
for product in hoist hoist-bench-images; do
  bin="$(scripts/build-release.sh --product $product)" || die "build of $product failed"
done

if [ ! -d "$photos" ]; then
  echo "making 40 photos in $photos ..." >&2
  rm -rf "$photos.tmp" && mkdir -p "$photos.tmp"
  python3 - "$photos.tmp" <<'PY'
import sys
from PIL import Image, ImageFilter
folder = sys.argv[1]
for i in range(40):
    # A phone photo's detail: smooth gradients with fine noise, about 3-5 MB at quality 92.
    base = Image.linear_gradient("L").resize((4032, 3024))
    noise = Image.effect_noise((4032, 3024), 24 + i % 7).filter(ImageFilter.GaussianBlur(0.6))
    img = Image.merge("RGB", (base, noise, base.rotate(180)))
    exif = Image.Exif()
    exif[0x0112] = 1 + (i % 2) * 5
    img.save(f"{folder}/photo-{i:02d}.jpg", quality=92, exif=exif.tobytes())
PY
  mv "$photos.tmp" "$photos"
fi
cat "$photos"/*.jpg >/dev/null
input_mib=$(du -sm "$photos" | cut -f1)

# run NAME CMD...: wall (s), rss (KiB) of CMD under /usr/bin/time -v.
run() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -v -o "$out/$name.time" "$@" >"$out/$name.out" 2>"$out/$name.err" || {
    tail -5 "$out/$name.err" >&2; die "$name failed: $*"; }
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/$name.time")
}

# check DIR: 40 JPEGs, each with its longer side exactly 2048.
check() {
  python3 - "$1" <<'PY' || die "the prepared files in $1 are wrong: the figures would be false"
import os, sys
from PIL import Image
files = [f for f in os.listdir(sys.argv[1]) if f.lower().endswith(".jpg")]
assert len(files) == 40, f"{len(files)} files"
for f in files:
    im = Image.open(os.path.join(sys.argv[1], f))
    assert max(im.size) == 2048, f"{f}: {im.size}"
PY
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

declare -A walls rsss
for round in $(seq "$rounds"); do
  for tool in hoist vips convert; do
    dest="$out/prepared-$tool"
    rm -rf "$dest" && mkdir -p "$dest"
    case $tool in
      hoist) run "images-$tool" "$bin/hoist-bench-images" 2048 80 2 "$dest" "$photos"/*.jpg ;;
      vips) run "images-$tool" vipsthumbnail -s 2048 -o "$PWD/$dest/%s.jpg[Q=80,strip]" "$photos"/*.jpg ;;
      convert) run "images-$tool" mogrify -path "$dest" -resize 2048x2048 -quality 80 -strip "$photos"/*.jpg ;;
    esac
    check "$dest"
    walls[$tool]+="$wall "
    rsss[$tool]+="$rss "
    echo "round $round $tool: ${wall} s, ${rss} KiB" >&2
  done
done

# --- prepare and upload ------------------------------------------------------
receiver_pid=""
trap '[ -n "$receiver_pid" ] && kill $receiver_pid 2>/dev/null; true' EXIT
rm -rf "$out/received-images"
"$bin/hoist" receive --port 0 --dir "$out/received-images" --read-rate 5000000 >"$out/receive.log" 2>&1 &
receiver_pid=$!
for _ in $(seq 50); do grep -q "listening on" "$out/receive.log" && break; sleep 0.1; done
url="$(grep -o 'http://127.0.0.1:[0-9]*' "$out/receive.log" | head -1)/upload"
[ "$url" != "/upload" ] || die "hoist receive did not start: $(cat "$out/receive.log")"
job_overlap=""; job_serial=""
for round in $(seq "$rounds"); do
  run job-overlap "$bin/hoist" send "$url" --each "image=@$photos/*.jpg" --image-max-dim 2048 \
    --image-quality 80 --concurrency 2 --no-history --no-journal -s --json
  [ "$(grep -c '"ok":true' "$out/job-overlap.out")" = 40 ] || die "overlapped job: not 40 successes"
  job_overlap+="$wall "
  t0=$(date +%s.%N)
  dest="$out/prepared-job" && rm -rf "$dest" && mkdir -p "$dest"
  "$bin/hoist-bench-images" 2048 80 2 "$dest" "$photos"/*.jpg >/dev/null
  "$bin/hoist" send "$url" --each "image=@$dest/*.jpg" --concurrency 2 --no-history --no-journal -s --json \
    >"$out/job-serial.out"
  t1=$(date +%s.%N)
  [ "$(grep -c '"ok":true' "$out/job-serial.out")" = 40 ] || die "one-by-one job: not 40 successes"
  job_serial+="$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}') "
  echo "round $round job: overlapped $wall s" >&2
done

m() { echo "$1" | tr ' ' '\n' | grep . | median; }
hoist_wall=$(m "${walls[hoist]}"); vips_wall=$(m "${walls[vips]}"); convert_wall=$(m "${walls[convert]}")
hoist_rss=$(m "${rsss[hoist]}"); vips_rss=$(m "${rsss[vips]}"); convert_rss=$(m "${rsss[convert]}")
ratio=$(awk -v a="$hoist_wall" -v b="$vips_wall" 'BEGIN {printf "%.2f", a / b}')
overlap=$(m "$job_overlap"); serial=$(m "$job_serial")
echo
echo "40 photos 4032x3024 ($input_mib MiB) -> 2048 px, quality 80; median of $rounds rounds"
printf '%-16s %8s s %10s MiB peak RSS\n' hoist "$hoist_wall" "$((hoist_rss / 1024))" \
  vipsthumbnail "$vips_wall" "$((vips_rss / 1024))" "convert (IM)" "$convert_wall" "$((convert_rss / 1024))"
echo "hoist / vipsthumbnail wall: ${ratio}x (target <= 1.2x); hoist peak RSS $((hoist_rss / 1024)) MiB (target <= 200)"
echo "prepare and upload to hoist receive (5 MB/s per upload), 2 at a time: overlapped ${overlap} s, prepare then upload ${serial} s"
