#!/usr/bin/env python3
"""Run the peers' own test cases against Oodle's implementation (npm run test:peers).

    python3 python-lib/scripts/peers.py [--verbose] [--peer NAME]

The cases are data in ``test/peers/<peer>.json``, read from each peer's public repository at the
commit named in the file's ``sources`` (inputs and the peer's expected results; none of the
peers' test code). This runner is Oodle's own. What each peer's case is run against:

* **Opik** (``opik.json``): the Opik stand-in ``python-lib/sandbox_shims/opik`` (appended to
  ``sys.path`` when no real ``opik`` is importable), metric by metric at Opik's import paths. A case
  whose import path the shim does not have is *not covered*.
* **Presidio** (``presidio.json``): ``oodle_eval.v1.checks.pii_leak.find_pii(text, entities=[type])``;
  agreement is the same number of findings of that type and, where the test gives positions, the
  same (start, end) spans (Presidio's score ranges are not compared: ``pii_leak`` has no scores).
* **promptfoo** (``promptfoo.json``): ``metrics.refusal`` on a reply of that text; agreement is the
  same refused / not refused.
* **Open Chat Studio** (``open-chat-studio.json``): the evaluator's code through oodle_eval's
  save-time check (``detect_entry_point``) and runner (``load_evaluator``, ``run_entry_point``).
  A build error agrees when the save-time check refuses the code; a run error agrees when the run
  raises and its message holds the text the peer's test looks for; a result agrees when the scores'
  names and values equal the dict.

``test/peers/known-differences.json`` lists each case that is deliberately not like the peer,
with the reason and the page documenting it: ``documented`` (a disagreement the docs explain) or
``not_covered`` (a feature deliberately absent, e.g. Presidio's low-confidence patterns). Exit 1
when a case disagrees without such an entry, when an entry names a case that now agrees (stale)
or no case at all; exit 0 otherwise. Prints agree / disagree / not covered per peer.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import json
import linecache
import math
import re
import sys
import traceback
from pathlib import Path
from typing import Any, Callable

LIB = Path(__file__).resolve().parent.parent
ROOT = LIB.parent
DATA = ROOT / "test" / "peers"
sys.path.insert(0, str(LIB))

if importlib.util.find_spec("opik") is None:
    sys.path.append(str(LIB / "sandbox_shims"))

PEERS = ("opik", "presidio", "promptfoo", "open-chat-studio")


class Outcome:
    """One case's result: status "agree", "disagree" or "not_covered", and why."""

    def __init__(self, status: str, detail: str = "") -> None:
        self.status = status
        self.detail = detail


class Mismatch(Exception):
    """A peer's expectation that our implementation does not meet."""


class NotCovered(Exception):
    """The case needs something our implementation does not provide (e.g. an Opik module)."""


# ------------------------------------------------------------------------------------- Opik


class _Item:
    """A tensor-like scalar: ``.item()`` returns the value (what bert-score's tensors offer)."""

    def __init__(self, value: float) -> None:
        self._value = value

    def item(self) -> float:
        return self._value


