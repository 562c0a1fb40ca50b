#!/usr/bin/env bash
# Builds Hoist as it ships, and as every benchmark measures it, then prints
# the folder that holds the built products.
#   --static-swift-stdlib: the Swift runtime linked in, so start-up does no
#     dynamic symbol lookups.
#   -disable-concrete-type-metadata-mangled-name-accessors for every module,
#     the dependencies included: generic types are made by accessor functions instead of
#     by demangling their names at run time, where each first use of a
#     conformance scanned all 8,656 conformance records of the binary. A
#     one-file `hoist send` went from 1.8x curl's time to 1.45x.
#   --no-export-dynamic: Swift exports every symbol of an executable for
#     dlsym, which Hoist never does: 4 MB of symbol tables (stripped 44 ->
#     39 MB).
# These are here, not in Package.swift: SwiftPM refuses a package with
# unsafe flags as a versioned dependency.
# Every caller passes the same flags, so one release build serves them all.
# Usage: scripts/build-release.sh [swift build options, e.g. --product hoist]
# Env:   HOIST_SCRATCH=DIR  build with --scratch-path DIR (default .build)
set -euo pipefail
cd "$(dirname "$0")/.."
flags=(-c release --static-swift-stdlib
  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
  -Xlinker --no-export-dynamic)
[ -n "${HOIST_SCRATCH:-}" ] && flags+=(--scratch-path "$HOIST_SCRATCH")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift build "${flags[@]}" "$@" >"$log" 2>&1; then
  cat "$log" >&2
  echo "scripts/build-release.sh: swift build ${flags[*]} $* failed" >&2
  exit 1
fi
swift build "${flags[@]}" --show-bin-path
