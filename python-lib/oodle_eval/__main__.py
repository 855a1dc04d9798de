"""Run a code evaluator locally, without the Oodle service.

    python -m oodle_eval run my_evaluator.py --span span.json --params '{"max_words": 100}' [--json]
    python -m oodle_eval check my_evaluator.py

``run`` builds ``ctx`` from a sample document (docs/document.md § The sample document) or a line of
an ``items.jsonl`` file, mapped as the service maps it (:mod:`oodle_eval.document`), runs the
evaluator's entry point (``evaluate(ctx)``, Open Chat Studio's ``main`` or an Opik ``BaseMetric``)
and prints its scores as a table, or with ``--json`` as a JSON list of
``{name, value, data_type, higher_is_better, comment, metadata}``.
``check`` only reads the file and prints which entry point it defines.

Exit status: 0 when the evaluator ran; 1 when it raised (``user_error``: a traceback through the
user's own frames on stderr, as the service reports it) or a score broke a rule (``invalid_result``:
the rule, e.g. a NaN value, or a bound of the service such as 1,000 characters for a CATEGORICAL
value, without a traceback); 2 for a usage error (bad arguments, unreadable
span file, a document key that is unknown or of the wrong shape, params that are not a JSON object
or break the settings), every problem listed, one a line.

When a ``template.yaml`` lies beside the evaluator (a folder of ``oodle genai templates pull``),
``ctx.params`` is resolved from its ``settings`` as the service resolves it: for every declared
setting the given value, else its default, else None; a value for a setting it does not declare,
or no value for a required setting without a default, is a usage error naming it (the service
refuses them too). ``--no-template`` ignores the file (``ctx.params`` is then exactly what is given).
The file is read with PyYAML as the CLI reads it (``oodle_eval.template_yaml``: YAML 1.2's core
schema); a file that is not YAML, or not JSON data, is a usage error naming the line, and so is a
missing PyYAML (python-lib's one dependency; Debian's ``python3-yaml``).

The evaluator's folder is put first on ``sys.path`` (as ``python my_evaluator.py`` would), so a
``shared/`` package next to it can stand in for Oodle's shared libraries. When ``opik`` is not
importable, the Opik stand-in of ``python-lib/sandbox_shims`` (or the folder named by the
environment variable ``OODLE_EVAL_SHIMS``) is appended to ``sys.path``; a real ``opik`` always wins.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
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

    The file is read with :mod:`oodle_eval.template_yaml` (PyYAML, as the CLI reads it).

    Raises:
        UsageError: PyYAML is not installed, the file cannot be read, is not YAML or not JSON data
            (naming the line), or ``settings`` is not a list of mappings with a ``name``.
    """
    path = Path(evaluator).resolve().parent / MANIFEST
    if not path.is_file():
        return None
    try:
        from oodle_eval.template_yaml import TemplateYamlError, loads
    except ImportError as error:
        raise UsageError(
            f"{path}: reading it needs PyYAML ({error}): pip install ./python-lib installs it "
            "(Debian: apt install python3-yaml), or pass --no-template"
        ) from None
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


def _is_set(value: Any) -> bool:
    """None means "not set" (the service's rule: ctx.params falls back to the default)."""
    return value is not None


MAX_SAFE_INTEGER = 2**53 - 1


def type_mismatch(setting: Mapping[str, Any], value: Any) -> str | None:
    """Why ``value`` does not fit the setting's type, else None (src/modules/templates/settings.ts ``typeMismatch``)."""
    kind = setting.get("type")
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind in ("string", "text"):
        return None if isinstance(value, str) else "must be a string"
    if kind == "number":
        return None if is_number and math.isfinite(value) else "must be a finite number"
    if kind == "integer":
        whole = is_number and math.isfinite(value) and float(value).is_integer() and abs(value) <= MAX_SAFE_INTEGER
        return None if whole else "must be a whole number (an integer between -(2^53-1) and 2^53-1)"
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if kind == "string_list":
        return None if isinstance(value, list) and all(isinstance(v, str) for v in value) else "must be a list of strings"
    if kind == "enum":
        options = list(setting.get("options") or [])
        return None if isinstance(value, str) and value in options else "must be one of the options: " + ", ".join(json.dumps(o) for o in options)
    return None  # json (or a type this runner does not know: the service checks it on save)


