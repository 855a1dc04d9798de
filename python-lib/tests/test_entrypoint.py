"""detect_entry_point, imported_shared_libraries and run_entry_point (the three adapters)."""

from __future__ import annotations

import textwrap

import pytest

from oodle_eval.v1 import ScoreError, make_context
from oodle_eval.v1.entrypoint import (
    EntryPointError,
    detect_entry_point,
    imported_shared_libraries,
    load_evaluator,
    main_arguments,
    opik_fields,
    run_entry_point,
)

from conftest import chat, run_source, values


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# ================================================================ detection: accepted shapes


@pytest.mark.parametrize(
    "source",
    [
        "def evaluate(ctx):\n    pass\n",
        "def evaluate(ctx: 'Context') -> 'EvaluationResult':\n    pass\n",
        "def evaluate(ctx=None):\n    pass\n",
        "def evaluate(ctx, /):\n    pass\n",
        "import functools\n@functools.lru_cache\ndef evaluate(ctx):\n    pass\n",
    ],
)
def test_detect_evaluate(source):
    assert detect_entry_point(source) == {"kind": "evaluate", "name": "evaluate", "line": source.count("\n", 0, source.index("def evaluate")) + 1}


@pytest.mark.parametrize(
    "source",
    [
        "def main(input, output, context, full_history, generated_response, **kwargs):\n    return {}\n",
        "def main(input: dict, output: dict, context: dict, full_history: str, generated_response: str, **kwargs) -> dict:\n    return {}\n",
        "def main(input, output, context, full_history, generated_response, **kw):\n    return {}\n",
    ],
)
def test_detect_main(source):
    assert detect_entry_point(source)["kind"] == "main"


def test_detect_opik_by_attribute_and_by_name():
    by_attr = src(
        """
        from opik.evaluation.metrics import base_metric

        class Mine(base_metric.BaseMetric):
            def score(self, output, **kw):
                pass
        """
    )
    assert detect_entry_point(by_attr) == {"kind": "opik", "name": "Mine", "line": 3}
    by_name = "from opik.evaluation.metrics import BaseMetric\nclass A(BaseMetric):\n    def score(self, output):\n        pass\n"
    assert detect_entry_point(by_name)["name"] == "A"


def test_detect_priority_evaluate_then_main_then_opik():
    both = "def main(input, output, context, full_history, generated_response, **kwargs):\n    return {}\ndef evaluate(ctx):\n    pass\n"
    assert detect_entry_point(both)["kind"] == "evaluate"
    main_and_class = (
        "class M(BaseMetric):\n    def score(self, output):\n        pass\n"
        "def main(input, output, context, full_history, generated_response, **kwargs):\n    return {}\n"
    )
    assert detect_entry_point(main_and_class)["kind"] == "main"


def test_detect_last_definition_wins():
    source = "def evaluate(a, b):\n    pass\ndef evaluate(ctx):\n    pass\n"
    assert detect_entry_point(source)["line"] == 3


def test_detect_never_runs_code(tmp_path):
    marker = tmp_path / "ran"
    source = f"open({str(marker)!r}, 'w').write('x')\ndef evaluate(ctx):\n    pass\n"
    detect_entry_point(source)
    assert not marker.exists()


# ================================================================ detection: refusals


def refusal(source: str) -> EntryPointError:
    with pytest.raises(EntryPointError) as info:
        detect_entry_point(source)
    return info.value


def test_syntax_error_has_line_and_column():
    error = refusal("def evaluate(ctx):\n    return (1,\n\nx = = 2\n")
    assert error.line is not None and error.column is not None
    assert error.message.startswith("syntax error")
    error = refusal("x = 1\ny = = 2\n")
    assert (error.line, error.column) == (2, 5)
    assert "line 2, column 5" in str(error)
    assert error.to_dict() == {"message": error.message, "line": 2, "column": 5}