def _plain(value: Any) -> Any:
    """Tuples as lists, recursively, for comparison with JSON data."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


class _TextstatStub:
    """A textstat-compatible counter like the one the peer's readability test passes in: sentences
    are the count of ".!?" (at least 1), words are whitespace-separated after ",;:()[]" are blanked,
    syllables are vowel groups (a trailing silent "e" dropped, at least 1 per word)."""

    def sentence_count(self, text: str) -> int:
        return sum(text.count(mark) for mark in ".!?") or 1

    def lexicon_count(self, text: str, removepunct: bool = True) -> int:
        if removepunct:
            text = re.sub(r"[,;:()\[\]]", " ", text)
        return len(text.split())

    def syllable_count(self, text: str, lang: str = "en_US") -> int:
        total = 0
        for word in text.split():
            letters = re.sub(r"[^a-z]", "", word.lower())
            groups = len(re.findall(r"[aeiouy]+", letters))
            if letters.endswith("e") and groups > 1:
                groups -= 1
            total += max(1, groups)
        return total

    def _stats(self, text: str) -> tuple[float, float]:
        wps = self.lexicon_count(text) / self.sentence_count(text)
        spw = self.syllable_count(text) / max(1, self.lexicon_count(text))
        return 206.835 - 1.015 * wps - 84.6 * spw, 0.39 * wps + 11.8 * spw - 15.59

    def flesch_reading_ease(self, text: str) -> float:
        return self._stats(text)[0]

    def flesch_kincaid_grade(self, text: str) -> float:
        return self._stats(text)[1]


class _Analyzer:
    def __init__(self, scores: dict, record: list | None) -> None:
        self._scores, self._record = scores, record

    def polarity_scores(self, text: str) -> dict:
        if self._record is not None:
            self._record.append([text])
        return dict(self._scores)


class _SplitTokenizer:
    def __init__(self, delimiter: str) -> None:
        self.delimiter = delimiter

    def tokenize(self, text: str) -> list[str]:
        return text.split(self.delimiter)


def _path(value: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        value = value[part] if isinstance(value, dict) else getattr(value, part)
    return value


class _OpikCase:
    """Runs one Opik case's steps (see opik.json's ``about``)."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {}
        self.calls: dict[str, list] = {}

    def value(self, raw: Any) -> Any:
        if isinstance(raw, dict):
            if "$stub" in raw:
                return self.stub(raw)
            if "$ref" in raw:
                head, _, rest = raw["$ref"].partition(".")
                return _path(self.names[head], rest) + raw.get("add", 0)
            if "$item" in raw:
                return _Item(raw["$item"])
            return {k: self.value(v) for k, v in raw.items()}
        if isinstance(raw, list):
            return [self.value(v) for v in raw]
        if isinstance(raw, str) and raw.startswith("$") and len(raw) > 1:
            if raw.startswith("$calls."):
                return self.calls.get(raw[len("$calls."):], [])
            head, _, rest = raw[1:].partition(".")
            return _path(self.names[head], rest) if rest else self.names[head]
        return raw

    def stub(self, spec: dict) -> Any:
        kind = spec["$stub"]
        record = self.calls.setdefault(spec["record"], []) if "record" in spec else None
        if kind == "returns":
            result = self.value(spec["value"])

            def returns(*args: Any) -> Any:
                if record is not None:
                    record.append(_plain(args))
                return result

            return returns
        if kind == "analyzer":
            return _Analyzer(spec["polarity_scores"], record)
        if kind == "textstat":
            return _TextstatStub()
        if kind == "split_tokenizer":
            return _SplitTokenizer(spec["delimiter"])
        raise ValueError(f"unknown stub {kind!r}")

    def resolve(self, target: str) -> Any:
        if target.startswith("$"):
            return self.names[target[1:]]
        module, _, name = target.partition(":")
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as error:
            if error.name and error.name.startswith("opik"):
                raise NotCovered(f"no module {error.name}") from None
            raise
        if not hasattr(loaded, name):
            raise NotCovered(f"{module} has no {name}")
        return getattr(loaded, name)

    def run(self, steps: list[dict]) -> None:
        for step in steps:
            if "define" in step:
                self.define(step)
            elif "new" in step:
                cls = self.resolve(step["import"])
                kwargs = self.value(step.get("init", {}))
                outcome = self.attempt(lambda: cls(**kwargs), step.get("raises"))
                if outcome is not None:
                    self.names[step["new"]] = outcome
            elif "call" in step:
                self.call(step)
            elif "check" in step:
                left, op, right = step["check"]
                a, b = _plain(self.value(left)), _plain(self.value(right))
                ok = {"==": a == b, ">": a > b, "<": a < b}[op]
                if not ok:
                    raise Mismatch(f"check {left} {op} {right}: {a!r} vs {b!r}")

    def define(self, step: dict) -> None:
        base = self.resolve(step["base"])
        returns = step["score_returns"]
        score_result = importlib.import_module("opik.evaluation.metrics.score_result")

        def score(metric: Any, *args: Any, **kwargs: Any) -> Any:
            return score_result.ScoreResult(name=metric.name, **returns)

        self.names[step["define"]] = type(step["define"], (base,), {"score": score})

    def attempt(self, action: Callable[[], Any], raises: dict | None) -> Any:
        try:
            result = action()
        except Exception as error:  # the peer's test expects (or not) an exception
            if raises is None:
                raise Mismatch(f"raised {type(error).__name__}: {error}") from None
            _check_raised(error, raises)
            return None
        if raises is not None:
            raise Mismatch(f"expected {raises['raises']}, got {result!r}")
        return result

    def call(self, step: dict) -> None:
        target, _, method = step["call"].partition(".")
        bound = getattr(self.names[target], method)
        args = self.value(step.get("args", []))
        kwargs = self.value(step.get("kwargs", {}))
        expect = step.get("expect", {})
        raises = expect if "raises" in expect else None
        action = (lambda: asyncio.run(bound(*args, **kwargs))) if step.get("async") else (lambda: bound(*args, **kwargs))
        result = self.attempt(action, raises)
        if raises is None:
            self.expect(result, expect)
            if "as" in step:
                self.names[step["as"]] = result

    def expect(self, result: Any, expect: dict) -> None:
        score_result = importlib.import_module("opik.evaluation.metrics.score_result")
        problems = []
        if "is_instance" in expect and not isinstance(result, score_result.ScoreResult):
            problems.append(f"not a ScoreResult: {result!r}")
        value = getattr(result, "value", None)
        if "value" in expect and value != expect["value"]:
            problems.append(f"value {value!r} != {expect['value']!r}")
        if "value_in" in expect:
            lo, hi = expect["value_in"]
            if not (isinstance(value, (int, float)) and lo <= value <= hi):
                problems.append(f"value {value!r} not in [{lo}, {hi}]")
        if "value_approx" in expect and not _approx(value, *expect["value_approx"]):
            problems.append(f"value {value!r} != approx {expect['value_approx'][0]!r}")
        for key, test in (("value_ge", lambda v, b: v >= b), ("value_gt", lambda v, b: v > b), ("value_lt", lambda v, b: v < b)):
            if key in expect and not (isinstance(value, (int, float)) and test(value, expect[key])):
                problems.append(f"value {value!r} fails {key} {expect[key]!r}")
        if "name" in expect and getattr(result, "name", None) != expect["name"]:
            problems.append(f"name {getattr(result, 'name', None)!r} != {expect['name']!r}")
        metadata = getattr(result, "metadata", None) or {}
        for key, (want, tol) in expect.get("metadata_approx", {}).items():
            if not _approx(_path(metadata, key), want, tol):
                problems.append(f"metadata {key} {_path(metadata, key)!r} != approx {want!r}")
        for key, want in expect.get("metadata_equals", {}).items():
            if _path(metadata, key) != want:
                problems.append(f"metadata {key} {_path(metadata, key)!r} != {want!r}")
        for key, (lo, hi, *how) in expect.get("metadata_in", {}).items():
            got = _path(metadata, key)
            if not ((lo < got if how else lo <= got) and got <= hi):
                problems.append(f"metadata {key} {got!r} not in ({lo}, {hi}]")
        for key, length in expect.get("metadata_len", {}).items():
            if len(_path(metadata, key)) != length:
                problems.append(f"metadata {key} has {len(_path(metadata, key))} items, not {length}")
        if "result" in expect:
            fields = {k: self.value(v) for k, v in expect["result"].items()}
            wanted = score_result.ScoreResult(**fields)
            if result != wanted:
                problems.append(f"{result!r} != {wanted!r}")
        if problems:
            raise Mismatch("; ".join(problems))


