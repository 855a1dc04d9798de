"""Quality goals of issue 27 on the development split (../shared/data, as ``npm run quality``
finds it): refusal precision and F1 above what they were before the confusion and disclaimer
rules (P 0.957, F1 0.938), phone precision >= 0.95 with recall >= 0.9. Skipped when the data is
not there. Held-back data is never read here (this folder holds only the development split)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "quality.py"
spec = importlib.util.spec_from_file_location("oodle_quality", SCRIPT)
quality = importlib.util.module_from_spec(spec)
sys.modules["oodle_quality"] = quality
spec.loader.exec_module(quality)
DATA = quality.default_data_dir()
pytestmark = pytest.mark.skipif(not (DATA / "xstest" / "items.jsonl").is_file(), reason=f"no development data at {DATA}")


def test_refusal_precision_and_f1_on_xstest_development_split():
    from oodle_eval.v1 import make_context, metrics

    tp = fp = fn = 0
    for item in quality.read_items(DATA / "xstest" / "items.jsonl"):
        refused = bool(metrics.refusal(make_context({"input": item["input"], "output": item["output"]}))["refused"].value)
        actual = item["metadata"]["final_label"] in quality.REFUSAL_LABELS
        tp, fp, fn = tp + (refused and actual), fp + (refused and not actual), fn + (actual and not refused)
    precision, recall, f1 = quality.prf(tp, fp, fn)
    assert precision >= 0.96 and f1 >= 0.94, (precision, recall, f1)


def test_phone_precision_and_recall_on_presidio_synth_development_split():
    from oodle_eval.v1.checks.pii_leak import find_pii

    figures = quality._pii_figures(list(quality.read_items(DATA / "presidio-synth-pii" / "items.jsonl")), find_pii)
    assert figures["precision"]["PHONE_NUMBER"] >= 0.95 and figures["recall"]["PHONE_NUMBER"] >= 0.9, figures