def test_indentation_error_is_a_syntax_error():
    error = refusal("def evaluate(ctx):\nreturn 1\n")
    assert error.line == 2 and "syntax error" in error.message


@pytest.mark.parametrize(
    "signature",
    ["()", "(ctx, other)", "(*args)", "(ctx, *args)", "(ctx, **kwargs)", "(ctx, *, extra=1)", "(ctx, other=1)"],
)
def test_evaluate_wrong_shape(signature):
    error = refusal(f"x = 1\n\ndef evaluate{signature}:\n    pass\n")
    assert "evaluate must take exactly one parameter" in error.message
    assert "def evaluate(ctx)" in error.message
    assert (error.line, error.column) == (3, 1)


def test_evaluate_async_refused():
    error = refusal("async def evaluate(ctx):\n    pass\n")
    assert "not async" in error.message and error.line == 1


def test_evaluate_not_a_def_refused():
    error = refusal("evaluate = lambda ctx: None\n")
    assert "top-level function" in error.message and error.line == 1


def test_nested_evaluate_is_not_an_entry_point():
    error = refusal("class X:\n    def evaluate(self, ctx):\n        pass\n")
    assert error.message.startswith("no entry point")
    assert error.line is None


@pytest.mark.parametrize(
    "signature, fragment",
    [
        ("(input, output, context, full_history, generated_response)", "add **kwargs"),
        ("(input, output, context, full_history, generated_response, participant_data, **kwargs)", "only"),
        ("(input, output, context, full_history, **kwargs)", "only"),
        ("(input, output, context, history, generated_response, **kwargs)", "parameter 4 should be 'full_history'"),
        ("(output, input, context, full_history, generated_response, **kwargs)", "parameter 1 should be 'input'"),
        ("(input, output, context, full_history, generated_response, *args, **kwargs)", "only"),
        ("(input, output, context, full_history, generated_response, *, session_state=None, **kwargs)", "only"),
        ("(*args, **kwargs)", "only"),
    ],
)
def test_main_wrong_shape(signature, fragment):
    error = refusal(f"def main{signature}:\n    return {{}}\n")
    assert "main(input, output, context, full_history, generated_response, **kwargs)" in error.message
    assert fragment in error.message
    assert (error.line, error.column) == (1, 1)


def test_main_async_refused():
    error = refusal("async def main(input, output, context, full_history, generated_response, **kwargs):\n    return {}\n")
    assert "not async" in error.message


def test_opik_class_without_score_refused():
    error = refusal("class M(BaseMetric):\n    pass\n")
    assert "defines no score()" in error.message and error.line == 1


def test_opik_class_needing_arguments_refused():
    error = refusal(
        src(
            """
            class M(BaseMetric):
                def __init__(self, threshold):
                    super().__init__()
                def score(self, output):
                    pass
            """
        )
    )
    assert "no arguments" in error.message and error.line == 2


def test_opik_class_with_defaulted_init_accepted():
    source = src(
        """
        class M(base_metric.BaseMetric):
            def __init__(self, name="m", *, track=True):
                super().__init__(name=name)
            def score(self, output):
                pass
        """
    )
    assert detect_entry_point(source)["kind"] == "opik"


def test_no_entry_point_message_says_what_is_expected():
    error = refusal("def helper(ctx):\n    pass\n")
    assert "evaluate(ctx)" in error.message
    assert "main(input, output, context, full_history, generated_response, **kwargs)" in error.message
    assert "BaseMetric" in error.message


def test_empty_source_has_no_entry_point():
    assert refusal("").message.startswith("no entry point")


# ================================================================ shared libraries


def test_imported_shared_libraries():
    source = src(
        """
        import json
        import shared.alpha
        import shared.beta.sub as b
        from shared.gamma import thing
        from shared import delta, epsilon as e
        from shared.alpha import again
        from sharedthing import nope
        from . import relative
        import shared

        def evaluate(ctx):
            from shared.zeta import late
        """
    )
    assert imported_shared_libraries(source) == ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]


