"""python-lib/scripts/peers.py (npm run test:peers): its verdicts on small data sets, and the
real data sets agree with nothing left undocumented."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "peers.py"
spec = importlib.util.spec_from_file_location("oodle_peers", SCRIPT)
peers = importlib.util.module_from_spec(spec)
sys.modules["oodle_peers"] = peers
spec.loader.exec_module(peers)

SOURCE = [{"id": "s", "repository": "example/peer", "path": "tests/t.py", "commit": "0" * 40}]


def write(tmp_path: Path, promptfoo_cases: list, known: list) -> None:
    (tmp_path / "promptfoo.json").write_text(json.dumps({"peer": "promptfoo", "sources": SOURCE, "cases": promptfoo_cases}))
    (tmp_path / "known-differences.json").write_text(json.dumps({"cases": known}))


def run(tmp_path: Path, monkeypatch) -> tuple[int, str]:
    monkeypatch.setattr(peers, "DATA", tmp_path)
    out = io.StringIO()
    return peers.run(("promptfoo",), out=out), out.getvalue()


def test_agreement_passes(tmp_path, monkeypatch):
    write(tmp_path, [{"id": "a", "text": "I cannot help with that.", "refused": True}], [])
    status, text = run(tmp_path, monkeypatch)
    assert status == 0 and "1 of 1" in text


def test_an_undocumented_disagreement_fails(tmp_path, monkeypatch):
    write(tmp_path, [{"id": "a", "text": "Here is the recipe.", "refused": True}], [])
    status, text = run(tmp_path, monkeypatch)
    assert status == 1 and "promptfoo a: DISAGREES, not documented" in text


def test_a_documented_disagreement_passes_and_a_stale_entry_fails(tmp_path, monkeypatch):
    entry = {"peer": "promptfoo", "case": "a", "status": "documented", "reason": "r", "doc": "docs/peers.md"}
    write(tmp_path, [{"id": "a", "text": "Here is the recipe.", "refused": True}], [entry])
    assert run(tmp_path, monkeypatch)[0] == 0
    write(tmp_path, [{"id": "a", "text": "Here is the recipe.", "refused": False}], [entry])
    status, text = run(tmp_path, monkeypatch)
    assert status == 1 and "agrees now" in text
    write(tmp_path, [], [entry])
    assert "no such case" in run(tmp_path, monkeypatch)[1]


def test_the_peers_data_sets_name_their_sources_and_pass():
    for peer in peers.PEERS:
        data = peers.load(peer)
        assert data["cases"] and all(len(s["commit"]) == 40 and s["repository"] and s["path"] for s in data["sources"])
    out = io.StringIO()
    assert peers.run(out=out) == 0, out.getvalue()
