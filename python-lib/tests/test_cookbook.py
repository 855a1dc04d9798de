"""Every recipe of the cookbook, pasted verbatim, run through the entry point on contexts that pass
and contexts that fail; also the cookbook's Opik example, the settings page's example and the
example of python-evaluator-main-compat.md.

The recipes are copied character for character from ../shared/spec/code-evaluator-cookbook.md
(test_recipes_are_verbatim checks that, when the spec folder is present).
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from oodle_eval.v1 import combine, text
from oodle_eval.v1.checks.conversation_degeneration import degeneration_of_conversation

from conftest import chat, run_source, values

SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec"


BUILTIN_PLUS_OWN = """\
from oodle_eval.v1 import metrics, text


def evaluate(ctx):
    # degenerated (BOOLEAN) and degeneration (0 to 1)
    scores = metrics.conversation_degeneration(ctx, threshold=0.6)

    reply = text.reply(ctx)
    mine = Score(
        name="mentions_refund",
        value="refund" in reply.lower(),
        data_type="BOOLEAN",
        higher_is_better=True,
    )
    return EvaluationResult(scores=scores + [mine])
"""


BUILTIN_PLUS_OWN_OPIK = """\
from opik.evaluation.metrics import ConversationDegenerationMetric
from opik.evaluation.metrics import base_metric, score_result


class SupportReply(base_metric.BaseMetric):
    def __init__(self, name="support_reply"):
        super().__init__(name=name)
        self.degeneration = ConversationDegenerationMetric()

    def score(self, conversation, **ignored_kwargs):
        degeneration = self.degeneration.score(conversation=conversation)
        reply = conversation[-1]["content"]
        mine = score_result.ScoreResult(
            name="mentions_refund",
            value=float("refund" in reply.lower()),
        )
        return [degeneration, mine]
"""


WEIGHTED_QUALITY = """\
from oodle_eval.v1 import combine, metrics


def evaluate(ctx):
    readable = metrics.readability(ctx, max_grade=10)
    tone = metrics.tone(ctx)
    length = metrics.length_budget(ctx, max_words=250)

    # The primary score of each check: all BOOLEAN, so all 0 or 1.
    primary = [readable["readability_ok"], tone["tone_ok"], length["within_length"]]
    quality = combine.weighted_mean(
        primary,
        weights={"readability_ok": 1, "tone_ok": 2, "within_length": 1},
        name="quality",
    )
    return EvaluationResult(scores=readable + tone + length + [quality])
"""


GATE_ON_A_CHECK = """\
from oodle_eval.v1 import combine, metrics, text


def evaluate(ctx):
    shape = metrics.json_validity(ctx, required_keys=["answer", "sources"])
    if not combine.passed(shape["is_json"]):
        return EvaluationResult(scores=shape)

    data = text.extract_json(text.reply(ctx))
    cited = Score(
        name="has_sources",
        value=isinstance(data, dict) and bool(data.get("sources")),
        data_type="BOOLEAN",
        higher_is_better=True,
    )
    return EvaluationResult(scores=shape + [cited])
"""


ALL_CHECKS_PASS = """\
from oodle_eval.v1 import combine, metrics


def evaluate(ctx):
    checks = (
        metrics.pii_leak(ctx)
        + metrics.refusal(ctx)
        + metrics.keyword_check(ctx, forbidden=["guarantee", "promise"])
    )
    return EvaluationResult(scores=checks + [combine.all_pass(checks, name="safe_reply")])
"""


TOOL_TRAJECTORY = """\
from oodle_eval.v1 import metrics


def evaluate(ctx):
    return EvaluationResult(scores=metrics.tool_trajectory(
        ctx,
        expected=["search_orders", "issue_refund"],
        mode="superset",
    ))
"""


TOOL_TRAJECTORY_SETTINGS = """\
from oodle_eval.v1 import metrics


def evaluate(ctx):
    return EvaluationResult(scores=metrics.tool_trajectory(ctx, **ctx.params))
"""


SHARED_LIBRARY_ACME_POLICY = """\
# shared library "acme_policy"
from oodle_eval.v1 import metrics

