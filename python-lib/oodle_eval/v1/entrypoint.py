"""The entry-point contract shared by the sandbox runner, the service and ``python -m oodle_eval``.

An evaluator's source defines one of three entry points (docs/sandbox.md § Entry points),
looked for in this order:

1. ``evaluate`` — a top-level ``def evaluate(ctx)`` taking exactly one positional parameter and
   returning an ``EvaluationResult``.
2. ``main`` — Open Chat Studio's Python evaluator: a top-level
   ``def main(input, output, context, full_history, generated_response, **kwargs)`` with exactly
   those five positional parameters plus a ``**`` catch-all (Open Chat Studio's contract),
   returning a dict whose keys become scores.
3. ``opik`` — a top-level class derived from Opik's ``BaseMetric`` or ``ConversationThreadMetric``
   (a base named so, e.g. ``BaseMetric``, ``base_metric.BaseMetric`` or
   ``conversation_thread_metric.ConversationThreadMetric``), built with no arguments, whose
   ``score()`` returns one ``ScoreResult`` or a list of them.

``detect_entry_point`` reads the source with ``ast`` only (the code is never run) and raises
``EntryPointError`` (message, line, column) for a syntax error or a wrong shape, so a service can
refuse the code when it is saved. ``load_evaluator`` runs the code in a fresh module with ``Score``
and ``EvaluationResult`` in its globals, and ``run_entry_point`` calls the entry point on a
``Context`` and returns the validated scores. Opik results that carry no value or are marked
``scoring_failed`` are dropped; pass a list as ``notes`` to receive one line per dropped result.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import json
import sys
import types
from typing import Any, Mapping

from .context import EXPECTED_OUTPUT_ATTRIBUTE, Context, part_text
from .score import EvaluationResult, Score, ScoreError, Scores
from .score_value import infer_data_type, type_name

__all__ = [
    "EXPECTED_OUTPUT_ATTRIBUTE",
    "EntryPointError",
    "MAIN_PARAMETERS",
    "OPIK_FIELDS",
    "detect_entry_point",
    "imported_shared_libraries",
    "load_evaluator",
    "main_arguments",
    "make_namespace",
    "NoExpectedResponse",
    "NoExpectedResponseError",
    "opik_fields",
    "run_entry_point",
    "score_read_calls",
    "score_reads",
]

MAIN_PARAMETERS = ("input", "output", "context", "full_history", "generated_response")
MAIN_SIGNATURE = "main(input, output, context, full_history, generated_response, **kwargs)"
EVALUATE_SIGNATURE = "evaluate(ctx)"
OPIK_FIELDS = ("conversation", "input", "output", "context", "expected_output", "reference", "metadata")
DEFAULT_MODULE_NAME = "__evaluator__"

_EXPECTED = (
    f"define {EVALUATE_SIGNATURE} returning EvaluationResult, or Open Chat Studio's "
    f"{MAIN_SIGNATURE} returning a dict, or a class derived from opik's BaseMetric or ConversationThreadMetric"
)


class EntryPointError(ValueError):
    """The source has a syntax error or no entry point of the expected shape.

    Attributes:
        message: what was expected (also ``str(error)``).
        line: 1-based line of the problem, or None.
        column: 1-based column of the problem, or None.
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        where = f"line {self.line}" + (f", column {self.column}" if self.column is not None else "")
        return f"{self.message} ({where})"

    def to_dict(self) -> dict[str, Any]:
        """{"message", "line", "column"} for an API response."""
        return {"message": self.message, "line": self.line, "column": self.column}


# --------------------------------------------------------------------------- detection (ast only)


def _parse(source: str, filename: str) -> ast.Module:
    try:
        return ast.parse(source, filename=filename)
    except SyntaxError as error:
        message = f"syntax error: {error.msg}"
        raise EntryPointError(message, error.lineno, error.offset) from None
    except ValueError as error:  # e.g. source with a NUL byte
        raise EntryPointError(f"cannot read the source: {error}", None, None) from None


def _last_def(tree: ast.Module, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    found = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            found = node
    return found


def _assigned_at_top(tree: ast.Module, name: str) -> ast.stmt | None:
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name) and target.id == name:
                return node
    return None


def _where(node: ast.AST) -> tuple[int | None, int | None]:
    line = getattr(node, "lineno", None)
    col = getattr(node, "col_offset", None)
    return line, (col + 1 if col is not None else None)


