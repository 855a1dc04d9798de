"""Inspect a template's or shared library's source without running it: read it on stdin, print
one JSON line.

Used by the service on save (src/lib/inspect-python.ts), started as
``/usr/bin/python3.11 -I -S -B python-lib/oodle_eval/inspect_source.py [--library]`` with an empty
environment. The source is parsed with ``ast`` only (``oodle_eval.v1.entrypoint``); it is never
executed.

Output for a template (the default)::

    {"ok": true, "entryPoint": {"kind", "name", "line"}, "sharedLibraries": ["acme_policy", ...],
     "scoreReads": ["PII leak", ...], "scoreReadCalls": [{"evaluator", "score", "line"}, ...]}

where ``scoreReads`` are the evaluator names read with ``ctx.score("Name", ...)`` (literal names
only): the dependencies the code declares by reading them.

For a shared library (``--library``: no entry point is needed)::

    {"ok": true, "imports": ["other_library", ...]}

where the imports also count the relative forms a module of the ``shared`` package may use,
``from . import X`` and ``from .X import ...``. For a syntax error or an entry point of the wrong
shape::

    {"ok": false, "error": {"message", "line", "column"}}
"""

from __future__ import annotations

import ast
import json
import os
import resource
import sys

# It runs on the host, outside the sandbox, on any source an API key holder saves: limits first.
# (CPU and address space: a 256 KiB source of 65k statements needs ~176 MB; the service also runs
# at most a few of these at once, src/lib/inspect-python.ts.) Set by main(), not on import: this
# module is part of oodle_eval, which the sandbox can import.
MEMORY_BYTES = 512 * 1024 * 1024
CPU_SECONDS = 4

if __name__ == "__main__":  # started as a file by the service: python-lib on the path
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from oodle_eval.v1.entrypoint import EntryPointError, detect_entry_point, imported_shared_libraries, score_read_calls, score_reads  # noqa: E402


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


def inspect_template(source: str) -> dict:
    """The entry point and shared-library imports of an evaluator's source, or the error that refuses it."""
    try:
        entry = detect_entry_point(source)
        libraries = imported_shared_libraries(source)
        reads = score_reads(source)
        calls = score_read_calls(source)
    except EntryPointError as error:
        return {"ok": False, "error": error.to_dict()}
    return {"ok": True, "entryPoint": entry, "sharedLibraries": libraries, "scoreReads": reads, "scoreReadCalls": calls}


def inspect_library(source: str) -> dict:
    """The shared libraries a library's source imports (absolute and relative), or its syntax error."""
    try:
        names = imported_shared_libraries(source)
    except EntryPointError as error:
        return {"ok": False, "error": error.to_dict()}
    for name in relative_imports(ast.parse(source)):
        if name not in names:
            names.append(name)
    return {"ok": True, "imports": names}


def limit_resources() -> None:
    """Caps this process before it reads a source: 512 MiB address space, 4 s CPU, no files."""
    for which, value in ((resource.RLIMIT_AS, MEMORY_BYTES), (resource.RLIMIT_CPU, CPU_SECONDS),
                         (resource.RLIMIT_FSIZE, 0), (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NOFILE, 16)):
        resource.setrlimit(which, (value, value))


def main(argv: list[str]) -> int:
    limit_resources()
    inspect = inspect_library if "--library" in argv else inspect_template
    raw = sys.stdin.buffer.read()
    try:
        source = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        result = {"ok": False, "error": {"message": f"the source is not UTF-8: {error.reason}", "line": None, "column": None}}
    else:
        try:
            result = inspect(source)
        except RecursionError:
            result = {"ok": False, "error": {"message": "the source is nested too deeply to inspect (an expression, call chain or operator run of thousands of levels); split it up", "line": None, "column": None}}
        except MemoryError:
            result = {"ok": False, "error": {"message": "the source is too large to inspect (it needs more than 512 MiB to parse); split it up", "line": None, "column": None}}
    sys.stdout.write(json.dumps(result, ensure_ascii=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
