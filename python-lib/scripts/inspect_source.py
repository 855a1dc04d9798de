"""Inspect an evaluator's source without running it: read it on stdin, print one JSON line.

Used by the service when a template is saved (src/modules/templates/inspect-source.ts), started as
``/usr/bin/python3.11 -I -S python-lib/scripts/inspect_source.py`` with an empty environment.
The source is parsed with ``ast`` only (``oodle_eval.v1.entrypoint``); it is never executed.

Output, on success::

    {"ok": true, "entryPoint": {"kind", "name", "line"}, "sharedLibraries": ["acme_policy", ...]}

and for a syntax error or an entry point of the wrong shape::

    {"ok": false, "error": {"message", "line", "column"}}
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from oodle_eval.v1.entrypoint import EntryPointError, detect_entry_point, imported_shared_libraries  # noqa: E402


def inspect(source: str) -> dict:
    """The entry point and shared-library imports of ``source``, or the error that refuses it."""
    try:
        entry = detect_entry_point(source)
        libraries = imported_shared_libraries(source)
    except EntryPointError as error:
        return {"ok": False, "error": error.to_dict()}
    return {"ok": True, "entryPoint": entry, "sharedLibraries": libraries}


def main() -> int:
    raw = sys.stdin.buffer.read()
    try:
        source = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        result = {"ok": False, "error": {"message": f"the source is not UTF-8: {error.reason}", "line": None, "column": None}}
    else:
        result = inspect(source)
    sys.stdout.write(json.dumps(result, ensure_ascii=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
