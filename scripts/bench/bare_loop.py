"""The evaluator's per-item work in a bare Python loop: no sandbox, no IPC, no database.

Reads {"source": str, "items": [{"document", "params", "dependencies"}]} as JSON on stdin and
writes {"seconds": float, "results": [[score dict, ...] | {"error": str}]} as JSON on stdout.
Per item it does what the warm runner does (sandbox/runner.py, run_item): a context from the
document, a fresh module namespace, exec of the compiled code, the entry point — without
isolation, timers, output capture or framing. Used by `npm run bench` (the "bare Python loop"
row) and by the experiment tests (sandboxed scores must equal these).

Usage: PYTHONPATH=python-lib python3.11 scripts/bench/bare_loop.py < input.json
"""

import json
import sys
import time

from oodle_eval.v1 import entrypoint
from oodle_eval.v1.context import make_context


def main() -> None:
    request = json.load(sys.stdin)
    source = request["source"]
    kind = entrypoint.detect_entry_point(source)["kind"]
    code = compile(source, "<evaluator>", "exec")
    results = []
    start = time.perf_counter()
    for item in request["items"]:
        document = dict(item.get("document") or {})
        document["dependencies"] = item.get("dependencies")
        ctx = make_context(document, item.get("params") or {})
        namespace = entrypoint.make_namespace()
        try:
            exec(code, namespace)
            scores = entrypoint.run_entry_point(namespace, ctx, None, kind)
            results.append([s.to_dict() for s in scores])
        except Exception as error:  # noqa: BLE001 -- reported per item, as the runner does
            results.append({"error": f"{type(error).__name__}: {error}"})
    seconds = time.perf_counter() - start
    json.dump({"seconds": seconds, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
