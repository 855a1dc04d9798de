"""Run a code evaluator locally, without the Oodle service.

    python -m oodle_eval run my_evaluator.py --span span.json --params '{"max_words": 100}' [--json]
    python -m oodle_eval check my_evaluator.py

``run`` builds ``ctx`` from a sample document (docs/document.md § The sample document), runs the
evaluator's entry point (``evaluate(ctx)``, Open Chat Studio's ``main`` or an Opik ``BaseMetric``)
and prints its scores as a table, or with ``--json`` as a JSON list of
``{name, value, data_type, higher_is_better, comment, metadata}``.
``check`` only reads the file and prints which entry point it defines.

Exit status: 0 when the evaluator ran, 1 when it raised or broke a rule (message or traceback on
stderr), 2 for a usage error (bad arguments, unreadable span file, params that are not a JSON
object).

When a ``template.yaml`` lies beside the evaluator (a folder of ``oodle genai templates pull``),
``ctx.params`` is resolved from its ``settings`` as the service resolves it: for every declared
setting the given value, else its default, else None; a value for a setting it does not declare,
or no value for a required setting without a default, is a usage error naming it (the service
refuses them too). ``--no-template`` ignores the file (``ctx.params`` is then exactly what is given).
The file is read without PyYAML (``oodle_eval.template_yaml``: the YAML that ``pull`` writes; a
line outside it is a usage error naming the line).

The evaluator's folder is put first on ``sys.path`` (as ``python my_evaluator.py`` would), so a
``shared/`` package next to it can stand in for Oodle's shared libraries. When ``opik`` is not
importable, the Opik stand-in of ``python-lib/sandbox_shims`` (or the folder named by the
environment variable ``OODLE_EVAL_SHIMS``) is appended to ``sys.path``; a real ``opik`` always wins.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Mapping, Sequence


class UsageError(Exception):
    """A usage error: exit status 2."""


def shims_path() -> Path | None:
    """The folder holding the sandbox stand-ins (``OODLE_EVAL_SHIMS``, else python-lib/sandbox_shims)."""
    env = os.environ.get("OODLE_EVAL_SHIMS")
    if env:
        return Path(env)
    candidate = Path(__file__).resolve().parent.parent / "sandbox_shims"
    return candidate if candidate.is_dir() else None


def add_shims_if_needed() -> bool:
    """Append the shims folder to sys.path when ``opik`` cannot be imported; True when added."""
    try:
        if importlib.util.find_spec("opik") is not None:
            return False
    except (ImportError, ValueError):
        pass
    path = shims_path()
    if path is None or not path.is_dir():
        return False
    if str(path) not in sys.path:
        sys.path.append(str(path))
    return True


def _read_json_file(path: str) -> Any:
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read the span file {path}: {error.strerror or error}") from None
    try:
        return json.loads(text)
    except ValueError as error:
        raise UsageError(f"the span file {path} is not JSON: {error}") from None


def _parse_params(raw: str | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError as error:
        raise UsageError(f"--params is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise UsageError(f"--params must be a JSON object, got {type(value).__name__}")
    return value


MANIFEST = "template.yaml"


def template_settings(evaluator: str) -> list[dict[str, Any]] | None:
    """The ``settings`` of the ``template.yaml`` beside ``evaluator``, or None when there is none.

    The file is read with :mod:`oodle_eval.template_yaml` (the YAML that ``templates pull``
    writes; no PyYAML needed).

    Raises:
        UsageError: the file cannot be read, is outside that YAML subset (naming the line), or
            ``settings`` is not a list of mappings with a ``name``.
    """
    from oodle_eval.template_yaml import TemplateYamlError, loads

    path = Path(evaluator).resolve().parent / MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = loads(path.read_text(encoding="utf-8")) or {}
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"{path} is not UTF-8 text: {error}") from None
    except TemplateYamlError as error:
        raise UsageError(f"{path}:{error.line}: {error.message} (or pass --no-template)") from None
    settings = manifest.get("settings", []) if isinstance(manifest, dict) else None
    if settings is None and isinstance(manifest, dict):
        settings = []
    if not isinstance(settings, list) or not all(isinstance(s, dict) and isinstance(s.get("name"), str) for s in settings):
        raise UsageError(f"{path}: settings must be a list of settings, each with a name")
    return settings


def resolve_params(settings: Sequence[Mapping[str, Any]], given: Mapping[str, Any], source: str = MANIFEST) -> dict[str, Any]:
    """``ctx.params`` for declared ``settings``: every setting's given value, else its default, else None.

    Raises:
        UsageError: a given name that no setting declares, or a required setting with no value and no default.
    """
    names = [s["name"] for s in settings]
    unknown = [name for name in given if name not in names]
    if unknown:
        declared = ", ".join(names) or "none"
        raise UsageError(f"params.{unknown[0]}: {source} declares no setting {unknown[0]!r} (it declares {declared})")
    resolved: dict[str, Any] = {}
    for setting in settings:
        name = setting["name"]
        if name in given:
            resolved[name] = given[name]
        elif "default" in setting:
            resolved[name] = setting["default"]
        elif setting.get("required"):
            raise UsageError(f"params.{name}: is required by {source} and has no default: give it with --params")
        else:
            resolved[name] = None
    return resolved


def _read_source(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read the evaluator {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"the evaluator {path} is not UTF-8 text: {error}") from None


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def format_table(scores: Sequence[Any], width: int = 60) -> str:
    """A plain-text table of scores: name, value, type, direction, comment."""
    header = ("name", "value", "type", "better", "comment")
    rows = []
    for score in scores:
        comment = (score.comment or "").replace("\n", " ")
        if len(comment) > width:
            comment = comment[: width - 1] + "…"
        rows.append(
            (
                score.name,
                _cell(score.value),
                score.data_type,
                "higher" if score.higher_is_better else "lower",
                comment,
            )
        )
    if not rows:
        return "(no scores)"
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(header)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    return "\n".join(lines)


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m oodle_eval",
        description="Run an Oodle code evaluator locally on a sample document.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="{run,check}")
    run = sub.add_parser("run", help="run an evaluator and print its scores")
    run.add_argument("evaluator", help="the evaluator's .py file")
    run.add_argument("--span", metavar="FILE", help="the sample document (JSON; - for stdin); default: an empty span")
    run.add_argument("--params", metavar="JSON", help="the settings as a JSON object (ctx.params)")
    run.add_argument("--json", action="store_true", help="print a JSON list of scores instead of a table")
    run.add_argument("--no-template", action="store_true", help=f"ignore the {MANIFEST} beside the evaluator (its settings' defaults)")
    check = sub.add_parser("check", help="read an evaluator (without running it) and print its entry point")
    check.add_argument("evaluator", help="the evaluator's .py file")
    return parser


def _cmd_check(args: argparse.Namespace) -> int:
    from oodle_eval.v1.entrypoint import EntryPointError, detect_entry_point, imported_shared_libraries

    source = _read_source(args.evaluator)
    try:
        entry = detect_entry_point(source, args.evaluator)
    except EntryPointError as error:
        print(_located(args.evaluator, error), file=sys.stderr)
        return 1
    shared = imported_shared_libraries(source)
    print(f"entry point: {entry['kind']} ({entry['name']}, line {entry['line']})")
    if shared:
        print("shared libraries: " + ", ".join(shared))
    return 0


def _located(filename: str, error: Any) -> str:
    where = filename
    if error.line is not None:
        where += f":{error.line}"
        if error.column is not None:
            where += f":{error.column}"
    return f"{where}: {error.message}"


def _cmd_run(args: argparse.Namespace) -> int:
    from oodle_eval.v1 import make_context
    from oodle_eval.v1.entrypoint import EntryPointError, detect_entry_point, load_evaluator, run_entry_point

    source = _read_source(args.evaluator)
    document: Any = {}
    if args.span is not None:
        document = _read_json_file(args.span)
        if not isinstance(document, dict):
            raise UsageError(f"the span file {args.span} must hold a JSON object, got {type(document).__name__}")
    params = _parse_params(args.params)
    if params is not None:
        base = document.get("params") if isinstance(document.get("params"), dict) else {}
        params = {**base, **params}
    settings = None if args.no_template else template_settings(args.evaluator)
    if settings is not None:
        given = params if params is not None else (document.get("params") if isinstance(document.get("params"), dict) else {})
        params = resolve_params(settings, given)

    try:
        entry = detect_entry_point(source, args.evaluator)
    except EntryPointError as error:
        print(_located(args.evaluator, error), file=sys.stderr)
        return 1

    folder = str(Path(args.evaluator).resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    add_shims_if_needed()

    ctx = make_context(document, params=params)
    notes: list[str] = []
    try:
        namespace = load_evaluator(source, filename=args.evaluator)
        scores = run_entry_point(namespace, ctx, notes=notes, kind=entry["kind"])
    except Exception:  # the evaluator raised or broke a rule
        traceback.print_exc(file=sys.stderr)
        return 1

    if args.json:
        print(json.dumps([s.to_dict() for s in scores], ensure_ascii=False, indent=2))
        for note in notes:
            print(note, file=sys.stderr)
    else:
        print(format_table(scores))
        for note in notes:
            print(f"note: {note}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status."""
    parser = _build_parser()
    args = parser.parse_args(argv)  # exits 2 on a usage error
    try:
        if args.command == "check":
            return _cmd_check(args)
        return _cmd_run(args)
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