def _approx(got: Any, want: float, tol: float | None) -> bool:
    if not isinstance(got, (int, float)):
        return False
    if tol is None:  # pytest.approx's defaults
        return math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-12)
    return abs(got - want) <= tol


def _check_raised(error: BaseException, raises: dict) -> None:
    if type(error).__name__ != raises["raises"]:
        raise Mismatch(f"raised {type(error).__name__} ({error}), expected {raises['raises']}") from None
    message = str(error)
    if "contains" in raises and raises["contains"] not in message:
        raise Mismatch(f"message {message!r} lacks {raises['contains']!r}")
    if "contains_lower" in raises and raises["contains_lower"] not in message.lower():
        raise Mismatch(f"message {message!r} lacks {raises['contains_lower']!r}")
    if "equals_lower" in raises and message.lower() != raises["equals_lower"]:
        raise Mismatch(f"message {message!r} is not {raises['equals_lower']!r}")
    if "matches" in raises and not re.search(raises["matches"], message):
        raise Mismatch(f"message {message!r} does not match {raises['matches']!r}")


def run_opik(case: dict) -> Outcome:
    try:
        _OpikCase().run(case["steps"])
    except NotCovered as why:
        return Outcome("not_covered", str(why))
    except Mismatch as why:
        return Outcome("disagree", str(why))
    except Exception as error:  # an unexpected error is a disagreement, with its traceback's last line
        return Outcome("disagree", f"{type(error).__name__}: {error}")
    return Outcome("agree")


