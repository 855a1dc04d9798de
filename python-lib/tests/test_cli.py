"""python -m oodle_eval run / check, as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parent.parent
DEBIAN_PYTHON = Path("/usr/bin/python3.11")


def cli(*args: str, python: str = sys.executable, stdin: str | None = None, cwd: Path | None = None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(LIB)
    env.pop("OODLE_EVAL_SHIMS", None)
    return subprocess.run(
        [python, "-m", "oodle_eval", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
        cwd=str(cwd or LIB),
        timeout=60,
    )


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


EVALUATOR = """
def evaluate(ctx):
    reply = ctx.turns[-1]["content"] if ctx.turns else ""
    limit = ctx.params.get("max_words", 5)
    return EvaluationResult(scores=[
        Score(name="word_count", value=len(reply.split()), higher_is_better=False,
              comment=f"{len(reply.split())} words", metadata={"limit": limit}),
        Score(name="short", value=len(reply.split()) <= limit),
    ])
"""

SPAN = {"input": [{"role": "user", "content": "hi"}], "output": "one two three"}


@pytest.fixture
def files(tmp_path):
    evaluator = write(tmp_path / "my_evaluator.py", EVALUATOR)
    span = tmp_path / "span.json"
    span.write_text(json.dumps(SPAN), encoding="utf-8")
    return evaluator, span


def test_run_prints_a_table(files):
    evaluator, span = files
    result = cli("run", str(evaluator), "--span", str(span))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["name", "value", "type", "better", "comment"]
    assert lines[2].split()[:4] == ["word_count", "3", "NUMERIC", "lower"]
    assert "3 words" in lines[2]
    assert lines[3].split()[:4] == ["short", "True", "BOOLEAN", "higher"]


def test_run_json_and_params(files):
    evaluator, span = files
    result = cli("run", str(evaluator), "--span", str(span), "--params", '{"max_words": 2}', "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data == [
        {
            "name": "word_count",
            "value": 3,
            "data_type": "NUMERIC",
            "higher_is_better": False,
            "comment": "3 words",
            "metadata": {"limit": 2},
        },
        {"name": "short", "value": False, "data_type": "BOOLEAN", "higher_is_better": True, "comment": None, "metadata": None},
    ]


def test_run_params_override_document_params(tmp_path):
    evaluator = write(tmp_path / "e.py", "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='p', value=str(sorted(ctx.params.items())))])\n")
    span = tmp_path / "s.json"
    span.write_text(json.dumps({"params": {"a": 1, "b": 2}}))
    result = cli("run", str(evaluator), "--span", str(span), "--params", '{"b": 3}', "--json")
    assert json.loads(result.stdout)[0]["value"] == "[('a', 1), ('b', 3)]"


def test_run_span_from_stdin_and_no_span(files):
    evaluator, _ = files
    result = cli("run", str(evaluator), "--span", "-", "--json", stdin=json.dumps(SPAN))
    assert json.loads(result.stdout)[0]["value"] == 3
    result = cli("run", str(evaluator), "--json")
    assert result.returncode == 0
    assert json.loads(result.stdout)[0]["value"] == 0


def test_evaluator_that_raises_exits_1_with_traceback(tmp_path):
    evaluator = write(tmp_path / "boom.py", "def evaluate(ctx):\n    raise RuntimeError('kaput')\n")
    result = cli("run", str(evaluator))
    assert result.returncode == 1
    assert "Traceback" in result.stderr and "RuntimeError: kaput" in result.stderr
    assert result.stdout == ""


def test_evaluator_breaking_a_score_rule_exits_1(tmp_path):
    evaluator = write(tmp_path / "bad.py", "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='x', value=float('nan'))])\n")
    result = cli("run", str(evaluator), "--json")
    assert result.returncode == 1
    assert "ScoreError" in result.stderr and "'x'" in result.stderr


def test_syntax_error_exits_1_with_position(tmp_path):
    evaluator = write(tmp_path / "syn.py", "def evaluate(ctx):\n    x = = 1\n")
    result = cli("run", str(evaluator))
    assert result.returncode == 1
    assert f"{evaluator}:2:9: syntax error" in result.stderr


def test_wrong_shape_exits_1(tmp_path):
    evaluator = write(tmp_path / "shape.py", "def evaluate():\n    pass\n")
    result = cli("run", str(evaluator))
    assert result.returncode == 1
    assert "evaluate must take exactly one parameter" in result.stderr


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--params", "{nope"], "--params is not JSON"),
        (["--params", "[1]"], "--params must be a JSON object"),
        (["--span", "/nonexistent/span.json"], "cannot read the span file"),
    ],
)
def test_usage_errors_exit_2(files, extra, message):
    evaluator, _ = files
    result = cli("run", str(evaluator), *extra)
    assert result.returncode == 2
    assert message in result.stderr


def test_usage_error_span_not_json_or_not_object(files, tmp_path):
    evaluator, _ = files
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli("run", str(evaluator), "--span", str(bad)).returncode == 2
    bad.write_text("[1, 2]")
    result = cli("run", str(evaluator), "--span", str(bad))
    assert result.returncode == 2 and "JSON object" in result.stderr


def test_usage_error_missing_evaluator_and_arguments():
    assert cli("run", "/nonexistent/evaluator.py").returncode == 2
    assert cli().returncode == 2
    assert cli("run").returncode == 2
    assert cli("frobnicate").returncode == 2


def test_main_entry_point(tmp_path):
    evaluator = write(
        tmp_path / "ocs.py",
        """
        def main(input, output, context, full_history, generated_response, **kwargs):
            return {"echo": input["content"], "has_answer": output["content"] in generated_response}
        """,
    )
    span = tmp_path / "s.json"
    span.write_text(json.dumps({"input": "q?", "output": "the answer is 4", "expected_output": "4"}))
    result = cli("run", str(evaluator), "--span", str(span), "--json")
    assert result.returncode == 0, result.stderr
    assert [(d["name"], d["value"], d["data_type"]) for d in json.loads(result.stdout)] == [
        ("echo", "q?", "CATEGORICAL"),
        ("has_answer", True, "BOOLEAN"),
    ]


OPIK_EVALUATOR = """
from opik.evaluation.metrics import base_metric, score_result


