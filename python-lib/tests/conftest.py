"""Shared helpers of the python-lib tests."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Mapping

import pytest

LIB = Path(__file__).resolve().parent.parent
SHIMS = LIB / "sandbox_shims"


def _ensure_opik_shim() -> None:
    """Make ``import opik`` resolve to the sandbox stand-in when no real opik is installed."""
    import importlib.util

    if importlib.util.find_spec("opik") is None and str(SHIMS) not in sys.path:
        sys.path.append(str(SHIMS))


_ensure_opik_shim()


def _ensure_sandbox_packages() -> None:
    """Make the sandbox's curated packages (sandbox/packages.json) importable, and only those: a
    directory of links to the same dist-packages entries the sandbox binds, at the end of sys.path
    (pytest's Python may have none of them; pii_leak needs phonenumbers)."""
    import json
    import tempfile

    manifest = json.loads((LIB.parent / "sandbox" / "packages.json").read_text(encoding="utf-8"))
    source = Path(manifest["distPackages"])
    if not source.is_dir():
        return
    target = Path(tempfile.mkdtemp(prefix="oodle-sandbox-packages-"))
    names = {e.name for e in source.iterdir()}
    for package in manifest["packages"]:
        for module in package["modules"]:
            prefix = module[:-1] if module.endswith("*") else None
            for name in sorted(names):
                if name == module or (prefix is not None and name.startswith(prefix)):
                    (target / name).symlink_to(source / name)
        for dist in package["distributions"]:
            for name in names:
                if name.startswith(dist + "-") and name[len(dist) + 1 : len(dist) + 2].isdigit() and name.endswith(("dist-info", "egg-info")):
                    (target / name).symlink_to(source / name)
    sys.path.append(str(target))


_ensure_sandbox_packages()


def run_source(
    source: str,
    document: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    notes: list[str] | None = None,
):
    """Detect, load and run an evaluator's source on a sample document; return its Scores."""
    from oodle_eval.v1 import make_context
    from oodle_eval.v1.entrypoint import detect_entry_point, load_evaluator, run_entry_point

    entry = detect_entry_point(source)
    namespace = load_evaluator(source, module_name="__evaluator_test__")
    ctx = make_context(dict(document or {}), params=params)
    return run_entry_point(namespace, ctx, notes=notes, kind=entry["kind"])


def values(scores) -> dict[str, Any]:
    """{name: value} of a list of scores."""
    return {s.name: s.value for s in scores}


def chat(user: str, reply: str | None, **extra: Any) -> dict[str, Any]:
    """A sample document with one user message and (optionally) one assistant reply."""
    doc: dict[str, Any] = {"input": [{"role": "user", "content": user}]}
    if reply is not None:
        doc["output"] = {"role": "assistant", "content": reply}
    doc.update(extra)
    return doc


@pytest.fixture
def shims_on_path():
    _ensure_opik_shim()
    yield SHIMS


def _register_hypothesis_profile() -> None:
    """Property tests must not depend on an idle machine: no per-example deadline and no
    too-slow health check (on a busy CI machine data generation alone can trip it)."""
    from hypothesis import HealthCheck, settings

    settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("ci")


_register_hypothesis_profile()