def _check_evaluate(node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    line, col = _where(node)
    if isinstance(node, ast.AsyncFunctionDef):
        raise EntryPointError(f"evaluate must be a plain def, not async def: def {EVALUATE_SIGNATURE}", line, col)
    args = node.args
    positional = list(args.posonlyargs) + list(args.args)
    if len(positional) != 1 or args.vararg or args.kwonlyargs or args.kwarg:
        got = ast.unparse(args)
        raise EntryPointError(
            f"evaluate must take exactly one parameter, the context: def {EVALUATE_SIGNATURE} (got evaluate({got}))",
            line,
            col,
        )


def _check_main(node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """Open Chat Studio's rule: the five positional parameters in order, then ``**kwargs``, nothing else."""
    line, col = _where(node)
    expected = f"main must have the signature {MAIN_SIGNATURE} only"
    if isinstance(node, ast.AsyncFunctionDef):
        raise EntryPointError(f"main must be a plain def, not async def; {expected}", line, col)
    args = node.args
    positional = [a.arg for a in list(args.posonlyargs) + list(args.args)]
    got = f" (got main({ast.unparse(args)}))"
    if args.vararg or args.kwonlyargs or args.kwarg is None or len(positional) != len(MAIN_PARAMETERS):
        if args.kwarg is None and positional == list(MAIN_PARAMETERS) and not args.vararg and not args.kwonlyargs:
            raise EntryPointError(f"{expected}: add **kwargs (participant_data and session_state arrive by keyword)", line, col)
        raise EntryPointError(expected + got, line, col)
    for index, (name, want) in enumerate(zip(positional, MAIN_PARAMETERS), start=1):
        if name != want:
            raise EntryPointError(f"{expected}: parameter {index} should be {want!r}{got}", line, col)


# Opik's base classes that a custom metric derives from (their names, as written in a class header).
OPIK_BASES = ("BaseMetric", "ConversationThreadMetric")


def _base_is_metric(base: ast.expr) -> bool:
    name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
    return name is not None and name.endswith(OPIK_BASES)


def _find_opik_class(tree: ast.Module) -> ast.ClassDef | None:
    """The first top-level class derived from BaseMetric (directly, or through a class of this
    module) that has a score() method of its own or of a base of this module.

    Raises EntryPointError when metric classes exist but none has score(), or when the chosen
    class cannot be built with no arguments.
    """
    metric: dict[str, ast.ClassDef] = {}
    has_score: dict[str, bool] = {}
    first: ast.ClassDef | None = None
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        local_bases = [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in metric]
        if not (any(_base_is_metric(b) for b in node.bases) or local_bases):
            continue
        metric[node.name] = node
        first = first or node
        own = any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "score" for n in node.body)
        has_score[node.name] = own or any(has_score.get(b, False) for b in local_bases)
        if has_score[node.name]:
            _check_constructible(node)
            return node
    if first is not None:
        line, col = _where(first)
        raise EntryPointError(
            f"class {first.name} derives from BaseMetric but defines no score() method; "
            "add def score(self, output, **ignored_kwargs) returning a ScoreResult",
            line,
            col,
        )
    return None


def _check_constructible(node: ast.ClassDef) -> None:
    init = next(
        (n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__init__"),
        None,
    )
    if init is None:
        return
    args = init.args
    positional = list(args.posonlyargs) + list(args.args)
    required = len(positional) - 1 - len(args.defaults)  # minus self
    kw_required = [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    if required > 0 or kw_required:
        line, col = _where(init)
        raise EntryPointError(
            f"class {node.name} is built with no arguments: give every __init__ parameter a default",
            line,
            col,
        )


def detect_entry_point(source: str, filename: str = "<evaluator>") -> dict[str, Any]:
    """Find the entry point of an evaluator's source without running it.

    Returns:
        {"kind": "evaluate" | "main" | "opik", "name": the function or class name, "line": its line}.
    Raises:
        EntryPointError: a syntax error (with its line and column), an entry point of the wrong
            shape (with the position of its def), or no entry point at all.
    """
    tree = _parse(source, filename)

    evaluate = _last_def(tree, "evaluate")
    if evaluate is not None:
        _check_evaluate(evaluate)
        return {"kind": "evaluate", "name": "evaluate", "line": evaluate.lineno}
    assigned = _assigned_at_top(tree, "evaluate")
    if assigned is not None:
        line, col = _where(assigned)
        raise EntryPointError(f"evaluate must be a top-level function: def {EVALUATE_SIGNATURE}", line, col)

    main = _last_def(tree, "main")
    if main is not None:
        _check_main(main)
        return {"kind": "main", "name": "main", "line": main.lineno}

    metric_class = _find_opik_class(tree)
    if metric_class is not None:
        return {"kind": "opik", "name": metric_class.name, "line": metric_class.lineno}

    raise EntryPointError(f"no entry point: {_EXPECTED}", None, None)


def imported_shared_libraries(source: str) -> list[str]:
    """Names X of the shared libraries the source imports, in order of first appearance.

    Recognises ``import shared.X`` (also ``shared.X.Y``), ``from shared.X import ...`` and
    ``from shared import X``, anywhere in the module (also inside functions).

    Raises:
        EntryPointError: the source has a syntax error.
    """
    tree = _parse(source, "<evaluator>")
    names: list[str] = []

    def add(name: str) -> None:
        if name and name not in names:
            names.append(name)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if len(parts) >= 2 and parts[0] == "shared":
                    add(parts[1])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            parts = node.module.split(".")
            if parts[0] != "shared":
                continue
            if len(parts) >= 2:
                add(parts[1])
            else:
                for alias in node.names:
                    if alias.name != "*":
                        add(alias.name)
    return names


def _context_names(tree: ast.Module) -> set[str]:
    """Names that hold the context: ``ctx``, and the parameter of every top-level ``evaluate``."""
    names = {"ctx"}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "evaluate":
            params = node.args.posonlyargs + node.args.args
            if params:
                names.add(params[0].arg)
    return names


def score_read_calls(source: str) -> list[dict[str, Any]]:
    """Every ``ctx.score`` call with a literal evaluator name: ``{"evaluator", "score", "line"}``.

    ``score`` is the literal score name, or None when the call names none (the evaluator's first
    score) or computes it. Receivers counted: ``ctx`` and the parameter of ``evaluate``. In
    source order. A call with a computed evaluator name is left out.

    Raises:
        EntryPointError: the source has a syntax error.
    """
    tree = _parse(source, "<evaluator>")
    receivers = _context_names(tree)
    found: list[dict[str, Any]] = []
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))

    def argument(node: ast.Call, index: int, keyword: str) -> ast.expr | None:
        if len(node.args) > index:
            return node.args[index]
        return next((k.value for k in node.keywords if k.arg == keyword), None)

    for node in calls:
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "score" and isinstance(func.value, ast.Name) and func.value.id in receivers):
            continue
        name = argument(node, 0, "evaluator_name")
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value):
            continue
        score = argument(node, 1, "score_name")
        literal = score.value if isinstance(score, ast.Constant) and isinstance(score.value, str) else None
        found.append({"evaluator": name.value, "score": literal, "line": node.lineno})
    return found