class Judge(base_metric.BaseMetric):
    def score(self, output, **ignored_kwargs):
        return [
            score_result.ScoreResult(name="length", value=float(len(output))),
            score_result.ScoreResult(name="judge", value=None, reason="no judge here"),
        ]
"""


def test_opik_entry_point_uses_the_shim_and_prints_notes(tmp_path):
    evaluator = write(tmp_path / "opik_metric.py", OPIK_EVALUATOR)
    span = tmp_path / "s.json"
    span.write_text(json.dumps({"output": "abcd"}))
    result = cli("run", str(evaluator), "--span", str(span))
    assert result.returncode == 0, result.stderr
    assert "length" in result.stdout and "4" in result.stdout
    assert "note: dropped Opik result 'judge': no value: no judge here" in result.stdout
    as_json = cli("run", str(evaluator), "--span", str(span), "--json")
    assert json.loads(as_json.stdout) == [
        {"name": "length", "value": 4.0, "data_type": "NUMERIC", "higher_is_better": True, "comment": None, "metadata": None}
    ]
    assert "dropped Opik result 'judge'" in as_json.stderr


def test_shared_library_next_to_the_evaluator(tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "__init__.py").write_text("")
    write(tmp_path / "shared" / "acme.py", "LIMIT = 7\n")
    evaluator = write(
        tmp_path / "uses_shared.py",
        "from shared.acme import LIMIT\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='limit', value=LIMIT)])\n",
    )
    result = cli("run", str(evaluator), "--json", cwd=Path("/"))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)[0]["value"] == 7


def test_check_command(tmp_path):
    evaluator = write(tmp_path / "e.py", "import shared.acme_policy\n\ndef evaluate(ctx):\n    pass\n")
    result = cli("check", str(evaluator))
    assert result.returncode == 0
    assert "entry point: evaluate (evaluate, line 3)" in result.stdout
    assert "shared libraries: acme_policy" in result.stdout
    bad = write(tmp_path / "bad.py", "x = (\n")
    result = cli("check", str(bad))
    assert result.returncode == 1 and "syntax error" in result.stderr


@pytest.mark.skipif(not DEBIAN_PYTHON.exists(), reason="Debian's python3.11 is not installed")
def test_runs_on_debian_python(files):
    evaluator, span = files
    result = cli("run", str(evaluator), "--span", str(span), "--json", python=str(DEBIAN_PYTHON))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)[0]["value"] == 3


def test_readme_example_runs_as_shown(tmp_path):
    readme = (LIB / "README.md").read_text(encoding="utf-8")
    blocks = readme.split("```")
    code = next(b for b in blocks if b.startswith("python\n# my_evaluator.py"))[len("python\n"):]
    span = next(b for b in blocks if b.startswith("json\n"))[len("json\n"):]
    table = next(b for b in blocks if b.startswith("\nname "))[1:]
    write(tmp_path / "my_evaluator.py", code)
    (tmp_path / "span.json").write_text(span, encoding="utf-8")
    result = cli("run", "my_evaluator.py", "--span", "span.json", "--params", '{"max_words": 100}', cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == table
    test_code = next(b for b in blocks if b.startswith("python\n# test_my_evaluator.py"))[len("python\n"):]
    write(tmp_path / "test_my_evaluator.py", test_code)
    env = dict(os.environ, PYTHONPATH=str(LIB))
    pytest_run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_my_evaluator.py"],
        capture_output=True, text=True, cwd=str(tmp_path), env=env, timeout=120,
    )
    assert pytest_run.returncode == 0, pytest_run.stdout + pytest_run.stderr


# ---------------------------------------------------------------- template.yaml beside the evaluator

KEYWORD_FOLDER_CODE = """
from oodle_eval.v1 import metrics