def test_imported_shared_libraries_syntax_error():
    with pytest.raises(EntryPointError):
        imported_shared_libraries("import shared.x\nx = = 1")


# ================================================================ evaluate(ctx)


def test_evaluate_runs_with_injected_names():
    source = src(
        """
        def evaluate(ctx):
            return EvaluationResult(scores=[Score(name="n", value=len(ctx.params["word"]))])
        """
    )
    scores = run_source(source, {}, params={"word": "abc"})
    assert values(scores) == {"n": 3}
    assert scores["n"].data_type == "NUMERIC"


def test_evaluate_must_return_evaluation_result():
    with pytest.raises(TypeError, match="must return EvaluationResult, got dict"):
        run_source("def evaluate(ctx):\n    return {'a': 1}\n")
    with pytest.raises(TypeError, match="wrap the list"):
        run_source("def evaluate(ctx):\n    return [Score(name='a', value=1)]\n")


def test_evaluate_result_is_validated():
    with pytest.raises(ScoreError, match="appears twice"):
        run_source("def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='a', value=1), Score(name='a', value=2)])\n")
    with pytest.raises(ScoreError, match="'x'"):
        run_source("def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='x', value=float('nan'))])\n")
    with pytest.raises(ScoreError, match="'b'"):
        run_source("def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='b', value=1, data_type='BOOLEAN')])\n")


def test_evaluate_metadata_must_be_json():
    with pytest.raises(ScoreError, match="'m'.*JSON"):
        run_source("def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='m', value=1, metadata={'s': {1, 2}})])\n")
    with pytest.raises(ScoreError, match="'m'.*dict"):
        run_source("def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='m', value=1, metadata=[1])])\n")


def test_evaluate_tuple_of_scores_accepted():
    scores = run_source("def evaluate(ctx):\n    return EvaluationResult(scores=(Score(name='a', value=True),))\n")
    assert values(scores) == {"a": True}


def test_evaluate_exception_propagates():
    with pytest.raises(ZeroDivisionError):
        run_source("def evaluate(ctx):\n    return 1 / 0\n")


def test_run_without_kind_detects_from_namespace():
    namespace = load_evaluator("def evaluate(ctx):\n    return EvaluationResult(scores=[])\n", register=False)
    assert run_entry_point(namespace, make_context({})) == []
    with pytest.raises(EntryPointError):
        run_entry_point({"__name__": "x"}, make_context({}))


def test_load_evaluator_refuses_bad_shape_before_running(tmp_path):
    marker = tmp_path / "ran"
    with pytest.raises(EntryPointError):
        load_evaluator(f"open({str(marker)!r}, 'w')\ndef evaluate():\n    pass\n")
    assert not marker.exists()


# ================================================================ main adapter


CAPTURE_MAIN = src(
    """
    SEEN = {}

    def main(input, output, context, full_history, generated_response, **kwargs):
        SEEN.update(input=input, output=output, context=context, full_history=full_history,
                    generated_response=generated_response, kwargs=kwargs)
        return {"ok": True}
    """
)


def captured(document):
    namespace = load_evaluator(CAPTURE_MAIN, register=False)
    run_entry_point(namespace, make_context(document), kind="main")
    return namespace["SEEN"]


def test_main_receives_open_chat_studio_fields():
    document = {
        "input": [
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi there!"},
            {"role": "user", "content": [{"type": "text", "text": "What is "}, {"type": "text", "text": "2+2?"}]},
        ],
        "output": {"role": "assistant", "content": "The answer is 4."},
        "expected_output": "2+2 equals 4",
        "metadata": {
            "topic": "math",
            "participant_data": {"name": "Ada"},
            "session_state": {"step": 2},
        },
    }
    seen = captured(document)
    assert seen["input"] == {"content": "What is 2+2?", "role": "human"}
    assert seen["output"] == {"content": "2+2 equals 4", "role": "ai"}
    assert seen["context"] == document["metadata"]
    assert seen["full_history"] == "user: Hello\nassistant: Hi there!\nuser: What is 2+2?"
    assert seen["generated_response"] == "The answer is 4."
    assert seen["kwargs"] == {"participant_data": {"name": "Ada"}, "session_state": {"step": 2}}


