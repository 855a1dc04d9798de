#!/bin/sh
# Rebuild the compiled base seccomp filter from policy.py (needs Debian's python3-seccomp).
# Writes base.<arch>.bpf (what bwrap loads) and base.<arch>.pfc (human-readable, for review).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
arch=$(uname -m)
/usr/bin/python3.11 -I -S -c "import sys; sys.path.insert(0, '/usr/lib/python3/dist-packages'); sys.path.insert(0, '$here'); sys.argv = ['policy.py', '$here/base.$arch.bpf', '$here/base.$arch.pfc']; exec(open('$here/policy.py').read())"
echo "wrote $here/base.$arch.bpf ($(wc -c < "$here/base.$arch.bpf") bytes)"