def evaluate(ctx):
    return EvaluationResult(scores=metrics.keyword_check(ctx, required=ctx.params["required"], mode=ctx.params["mode"]))
"""

# What `oodle genai templates pull` writes for the keyword-check starter (settings with defaults).
KEYWORD_MANIFEST = """
name: Keyword check
settings:
  - name: required
    type: string_list
    default: []
  - name: mode
    type: enum
    default: all
    options: [all, any]
  - name: note
    type: string
libraryPins: {}
"""


def test_run_reads_template_yaml_defaults(tmp_path):
    evaluator = write(tmp_path / "evaluate.py", KEYWORD_FOLDER_CODE)
    write(tmp_path / "template.yaml", KEYWORD_MANIFEST)
    span = tmp_path / "span.json"
    span.write_text(json.dumps({"output": "We will refund you."}))
    # `mode` is not given: its default "all" is used, as `oodle genai templates test` does.
    result = cli("run", str(evaluator), "--span", str(span), "--params", '{"required": ["refund", "return"]}', "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)[0]["value"] is False  # "all": "return" is missing
    anyone = cli("run", str(evaluator), "--span", str(span), "--params", '{"required": ["refund", "return"], "mode": "any"}', "--json")
    assert json.loads(anyone.stdout)[0]["value"] is True
    # ctx.params holds every declared setting (a setting with no default is None).
    show = write(tmp_path / "show.py", "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='p', value=json.dumps(ctx.params, sort_keys=True))])\nimport json\n")
    shown = cli("run", str(show), "--json")
    assert json.loads(json.loads(shown.stdout)[0]["value"]) == {"mode": "all", "note": None, "required": []}
    # An undeclared name is refused, naming it; --no-template runs with exactly what is given (KeyError).
    unknown = cli("run", str(evaluator), "--params", '{"requird": ["x"]}')
    assert unknown.returncode == 2 and "params.requird: template.yaml declares no setting 'requird'" in unknown.stderr
    bare = cli("run", str(evaluator), "--params", '{"required": ["x"]}', "--no-template")
    assert bare.returncode == 1 and "KeyError: 'mode'" in bare.stderr


def test_run_template_yaml_required_setting_without_default(tmp_path):
    evaluator = write(tmp_path / "evaluate.py", "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='at', value=ctx.params['at'])])\n")
    write(tmp_path / "template.yaml", "name: T\nsettings:\n  - {name: at, type: number, required: true}\n")
    missing = cli("run", str(evaluator))
    assert missing.returncode == 2 and "params.at: is required by template.yaml" in missing.stderr
    given = cli("run", str(evaluator), "--params", '{"at": 0.7}', "--json")
    assert json.loads(given.stdout)[0]["value"] == 0.7


# ../shared beside the repository (the data of the trial).
TAU_LINES = Path(__file__).resolve().parents[3] / "shared" / "data" / "tau-bench-airline" / "items.jsonl"

TRAJECTORY = """
from oodle_eval.v1 import metrics
import json
def evaluate(ctx):
    seen = {"attributes": ctx.attributes, "metadata_keys": sorted(ctx.metadata), "expected": ctx.expected_output,
            "spans": [(s.name, s.kind, s.input) for s in ctx.trace.spans]}
    return EvaluationResult(scores=[*metrics.tool_trajectory(ctx, expected=ctx.metadata["expected_tool_calls"]),
                                    Score(name="seen", value=json.dumps(seen, sort_keys=True))])