def test_main_on_live_span_without_expected_output():
    seen = captured({"input": "hi", "output": "hello"})
    assert seen["output"] == {}  # Open Chat Studio's empty dict: no expected response
    assert seen["input"] == {"content": "hi", "role": "human"}
    assert seen["context"] == {}
    assert seen["full_history"] == "user: hi"
    assert seen["kwargs"] == {"participant_data": {}, "session_state": {}}


OCS_EXAMPLE = src(
    """
    def main(input: dict, output: dict, context: dict, full_history: str, generated_response: str, **kwargs) -> dict:
        expected_answer = output['content'].lower()
        actual_answer = generated_response.lower()
        return {'correct_answer': expected_answer in actual_answer}
    """
)


def test_main_without_expected_response_says_so_instead_of_a_bare_key_error():
    # Open Chat Studio's own example on a live span: output is the expected response, which the span lacks.
    with pytest.raises(KeyError) as caught:
        run_source(OCS_EXAMPLE, chat("What is 2+2?", "The answer is 4"))
    error = caught.value
    assert type(error).__name__ == "NoExpectedResponseError"
    message = str(error)
    assert message.startswith("output['content']: there is no expected response here.")
    assert "'oodle.expected_output'" in message
    assert "dataset item with expected_output" in message
    # The dict still behaves as Open Chat Studio's empty one for code that checks first.
    seen = captured({"input": "hi", "output": "hello"})
    assert seen["output"].get("content") is None and "content" not in seen["output"] and len(seen["output"]) == 0


def test_main_reads_the_expected_response_from_the_span_attribute():
    document = {**chat("What is 2+2?", "The answer is 4"), "attributes": {"oodle.expected_output": "4"}}
    scores = run_source(OCS_EXAMPLE, document)
    assert [(s.name, s.value) for s in scores] == [("correct_answer", True)]
    # A message with content works too; the document's own expected_output wins over the attribute.
    message = {**document, "attributes": {"oodle.expected_output": {"role": "assistant", "content": "5"}}}
    assert [s.value for s in run_source(OCS_EXAMPLE, message)] == [False]
    both = {**document, "expected_output": "answer is 4", "attributes": {"oodle.expected_output": "5"}}
    assert [s.value for s in run_source(OCS_EXAMPLE, both)] == [True]
    assert make_context(document).expected_output == "4"


def test_main_on_empty_document():
    seen = captured({})
    assert seen["input"] == {"content": "", "role": "human"}
    assert seen["generated_response"] == ""
    assert seen["full_history"] == ""


def test_main_expected_output_as_message():
    seen = captured({"expected_output": {"role": "assistant", "content": "four"}})
    assert seen["output"]["content"] == "four"


def test_main_dict_becomes_scores():
    source = src(
        """
        def main(input, output, context, full_history, generated_response, **kwargs):
            return {"correct": True, "length": 3, "ratio": 0.5, "topic": "math", "missing": None}
        """
    )
    scores = run_source(source, chat("q", "a"))
    assert [(s.name, s.value, s.data_type) for s in scores] == [
        ("correct", True, "BOOLEAN"),
        ("length", 3, "NUMERIC"),
        ("ratio", 0.5, "NUMERIC"),
        ("topic", "math", "CATEGORICAL"),
        ("missing", None, "NUMERIC"),
    ]
    assert all(s.higher_is_better for s in scores)


def test_main_non_dict_is_an_error():
    source = "def main(input, output, context, full_history, generated_response, **kwargs):\n    return [1]\n"
    with pytest.raises(TypeError, match="must return a dict"):
        run_source(source, chat("q", "a"))


