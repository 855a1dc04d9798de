"""Inspect a shared library's source without running it: read it on stdin, print one JSON line.

Used by the service when a shared-library version is published
(src/modules/shared-libraries/inspect-library.ts), started as
``/usr/bin/python3.11 -I -S -B python-lib/scripts/inspect_library.py`` with an empty environment.
The source is parsed with ``ast`` only; it is never executed. A library needs no entry point.

Output, on success::

    {"ok": true, "imports": ["other_library", ...]}

where ``imports`` are the shared libraries the source imports: ``import shared.X``,
``from shared.X import ...``, ``from shared import X`` (``oodle_eval.v1.entrypoint``), and the
relative forms a module of the ``shared`` package may use, ``from . import X`` and
``from .X import ...``, in order of first appearance. For a syntax error::

    {"ok": false, "error": {"message", "line", "column"}}
"""

from __future__ import annotations

import ast
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from oodle_eval.v1.entrypoint import EntryPointError, imported_shared_libraries  # noqa: E402


def relative_imports(tree: ast.Module) -> list[str]:
    """Libraries imported relatively from inside the ``shared`` package (level 1 only)."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                candidates = [node.module.split(".")[0]]
            else:
                candidates = [alias.name for alias in node.names if alias.name != "*"]
            for name in candidates:
                if name and name not in names:
                    names.append(name)
    return names


def inspect(source: str) -> dict:
    """The shared libraries ``source`` imports, or the error that refuses it."""
    try:
        names = imported_shared_libraries(source)
    except EntryPointError as error:
        return {"ok": False, "error": error.to_dict()}
    for name in relative_imports(ast.parse(source)):
        if name not in names:
            names.append(name)
    return {"ok": True, "imports": names}


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
