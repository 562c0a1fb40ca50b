#!/usr/bin/env bash
# UI benchmark: the real `hoist tui` in a 200×60 tmux pane with 1,000 staged
# files, idle, then 8 uploading at a time to `hoist receive --read-rate` (slow
# enough that 8 stay busy). Prints:
#   - render + diff cost per frame, from the process itself (HOIST_UI_STATS),
#     and as a share of one core over the busy window (target ≤ 10%);
#   - the whole process's CPU while uploading and while idle (target: ~0 idle);
#   - render + diff of a 200×60 frame without a terminal (hoist-bench-render,
#     target ≤ 2 ms).
# Usage: bench/ui.sh [-c release|debug]   (default release)
set -euo pipefail
cd "$(dirname "$0")/.."
config=release
[ "${1:-}" = "-c" ] && config="$2"
command -v tmux >/dev/null || { echo "bench/ui.sh: needs tmux" >&2; exit 1; }

# Release with the runtime linked in, as bench/send.sh builds it (the
# same flags keep the two from rebuilding each other's release build).
flags=(-c "$config")
[ "$config" = release ] && flags+=(--static-swift-stdlib)
swift build "${flags[@]}" --product hoist >/dev/null
swift build "${flags[@]}" --product hoist-bench-render >/dev/null
bin="$(swift build "${flags[@]}" --show-bin-path)"
work=$(mktemp -d)
session="hoist-ui-bench-$$"
cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; [ -n "${receiver:-}" ] && kill "$receiver" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

echo "== render + diff without a terminal ($config)"
"$bin/hoist-bench-render" 300

# 1,000 files of 8 MiB (hard links to one, so 8 MiB of disk); the receiver
# reads each body at 1 MiB/s, so 8 uploads stay busy and report progress
# (up to 20 events a second each) for the whole window.
mkdir -p "$work/files"
head -c 8388608 /dev/urandom >"$work/seed"
for i in $(seq -w 1 1000); do ln "$work/seed" "$work/files/scan-$i.bin"; done
port=$((20000 + RANDOM % 20000))
"$bin/hoist" receive --port "$port" --dir "$work/received" --read-rate 1048576 >/dev/null &
receiver=$!
sleep 1

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

tmux -f /dev/null new-session -d -s "$session" -x 200 -y 60 -c "$work/files" \
  env LANG=C.UTF-8 TERM=tmux-256color HOIST_UI_STATS="$work/stats" \
  XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config" \
  "$bin/hoist" tui "http://127.0.0.1:$port/upload" --concurrency 8 $(ls "$work/files")
for _ in $(seq 1 100); do tmux capture-pane -p -t "$session" | grep -q "1000 ·" && break; sleep 0.1; done
pid=$(pgrep -f "^$bin/hoist tui" | head -1)  # anchored: tmux's own command line holds the same words

echo "== idle: 1,000 files staged, nothing running, 5 s"
t0=$(cpu_ticks "$pid"); sleep 5; t1=$(cpu_ticks "$pid")
echo "  process CPU: $(( (t1 - t0) * 1000 / hz )) ms in 5000 ms"

echo "== busy: 1,000 tasks, 8 uploading, 10 s"
tmux send-keys -t "$session" 3 U
sleep 2
t0=$(cpu_ticks "$pid"); start=$(date +%s%N); sleep 10; t1=$(cpu_ticks "$pid"); end=$(date +%s%N)
busy_ms=$(( (end - start) / 1000000 ))
echo "  process CPU (engine + UI): $(( (t1 - t0) * 1000 / hz )) ms in $busy_ms ms = $(( (t1 - t0) * 100000 / hz / busy_ms ))% of one core"
tmux capture-pane -p -t "$session" | grep -E "tasks .*↑" | sed 's/^/  screen: /'

tmux send-keys -t "$session" q
sleep 0.3
tmux send-keys -t "$session" y
# Quitting keeps the unfinished tasks in the journal (in $work/state, not the
# user's), and the stats line is written after that.
for _ in $(seq 1 300); do [ -s "$work/stats" ] && break; sleep 0.1; done
echo "== frames over the whole session (from HOIST_UI_STATS)"
python3 - "$work/stats" <<'PY'
import json, sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
f = max(1, s["frames"])
print(f"  frames {s['frames']}, render {s['render_ms']/f:.3f} ms/frame, diff+write {s['draw_ms']/f:.3f} ms/frame, cells written {s['cells']//f}/frame")
print(f"  drawing time in total: {s['render_ms'] + s['draw_ms']:.0f} ms")
PY
