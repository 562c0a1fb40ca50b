#!/usr/bin/env bash
# Instruction counts of `hoist send` for 1,000 small uploads under callgrind,
# for before/after comparisons that a busy machine does not disturb: the
# whole run's count, and the share of the functions whose names match a
# pattern (default: the journal and the JSON writing), inclusive of what
# they call. The receiver is `hoist receive` from the first binary, outside
# valgrind.
#
# The profiles stay in bench/out/callgrind.BINNAME.out for callgrind_annotate.
#
# Usage: bench/instructions.sh [-f FILES] [-p PATTERN] BIN [BIN ...]
#   -f the first FILES of the 1,000 inputs (default 1000)
#   -p an extended regular expression over demangled function names
# Needs valgrind (apt-get install -y valgrind) and strip (binutils). Creates the 1,000 x 16 KiB
# inputs of bench/send.sh in bench/out when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

many=1000
pattern='^JournalRecorder\.(handle|writePending)\(|^(specialized )?static (HistoryEntry\.make|ResultLine\.json)\('
while [ $# -gt 0 ]; do
  case "$1" in
    -f) many=$2; shift 2 ;;
    -p) pattern=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "usage: bench/instructions.sh [-f FILES] [-p PATTERN] BIN [BIN ...]" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: bench/instructions.sh [-f FILES] [-p PATTERN] BIN [BIN ...]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "needs valgrind: apt-get install -y valgrind" >&2; exit 1; }

out=bench/out
dir="$out/files-1000x16KiB"
if [ ! -d "$dir" ]; then
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  head -c $((1000 * 16384)) /dev/urandom | split -b 16384 -a 4 -d --additional-suffix=.bin - "$dir.tmp/f"
  mv "$dir.tmp" "$dir"
fi
files=("$dir"/*.bin)
files=("${files[@]:0:$many}")
sub="$out/cpu-files-$many"
if [ ! -d "$sub" ]; then
  mkdir -p "$sub.tmp" && ln "${files[@]}" "$sub.tmp/" && mv "$sub.tmp" "$sub"
fi

work=$(mktemp -d)
receiver_pid=""
cleanup() { [ -n "$receiver_pid" ] && kill "$receiver_pid" 2>/dev/null; rm -rf "$work"; true; }
trap cleanup EXIT
mkdir -p "$work/saved"
"$1" receive --port 0 --host 127.0.0.1 --dir "$work/saved" >"$work/receiver.out" 2>&1 &
receiver_pid=$!
for _ in $(seq 200); do grep -q 'listening on' "$work/receiver.out" && break; sleep 0.1; done
url=$(grep -o 'http://[^,]*' "$work/receiver.out" | head -1)/upload
[ "$url" != /upload ] || { echo "the receiver did not start: $(cat "$work/receiver.out")" >&2; exit 1; }

echo "$many tasks, 8 at a time, under callgrind; functions: $pattern"
for bin in "$@"; do
  rm -f "$work"/callgrind.out.*
  # Valgrind 3.19 gives up on the debug info of a binary with the runtime linked in; the symbols are enough.
  strip --strip-debug -o "$work/hoist" "$bin"
  XDG_STATE_HOME="$work/state" valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out.%p" \
    "$work/hoist" send "$url" --each "file=@$sub/*.bin" --concurrency 8 --json >"$work/send.out" 2>"$work/send.err" ||
    { tail -5 "$work/send.err" >&2; echo "bench/instructions.sh: $bin failed" >&2; exit 1; }
  ok=$(grep -c '"ok":true' "$work/send.out" || true)
  [ "$ok" = "$many" ] || { echo "bench/instructions.sh: $bin: $ok of $many tasks ok" >&2; exit 1; }
  profile="$out/callgrind.$(basename "$bin").out"
  mv "$(ls "$work"/callgrind.out.*)" "$profile"
  total=$(grep -m1 '^summary:' "$profile" | awk '{print $2}')
  printf '%s\n  total %d instructions\n' "$bin" "$total"
  callgrind_annotate --inclusive=yes --threshold=100 "$profile" 2>/dev/null | swift demangle --simplified |
    awk -v total="$total" -v pattern="$pattern" '{ gsub(",", "", $1); name = substr($0, index($0, "???:") + 4)
      sub(/ \[[^]]*\]$/, "", name); if (name ~ pattern) printf "  %12d  %5.2f%%  %s\n", $1, 100 * $1 / total, name }' |
    cut -c1-160 | head -20
done
