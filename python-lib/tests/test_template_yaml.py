"""oodle_eval.template_yaml: template.yaml read with PyYAML as the CLI reads it (YAML 1.2 core schema),
on the files that the CLI's reader is tested on too, and python -m oodle_eval run with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from oodle_eval.template_yaml import TemplateYamlError, loads

LIB = Path(__file__).resolve().parent.parent
# The same files and outcomes as test/cli/template-yaml.test.ts (the CLI's reader, npm yaml).
CASES = json.loads((LIB.parent / "test" / "fixtures" / "template-yaml-cases.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", [c for c in CASES if "data" in c], ids=lambda c: c["name"])
def test_reads_what_the_cli_reads(case):
    data = loads(case["yaml"])
    assert data == case["data"]
    assert json.loads(json.dumps(data, allow_nan=False)) == case["data"]  # JSON data, as ctx.params carries it


@pytest.mark.parametrize("case", [c for c in CASES if "line" in c], ids=lambda c: c["name"])
def test_refuses_what_the_cli_refuses_at_the_same_line(case):
    with pytest.raises(TemplateYamlError) as raised:
        loads(case["yaml"])
    assert raised.value.line == case["line"]
    assert str(raised.value).startswith(f"line {case['line']}: ")


def test_numbers_are_what_javascript_holds():
    numbers = loads("a: 1.0\nb: 1.5\nc: 12345678901234567890\nd: 1000000000000000000000\ne: 9007199254740993\n")
    assert numbers == {"a": 1, "b": 1.5, "c": 12345678901234567000, "d": 1e21, "e": 9007199254740992}
    assert [type(v) for v in numbers.values()] == [int, float, int, float, int]


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("name: T\nname: U\n", 2, "the key 'name' appears twice"),
        ('{"name": "T",\n "name": "U"}\n', 2, "the key 'name' appears twice"),
        ("a: 0\n1: x\n1.0: y\n", 3, "the key '1' appears twice"),
        ("? [x, y]\n: z\n", 1, "a key must be a string (or a number, true, false, null), not a list or mapping"),
        ("a: !!timestamp 2001-12-14\n", 1, "the tag !!timestamp is not read: template.yaml holds JSON data"),
        ("a: !foo bar\n", 1, "the tag !foo is not read"),
        ("a: !!int 1_000\n", 1, "!!int '1_000' is not an integer (YAML 1.2: 12, 0o14 or 0xC)"),
        ("a: !!bool yes\n", 1, "!!bool 'yes' is not true or false (YAML 1.2)"),
        ("a: 1\nb: -.inf\n", 2, "'-.inf' is not a number JSON can hold"),
        ("a: 1e400\n", 1, "'1e400' is not a number JSON can hold"),
        ('a: 1\nb: "x\x01"\n', 2, "the character #x0001 is not allowed in YAML: write it escaped in a double-quoted string"),
        ("settings:\n\t- name: a\n", 2, "found character '\\t' that cannot start any token"),
        ('name: "\\q"\n', 1, "found unknown escape character 'q'"),
        ("name: T\n---\nname: U\n", 2, "expected a single document in the stream"),
        ("name: T\nother: *n\n", 2, "found undefined alias 'n'"),
    ],
)
def test_each_refusal_says_what_is_wrong(text, line, message):
    with pytest.raises(TemplateYamlError) as raised:
        loads(text)
    assert (raised.value.line, message in raised.value.message) == (line, True), raised.value.message


# ------------------------------------------------------------ python -m oodle_eval run with template.yaml

SHOW_PARAMS = "import json\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='p', value=json.dumps(ctx.params, sort_keys=True))])\n"
PULLED = next(c for c in CASES if c["name"] == "what pull writes")["yaml"]


def run(tmp_path: Path, *args: str, hide_pyyaml: bool = False) -> subprocess.CompletedProcess[str]:
    """`python -m oodle_eval ARGS`; with ``hide_pyyaml``, where `import yaml` fails (a package of that name raising ImportError comes first)."""
    path = [str(LIB)]
    if hide_pyyaml:
        blocker = tmp_path / "hide-pyyaml" / "yaml"
        blocker.mkdir(parents=True, exist_ok=True)
        (blocker / "__init__.py").write_text("raise ImportError('PyYAML is hidden by this test')\n")
        path.insert(0, str(blocker.parent))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    env.pop("OODLE_EVAL_SHIMS", None)
    if hide_pyyaml:
        hidden = subprocess.run([sys.executable, "-c", "import yaml"], capture_output=True, text=True, env=env)
        assert hidden.returncode != 0 and "hidden by this test" in hidden.stderr  # the test cannot pass with PyYAML visible
    return subprocess.run([sys.executable, "-m", "oodle_eval", *args], capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=60)


def test_run_reads_the_pulled_folder(tmp_path):
    folder = tmp_path / "kw"
    folder.mkdir()
    (folder / "evaluate.py").write_text(SHOW_PARAMS)
    (folder / "template.yaml").write_text(PULLED)
    result = run(tmp_path, "run", str(folder / "evaluate.py"), "--params", '{"at": 3}', "--json")
    assert result.returncode == 0, result.stderr
    params = json.loads(json.loads(result.stdout)[0]["value"])
    assert params == {"at": 3, "mode": "all", "required": [], "weights": {"JSON check": {"a: b": [1, [2.5, 0], {"c": None}]}, "k:y": "é😀\t"}}


def test_run_names_the_line_of_a_bad_file(tmp_path):
    folder = tmp_path / "kw"
    folder.mkdir()
    (folder / "evaluate.py").write_text(SHOW_PARAMS)
    (folder / "template.yaml").write_text('name: "T"\nsettings:\n  - name: "note"\n    name: "again"\n')
    result = run(tmp_path, "run", str(folder / "evaluate.py"))
    assert result.returncode == 2
    assert f"{folder / 'template.yaml'}:4: the key 'name' appears twice (or pass --no-template)" in result.stderr


def test_run_without_pyyaml_says_what_to_install_and_runs_with_no_template(tmp_path):
    folder = tmp_path / "kw"
    folder.mkdir()
    (folder / "evaluate.py").write_text(SHOW_PARAMS)
    (folder / "template.yaml").write_text(PULLED)
    result = run(tmp_path, "run", str(folder / "evaluate.py"), hide_pyyaml=True)
    assert result.returncode == 2
    assert f"{folder / 'template.yaml'}: reading it needs PyYAML (PyYAML is hidden by this test): pip install ./python-lib installs it" in result.stderr
    assert "--no-template" in result.stderr
    ignored = run(tmp_path, "run", str(folder / "evaluate.py"), "--no-template", "--json", hide_pyyaml=True)
    assert ignored.returncode == 0, ignored.stderr
    assert json.loads(ignored.stdout)[0]["value"] == "{}"
