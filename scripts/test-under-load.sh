#!/usr/bin/env bash
# `npm run test:under-load [-- RUNS BURNERS [vitest args…]]`: runs the test suite RUNS times in a
# row (default 3) beside BURNERS CPU-burning processes (default 2): no test may depend on an idle
# machine (npm test must pass beside two CPU burners, three times in a row). With vitest
# arguments (files, -t …) only those run through vitest, else the whole `npm test`.
# The burners are this script's own children and are killed (by pid) however it ends.
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
burners="${2:-2}"
shift $(( $# >= 2 ? 2 : $# ))

pids=()
stop_burners() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait "${pids[@]}" 2>/dev/null
}
trap stop_burners EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 "$burners"); do
  bash -c 'while :; do :; done' &
  pids+=("$!")
done
echo "test-under-load: ${burners} burners (pids ${pids[*]:-none}), ${runs} runs"

failed=0
for run in $(seq 1 "$runs"); do
  started=$(date +%s)
  if [ "$#" -gt 0 ]; then npx vitest run "$@"; else npm test; fi
  code=$?
  echo "test-under-load: run ${run}/${runs} exit ${code} in $(( $(date +%s) - started )) s"
  [ "$code" -eq 0 ] || failed=$((failed + 1))
done
echo "test-under-load: ${failed} of ${runs} runs failed"
[ "$failed" -eq 0 ]