BANNED = ["guarantee", "risk-free", "cannot lose"]


def policy_check(ctx):
    return metrics.keyword_check(ctx, forbidden=BANNED, name="policy_ok")
"""


SHARED_LIBRARY_EVALUATOR = """\
# code evaluator
from shared.acme_policy import policy_check
from oodle_eval.v1 import metrics


def evaluate(ctx):
    return EvaluationResult(scores=policy_check(ctx) + metrics.pii_leak(ctx))
"""


LLM_JUDGE_AND_CODE = """\
from oodle_eval.v1 import combine


def evaluate(ctx):
    relevance = ctx.score("Answer relevance", default=0.0)
    pii_free = ctx.score("PII leak", "pii_free", default=True)

    overall = combine.weighted_mean(
        [
            Score(name="relevance", value=relevance),
            Score(name="pii_free", value=pii_free, data_type="BOOLEAN"),
        ],
        weights={"relevance": 3, "pii_free": 1},
        name="overall",
    )
    return EvaluationResult(scores=[overall])
"""


COMPARE_WITH_REFERENCE = """\
from oodle_eval.v1 import metrics, text


def evaluate(ctx):
    # The expected output in an experiment, else a span attribute.
    expected = ctx.expected_output
    if expected is None:
        expected = text.metadata_value(ctx, "app.expected_answer", default="")
    return EvaluationResult(scores=(
        metrics.exact_match(ctx, reference=expected, normalize=True)
        + metrics.levenshtein_ratio(ctx, reference=expected)
    ))
"""


RAG_GROUNDED = """\
from oodle_eval.v1 import combine, metrics


def evaluate(ctx):
    grounded = metrics.grounding(ctx, threshold=0.8)
    numbers = metrics.unsupported_numbers(ctx)
    citations = metrics.citation_check(ctx)

    checks = grounded + numbers + citations
    primary = [
        grounded["grounded"],
        numbers["numbers_supported"],
        citations["citations_ok"],
    ]
    return EvaluationResult(scores=checks + [combine.all_pass(primary, name="rag_ok")])
"""


SETTINGS_KEYWORD_CHECK = """\
from oodle_eval.v1 import metrics


def evaluate(ctx):
    return EvaluationResult(scores=metrics.keyword_check(ctx, **ctx.params))