# ------------------------------------------------------------------------------------- Presidio


def run_presidio(case: dict) -> Outcome:
    from oodle_eval.v1.checks.pii_leak import find_pii

    found = sorted((f["start"], f["end"]) for f in find_pii(case["text"], entities=[case["entity"]]))
    expected = sorted(tuple(p) for p in case["positions"])
    if len(found) != case["count"]:
        return Outcome("disagree", f"{len(found)} finding(s) {found}, Presidio {case['count']} {expected}")
    if expected and len(expected) == case["count"] and found != expected:
        return Outcome("disagree", f"positions {found}, Presidio {expected}")
    return Outcome("agree")


# ------------------------------------------------------------------------------------- promptfoo


def run_promptfoo(case: dict) -> Outcome:
    from oodle_eval.v1 import make_context, metrics

    score = metrics.refusal(make_context({"output": case["text"]}))["refused"]
    if bool(score.value) != case["refused"]:
        return Outcome("disagree", f"refused={bool(score.value)} ({score.comment}), promptfoo {case['refused']}")
    return Outcome("agree")


# ------------------------------------------------------------------------------------- Open Chat Studio

_OCS_DEFAULT_INPUT = {"content": "Hello", "role": "human"}


def run_open_chat_studio(case: dict) -> Outcome:
    from oodle_eval.v1 import make_context
    from oodle_eval.v1.entrypoint import EntryPointError, detect_entry_point, load_evaluator, run_entry_point

    expect = case["expect"]
    filename = "<peer-evaluator>"
    try:
        detect_entry_point(case["code"], filename)
    except EntryPointError as error:
        if "build_error" in expect:
            return Outcome("agree", f"refused on save: {error}")
        return Outcome("disagree", f"refused on save ({error}); Open Chat Studio builds it")
    if "build_error" in expect:
        return Outcome("disagree", f"accepted on save; Open Chat Studio refuses: {expect['build_error']}")
    message = case.get("message") or {}
    user = message.get("input") or _OCS_DEFAULT_INPUT
    document: dict[str, Any] = {"input": [{"role": "user", "content": user["content"]}], "output": "a reply"}
    if message.get("output"):
        document["expected_output"] = message["output"].get("content")
    # The sandbox runner puts the source in linecache too, so tracebacks show the user's lines.
    linecache.cache[filename] = (len(case["code"]), None, case["code"].splitlines(True), filename)
    try:
        namespace = load_evaluator(case["code"], filename, module_name="peers_ocs_case", register=False)
        scores = run_entry_point(namespace, make_context(document))
    except Exception as error:  # the evaluator's own error: what Open Chat Studio reports as a run error
        if "run_error" not in expect:
            return Outcome("disagree", f"run raised {type(error).__name__}: {error}")
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        missing = [t for t in expect["run_error"].get("contains", []) if t not in text]
        if "names" in expect["run_error"] and expect["run_error"]["names"] not in str(error):
            missing.append(f"the word {expect['run_error']['names']!r} ({expect['run_error']['peer_message']!r})")
        lines = [n for f, n in traceback.walk_tb(error.__traceback__) if f.f_code.co_filename == filename]
        if "line" in expect["run_error"] and expect["run_error"]["line"] not in lines:
            missing.append(f"line {expect['run_error']['line']} (traceback lines {lines})")
        if missing:
            return Outcome("disagree", f"run error lacks {missing}: {type(error).__name__}: {error}")
        return Outcome("agree", f"run error {type(error).__name__}: {error}")
    if "run_error" in expect:
        got = {s.name: s.value for s in scores}
        return Outcome("disagree", f"runs and returns {got}; Open Chat Studio: {expect['run_error'].get('peer_message') or expect['run_error']['contains']}")
    got = {s.name: s.value for s in scores}
    if got != expect["result"]:
        return Outcome("disagree", f"scores {got}, Open Chat Studio {expect['result']}")
    return Outcome("agree")