"""


def test_items_jsonl_line_is_mapped_as_dataset_import_maps_it(tmp_path):
    evaluator = write(tmp_path / "evaluate.py", TRAJECTORY)
    line = {
        "id": "t1",
        "input": "book me a flight",
        "output": "done",
        "expected_output": "booked",
        "context": "policy text",
        "tool_calls": [{"name": "search", "arguments": {"to": "SEA"}}, {"name": "book", "arguments": "{\"id\": 7}"}],
        "expected_tool_calls": [{"name": "search", "arguments": {"to": "SEA"}}, {"name": "cancel", "arguments": {}}],
        "metadata": {"task": 3},
    }
    span = tmp_path / "line.json"
    span.write_text(json.dumps(line))
    result = cli("run", str(evaluator), "--span", str(span), "--json")
    assert result.returncode == 0, result.stderr
    match, seen = json.loads(result.stdout)
    assert match["name"] == "trajectory_match" and match["value"] is False  # book != cancel at position 2
    assert json.loads(seen["value"]) == {
        "attributes": {"context": "policy text"},
        "metadata_keys": ["expected_tool_calls", "task"],
        "expected": "booked",
        "spans": [["search", "tool", {"to": "SEA"}], ["book", "tool", "{\"id\": 7}"]],
    }
    # The same calls expected: a match (and the item's own expected_tool_calls in metadata win).
    line["metadata"] = {"expected_tool_calls": [{"name": "search", "arguments": {"to": "SEA"}}, {"name": "book", "arguments": {"id": 7}}]}
    span.write_text(json.dumps(line))
    result = cli("run", str(evaluator), "--span", str(span), "--json")
    assert json.loads(result.stdout)[0]["value"] is True, result.stdout


@pytest.mark.skipif(not TAU_LINES.is_file(), reason="shared/data is not beside the repository")
def test_tau_bench_airline_line_as_the_service_scores_it(tmp_path):
    # Line 2 of tau-bench-airline: the agent made no tool call after the first, so the service's
    # experiment and tryCode give trajectory_match False (the trial's finding: local gave True).
    evaluator = write(tmp_path / "evaluate.py", TRAJECTORY)
    span = tmp_path / "tau_1.json"
    span.write_text(TAU_LINES.read_text(encoding="utf-8").splitlines()[1])
    result = cli("run", str(evaluator), "--span", str(span), "--json")
    assert result.returncode == 0, result.stderr
    match = json.loads(result.stdout)[0]
    assert match["value"] is False
    assert "expected cancel_reservation" in match["comment"]


@pytest.mark.parametrize(
    "document, problems",
    [
        ({"output": "hi", "foo": 1, "expected_outptu": "x"}, ["document: unknown key(s) foo, expected_outptu (the sample document takes"]),
        (
            {"id": 1, "foo": 2, "tool_calls": [{"arguments": 1}, {"name": ""}], "expected_tool_calls": {}, "metadata": []},
            [
                "document: unknown key(s) foo (an items.jsonl line takes",
                "document.tool_calls[0].name: must be a string",
                "document.tool_calls[1].name: must not be empty",
                "document.expected_tool_calls: must be a list",
                "document.metadata: must be an object",
            ],
        ),
        (
            {"context": "c", "trace": [{"name": 1, "kind": 2, "attributes": [], "start_time": True}]},
            [
                "document.trace[0].name: must be a string",
                "document.trace[0].kind: must be a string",
                "document.trace[0].attributes: must be an object",
                "document.trace[0].start_time: must be a string or a number",
            ],
        ),
        ({"attributes": [], "trace": {"spanz": []}, "scores": {"A": 1}}, ["document.attributes: must be an object", 'document.trace: must be {"spans": [...]}', "document.scores.A: must be an object"]),
    ],
)
def test_bad_document_lists_every_problem_and_exits_2(files, tmp_path, document, problems):
    evaluator, _ = files
    span = tmp_path / "bad.json"
    span.write_text(json.dumps(document))
    result = cli("run", str(evaluator), "--span", str(span))
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == len(problems), result.stderr
    for line, problem in zip(errors, problems):
        assert f"{span}: {problem}" in line


def test_nan_score_is_invalid_result_without_a_traceback(tmp_path):
    evaluator = write(tmp_path / "nan.py", "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='x', value=float('nan'))])\n")
    result = cli("run", str(evaluator))
    assert result.returncode == 1
    assert result.stderr == "invalid_result: ScoreError: score 'x': NUMERIC value must be finite, got nan\n"


NUMPY_SCORES = """
import numpy as np
from decimal import Decimal