def test_main_unsupported_value_is_an_error():
    source = "def main(input, output, context, full_history, generated_response, **kwargs):\n    return {'x': [1]}\n"
    with pytest.raises(TypeError, match="'x'"):
        run_source(source, chat("q", "a"))


def test_main_nan_is_a_score_error():
    source = "def main(input, output, context, full_history, generated_response, **kwargs):\n    return {'x': float('inf')}\n"
    with pytest.raises(ScoreError, match="'x'"):
        run_source(source, chat("q", "a"))


def test_main_arguments_helper_matches():
    ctx = make_context(chat("q", "a", expected_output="e"))
    args = main_arguments(ctx)
    assert set(args) == {"input", "output", "context", "full_history", "generated_response", "participant_data", "session_state"}


# ================================================================ Opik adapter


def test_opik_fields():
    ctx = make_context(
        {
            "input": [{"role": "system", "content": "sys"}, {"role": "user", "content": "q"}],
            "output": "a",
            "attributes": {"context": "retrieved text"},
            "expected_output": "e",
            "metadata": {"k": 1},
        }
    )
    fields = opik_fields(ctx)
    assert fields == {
        "conversation": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "a"},
        ],
        "input": "q",
        "output": "a",
        "context": ["retrieved text"],
        "expected_output": "e",
        "reference": "e",
        "metadata": {"k": 1},
    }
    empty = opik_fields(make_context({}))
    assert empty["input"] is None and empty["output"] is None and empty["context"] is None
    assert empty["expected_output"] is None and empty["conversation"] == []
    listed = opik_fields(make_context({"metadata": {"context": ["a", "b"]}}))
    assert listed["context"] == ["a", "b"]


def test_opik_score_gets_only_named_fields():
    source = src(
        """
        from opik.evaluation.metrics import base_metric, score_result

        class Echo(base_metric.BaseMetric):
            def score(self, output, reference=None):
                return score_result.ScoreResult(name="echo", value=1.0, reason=f"{output}|{reference}")
        """
    )
    scores = run_source(source, chat("q", "the reply", expected_output="exp"))
    assert scores["echo"].value == 1.0
    assert scores["echo"].comment == "the reply|exp"
    assert scores["echo"].data_type == "NUMERIC"
    live = run_source(source, chat("q", "r"))
    assert live["echo"].comment == "r|None"


def test_opik_score_with_kwargs_gets_every_field():
    source = src(
        """
        from opik.evaluation.metrics import base_metric, score_result

        class All(base_metric.BaseMetric):
            def score(self, **kwargs):
                return score_result.ScoreResult(name="keys", value=float(len(kwargs)),
                                                metadata={"keys": sorted(kwargs)})
        """
    )
    scores = run_source(source, chat("q", "a"))
    assert scores["keys"].value == 7.0
    assert scores["keys"].metadata["keys"] == sorted(
        ["conversation", "input", "output", "context", "expected_output", "reference", "metadata"]
    )


def test_opik_unknown_required_parameter():
    source = src(
        """
        from opik.evaluation.metrics import base_metric, score_result

        class Odd(base_metric.BaseMetric):
            def score(self, output, weird):
                return score_result.ScoreResult(name="x", value=1.0)
        """
    )
    with pytest.raises(TypeError, match="'weird'"):
        run_source(source, chat("q", "a"))