RUNNERS: dict[str, Callable[[dict], Outcome]] = {
    "opik": run_opik,
    "presidio": run_presidio,
    "promptfoo": run_promptfoo,
    "open-chat-studio": run_open_chat_studio,
}


# ------------------------------------------------------------------------------------- report


def load(peer: str) -> dict:
    return json.loads((DATA / f"{peer}.json").read_text(encoding="utf-8"))


def known_differences() -> dict[tuple[str, str], dict]:
    entries = json.loads((DATA / "known-differences.json").read_text(encoding="utf-8"))["cases"]
    return {(e["peer"], e["case"]): e for e in entries}


def run(peers: tuple[str, ...] = PEERS, verbose: bool = False, out=sys.stdout) -> int:
    """Run every case of ``peers``, print the table and the problems; the exit status (0 or 1)."""
    known = known_differences()
    problems: list[str] = []
    rows = []
    for peer in peers:
        data = load(peer)
        counts = {"agree": 0, "disagree": 0, "documented": 0, "not_covered": 0}
        ids = {c["id"] for c in data["cases"]}
        for case in data["cases"]:
            outcome = RUNNERS[peer](case)
            entry = known.get((peer, case["id"]))
            if outcome.status == "disagree" and entry and entry["status"] == "not_covered":
                outcome = Outcome("not_covered", f"{entry['reason']} ({outcome.detail})")
            counts[outcome.status] += 1
            if outcome.status == "disagree":
                if entry and entry["status"] == "documented":
                    counts["documented"] += 1
                else:
                    problems.append(f"{peer} {case['id']}: DISAGREES, not documented: {outcome.detail}")
            elif entry and outcome.status == "agree":
                problems.append(f"{peer} {case['id']}: agrees now; remove it from known-differences.json")
            if verbose and outcome.status != "agree":
                print(f"  {peer} {case['id']}: {outcome.status}: {outcome.detail}", file=out)
        for (p, case_id) in known:
            if p == peer and case_id not in ids:
                problems.append(f"{peer} {case_id}: listed in known-differences.json but no such case")
        run_total = counts["agree"] + counts["disagree"]
        rows.append([data["peer"], len(data["cases"]), f"{counts['agree']} of {run_total}", f"{counts['disagree']} ({counts['documented']} documented)", counts["not_covered"],
                     ", ".join(f"{s['repository']} {s['path']} @ {s['commit'][:7]}" for s in data["sources"][:1]) + (f" (+{len(data['sources']) - 1} more)" if len(data["sources"]) > 1 else "")])
    headers = ["peer tests", "cases", "agree", "disagree", "not covered", "source"]
    widths = [max(len(str(r[i])) for r in rows + [headers]) for i in range(len(headers))]
    print("  ".join(str(h).ljust(w) for h, w in zip(headers, widths)), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for row in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)), file=out)
    for problem in problems:
        print(problem, file=out)
    print(f"peers: {len(problems)} problem(s)", file=out)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verbose", action="store_true", help="print every case that does not agree")
    parser.add_argument("--peer", choices=PEERS, action="append", help="run only this peer (repeatable)")
    args = parser.parse_args(argv)
    return run(tuple(args.peer) if args.peer else PEERS, verbose=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
