#!/usr/bin/env python3
"""Measure built-in checks of oodle_eval.v1 on the labelled data in ../shared/data.

    python3 python-lib/scripts/quality.py [DATA_DIR]      (npm run quality)

DATA_DIR defaults to ``../shared/data`` relative to the repository (python-lib/..). Reports:

* refusal() against XSTest's human labels (``metadata.final_label``; full and partial refusals
  both count as refusals): precision, recall, F1, and the share flagged per label and per model.
* pii_leak() against presidio-synth-pii, for the six entity types it supports: recall per type
  (a labelled span counts as found when a finding of the same type overlaps it), precision of
  the findings of each type that overlap a labelled span of that type, and the false-positive rate
  on the items without PII (``metadata.has_pii`` false) and on the PII-free masked templates.
* exact_match and levenshtein_ratio on truthfulqa against ``expected_output`` (the best answer):
  mean, quartiles and share of 1.0, and for the human-reviewed answers the mean per truthfulness
  label.

Figures on this folder are development figures (its README: the other half is kept aside).
Always exits 0 when the data can be read (it is a report, not a gate); 2 when it cannot.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable, Iterator

LIB = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(LIB))

from oodle_eval.v1 import make_context  # noqa: E402
from oodle_eval.v1 import metrics  # noqa: E402

SUPPORTED_PII = ("EMAIL_ADDRESS", "CREDIT_CARD", "US_SSN", "IP_ADDRESS", "IBAN_CODE", "PHONE_NUMBER")
REFUSAL_LABELS = ("full_refusal", "partial_refusal")


def default_data_dir() -> Path:
    return (LIB.parent / ".." / "shared" / "data").resolve()


def read_items(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if line:
                yield json.loads(line)


def table(headers: list[str], rows: Iterable[Iterable[Any]]) -> str:
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for n, row in enumerate(cells):
        out.append("  ".join(c.rjust(widths[i]) if i else c.ljust(widths[i]) for i, c in enumerate(row)))
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def prf(tp: int, fp: int, fn: int) -> tuple[float | None, float | None, float | None]:
    precision = ratio(tp, tp + fp)
    recall = ratio(tp, tp + fn)
    if precision is None or recall is None or precision + recall == 0:
        return precision, recall, None
    return precision, recall, 2 * precision * recall / (precision + recall)


# --------------------------------------------------------------------------- refusal / XSTest


def refusal_report(data: Path) -> str:
    items = list(read_items(data / "xstest" / "items.jsonl"))
    tp = fp = fn = tn = 0
    by_label: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_model: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # tp fp fn tn
    start = time.perf_counter()
    for item in items:
        ctx = make_context({"input": item["input"], "output": item["output"]})
        predicted = bool(metrics.refusal(ctx)["refused"].value)
        label = item["metadata"]["final_label"]
        actual = label in REFUSAL_LABELS
        by_label[label][0] += predicted
        by_label[label][1] += 1
        model = by_model[item["metadata"]["model"]]
        if predicted and actual:
            tp += 1
            model[0] += 1
        elif predicted:
            fp += 1
            model[1] += 1
        elif actual:
            fn += 1
            model[2] += 1
        else:
            tn += 1
            model[3] += 1
    elapsed = time.perf_counter() - start
    precision, recall, f1 = prf(tp, fp, fn)
    lines = [
        f"## refusal() vs XSTest human labels ({len(items)} replies; full + partial refusal = refusal)",
        "",
        table(
            ["precision", "recall", "F1", "accuracy", "TP", "FP", "FN", "TN"],
            [[precision, recall, f1, ratio(tp + tn, len(items)), tp, fp, fn, tn]],
        ),
        "",
        table(
            ["human label", "replies", "flagged refused", "share"],
            [[label, n, k, ratio(k, n)] for label, (k, n) in sorted(by_label.items())],
        ),
        "",
        table(
            ["model", "precision", "recall", "F1"],
            [[m, *prf(c[0], c[1], c[2])] for m, c in sorted(by_model.items())],
        ),
        f"({elapsed:.2f} s)",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- pii_leak / Presidio


def _overlaps(a: dict[str, Any], start: int, end: int) -> bool:
    return a["start"] < end and start < a["end"]


def pii_report(data: Path) -> str:
    items = list(read_items(data / "presidio-synth-pii" / "items.jsonl"))
    gold_spans = Counter()
    found_spans = Counter()
    findings_total = Counter()
    findings_on_gold = Counter()
    items_with_type = Counter()
    items_flagged_with_type = Counter()
    negatives = negatives_flagged = 0
    none_of_six = none_of_six_flagged = 0
    masked = masked_flagged = 0
    masked_types = Counter()
    start = time.perf_counter()
    for item in items:
        text = item["output"]
        ctx = make_context({"output": text})
        score = metrics.pii_leak(ctx)["pii_free"]
        findings = score.metadata["findings"]
        spans = [s for s in item["metadata"]["pii_spans"] if s["entity_type"] in SUPPORTED_PII]
        for entity in SUPPORTED_PII:
            typed = [s for s in spans if s["entity_type"] == entity]
            typed_findings = [f for f in findings if f["type"] == entity]
            if typed:
                items_with_type[entity] += 1
                items_flagged_with_type[entity] += bool(typed_findings)
            for span in typed:
                gold_spans[entity] += 1
                if any(_overlaps(f, span["start_position"], span["end_position"]) for f in typed_findings):
                    found_spans[entity] += 1
            for finding in typed_findings:
                findings_total[entity] += 1
                if any(_overlaps(finding, s["start_position"], s["end_position"]) for s in typed):
                    findings_on_gold[entity] += 1
        if not item["metadata"]["has_pii"]:
            negatives += 1
            negatives_flagged += not score.value
        if not spans:
            none_of_six += 1
            none_of_six_flagged += not score.value
        template = item["input"] if isinstance(item["input"], str) else None
        if template:
            masked += 1
            masked_score = metrics.pii_leak(make_context({"output": template}))["pii_free"]
            if not masked_score.value:
                masked_flagged += 1
                masked_types.update(masked_score.metadata["entity_types_found"])
    elapsed = time.perf_counter() - start
    rows = []
    for entity in SUPPORTED_PII:
        rows.append(
            [
                entity,
                gold_spans[entity],
                ratio(found_spans[entity], gold_spans[entity]),
                items_with_type[entity],
                ratio(items_flagged_with_type[entity], items_with_type[entity]),
                findings_total[entity],
                ratio(findings_on_gold[entity], findings_total[entity]),
            ]
        )
    all_gold = sum(gold_spans.values())
    rows.append(
        [
            "all six",
            all_gold,
            ratio(sum(found_spans.values()), all_gold),
            "",
            None,
            sum(findings_total.values()),
            ratio(sum(findings_on_gold.values()), sum(findings_total.values())),
        ]
    )
    lines = [
        f"## pii_leak() vs presidio-synth-pii ({len(items)} sentences)",
        "",
        table(
            ["entity type", "labelled spans", "span recall", "items", "item recall", "findings", "finding precision"],
            rows,
        ),
        "",
        table(
            ["PII-free set", "items", "flagged (false positives)", "false-positive rate"],
            [
                ["has_pii = false", negatives, negatives_flagged, ratio(negatives_flagged, negatives)],
                ["none of the six types", none_of_six, none_of_six_flagged, ratio(none_of_six_flagged, none_of_six)],
                ["masked templates (input)", masked, masked_flagged, ratio(masked_flagged, masked)],
            ],
        ),
    ]
    if masked_types:
        lines.append("types flagged on masked templates: " + ", ".join(f"{t} {n}" for t, n in masked_types.most_common()))
    lines.append(f"({elapsed:.2f} s)")
    return "\n".join(lines)


# --------------------------------------------------------------------------- truthfulqa


def _distribution(name: str, values: list[float]) -> list[Any]:
    if not values:
        return [name, 0, None, None, None, None, None]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 else (values[0],) * 3
    return [
        name,
        len(values),
        statistics.fmean(values),
        q1,
        q2,
        q3,
        sum(1 for v in values if v == 1.0) / len(values),
    ]


def truthfulqa_report(data: Path) -> str:
    items = [i for i in read_items(data / "truthfulqa" / "items.jsonl") if i.get("expected_output") is not None]
    exact: list[float] = []
    exact_norm: list[float] = []
    lev: list[float] = []
    lev_by_truth: dict[str, list[float]] = defaultdict(list)
    start = time.perf_counter()
    for item in items:
        ctx = make_context(
            {"input": item["input"], "output": item["output"] or "", "expected_output": item["expected_output"]}
        )
        exact.append(1.0 if metrics.exact_match(ctx)["exact_match"].value else 0.0)
        exact_norm.append(1.0 if metrics.exact_match(ctx, normalize=True)["exact_match"].value else 0.0)
        value = metrics.levenshtein_ratio(ctx)["levenshtein_ratio"].value
        lev.append(float(value))
        truthful = item["metadata"].get("human_truthful")
        if truthful is not None:
            lev_by_truth[f"human_truthful = {truthful}"].append(float(value))
    elapsed = time.perf_counter() - start
    rows = [
        _distribution("exact_match", exact),
        _distribution("exact_match (normalize=True)", exact_norm),
        _distribution("levenshtein_ratio", lev),
    ]
    rows += [_distribution(f"levenshtein_ratio, {k}", v) for k, v in sorted(lev_by_truth.items())]
    lines = [
        f"## exact_match and levenshtein_ratio on truthfulqa vs expected_output (best answer; {len(items)} answers)",
        "",
        table(["score", "n", "mean", "Q1", "median", "Q3", "share of 1.0"], rows),
        f"({elapsed:.2f} s)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    data = Path(args[0]).resolve() if args else default_data_dir()
    needed = [data / "xstest" / "items.jsonl", data / "presidio-synth-pii" / "items.jsonl", data / "truthfulqa" / "items.jsonl"]
    missing = [str(p) for p in needed if not p.is_file()]
    if missing:
        print("quality: data not found: " + ", ".join(missing), file=sys.stderr)
        return 2
    print(f"# oodle_eval.v1 quality on {data} (development split)\n")
    for report in (refusal_report, pii_report, truthfulqa_report):
        print(report(data))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
