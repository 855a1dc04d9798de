#!/usr/bin/env bash
# Runs a python-lib script with the library on the path (Debian's Python: no extra packages needed).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHONPATH="$PWD/python-lib${PYTHONPATH:+:$PYTHONPATH}" exec /usr/bin/python3.11 "$@"