def score_reads(source: str) -> list[str]:
    """Evaluator names read with a literal name: ``ctx.score("Name", ...)`` (or ``evaluator_name="Name"``).

    These declare dependencies (the cookbook: "Oodle runs this evaluator after both of them").
    A read with a computed name (``ctx.score(name)``) is not found here: such a dependency must be
    declared. In order of first appearance, each once (see ``score_read_calls``).

    Raises:
        EntryPointError: the source has a syntax error.
    """
    names: list[str] = []
    for call in score_read_calls(source):
        if call["evaluator"] not in names:
            names.append(call["evaluator"])
    return names


# --------------------------------------------------------------------------- loading


def make_namespace(module_name: str = DEFAULT_MODULE_NAME, filename: str = "<evaluator>") -> dict[str, Any]:
    """Fresh globals for an evaluator: ``__name__``, ``__file__``, builtins, ``Score`` and ``EvaluationResult``."""
    return {
        "__name__": module_name,
        "__file__": filename,
        "__builtins__": builtins,
        "Score": Score,
        "EvaluationResult": EvaluationResult,
    }


def load_evaluator(
    source: str,
    filename: str = "<evaluator>",
    module_name: str = DEFAULT_MODULE_NAME,
    register: bool = True,
) -> dict[str, Any]:
    """Check the entry point, then run the source in a new module and return its namespace.

    The module holds ``Score`` and ``EvaluationResult`` before the code runs. With ``register``
    it is put in ``sys.modules[module_name]`` (so dataclasses, typing and pickle in user code can
    find it). Exceptions raised by the code at import time propagate unchanged.

    Raises:
        EntryPointError: see ``detect_entry_point``.
    """
    detect_entry_point(source, filename)
    module = types.ModuleType(module_name)
    module.__dict__.update(make_namespace(module_name, filename))
    if register:
        sys.modules[module_name] = module
    code = compile(source, filename, "exec")
    exec(code, module.__dict__)
    return module.__dict__


