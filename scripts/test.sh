#!/usr/bin/env bash
# `npm test`: sets up the test database and packages, then runs both suites (TypeScript with
# vitest, python-lib with pytest) even when the first fails, and fails when either failed.
set -uo pipefail
cd "$(dirname "$0")/.."
npm install --no-audit --no-fund --loglevel=error || exit 1
npx tsx scripts/setup.ts --test || exit 1
npx vitest run
typescript=$?
bash scripts/test-python.sh
python=$?
echo "test suites: vitest exit ${typescript}, pytest exit ${python}"
[ "$typescript" -eq 0 ] && [ "$python" -eq 0 ]