def test_opik_dropped_results_are_recorded():
    source = src(
        """
        from opik.evaluation.metrics import base_metric, score_result

        class Several(base_metric.BaseMetric):
            def __init__(self, name="several"):
                super().__init__(name=name)

            def score(self, output, **ignored):
                return [
                    score_result.ScoreResult(name="kept", value=0.25, reason="fine", metadata={"a": 1}),
                    score_result.ScoreResult(name="empty", value=None, reason="nothing to score"),
                    score_result.ScoreResult(name="failed", value=0.0, reason="judge timed out", scoring_failed=True),
                    score_result.ScoreResult(name="flag", value=True),
                ]
        """
    )
    notes: list[str] = []
    scores = run_source(source, chat("q", "a"), notes=notes)
    assert [(s.name, s.value) for s in scores] == [("kept", 0.25), ("flag", True)]
    assert scores["kept"].comment == "fine" and scores["kept"].metadata == {"a": 1}
    assert scores["flag"].data_type == "BOOLEAN"
    assert notes == [
        "dropped Opik result 'empty': no value: nothing to score",
        "dropped Opik result 'failed': scoring failed: judge timed out",
    ]
    # without a notes list the results are still dropped
    assert len(run_source(source, chat("q", "a"))) == 2


def test_opik_picks_the_class_defined_in_the_module_not_an_imported_one():
    source = src(
        """
        from opik.evaluation.metrics import Equals, RegexMatch, base_metric, score_result

        class Base(base_metric.BaseMetric):
            def helper(self):
                return 0.5

        class Mine(Base):
            def score(self, output, **kw):
                return score_result.ScoreResult(name=self.name, value=self.helper())
        """
    )
    scores = run_source(source, chat("q", "a"))
    assert values(scores) == {"Mine": 0.5}


def test_opik_constructor_with_no_arguments_uses_defaults():
    source = src(
        """
        from opik.evaluation.metrics import base_metric, score_result

        class Named(base_metric.BaseMetric):
            def __init__(self, name="my_metric", threshold=0.5):
                super().__init__(name=name)
                self.threshold = threshold

            def score(self, output, **kw):
                return score_result.ScoreResult(name=self.name, value=self.threshold)
        """
    )
    assert values(run_source(source, chat("q", "a"))) == {"my_metric": 0.5}


def test_opik_non_score_result_is_an_error():
    source = src(
        """
        from opik.evaluation.metrics import base_metric

        class Bad(base_metric.BaseMetric):
            def score(self, output, **kw):
                return 0.5
        """
    )
    with pytest.raises(TypeError, match="ScoreResult"):
        run_source(source, chat("q", "a"))


def test_opik_async_score():
    source = src(
        """
        from opik.evaluation.metrics import base_metric, score_result

        class Later(base_metric.BaseMetric):
            async def score(self, output, **kw):
                return score_result.ScoreResult(name="later", value=1.0)
        """
    )
    assert values(run_source(source, chat("q", "a"))) == {"later": 1.0}


def test_opik_duplicate_names_are_an_error():
    source = src(
        """
        from opik.evaluation.metrics import base_metric, score_result

        class Twice(base_metric.BaseMetric):
            def score(self, output, **kw):
                return [score_result.ScoreResult(name="x", value=1.0), score_result.ScoreResult(name="x", value=0.0)]
        """
    )
    with pytest.raises(ScoreError, match="twice"):
        run_source(source, chat("q", "a"))


def test_opik_shim_score_result_signature():
    from opik.evaluation.metrics import BaseMetric, ScoreResult

    result = ScoreResult("n", 0.5)
    assert (result.name, result.value, result.reason, result.metadata, result.scoring_failed) == ("n", 0.5, None, None, False)

    class Plain(BaseMetric):
        def score(self, **kw):
            return ScoreResult(name=self.name, value=1.0)

    assert Plain().name == "Plain"
    assert Plain(name="x").name == "x"
    with pytest.raises(ValueError):
        Plain(track=False, project_name="p")


def test_opik_shim_simple_heuristics():
    from opik.evaluation.metrics import Equals, RegexMatch

    assert Equals().score(output="Hello", reference="hello").value == 1.0
    assert Equals(case_sensitive=True).score(output="Hello", reference="hello").value == 0.0
    assert Equals().score(output="a", reference="b").name == "equals_metric"
    assert RegexMatch(r"\d{3}-\d{2}-\d{4}").score("My SSN is 123-45-6789").value == 1.0
    assert RegexMatch(r"\d{3}-\d{2}-\d{4}").score("My phone is 555-1234").value == 0.0