def evaluate(ctx):
    return EvaluationResult(scores=[
        Score(name="count", value=np.int64(3)),
        Score(name="ok", value=np.bool_(True)),
        Score(name="price", value=Decimal("19.99")),
        Score(name="ratio", value=np.float64(0.25)),
    ])
"""


@pytest.mark.parametrize("python", [sys.executable, str(DEBIAN_PYTHON)], ids=["pytest-python", "debian-python"])
def test_run_prints_numpy_and_decimal_scores_as_plain_values(tmp_path, python):
    if not Path(python).exists():
        pytest.skip(f"{python} is not installed")
    evaluator = write(tmp_path / "np_scores.py", NUMPY_SCORES)
    result = cli("run", str(evaluator), "--json", python=python)
    assert result.returncode == 0, result.stderr
    assert [(s["name"], s["value"], s["data_type"]) for s in json.loads(result.stdout)] == [
        ("count", 3, "NUMERIC"), ("ok", True, "BOOLEAN"), ("price", 19.99, "NUMERIC"), ("ratio", 0.25, "NUMERIC"),
    ]
    refused = write(tmp_path / "np_array.py", "import numpy as np\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='v', value=np.array([1, 2]))])\n")
    result = cli("run", str(refused), python=python)
    assert result.returncode == 1
    assert result.stderr == (
        "invalid_result: ScoreError: score 'v': NUMERIC value must be one number, got a numpy.ndarray of shape (2,): "
        "reduce it (float(a.mean())) or write one score per element\n"
    )


def test_user_error_traceback_holds_only_the_users_frames(tmp_path):
    evaluator = write(tmp_path / "boom.py", "def helper():\n    raise RuntimeError('kaput')\n\ndef evaluate(ctx):\n    helper()\n")
    result = cli("run", str(evaluator))
    assert result.returncode == 1
    frames = [line for line in result.stderr.splitlines() if line.lstrip().startswith("File ")]
    assert frames == [f'  File "{evaluator}", line 5, in evaluate', f'  File "{evaluator}", line 2, in helper']
    assert result.stderr.endswith("RuntimeError: kaput\n")


def test_bad_params_list_every_problem(tmp_path):
    evaluator = write(tmp_path / "evaluate.py", KEYWORD_FOLDER_CODE)
    write(tmp_path / "template.yaml", "name: T\nsettings:\n  - {name: at, type: number, required: true}\n  - {name: mode, type: enum, options: [all, any], default: all}\n  - {name: n, type: integer, default: 1}\n")
    result = cli("run", str(evaluator), "--params", '{"mode": "some", "n": 1.5, "typo": 1, "gone": null}')
    assert result.returncode == 2
    errors = [line.split(": error: ", 1)[1] for line in result.stderr.splitlines() if ": error: " in line]
    assert errors == [
        "params.mode: setting 'mode' (enum): the value must be one of the options: \"all\", \"any\"",
        "params.n: setting 'n' (integer): the value must be a whole number (an integer between -(2^53-1) and 2^53-1)",
        "params.typo: template.yaml declares no setting 'typo' (it declares at, mode, n)",
        "params.at: is required by template.yaml and has no default: give it with --params",
    ]


@pytest.mark.parametrize(
    "score, message",
    [
        ("Score(name='c', value='x' * 1001)", 'score "c" value: must be at most 1000 characters (got 1001)'),
        ("Score(name='c', value='😀' * 501)", 'score "c" value: must be at most 1000 characters (got 1002)'),  # UTF-16 units, as the service counts
        ("Score(name='c', value=1, comment='y' * 10001)", 'score "c" comment: must be at most 10000 characters (got 10001)'),
        ("Score(name='c', value=1, metadata={'k': 'z' * 16380})", 'score "c" metadata: metadata must be at most 16384 bytes of JSON (got 16388)'),
    ],
)
def test_result_past_the_services_bounds_is_invalid_result(tmp_path, score, message):
    evaluator = write(tmp_path / "big.py", f"def evaluate(ctx):\n    return EvaluationResult(scores=[{score}])\n")
    result = cli("run", str(evaluator))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"invalid_result: InvalidResult: {message}\n"
    # Just inside the bound it runs.
    fits = write(tmp_path / "fits.py", "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='c', value='x' * 1000, metadata={'k': 'z' * 16376})])\n")
    assert cli("run", str(fits)).returncode == 0
