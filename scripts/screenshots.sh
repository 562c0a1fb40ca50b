#!/usr/bin/env bash
# Makes screenshots/*.png from real sessions in tmux (`hoist demo`, then
# a crash and resume, `hoist send`'s rows, a tus resume, and photos
# prepared before they go):
# capture-pane -e (text with colours) -> pyte + Pillow (ansi_to_png.py).
# Needs: tmux, python3 with pyte and pillow (pip install pyte pillow),
# fonts-dejavu-core, fonts-wqy-zenhei (CJK) and fonts-symbola (emoji).
set -euo pipefail
cd "$(dirname "$0")/.."
# HOIST_BIN=path uses a hoist already built.
bin="${HOIST_BIN:-}"
if [ -z "$bin" ]; then
  swift build --product hoist >/dev/null
  bin="$(swift build --show-bin-path)/hoist"
fi
bin="$(realpath "$bin")"  # the crash session starts in another folder
out=screenshots
mkdir -p "$out"
cols=120 rows=40
session="hoist-shots-$$"
work=$(mktemp -d)
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT

tmux -f /dev/null new-session -d -s "$session" -x "$cols" -y "$rows" \
  env LANG=C.UTF-8 TERM=tmux-256color "$bin" demo --large-size 300 --read-rate 8M

capture() { tmux capture-pane -e -p -t "$session" >"$work/$1.ansi"; python3 scripts/ansi_to_png.py "$work/$1.ansi" "$out/$1.png" "$cols" "$rows"; echo "$out/$1.png"; }
wait_for() { # wait_for TEXT: poll the screen until it shows TEXT
  for _ in $(seq 1 300); do
    tmux capture-pane -p -t "$session" | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  echo "timed out waiting for: $1" >&2; tmux capture-pane -p -t "$session" >&2; exit 1
}
keys() { for k in "$@"; do tmux send-keys -t "$session" "$k"; sleep 0.15; done; }

# 1. Uploads in progress: the small files are done, the larger ones sending.
wait_for "ETA"
sleep 1.5
keys 3 j j
sleep 0.5
capture main

# 2. A finished upload with its JSON answer as a tree.
keys g 4
wait_for "HTTP 200"
sleep 0.3
capture response

# 3. The file browser over the sample folder, two files marked.
keys 1 a
wait_for "Add files"
keys j j Space Space
sleep 0.3
capture browser
keys Escape

# 4. The help overlay.
keys "?"
wait_for "Keys"
sleep 0.3
capture help
keys Escape

# 5. The target dialog (t): every setting a profile and `hoist send` take.
keys t
wait_for "Target"
sleep 0.3
capture target
keys Escape

