#!/usr/bin/env bash
# Runs the python-lib test suite with a Python that has pytest (pyenv's on these machines;
# Debian's /usr/bin/python3.11 runs the sandbox and has no pytest).
set -euo pipefail
cd "$(dirname "$0")/../python-lib"
for py in "${PYTEST_PYTHON:-}" python3 /root/.pyenv/versions/*/bin/python3 /usr/bin/python3; do
  [ -n "$py" ] || continue
  if "$py" -c "import pytest" 2>/dev/null; then
    exec "$py" -m pytest -q tests "$@"
  fi
done
echo "no Python with pytest found: install it (pip install pytest hypothesis) or set PYTEST_PYTHON" >&2
exit 1
