#!/usr/bin/env bash
# `npm test`: sets up the test database and packages, checks the import boundaries
# (dependency-cruiser, .dependency-cruiser.cjs), then runs the suites (TypeScript with vitest,
# python-lib with pytest, the peers' own test cases with npm run test:peers) even when one fails,
# and fails when any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
npm install --no-audit --no-fund --loglevel=error || exit 1
npx tsx scripts/setup.ts --test || exit 1
npm run lint:imports
imports=$?
npx vitest run
typescript=$?
bash scripts/test-python.sh
python=$?
npm run --silent test:peers
peers=$?
echo "test suites: import lint exit ${imports}, vitest exit ${typescript}, pytest exit ${python}, peers exit ${peers}"
[ "$imports" -eq 0 ] && [ "$typescript" -eq 0 ] && [ "$python" -eq 0 ] && [ "$peers" -eq 0 ]
