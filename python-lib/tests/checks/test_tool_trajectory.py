"""Tests of tool_trajectory."""

from __future__ import annotations

import pytest

from oodle_eval.v1 import make_context
from oodle_eval.v1.checks.tool_trajectory import json_equal, tool_trajectory

from _support import valid


def tool_span(name, start, args=None, **extra):
    span = {"name": name, "kind": "tool", "start_time": start, "end_time": start, "input": args}
    span.update(extra)
    return span


def trace_ctx(*spans, output="done"):
    return make_context({"output": output, "trace": {"spans": list(spans)}})


def calls_ctx(*calls):
    return make_context({"output": {"role": "assistant", "content": "", "tool_calls": list(calls)}})


class TestToolTrajectory:
    def test_strict_pass_from_trace(self):
        ctx = trace_ctx(
            tool_span("search_orders", "2024-01-01T00:00:01Z", {"q": "A1"}),
            {"name": "llm", "kind": "llm", "start_time": "2024-01-01T00:00:02Z"},
            tool_span("issue_refund", "2024-01-01T00:00:03Z", {"order": "A1"}),
        )
        s = valid(tool_trajectory(ctx, expected=["search_orders", "issue_refund"]))["trajectory_match"]
        assert s.value is True and s.data_type == "BOOLEAN" and s.higher_is_better is True
        assert s.metadata["source"] == "trace"
        assert s.metadata["actual"] == ["search_orders", "issue_refund"]

    def test_trace_spans_ordered_by_start_time(self):
        ctx = trace_ctx(tool_span("second", "2024-01-01T00:00:05Z"), tool_span("first", "2024-01-01T00:00:01Z"))
        assert tool_trajectory(ctx, ["first", "second"])[0].value is True

    def test_numeric_start_times_ordered_numerically(self):
        # 9 < 10 as numbers (as text "10" < "9").
        ctx = trace_ctx(tool_span("late", 10), tool_span("early", 9))
        assert tool_trajectory(ctx, ["early", "late"])[0].value is True

    def test_trace_preferred_over_output(self):
        ctx = make_context(
            {
                "output": {"role": "assistant", "tool_calls": [{"name": "from_output", "arguments": {}}]},
                "trace": {"spans": [tool_span("from_trace", 1)]},
            }
        )
        s = tool_trajectory(ctx, ["from_trace"])[0]
        assert s.value is True and s.metadata["source"] == "trace"

    def test_output_used_when_trace_has_no_tool_span(self):
        ctx = make_context(
            {
                "output": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "search_orders", "arguments": '{"q": "A1"}'}},
                        {"id": "c2", "type": "function", "function": {"name": "issue_refund", "arguments": "{}"}},
                    ],
                },
                "trace": {"spans": [{"name": "llm", "kind": "llm", "start_time": 1}]},
            }
        )
        s = tool_trajectory(ctx, [{"name": "search_orders", "arguments": {"q": "A1"}}, "issue_refund"])[0]
        assert s.value is True and s.metadata["source"] == "output"

    def test_otel_tool_call_parts(self):
        ctx = make_context(
            {
                "output": {
                    "role": "assistant",
                    "parts": [
                        {"type": "text", "content": "calling"},
                        {"type": "tool_call", "id": "1", "name": "get_weather", "arguments": {"city": "Paris"}},
                    ],
                }
            }
        )
        assert tool_trajectory(ctx, [{"name": "get_weather", "arguments": {"city": "Paris"}}])[0].value is True

    def test_span_input_json_string(self):
        ctx = trace_ctx(tool_span("get_weather", 1, '{"city": "Paris"}'))
        assert tool_trajectory(ctx, [{"name": "get_weather", "arguments": {"city": "Paris"}}])[0].value is True

    def test_gen_ai_tool_name_attribute(self):
        ctx = trace_ctx(tool_span("execute_tool get_weather", 1, {}, attributes={"gen_ai.tool.name": "get_weather"}))
        assert tool_trajectory(ctx, ["get_weather"])[0].value is True

    def test_strict_order_matters_and_comment_names_difference(self):
        ctx = trace_ctx(tool_span("issue_refund", 1), tool_span("search_orders", 2))
        s = valid(tool_trajectory(ctx, ["search_orders", "issue_refund"], mode="strict"))[0]
        assert s.value is False
        assert "position 1" in s.comment and "search_orders" in s.comment and "issue_refund" in s.comment
        assert s.metadata["first_difference"]["position"] == 1

    def test_strict_extra_and_missing_calls(self):
        ctx = trace_ctx(tool_span("a", 1), tool_span("b", 2), tool_span("c", 3))
        s = tool_trajectory(ctx, ["a", "b"])[0]
        assert s.value is False and "position 3" in s.comment and "(none)" in s.comment
        s = tool_trajectory(ctx, ["a", "b", "c", "d"])[0]
        assert s.value is False and "position 4" in s.comment and "d" in s.comment

    def test_unordered(self):
        ctx = trace_ctx(tool_span("b", 1), tool_span("a", 2))
        assert tool_trajectory(ctx, ["a", "b"], mode="unordered")[0].value is True
        assert tool_trajectory(ctx, ["a", "b", "c"], mode="unordered")[0].value is False
        assert tool_trajectory(ctx, ["a"], mode="unordered")[0].value is False

    def test_unordered_is_a_multiset(self):
        ctx = trace_ctx(tool_span("a", 1), tool_span("a", 2), tool_span("b", 3))
        assert tool_trajectory(ctx, ["a", "b", "a"], mode="unordered")[0].value is True
        assert tool_trajectory(ctx, ["a", "b", "b"], mode="unordered")[0].value is False

    def test_subset(self):
        ctx = trace_ctx(tool_span("search_orders", 1))
        assert tool_trajectory(ctx, ["search_orders", "issue_refund"], mode="subset")[0].value is True
        ctx = trace_ctx(tool_span("search_orders", 1), tool_span("delete_account", 2))
        s = tool_trajectory(ctx, ["search_orders", "issue_refund"], mode="subset")[0]
        assert s.value is False
        assert "position 2" in s.comment and "delete_account" in s.comment

    def test_subset_counts_repeats(self):
        # agentevals: each actual call needs its own expected item.
        ctx = trace_ctx(tool_span("search", 1), tool_span("search", 2))
        assert tool_trajectory(ctx, ["search"], mode="subset")[0].value is False
        assert tool_trajectory(ctx, ["search", "search"], mode="subset")[0].value is True

    def test_superset(self):
        ctx = trace_ctx(tool_span("search_orders", 1), tool_span("lookup", 2), tool_span("issue_refund", 3))
        assert tool_trajectory(ctx, ["search_orders", "issue_refund"], mode="superset")[0].value is True
        s = tool_trajectory(ctx, ["search_orders", "send_email"], mode="superset")[0]
        assert s.value is False
        assert "position 2" in s.comment and "send_email" in s.comment

    def test_superset_needs_distinct_calls(self):
        ctx = trace_ctx(tool_span("search", 1))
        assert tool_trajectory(ctx, ["search", "search"], mode="superset")[0].value is False

    def test_no_calls(self):
        ctx = make_context({"output": "plain answer"})
        assert tool_trajectory(ctx, [])[0].value is True
        assert tool_trajectory(ctx, [], mode="unordered")[0].value is True
        assert tool_trajectory(ctx, ["search"], mode="subset")[0].value is True
        s = valid(tool_trajectory(ctx, ["search"], mode="superset"))[0]
        assert s.value is False and "search" in s.comment
        assert tool_trajectory(ctx, ["search"])[0].value is False

    def test_empty_reply_with_calls(self):
        ctx = calls_ctx({"name": "a", "arguments": {}})
        assert valid(tool_trajectory(ctx, ["a"]))[0].value is True

    def test_arguments_compared_only_when_given(self):
        ctx = trace_ctx(tool_span("get_weather", 1, {"city": "Paris", "unit": "C"}))
        assert tool_trajectory(ctx, ["get_weather"])[0].value is True
        assert tool_trajectory(ctx, [{"name": "get_weather"}])[0].value is True
        assert tool_trajectory(ctx, [{"name": "get_weather", "arguments": None}])[0].value is True
        assert tool_trajectory(ctx, [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}}])[0].value is True
        # Exact equality: a subset of the arguments is not equal.
        s = tool_trajectory(ctx, [{"name": "get_weather", "arguments": {"city": "Paris"}}])[0]
        assert s.value is False and "Paris" in s.comment

    def test_expected_arguments_as_json_string(self):
        ctx = trace_ctx(tool_span("f", 1, {"x": 1}))
        assert tool_trajectory(ctx, [{"name": "f", "arguments": '{"x": 1}'}])[0].value is True

    def test_openai_form_expected_item(self):
        ctx = trace_ctx(tool_span("f", 1, {"x": 1}))
        assert tool_trajectory(ctx, [{"type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}])[0].value is True

    @pytest.mark.parametrize(
        "actual,expected",
        [
            ({"flag": 1}, {"flag": True}),
            ({"flag": True}, {"flag": 1}),
            ({"flag": 0}, {"flag": False}),
            ({"n": [1, True]}, {"n": [1, 1]}),
            ({"n": {"deep": 1.0}}, {"n": {"deep": True}}),
        ],
    )
    def test_booleans_are_not_numbers(self, actual, expected):
        ctx = trace_ctx(tool_span("f", 1, actual))
        for mode in ("strict", "unordered", "subset", "superset"):
            assert tool_trajectory(ctx, [{"name": "f", "arguments": expected}], mode=mode)[0].value is False

    def test_numbers_by_value(self):
        ctx = trace_ctx(tool_span("f", 1, {"n": 1.0, "m": [2]}))
        assert tool_trajectory(ctx, [{"name": "f", "arguments": {"n": 1, "m": [2.0]}}])[0].value is True

    def test_json_equal(self):
        assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})
        assert not json_equal(True, 1) and not json_equal(0, False) and not json_equal(None, False)
        assert not json_equal({"a": 1}, {"a": 1, "b": 2})
        assert not json_equal("1", 1)
        assert json_equal("東京", "東京")

    def test_names_case_sensitive(self):
        ctx = trace_ctx(tool_span("Search", 1))
        assert tool_trajectory(ctx, ["search"])[0].value is False
        assert tool_trajectory(ctx, ["search"], mode="superset")[0].value is False

    def test_matching_is_not_greedy(self):
        # Item 1 (any arguments) must not take the call that item 2 (x=1) needs.
        ctx = trace_ctx(tool_span("a", 1, {"x": 1}), tool_span("a", 2, {"x": 2}))
        expected = ["a", {"name": "a", "arguments": {"x": 1}}]
        for mode in ("unordered", "subset", "superset"):
            assert tool_trajectory(ctx, expected, mode=mode)[0].value is True
        assert tool_trajectory(ctx, expected, mode="strict")[0].value is False

    def test_unicode_names(self):
        ctx = trace_ctx(tool_span("検索", 1, {"q": "東京 😀"}))
        assert tool_trajectory(ctx, [{"name": "検索", "arguments": {"q": "東京 😀"}}])[0].value is True

    def test_long_trajectory(self):
        spans = [tool_span(f"t{i % 7}", i, {"i": i}) for i in range(1500)]
        ctx = trace_ctx(*spans)
        expected = [f"t{i % 7}" for i in reversed(range(1500))]
        assert tool_trajectory(ctx, expected, mode="unordered")[0].value is True
        assert tool_trajectory(ctx, expected[:-1], mode="superset")[0].value is True

    def test_invalid_mode(self):
        with pytest.raises(ValueError, match="mode"):
            tool_trajectory(make_context({}), ["a"], mode="exact")

    @pytest.mark.parametrize("bad", [[1], [{"arguments": {}}], [""], None, 5])
    def test_invalid_expected(self, bad):
        with pytest.raises(ValueError, match="expected"):
            tool_trajectory(make_context({}), bad)

    def test_single_string_expected(self):
        ctx = trace_ctx(tool_span("search", 1))
        assert tool_trajectory(ctx, "search")[0].value is True

    def test_params_splat(self):
        ctx = make_context(
            {"trace": {"spans": [tool_span("search_orders", 1), tool_span("issue_refund", 2)]}},
            params={"expected": ["search_orders", "issue_refund"], "mode": "superset"},
        )
        assert tool_trajectory(ctx, **ctx.params)[0].value is True