# --------------------------------------------------------------------------- running


def _message_text(value: Any) -> str:
    """Text of an expected output: a string as is, a message's content, else compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and "content" in value:
        return part_text(value.get("content"))
    return json.dumps(value, ensure_ascii=False)


_USER_ROLES = ("user", "human")
_ASSISTANT_ROLES = ("assistant", "ai", "model", "bot")


def _opik_role(role: str) -> str:
    """Opik's name for a turn's role: "user", "assistant", or the role as it is."""
    return "user" if role in _USER_ROLES else "assistant" if role in _ASSISTANT_ROLES else role


def _newest_user_text(ctx: Context) -> str | None:
    for turn in reversed(ctx.turns):
        if turn["role"] in _USER_ROLES:
            return turn["content"]
    return None


def _newest_reply(ctx: Context) -> str | None:
    for turn in reversed(ctx.turns):
        if turn["role"] in _ASSISTANT_ROLES:
            return turn["content"]
    return None


class NoExpectedResponseError(KeyError):
    """A key of Open Chat Studio's ``output`` read where there is no expected response.

    A ``KeyError``, so code that catches ``KeyError`` still does; its message says why ``output``
    is empty and where an expected response can come from.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class NoExpectedResponse(dict):
    """``output`` of a ``main`` where there is no expected response: empty, as Open Chat Studio
    passes it (``output.get("content")`` is None, ``"content" in output`` is False), and reading a
    key raises :class:`NoExpectedResponseError` saying why instead of a bare ``KeyError``."""

    def __missing__(self, key: Any) -> Any:
        raise NoExpectedResponseError(
            f"output[{key!r}]: there is no expected response here. In Open Chat Studio's main, output is the "
            f"expected AI response, and this span has none. Give the span one in the attribute "
            f"{EXPECTED_OUTPUT_ATTRIBUTE!r} (the expected reply as a string, or a message with content), or run "
            f"the evaluator over a dataset item with expected_output (an experiment); where it may be absent, "
            f"read output.get({key!r})"
        )


def main_arguments(ctx: Context) -> dict[str, Any]:
    """The keyword arguments that an Open Chat Studio ``main`` receives for this context.

    * ``input``: the newest user message as ``{"content", "role": "human"}`` (content "" when there is none);
    * ``output``: the expected AI response ``{"content": expected_output, "role": "ai"}`` (a dataset
      item's ``expected_output``, or a span's attribute ``oodle.expected_output``), or, when there is
      none, an empty dict as Open Chat Studio passes it (:class:`NoExpectedResponse`): a ``main``
      that reads ``output['content']`` then fails with :class:`NoExpectedResponseError` saying so,
      instead of comparing with "" (which every reply contains);
    * ``context``: the span's or item's metadata (a copy);
    * ``full_history``: the turns before the reply being evaluated (the input messages) as
      "role: content" lines, as Open Chat Studio's example shows (it ends with the user's message);
    * ``generated_response``: the reply being evaluated (``text.reply``);
    * ``participant_data`` / ``session_state``: the metadata keys of those names, else {}.
    """
    user = _newest_user_text(ctx)
    history_turns = ctx.turns[: len(ctx.turns) - len(ctx.output_messages)] if ctx.output_messages else ctx.turns
    participant_data = ctx.metadata.get("participant_data")
    session_state = ctx.metadata.get("session_state")
    reply = _newest_reply(ctx)
    return {
        "input": {"content": user or "", "role": "human"},
        "output": NoExpectedResponse() if ctx.expected_output is None else {"content": _message_text(ctx.expected_output), "role": "ai"},
        "context": dict(ctx.metadata),
        "full_history": "\n".join(f"{t['role']}: {t['content']}" for t in history_turns),
        "generated_response": reply or "",
        "participant_data": dict(participant_data) if isinstance(participant_data, Mapping) else {},
        "session_state": dict(session_state) if isinstance(session_state, Mapping) else {},
    }