def resolve_params(settings: Sequence[Mapping[str, Any]], given: Mapping[str, Any], source: str = MANIFEST) -> dict[str, Any]:
    """``ctx.params`` for declared ``settings``: every setting's given value, else its default, else None.

    A None value counts as not set, as on the service (src/modules/templates/values.ts).

    Raises:
        UsageError: listing every problem, one a line, as the service lists them: a given name no
            setting declares, a value of the wrong type, a required setting with no value and no default.
    """
    by_name = {s["name"]: s for s in settings}
    names = list(by_name)
    problems: list[str] = []
    for name, value in given.items():
        if not _is_set(value):
            continue
        setting = by_name.get(name)
        if setting is None:
            declared = ", ".join(names) or "none"
            problems.append(f"params.{name}: {source} declares no setting {name!r} (it declares {declared})")
            continue
        mismatch = type_mismatch(setting, value)
        if mismatch:
            problems.append(f"params.{name}: setting {name!r} ({setting.get('type')}): the value {mismatch}")
    for setting in settings:
        name = setting["name"]
        if setting.get("required") and not _is_set(given.get(name)) and not _is_set(setting.get("default")):
            problems.append(f"params.{name}: is required by {source} and has no default: give it with --params")
    if problems:
        raise UsageError("\n".join(problems))
    resolved: dict[str, Any] = {}
    for setting in settings:
        name = setting["name"]
        own = given.get(name)
        resolved[name] = own if _is_set(own) else setting.get("default")
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


def user_traceback(error: BaseException, evaluator: str) -> str:
    """``error`` with a traceback limited to the user's own frames (the evaluator's file and the files
    in its folder, such as ``shared/``), as the sandbox runner reports it (sandbox/runner.py ``_error_of``)."""
    folder = Path(evaluator).resolve().parent
    library = Path(__file__).resolve().parent.parent  # python-lib: oodle_eval and the shims are never the user's

    def own(filename: str) -> bool:
        if filename == evaluator:
            return True
        try:
            path = Path(filename).resolve()
            return path.is_relative_to(folder) and not path.is_relative_to(library)
        except (OSError, ValueError):
            return False

    frames = [(f, n) for f, n in traceback.walk_tb(error.__traceback__) if own(f.f_code.co_filename)]
    stack = traceback.StackSummary.extract(iter(frames), lookup_lines=True)
    lines = ["user_error: Traceback (most recent call last):\n"] if stack else ["user_error: "]
    lines += stack.format()
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines)


def _cmd_run(args: argparse.Namespace) -> int:
    from oodle_eval.v1 import ScoreError, make_context
    from oodle_eval.v1.entrypoint import EntryPointError, detect_entry_point, load_evaluator, run_entry_point

    from oodle_eval.document import DocumentError, to_document
    from oodle_eval.result_bounds import bound_problem

    source = _read_source(args.evaluator)
    document: Any = {}
    if args.span is not None:
        document = _read_json_file(args.span)
        if not isinstance(document, dict):
            raise UsageError(f"the span file {args.span} must hold a JSON object, got {type(document).__name__}")
        try:
            document = to_document(document)
        except DocumentError as error:
            raise UsageError("\n".join(f"{args.span}: {issue}" for issue in error.issues)) from None
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
    except ScoreError as error:  # a score broke a rule: the service's outcome invalid_result, no traceback
        print(f"invalid_result: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # the evaluator raised: the service's outcome user_error
        print(user_traceback(error, args.evaluator), end="", file=sys.stderr)
        return 1
    problem = bound_problem(scores)
    if problem:  # the service would refuse the result (its bounds on a score's size)
        print(f"invalid_result: InvalidResult: {problem}", file=sys.stderr)
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
        for line in str(error).splitlines():
            print(f"{parser.prog}: error: {line}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
