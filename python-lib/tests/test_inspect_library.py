"""oodle_eval/inspect_source.py --library: a shared library's imports and syntax errors, found with ast only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "oodle_eval" / "inspect_source.py"
DEBIAN_PYTHON = Path("/usr/bin/python3.11")


def inspect(source: str | bytes, python: str = sys.executable) -> dict:
    data = source.encode("utf-8") if isinstance(source, str) else source
    done = subprocess.run([python, "-I", "-S", "-B", str(SCRIPT), "--library"], input=data, capture_output=True, env={}, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_lists_absolute_and_relative_shared_imports_in_order():
    source = "\n".join(
        [
            "from oodle_eval.v1 import metrics",
            "import shared.base",
            "from shared import extra, base",
            "from shared.scale import scaled",
            "from . import sibling",
            "from .helpers import f",
            "def g():",
            "    import shared.late",
        ]
    )
    assert inspect(source) == {"ok": True, "imports": ["base", "extra", "scale", "late", "sibling", "helpers"]}


def test_a_library_needs_no_entry_point():
    assert inspect("BANNED = ['guarantee']\n") == {"ok": True, "imports": []}


def test_reports_a_syntax_error_with_line_and_column_without_running_the_code(tmp_path):
    marker = tmp_path / "ran"
    source = f"open({str(marker)!r}, 'w').write('x')\n\ndef f(:\n    pass\n"
    result = inspect(source)
    assert result == {"ok": False, "error": {"message": "syntax error: invalid syntax", "line": 3, "column": 7}}
    assert not marker.exists()
    assert inspect("open('x', 'w')\n") == {"ok": True, "imports": []}


def test_refuses_bytes_that_are_not_utf8_and_nul_bytes():
    assert inspect(b"x = '\xff'\n")["ok"] is False
    assert inspect("x = 1\x00\n")["ok"] is False


@pytest.mark.skipif(not DEBIAN_PYTHON.exists(), reason="the sandbox's interpreter is not installed")
def test_runs_on_the_sandbox_interpreter():
    assert inspect("from shared.acme_policy import policy_check\n", python=str(DEBIAN_PYTHON)) == {"ok": True, "imports": ["acme_policy"]}