def _scores_from_main(result: Any) -> list[Score]:
    if not isinstance(result, Mapping):
        raise TypeError(f"main() must return a dict whose keys become scores, got {type(result).__name__}")
    scores = []
    for key, value in result.items():
        name = str(key)
        data_type = infer_data_type(value)
        if data_type is None and value is not None:
            raise TypeError(
                f"main() returned {type_name(value)} for {name!r}: a value must be a bool, a number, "
                "a string or None"
            )
        scores.append(Score(name=name, value=value, data_type=data_type or "NUMERIC"))
    return scores


def opik_fields(ctx: Context) -> dict[str, Any]:
    """The values an Opik ``score()`` can ask for by name (None when the span lacks one).

    * ``conversation``: the turns as ``{"role", "content"}`` dicts, oldest first, with Opik's role
      names: a user role ("user", "human") is "user", an assistant role ("assistant", "ai",
      "model", "bot") is "assistant", any other role (system, tool) is kept;
    * ``input``: the newest user message's text; ``output``: the newest assistant reply's text;
    * ``context``: the span attribute ``context``, else the metadata key ``context``, as a list of
      strings (a single string becomes a one-item list);
    * ``expected_output`` and ``reference``: the dataset item's expected output as text;
    * ``metadata``: the span's or item's metadata.
    """
    raw_context = ctx.attributes.get("context", ctx.metadata.get("context"))
    if raw_context is None:
        context = None
    elif isinstance(raw_context, str):
        context = [raw_context]
    elif isinstance(raw_context, list):
        context = [c if isinstance(c, str) else _message_text(c) for c in raw_context]
    else:
        context = [_message_text(raw_context)]
    expected = None if ctx.expected_output is None else _message_text(ctx.expected_output)
    return {
        "conversation": [{**t, "role": _opik_role(t["role"])} for t in ctx.turns],
        "input": _newest_user_text(ctx),
        "output": _newest_reply(ctx),
        "context": context,
        "expected_output": expected,
        "reference": expected,
        "metadata": dict(ctx.metadata),
    }


def _is_metric_class(value: Any) -> bool:
    if not isinstance(value, type):
        return False
    return any(base.__name__ == "BaseMetric" for base in value.__mro__[1:])


def _find_metric_class(namespace: Mapping[str, Any]) -> type | None:
    """The first BaseMetric subclass defined in the user's module (not imported).

    Abstract classes and classes without their own score() (intermediate bases) are passed over
    when a later class qualifies.
    """
    module_name = namespace.get("__name__", "builtins")
    candidates = [
        value
        for value in namespace.values()
        if _is_metric_class(value) and getattr(value, "__module__", None) == module_name
    ]
    for cls in candidates:
        own_score = any("score" in vars(c) for c in cls.__mro__ if c.__name__ not in OPIK_BASES and c is not object)
        if own_score and not inspect.isabstract(cls):
            return cls
    return candidates[0] if candidates else None


def _call_score(metric: Any, fields: dict[str, Any]) -> Any:
    score = metric.score
    try:
        signature = inspect.signature(score)
    except (TypeError, ValueError):
        return score(**fields)
    kwargs: dict[str, Any] = {}
    takes_all = False
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            takes_all = True
        elif parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        elif parameter.name in fields:
            if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
                raise TypeError(f"{type(metric).__name__}.score(): {parameter.name!r} must be passable by keyword")
            kwargs[parameter.name] = fields[parameter.name]
        elif parameter.default is inspect.Parameter.empty:
            raise TypeError(
                f"{type(metric).__name__}.score() asks for {parameter.name!r}, which Oodle does not provide; "
                f"it can pass {', '.join(OPIK_FIELDS)}"
            )
    if takes_all:
        kwargs = {**fields, **kwargs}
    result = score(**kwargs)
    if inspect.isawaitable(result):
        import asyncio  # deferred: only async score() needs it, and it is slow to import

        result = asyncio.run(_await(result))
    return result


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _scores_from_opik(result: Any, notes: list[str] | None, higher_is_better: bool = True) -> list[Score]:
    """Scores of Opik results; each keeps the direction it carries (the shim's metrics tag their
    results, ``BaseMetric.directed``), else takes ``higher_is_better`` (its metric's)."""
    items = list(result) if isinstance(result, (list, tuple)) else [result]
    scores = []
    for item in items:
        if not (hasattr(item, "name") and hasattr(item, "value")):
            raise TypeError(f"score() must return a ScoreResult or a list of them, got {type(item).__name__}")
        name = str(item.name)
        reason = getattr(item, "reason", None)
        metadata = getattr(item, "metadata", None)
        if getattr(item, "scoring_failed", False):
            if notes is not None:
                notes.append(f"dropped Opik result {name!r}: scoring failed" + (f": {reason}" if reason else ""))
            continue
        if item.value is None:
            if notes is not None:
                notes.append(f"dropped Opik result {name!r}: no value" + (f": {reason}" if reason else ""))
            continue
        if metadata is not None and not isinstance(metadata, Mapping):
            metadata = {"metadata": metadata}
        scores.append(
            Score(
                name=name,
                value=item.value,
                comment=None if reason is None else str(reason),
                metadata=None if metadata is None else dict(metadata),
                higher_is_better=_direction(item, higher_is_better),
            )
        )
    return scores