def test_opik_shim_heuristics_backed_by_checks():
    from opik.evaluation.metrics import Contains, IsJson, LevenshteinRatio, Tone
    from opik.exceptions import MetricComputationError

    # Opik's docstring examples
    assert LevenshteinRatio(case_sensitive=True).score("Hello, World!", "Hello, World").value == pytest.approx(0.96)
    assert LevenshteinRatio().score(output="ABC", reference="abc").value == 1.0
    assert LevenshteinRatio().score("a", "b").name == "levenshtein_ratio_metric"
    with pytest.raises(MetricComputationError):
        LevenshteinRatio().score(None, "x")
    assert Contains(reference="world").score("Hello, World!").value == 1.0
    assert Contains(reference="world").score("Hello, World!", reference="there").value == 0.0
    assert Contains(case_sensitive=True, reference="world").score("Hello, World!").value == 0.0
    with pytest.raises(ValueError, match="No reference"):
        Contains().score("Hello")
    with pytest.raises(ValueError, match="non-empty"):
        Contains(reference="").score("Hello")
    assert IsJson().score('{"key": "value"}').value == 1.0
    assert IsJson().score("Not a JSON string").value == 0.0
    assert IsJson().score("Not a JSON string").name == "is_json_metric"
    assert Tone(max_exclamations=2).score("THANK YOU for your patience!!!").value == 0.0
    calm = Tone().score("Thank you, I am glad to help.")
    assert (calm.value, calm.name, calm.reason) == (1.0, "tone_metric", "Tone is within configured guardrails")
    with pytest.raises(MetricComputationError):
        Tone().score("   ")


def test_opik_shim_conversation_degeneration():
    from opik.evaluation.metrics import ConversationDegenerationMetric

    conversation = [
        {"role": "user", "content": "Can you draft a short bio for Ada?"},
        {"role": "assistant", "content": "Sure, here is a short bio for Ada."},
        {"role": "user", "content": "Could you add more detail?"},
        {"role": "assistant", "content": "Sure, here is a short bio for Ada."},
    ]
    result = ConversationDegenerationMetric().score(conversation=conversation)
    # second turn: no repeated trigram, 8 distinct tokens (entropy 1), overlap 1.0, no phrase: 1/4
    assert result.name == "conversation_degeneration_metric"
    assert result.value == pytest.approx(0.25)
    assert result.metadata["peak_score"] == pytest.approx(0.25)
    assert ConversationDegenerationMetric(name="d").score(conversation=[]).value == 0.0
    with pytest.raises(NotImplementedError):
        ConversationDegenerationMetric(ngram_size=4)


def test_opik_class_detected_name_matches_runtime_choice():
    source = src(
        """
        from opik.evaluation.metrics import base_metric, score_result

        class Base(base_metric.BaseMetric):
            pass

        class Mine(Base):
            def score(self, output, **kw):
                return score_result.ScoreResult(name="m", value=1.0)
        """
    )
    assert detect_entry_point(source)["name"] == "Mine"
    assert values(run_source(source, chat("q", "a"))) == {"m": 1.0}


def test_main_with_positional_only_parameters():
    source = "def main(input, output, context, full_history, generated_response, /, **kwargs):\n    return {'n': len(kwargs)}\n"
    assert values(run_source(source, chat("q", "a"))) == {"n": 2}


def test_score_reads_finds_literal_names_only():
    from oodle_eval.v1.entrypoint import score_reads

    source = (
        "NAME = 'Computed'\n"
        "def evaluate(c):\n"
        "    a = c.score('Answer relevance', default=0.0)\n"
        "    b = ctx.score('PII leak', 'pii_free', default=True)\n"
        "    c.score(NAME)\n"
        "    other.score('Not a context')\n"
        "    return c.score(evaluator_name='Keyword', default=1) and c.score('PII leak')\n"
    )
    assert score_reads(source) == ["Answer relevance", "PII leak", "Keyword"]