# 6. After a crash: `hoist send` killed with SIGKILL mid-batch, one file then
#    changed, and `hoist` started again over the same state folder.
home="$work/home"; mkdir -p "$home/scans"
for i in $(seq -w 1 24); do head -c $((150000 + 10#$i * 7000)) /dev/urandom >"$home/scans/扫描件 $i.jpg"; done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" receive --port "$port" --dir "$work/received" --read-rate 300000 >/dev/null 2>&1 &
receiver=$!
trap 'kill $receiver 2>/dev/null || true; tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
sleep 1
HOME="$home" XDG_STATE_HOME= "$bin" send "http://127.0.0.1:$port/upload" --each "image=@$home/scans/*.jpg" \
  -F user_id=42 -H "Authorization: Bearer demo-token" --concurrency 2 -s >/dev/null 2>&1 &
sender=$!
sleep 2.5
kill -9 "$sender"; wait "$sender" 2>/dev/null || true
head -c 1000 /dev/urandom >>"$home/scans/扫描件 24.jpg"  # the last: still queued at the kill
tmux kill-session -t "$session"
tmux -f /dev/null new-session -d -s "$session" -x "$cols" -y "$rows" -c "$home" \
  env HOME="$home" XDG_STATE_HOME= XDG_CONFIG_HOME= LANG=C.UTF-8 TERM=tmux-256color "$bin"
wait_for "R resumes"
keys 3 G
sleep 0.5
capture interrupted

# 6b. `hoist send` on a terminal: its live rows (running, waiting, the
#     latest finished, totals); the answers go to a file (-o).
tmux kill-session -t "$session"
tmux -f /dev/null new-session -d -s "$session" -x "$cols" -y "$rows" -c "$home" \
  env HOME="$home" XDG_STATE_HOME="$work/send-state" LANG=C.UTF-8 TERM=tmux-256color sh -c \
  "'$bin' send http://127.0.0.1:$port/upload --each 'image=@scans/*.jpg' -F user_id=42 --concurrency 2 -o answers.jsonl; sleep 600"
wait_for "Total"
sleep 4
capture send

# 7. A resumable (tus) upload killed with SIGKILL at about a third, then R:
#    the bar draws what the server already had (▓) apart from what this run sent.
tmux kill-session -t "$session"
tushome="$work/tushome"; mkdir -p "$tushome"
head -c $((300 << 20)) /dev/urandom >"$tushome/nightly-db.tar"
tusport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" receive --port "$tusport" --dir "$work/tus-received" --read-rate $((40 << 20)) >/dev/null 2>&1 &
tusreceiver=$!
trap 'kill $receiver $tusreceiver 2>/dev/null || true; tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
sleep 1
HOME="$tushome" XDG_STATE_HOME= "$bin" send --tus "http://127.0.0.1:$tusport/files" -T "$tushome/nightly-db.tar" \
  -s >/dev/null 2>&1 &
sender=$!
sleep 2.5
kill -9 "$sender"; wait "$sender" 2>/dev/null || true
kill "$tusreceiver"; wait "$tusreceiver" 2>/dev/null || true
# Slower now, so the resumed upload can be watched.
"$bin" receive --port "$tusport" --dir "$work/tus-received" --read-rate $((8 << 20)) >/dev/null 2>&1 &
tusreceiver=$!
sleep 1
tmux -f /dev/null new-session -d -s "$session" -x "$cols" -y "$rows" -c "$tushome" \
  env HOME="$tushome" XDG_STATE_HOME= XDG_CONFIG_HOME= LANG=C.UTF-8 TERM=tmux-256color "$bin"
wait_for "R resumes"
keys 3 R
wait_for "resumed at"
sleep 2
capture resumed

# 8. Photos prepared before they go: staged from the browser, I sets quality
#    and size for every image, then a smaller size for the receipt alone, and
#    the Files pane shows each photo's pixels and what it became.
tmux kill-session -t "$session"
pichome="$work/pichome"; mkdir -p "$pichome/card"
python3 - "$pichome/card" <<'PY'
import sys
from PIL import Image, ImageFilter
for name, (w, h) in [("身份证 正面.jpg", (4032, 3024)), ("身份证 反面.jpg", (4032, 3024)), ("receipt.jpg", (3000, 4000))]:
    base = Image.linear_gradient("L").resize((w, h))
    noise = Image.effect_noise((w, h), 30).filter(ImageFilter.GaussianBlur(0.6))
    exif = Image.Exif()
    exif[0x0112] = 6 if w > h else 1
    Image.merge("RGB", (base, noise, base.rotate(180))).save(f"{sys.argv[1]}/{name}", quality=92, exif=exif.tobytes())
PY
picport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" receive --port "$picport" --dir "$work/pic-received" >/dev/null 2>&1 &
picreceiver=$!
trap 'kill $receiver $tusreceiver $picreceiver 2>/dev/null || true; tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
sleep 1
tmux -f /dev/null new-session -d -s "$session" -x "$cols" -y "$rows" -c "$pichome/card" \
  env HOME="$pichome" XDG_STATE_HOME= XDG_CONFIG_HOME= LANG=C.UTF-8 TERM=tmux-256color "$bin" tui \
  "http://127.0.0.1:$picport/upload"
wait_for "no files yet"
keys a
wait_for "receipt.jpg"
keys "*" a
wait_for "3024×4032"
keys I
wait_for "Prepare images"
# The first row is for the file under the cursor; Right makes it every image.
keys Right Tab
tmux send-keys -t "$session" -l "60"; keys Tab; tmux send-keys -t "$session" -l "1600"; keys Enter
wait_for "→ 1200×1600"
# The receipt alone, smaller: its own settings show beside it.
keys I
wait_for "Prepare images"
keys Tab Tab BSpace BSpace BSpace BSpace
tmux send-keys -t "$session" -l "1000"; keys Enter
wait_for "→ 750×1000 q60"
keys U
wait_for "KiB"
sleep 2
capture images

# 9. A chain with a failed link: the ID card's front, then its back, then a
#    selfie, each after the one before succeeded, to a route that answers like
#    a verification API; the front is blurry (RETCODE 1001), so the rest are
#    cancelled and say why.
tmux kill-session -t "$session"
chainhome="$work/chainhome"; mkdir -p "$chainhome"
for name in "身份证 正面 blurry.jpg" "身份证 反面.jpg" "selfie.jpg"; do head -c 180000 /dev/urandom >"$chainhome/$name"; done
chainport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" receive --port "$chainport" --dir "$work/chain-received" --test-knobs >/dev/null 2>&1 &
chainreceiver=$!
trap 'kill $receiver $tusreceiver $picreceiver $chainreceiver 2>/dev/null || true; tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
sleep 1
mkdir -p "$chainhome/.config/hoist"
cat >"$chainhome/.config/hoist/profiles.toml" <<TOML
[idcard]
url = "http://127.0.0.1:$chainport/verify?reply=verify"
field = "image"
retries = 0
expect = ["RETCODE=0000"]
message = "RETMSG"
TOML
tmux -f /dev/null new-session -d -s "$session" -x "$cols" -y "$rows" -c "$chainhome" \
  env HOME="$chainhome" XDG_STATE_HOME= XDG_CONFIG_HOME= LANG=C.UTF-8 TERM=tmux-256color "$bin" tui \
  --profile idcard "身份证 正面 blurry.jpg" "身份证 反面.jpg" selfie.jpg
wait_for "selfie.jpg"
keys o o u
wait_for "⊘ 2"
keys 3 j
sleep 0.5
capture chain