def _direction(item: Any, default: bool) -> bool:
    tagged = getattr(item, "higher_is_better", None)
    return tagged if isinstance(tagged, bool) else default


def run_entry_point(
    namespace: Mapping[str, Any],
    ctx: Context,
    notes: list[str] | None = None,
    kind: str | None = None,
) -> Scores:
    """Call the evaluator's entry point on ``ctx`` and return its validated scores.

    * ``evaluate(ctx)`` must return an ``EvaluationResult`` (TypeError otherwise).
    * ``main(...)`` gets ``main_arguments(ctx)``; its dict becomes scores (bool or numpy.bool_ →
      BOOLEAN, any number → NUMERIC, str → CATEGORICAL, None → no value); a non-dict, or a value
      of another type, is a TypeError.
    * Opik: the first BaseMetric subclass defined in the module is built with no arguments and
      its ``score()`` is called by keyword with the fields of ``opik_fields(ctx)`` that its
      signature names (all of them when it takes ``**kwargs``). A result with no value or with
      ``scoring_failed`` is dropped, and one line saying why is appended to ``notes``. Each score
      keeps its result's direction (``higher_is_better``: set by the shim's metrics, e.g. False
      for ConversationDegenerationMetric), else the metric class's, else True.

    Args:
        namespace: the evaluator module's globals (``load_evaluator``).
        ctx: the evaluation context.
        notes: a list that receives one line per dropped Opik result.
        kind: "evaluate", "main" or "opik" to skip detection (``detect_entry_point``'s kind).
    Raises:
        EntryPointError: no entry point in the namespace.
        TypeError: the entry point returned the wrong type.
        oodle_eval.v1.ScoreError: a score breaks a Score rule or a name appears twice.
        Any exception that the evaluator raises, unchanged.
    """
    if kind is None:
        if callable(namespace.get("evaluate")):
            kind = "evaluate"
        elif callable(namespace.get("main")):
            kind = "main"
        elif _find_metric_class(namespace) is not None:
            kind = "opik"
        else:
            raise EntryPointError(f"no entry point: {_EXPECTED}")

    if kind == "evaluate":
        result = namespace["evaluate"](ctx)
        if not isinstance(result, EvaluationResult):
            hint = " (wrap the list: return EvaluationResult(scores=...))" if isinstance(result, list) else ""
            raise TypeError(f"evaluate(ctx) must return EvaluationResult, got {type(result).__name__}{hint}")
    elif kind == "main":
        args = main_arguments(ctx)
        positional = [args.pop(name) for name in MAIN_PARAMETERS]
        result = EvaluationResult(scores=_scores_from_main(namespace["main"](*positional, **args)))
    elif kind == "opik":
        cls = _find_metric_class(namespace)
        if cls is None:
            raise EntryPointError(f"no BaseMetric subclass is defined in the evaluator; {_EXPECTED}")
        metric = cls()
        direction = _direction(metric, True)
        result = EvaluationResult(scores=_scores_from_opik(_call_score(metric, opik_fields(ctx)), notes, direction))
    else:
        raise ValueError(f"unknown entry point kind {kind!r}")

    if isinstance(result.scores, tuple):
        result = EvaluationResult(scores=list(result.scores))
    if not isinstance(result.scores, list):
        raise TypeError(f"EvaluationResult.scores must be a list of Score, got {type(result.scores).__name__}")
    result.validate()
    return Scores(result.scores)