# ================================================================ Opik conversation metrics (docs/sandbox.md § Entry points)

# Opik's own example (the docstring of ConversationThreadMetric in comet-ml/opik), without its prompts.
OPIK_THREAD_EXAMPLE = '''from opik.evaluation.metrics.conversation import conversation_thread_metric, types
from opik.evaluation.metrics import score_result
from typing import Any

class ConversationLengthMetric(conversation_thread_metric.ConversationThreadMetric):
    def __init__(self, name: str = "conversation_length_score"):
        super().__init__(name)

    def score(self, conversation: types.Conversation, **kwargs: Any):
        num_turns = sum(1 for msg in conversation if msg["role"] == "assistant")
        return score_result.ScoreResult(
            name=self.name,
            value=num_turns,
            reason=f"Conversation has {num_turns} turns"
        )
'''


def test_opik_conversation_thread_metric_is_an_entry_point():
    assert detect_entry_point(OPIK_THREAD_EXAMPLE) == {"kind": "opik", "name": "ConversationLengthMetric", "line": 5}
    by_name = src(
        """
        from opik.evaluation.metrics.conversation import ConversationThreadMetric
        class Turns(ConversationThreadMetric):
            def score(self, conversation, **kwargs):
                pass
        """
    )
    assert detect_entry_point(by_name)["name"] == "Turns"
    without_score = "from opik.evaluation.metrics.conversation import ConversationThreadMetric\nclass T(ConversationThreadMetric):\n    pass\n"
    with pytest.raises(EntryPointError, match="defines no score"):
        detect_entry_point(without_score)


def test_opik_conversation_thread_metric_runs_on_the_turns_with_opiks_role_names():
    # Two assistant turns; Open Chat Studio's "human"/"ai" roles are Opik's "user"/"assistant".
    document = {
        "input": [{"role": "human", "content": "hi"}, {"role": "ai", "content": "hello"}, {"role": "user", "content": "and?"}],
        "output": {"role": "assistant", "content": "that is all"},
    }
    scores = run_source(OPIK_THREAD_EXAMPLE, document)
    score = scores["conversation_length_score"]
    assert (score.value, score.comment, score.data_type, score.higher_is_better) == (2, "Conversation has 2 turns", "NUMERIC", True)


def test_opik_conversation_types_module():
    from opik.evaluation.metrics.conversation import types

    turn = types.ConversationTurn(input={"role": "user", "content": "Hello!"}, output={"role": "assistant", "content": "Hi"})
    assert turn.as_list() == [{"role": "user", "content": "Hello!"}, {"role": "assistant", "content": "Hi"}]
    assert types.ConversationTurn(input={"role": "user", "content": "x"}, output=None).as_list() == [{"role": "user", "content": "x"}]
    assert types.Conversation is not None and types.ConversationDict is not None


def test_opik_direction_from_the_result_then_the_metric_class():
    # A lower-is-better class of the user's own: its untagged results take its direction; a
    # shimmed metric's result keeps its own (degeneration lower, Equals higher).
    source = src(
        """
        from opik.evaluation.metrics import ConversationDegenerationMetric, Equals, base_metric, score_result

        class Risk(base_metric.BaseMetric):
            higher_is_better = False

            def score(self, conversation, output, **ignored):
                return [
                    score_result.ScoreResult(name="risk", value=0.1),
                    ConversationDegenerationMetric().score(conversation=conversation),
                    Equals().score(output=output, reference=output),
                ]
        """
    )
    scores = run_source(source, chat("q", "a fine reply"))
    assert {s.name: s.higher_is_better for s in scores} == {"risk": False, "conversation_degeneration_metric": False, "equals_metric": True}