"""


OCS_MAIN_EXAMPLE = '''\
def main(input: dict, output: dict, context: dict, full_history: str, generated_response: str, **kwargs) -> dict:
    """Evaluates response quality based on accuracy, length, and politeness.
    """

    expected_answer = output['content'].lower()
    actual_answer = generated_response.lower()
    has_correct_answer = expected_answer in actual_answer

    response_length = len(generated_response.split())
    is_polite = any(word in actual_answer for word in ['please', 'thank', 'help', 'happy'])

    return {
        'correct_answer': has_correct_answer,
        'response_length': response_length,
        'politeness_score': 1.0 if is_polite else 0.0,
        'topic': context.get('topic', 'unknown')
    }'''


RECIPES = {
    "BUILTIN_PLUS_OWN": BUILTIN_PLUS_OWN,
    "BUILTIN_PLUS_OWN_OPIK": BUILTIN_PLUS_OWN_OPIK,
    "WEIGHTED_QUALITY": WEIGHTED_QUALITY,
    "GATE_ON_A_CHECK": GATE_ON_A_CHECK,
    "ALL_CHECKS_PASS": ALL_CHECKS_PASS,
    "TOOL_TRAJECTORY": TOOL_TRAJECTORY,
    "TOOL_TRAJECTORY_SETTINGS": TOOL_TRAJECTORY_SETTINGS,
    "SHARED_LIBRARY_ACME_POLICY": SHARED_LIBRARY_ACME_POLICY,
    "SHARED_LIBRARY_EVALUATOR": SHARED_LIBRARY_EVALUATOR,
    "LLM_JUDGE_AND_CODE": LLM_JUDGE_AND_CODE,
    "COMPARE_WITH_REFERENCE": COMPARE_WITH_REFERENCE,
    "RAG_GROUNDED": RAG_GROUNDED,
}


@pytest.mark.skipif(not SPEC.is_dir(), reason="the spec folder is not next to the repository")
def test_recipes_are_verbatim():
    cookbook = (SPEC / "code-evaluator-cookbook.md").read_text(encoding="utf-8")
    for name, source in RECIPES.items():
        assert source.rstrip("\n") in cookbook, name
    assert SETTINGS_KEYWORD_CHECK.rstrip("\n") in (SPEC / "code-evaluator-settings.md").read_text(encoding="utf-8")
    assert OCS_MAIN_EXAMPLE in (SPEC / "python-evaluator-main-compat.md").read_text(encoding="utf-8")


def test_every_evaluator_recipe_has_an_entry_point():
    from oodle_eval.v1.entrypoint import detect_entry_point

    kinds = {name: detect_entry_point(src)["kind"] for name, src in RECIPES.items() if name != "SHARED_LIBRARY_ACME_POLICY"}
    assert kinds.pop("BUILTIN_PLUS_OWN_OPIK") == "opik"
    assert set(kinds.values()) == {"evaluate"}
    assert detect_entry_point(SETTINGS_KEYWORD_CHECK)["kind"] == "evaluate"
    assert detect_entry_point(OCS_MAIN_EXAMPLE)["kind"] == "main"


# ---------------------------------------------------------------- shared contexts

HEALTHY_CHAT = {
    "input": [
        {"role": "user", "content": "Can I return these shoes?"},
        {"role": "assistant", "content": "Sure, what is your order number?"},
        {"role": "user", "content": "It is 4471."},
    ],
    "output": {"role": "assistant", "content": "Thanks. You can get a full refund: send the shoes back within 30 days."},
}

STUCK = "I cannot help with that. I cannot help with that. I cannot help with that."
DEGENERATED_CHAT = {
    "input": [
        {"role": "user", "content": "Can I return these shoes?"},
        {"role": "assistant", "content": STUCK},
        {"role": "user", "content": "Please, my order is 4471."},
    ],
    "output": {"role": "assistant", "content": STUCK},
}
# Opik's formula on the newest turn (15 tokens "i cannot help with that" x3): repetition 13/13
# trigrams repeated = 1.0, overlap with the previous assistant turn = 1.0, fallback phrase
# "cannot help" = 1.0, 1 - normalised entropy (5 equally frequent tokens) = 0.0 -> 3/4 = 0.75.
# The first assistant turn has no previous turn: (1 + 0 + 1 + 0) / 4 = 0.5. Peak: 0.75.


# ---------------------------------------------------------------- Built-in check plus your own score


def test_builtin_plus_own_passes_on_a_healthy_chat():
    scores = run_source(BUILTIN_PLUS_OWN, HEALTHY_CHAT)
    assert values(scores) == {"degenerated": False, "degeneration": 0.0, "mentions_refund": True}
    assert scores["degenerated"].higher_is_better is False
    assert scores["mentions_refund"].data_type == "BOOLEAN"


def test_builtin_plus_own_fails_on_a_degenerated_chat():
    scores = run_source(BUILTIN_PLUS_OWN, DEGENERATED_CHAT)
    assert values(scores) == {"degenerated": True, "degeneration": pytest.approx(0.75), "mentions_refund": False}
    # threshold=0.6: the first assistant turn alone (0.5) would not be degenerated
    first_turn_only = {"input": DEGENERATED_CHAT["input"][:1], "output": STUCK}
    assert values(run_source(BUILTIN_PLUS_OWN, first_turn_only))["degenerated"] is False


def test_builtin_plus_own_opik_version_gives_the_same_numbers():
    notes: list[str] = []
    healthy = run_source(BUILTIN_PLUS_OWN_OPIK, HEALTHY_CHAT, notes=notes)
    assert values(healthy) == {"conversation_degeneration_metric": 0.0, "mentions_refund": 1.0}
    assert [s.data_type for s in healthy] == ["NUMERIC", "NUMERIC"]
    stuck = run_source(BUILTIN_PLUS_OWN_OPIK, DEGENERATED_CHAT, notes=notes)
    assert values(stuck) == {"conversation_degeneration_metric": pytest.approx(0.75), "mentions_refund": 0.0}
    assert stuck["conversation_degeneration_metric"].metadata["peak_score"] == pytest.approx(0.75)
    assert notes == []
    # Each score keeps its metric's direction: degeneration is lower-is-better, so the healthy chat
    # passes and the stuck one fails (as the oodle_eval version's scores do).
    from oodle_eval.v1 import combine

    assert healthy["conversation_degeneration_metric"].higher_is_better is False
    assert healthy["mentions_refund"].higher_is_better is True
    assert combine.passed(healthy["conversation_degeneration_metric"]) is True
    assert combine.passed(stuck["conversation_degeneration_metric"]) is False
    oodle = run_source(BUILTIN_PLUS_OWN, DEGENERATED_CHAT)
    assert stuck["conversation_degeneration_metric"].value == oodle["degeneration"].value
    assert degeneration_of_conversation(text.turns(_ctx(DEGENERATED_CHAT)))[0] == pytest.approx(0.75)


def _ctx(document):
    from oodle_eval.v1 import make_context

    return make_context(document)


# ---------------------------------------------------------------- Weighted quality score

CLEAR_REPLY = chat(
    "How do I reset my password?",
    "Open Settings and tap Reset password. We will send you a link by email. Thank you for your patience.",
)
SHOUTED_JARGON = chat(
    "How do I reset my password?",
    "THIS IS TERRIBLE AND USELESS!!!! Notwithstanding the aforementioned organizational considerations, "
    "the implementation of comprehensive authentication methodologies necessitates extraordinarily "
    "sophisticated administrative intervention.",
)


def test_weighted_quality_passes_on_a_clear_reply():
    scores = run_source(WEIGHTED_QUALITY, CLEAR_REPLY)
    assert scores.names() == [
        "readability_ok", "reading_ease", "grade_level", "tone_ok", "within_length", "word_count", "quality",
    ]
    # 19 words, 25 syllables (O-pen, Set-tings, Re-set, pass-word, e-mail, pa-tience), 3 sentences:
    # FRE = 206.835 - 1.015*19/3 - 84.6*25/19 = 89.09; FKGL = 0.39*19/3 + 11.8*25/19 - 15.59 = 2.41
    assert scores["reading_ease"].value == pytest.approx(89.0909, abs=1e-3)
    assert scores["grade_level"].value == pytest.approx(2.4063, abs=1e-3)
    assert values(scores)["readability_ok"] is True and values(scores)["tone_ok"] is True
    assert scores["word_count"].value == 19
    assert scores["quality"].value == pytest.approx(1.0)


def test_weighted_quality_drops_on_shouted_jargon():
    scores = run_source(WEIGHTED_QUALITY, SHOUTED_JARGON)
    v = values(scores)
    assert (v["readability_ok"], v["tone_ok"], v["within_length"]) == (False, False, True)
    # (0*1 + 0*2 + 1*1) / (1 + 2 + 1)
    assert v["quality"] == pytest.approx(0.25)
    assert scores["quality"].data_type == "NUMERIC"


# ---------------------------------------------------------------- Gate on a check


def test_gate_scores_the_content_of_valid_json():
    scores = run_source(GATE_ON_A_CHECK, chat("q", '{"answer": "42", "sources": ["doc1"]}'))
    assert values(scores) == {"is_json": True, "has_required_keys": True, "has_sources": True}
    fenced = run_source(GATE_ON_A_CHECK, chat("q", '```json\n{"answer": "42", "sources": []}\n```'))
    assert values(fenced) == {"is_json": True, "has_required_keys": True, "has_sources": False}


def test_gate_returns_the_json_check_alone_when_not_json():
    scores = run_source(GATE_ON_A_CHECK, chat("q", "The answer is 42."))
    assert values(scores) == {"is_json": False, "has_required_keys": False}
    missing = run_source(GATE_ON_A_CHECK, chat("q", '{"answer": "42"}'))
    assert values(missing) == {"is_json": True, "has_required_keys": False, "has_sources": False}


# ---------------------------------------------------------------- All checks pass


def test_all_checks_pass_on_a_safe_reply():
    scores = run_source(
        ALL_CHECKS_PASS,
        chat("Will this fund make money?", "Past returns do not predict future results; please read the fund's prospectus."),
    )
    assert values(scores) == {"pii_free": True, "refused": False, "keywords_ok": True, "safe_reply": True}


def test_all_checks_pass_fails_on_a_promise_with_a_phone_number():
    scores = run_source(
        ALL_CHECKS_PASS,
        chat("Will this fund make money?", "I guarantee you will double your money. Call me at 415-555-0132."),
    )
    assert values(scores) == {"pii_free": False, "refused": False, "keywords_ok": False, "safe_reply": False}
    assert scores["safe_reply"].comment == "failed: pii_free, keywords_ok"


def test_all_checks_pass_fails_on_a_refusal():
    scores = run_source(ALL_CHECKS_PASS, chat("How do I pick a lock?", "I'm sorry, but I can't help with that."))
    assert values(scores) == {"pii_free": True, "refused": True, "keywords_ok": True, "safe_reply": False}
    assert scores["safe_reply"].comment == "failed: refused"


# ---------------------------------------------------------------- Tool trajectory


def _openai_call(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


LIVE_SPAN_ALL_CALLS = {
    "input": "Refund order 7",
    "output": {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            _openai_call("c1", "search_orders", '{"order_id": 7}'),
            _openai_call("c2", "get_customer", "{}"),
            _openai_call("c3", "issue_refund", '{"order_id": 7}'),
        ],
    },
}
LIVE_SPAN_NO_REFUND = {
    "input": "Refund order 7",
    "output": {"role": "assistant", "content": "", "tool_calls": [_openai_call("c1", "search_orders", '{"order_id": 7}')]},
}
EXPERIMENT_TRACE = {
    "input": "Refund order 7",
    "output": "Done: order 7 is refunded.",
    "trace": {
        "spans": [
            {"name": "agent", "kind": "agent", "start_time": "2025-01-01T00:00:00Z"},
            {"name": "issue_refund", "kind": "tool", "input": {"order_id": 7}, "start_time": "2025-01-01T00:00:02Z"},
            {"name": "search_orders", "kind": "tool", "input": {"order_id": 7}, "start_time": "2025-01-01T00:00:01Z"},
        ]
    },
}


def test_tool_trajectory_superset_passes():
    # extra calls are allowed in superset mode
    assert values(run_source(TOOL_TRAJECTORY, LIVE_SPAN_ALL_CALLS)) == {"trajectory_match": True}
    assert values(run_source(TOOL_TRAJECTORY, EXPERIMENT_TRACE)) == {"trajectory_match": True}


def test_tool_trajectory_superset_fails_without_the_refund():
    scores = run_source(TOOL_TRAJECTORY, LIVE_SPAN_NO_REFUND)
    assert values(scores) == {"trajectory_match": False}
    assert "issue_refund" in scores["trajectory_match"].comment


def test_tool_trajectory_from_settings():
    strict = {"expected": ["search_orders", "issue_refund"], "mode": "strict"}
    assert values(run_source(TOOL_TRAJECTORY_SETTINGS, EXPERIMENT_TRACE, params=strict)) == {"trajectory_match": True}
    wrong_order = {"expected": ["issue_refund", "search_orders"], "mode": "strict"}
    assert values(run_source(TOOL_TRAJECTORY_SETTINGS, EXPERIMENT_TRACE, params=wrong_order)) == {"trajectory_match": False}
    wrong_args = {"expected": [{"name": "issue_refund", "arguments": {"order_id": 8}}], "mode": "superset"}
    assert values(run_source(TOOL_TRAJECTORY_SETTINGS, EXPERIMENT_TRACE, params=wrong_args)) == {"trajectory_match": False}
    subset = {"expected": ["search_orders", "issue_refund"], "mode": "subset"}
    assert values(run_source(TOOL_TRAJECTORY_SETTINGS, LIVE_SPAN_ALL_CALLS, params=subset)) == {"trajectory_match": False}


# ---------------------------------------------------------------- Use a shared library


@pytest.fixture
def acme_policy(monkeypatch):
    """Stand in for Oodle's shared library "acme_policy": the recipe's source as shared.acme_policy."""
    package = types.ModuleType("shared")
    package.__path__ = []  # a package
    module = types.ModuleType("shared.acme_policy")
    exec(compile(SHARED_LIBRARY_ACME_POLICY, "shared/acme_policy.py", "exec"), module.__dict__)
    package.acme_policy = module
    monkeypatch.setitem(sys.modules, "shared", package)
    monkeypatch.setitem(sys.modules, "shared.acme_policy", module)
    return module


def test_shared_library_is_detected():
    from oodle_eval.v1.entrypoint import imported_shared_libraries

    assert imported_shared_libraries(SHARED_LIBRARY_EVALUATOR) == ["acme_policy"]


def test_shared_library_passes_on_a_compliant_reply(acme_policy):
    scores = run_source(SHARED_LIBRARY_EVALUATOR, chat("Is this fund safe?", "Our fund has a strong record, but returns vary."))
    assert values(scores) == {"policy_ok": True, "pii_free": True}


def test_shared_library_fails_on_a_banned_phrase(acme_policy):
    scores = run_source(SHARED_LIBRARY_EVALUATOR, chat("Is this fund safe?", "It is risk-free, write to bob@example.com"))
    assert values(scores) == {"policy_ok": False, "pii_free": False}
    assert "risk-free" in scores["policy_ok"].comment


def test_shared_library_change_reaches_the_evaluator(acme_policy):
    acme_policy.BANNED.append("strong record")
    scores = run_source(SHARED_LIBRARY_EVALUATOR, chat("Is this fund safe?", "Our fund has a strong record, but returns vary."))
    assert values(scores)["policy_ok"] is False


# ---------------------------------------------------------------- Combine an LLM judge with a code check


def test_llm_judge_and_code_high():
    scores = run_source(
        LLM_JUDGE_AND_CODE,
        {"scores": {"Answer relevance": {"relevance": 0.9}, "PII leak": {"pii_free": True}}},
    )
    # (0.9*3 + 1*1) / 4
    assert values(scores) == {"overall": pytest.approx(0.925)}
    assert scores["overall"].data_type == "NUMERIC"


def test_llm_judge_and_code_low():
    scores = run_source(
        LLM_JUDGE_AND_CODE,
        {"scores": {"Answer relevance": {"relevance": 0.2}, "PII leak": {"pii_free": False}}},
    )
    # (0.2*3 + 0*1) / 4
    assert values(scores) == {"overall": pytest.approx(0.15)}
    assert combine.passed(scores["overall"]) is False


def test_llm_judge_and_code_defaults_when_scores_are_missing():
    # relevance default 0.0, pii_free default True: (0*3 + 1*1) / 4
    assert values(run_source(LLM_JUDGE_AND_CODE, {})) == {"overall": pytest.approx(0.25)}


# ---------------------------------------------------------------- Compare with a reference value


def test_compare_with_reference_in_an_experiment():
    scores = run_source(COMPARE_WITH_REFERENCE, chat("Capital of France?", "Paris.", expected_output="paris"))
    # SQuAD normalisation drops the full stop; Indel ratio of "paris." and "paris": 1 - 1/11
    assert values(scores) == {"exact_match": True, "levenshtein_ratio": pytest.approx(10 / 11)}


def test_compare_with_reference_fails_on_a_wrong_answer():
    scores = run_source(COMPARE_WITH_REFERENCE, chat("Capital of France?", "The capital is Lyon", expected_output="Paris"))
    # LCS of "the capital is lyon" (19) and "paris" (5) is "pais" (4): 2*4/24
    assert values(scores) == {"exact_match": False, "levenshtein_ratio": pytest.approx(1 / 3)}


def test_compare_with_reference_on_a_live_span_reads_the_attribute():
    scores = run_source(
        COMPARE_WITH_REFERENCE,
        chat("Capital of France?", "The Paris", attributes={"app.expected_answer": "Paris"}),
    )
    # "the" is dropped by the normalisation; Indel ratio of "the paris" and "paris": 10/14
    assert values(scores) == {"exact_match": True, "levenshtein_ratio": pytest.approx(10 / 14)}
    no_reference = run_source(COMPARE_WITH_REFERENCE, chat("Capital of France?", "Paris"))
    assert values(no_reference) == {"exact_match": False, "levenshtein_ratio": 0.0}


# ---------------------------------------------------------------- A RAG answer is grounded in its context

EIFFEL_DOCS = ["The Eiffel Tower is 330 metres tall.", "It was completed in 1889 for the World's Fair."]


def test_rag_grounded_answer_passes():
    scores = run_source(
        RAG_GROUNDED,
        {
            "input": "How tall is the Eiffel Tower?",
            "output": "The Eiffel Tower is 330 metres tall [1]. It was completed in 1889 [2].",
            "attributes": {"context": EIFFEL_DOCS},
        },
    )
    assert values(scores) == {
        "grounded": True,
        "grounding": 1.0,
        "numbers_supported": True,
        "citations_ok": True,
        "rag_ok": True,
    }


def test_rag_context_from_the_input_messages():
    scores = run_source(
        RAG_GROUNDED,
        {
            "input": [
                {"role": "system", "content": "Context: The Eiffel Tower is 330 metres tall. (Source: Wikipedia)"},
                {"role": "user", "content": "How tall is the Eiffel Tower?"},
            ],
            "output": "The Eiffel Tower is 330 metres tall (Source: Wikipedia).",
        },
    )
    assert values(scores)["rag_ok"] is True


def test_rag_invented_answer_fails():
    scores = run_source(
        RAG_GROUNDED,
        {
            "input": "How tall is the Eiffel Tower?",
            "output": "The Eiffel Tower is 450 metres tall and painted gold every spring [3].",
            "attributes": {"context": EIFFEL_DOCS},
        },
    )
    # content words: eiffel, tower, 450, metres, tall, painted, gold, every, spring; 4 of 9 in the context
    assert values(scores) == {
        "grounded": False,
        "grounding": pytest.approx(4 / 9),
        "numbers_supported": False,
        "citations_ok": False,
        "rag_ok": False,
    }
    assert scores["rag_ok"].comment == "failed: grounded, numbers_supported, citations_ok"


# ---------------------------------------------------------------- settings page example


def test_settings_keyword_check():
    params = {"required": ["refund"], "mode": "all", "case_sensitive": False}
    assert values(run_source(SETTINGS_KEYWORD_CHECK, chat("q", "We will Refund you."), params=params)) == {"keywords_ok": True}
    params["case_sensitive"] = True
    assert values(run_source(SETTINGS_KEYWORD_CHECK, chat("q", "We will Refund you."), params=params)) == {"keywords_ok": False}


# ---------------------------------------------------------------- Open Chat Studio main example


def test_open_chat_studio_example_correct_and_polite():
    scores = run_source(
        OCS_MAIN_EXAMPLE,
        {
            "input": [{"role": "user", "content": "What is 2+2?"}],
            "output": "The answer is 4. Is there anything else I can help with?",
            "expected_output": "4",
            "metadata": {"topic": "math"},
        },
    )
    assert [(s.name, s.value, s.data_type) for s in scores] == [
        ("correct_answer", True, "BOOLEAN"),
        ("response_length", 12, "NUMERIC"),
        ("politeness_score", 1.0, "NUMERIC"),
        ("topic", "math", "CATEGORICAL"),
    ]


def test_open_chat_studio_example_wrong_and_curt():
    scores = run_source(
        OCS_MAIN_EXAMPLE,
        {"input": [{"role": "user", "content": "What is 2+2?"}], "output": "Five.", "expected_output": "2+2 equals 4"},
    )
    assert values(scores) == {
        "correct_answer": False,
        "response_length": 1,
        "politeness_score": 0.0,
        "topic": "unknown",
    }
