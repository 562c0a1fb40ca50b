#!/usr/bin/env bash
# Builds (when needed) and runs one libFuzzer target on one core.
# Usage: fuzz/run.sh TARGET SECONDS [extra libFuzzer flags]
# TARGET: curlform json multipart profile tus s3. Crash inputs go to fuzz/.work/artifacts/.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
target="${1:?usage: fuzz/run.sh TARGET SECONDS [libFuzzer flags]}"
seconds="${2:?usage: fuzz/run.sh TARGET SECONDS [libFuzzer flags]}"
shift 2

# Per target: the product, and the largest input worth trying.
case "$target" in
    curlform) product=FuzzCurlForm max_len=512 ;;
    json) product=FuzzJSON max_len=4096 ;;
    multipart) product=FuzzMultipart max_len=4096 ;;
    profile) product=FuzzProfile max_len=4096 ;;
    tus) product=FuzzTus max_len=1024 ;;
    s3) product=FuzzS3 max_len=4096 ;;
    *)
        echo "unknown target '$target': use curlform, json, multipart, profile, tus or s3" >&2
        exit 2
        ;;
esac

scratch="${HOIST_FUZZ_SCRATCH:-$here/.build}"
# One job: the other core stays free. Debug keeps the parsers' own checks (overflow, bounds, preconditions)
# and -enable-testing (for @testable import). swiftc keeps only the last -sanitize=, and SwiftPM passes
# --sanitize values one by one, so Swift code gets both in one flag; --sanitize is for C/C++ and the link.
log="$here/.work/build-$target.log"
mkdir -p "$here/.work"
# HOIST_FUZZ_NO_BUILD=1 runs the binary already built (e.g. while the main package is mid-edit).
if [[ -z "${HOIST_FUZZ_NO_BUILD:-}" ]] && ! swift build -c debug -j 1 \
    --package-path "$here" --scratch-path "$scratch" --product "$product" \
    --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address >"$log" 2>&1; then
    grep -v 'ld.gold: warning' "$log" >&2
    exit 1
fi
binary="$(swift build -c debug --package-path "$here" --scratch-path "$scratch" --show-bin-path)/$product"

work="$here/.work/$target"
mkdir -p "$work" "$here/.work/artifacts"
# One process, so one core: -jobs=1 would fork a worker that logs to ./fuzz-0.log instead.
flags=(
    -max_total_time="$seconds" -print_final_stats=1 -max_len="$max_len" -timeout=10
    -artifact_prefix="$here/.work/artifacts/$target-"
)
[[ -f "$here/dict/$target.dict" ]] && flags+=(-dict="$here/dict/$target.dict")
# TOMLKit 0.6.0 leaks on every parse (TOMLTable.init(string:) never frees its error pointer): not ours to fix.
# ASan's own check at exit would still report them all (and write an empty input as a crash).
if [[ "$target" == profile ]]; then
    flags+=(-detect_leaks=0)
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
# Swift's own backtracer would catch the signal first, and trips ASan while it reads memory.
export SWIFT_BACKTRACE=enable=no
# New inputs go to .work (not committed); the seeds in corpus/ are only read.
exec "$binary" "${flags[@]}" "$@" "$work" "$here/corpus/$target"
