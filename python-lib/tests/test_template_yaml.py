"""oodle_eval.template_yaml: template.yaml read without PyYAML, and python -m oodle_eval run with PyYAML hidden."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from oodle_eval.template_yaml import TemplateYamlError, loads

LIB = Path(__file__).resolve().parent.parent

# What `oodle genai templates pull` writes (src/cli/template-folder.ts manifestYaml: strings as JSON).
PULLED = """\
name: "Keyword check"
description: "Checks that the reply mentions the words.\\nSecond line: \\"quoted\\" # not a comment"
settings:
  - name: "required"
    type: "string_list"
    label: "Required words"
    default: []
  - name: "mode"
    type: "enum"
    default: "all"
    options:
      - "all"
      - "any"
  - name: "weights"
    type: "json"
    default:
      JSON check:
        "a: b":
          - 1
          - - 2.5
            - -0
          - c: null
      k:y: "\\u00e9\\ud83d\\ude00\\t"
  - name: "at"
    type: "number"
    default: 1e+21
    required: true
libraryPins:
  acme_policy: 2
"""


def test_reads_what_pull_writes():
    assert loads(PULLED) == {
        "name": "Keyword check",
        "description": 'Checks that the reply mentions the words.\nSecond line: "quoted" # not a comment',
        "settings": [
            {"name": "required", "type": "string_list", "label": "Required words", "default": []},
            {"name": "mode", "type": "enum", "default": "all", "options": ["all", "any"]},
            {"name": "weights", "type": "json", "default": {"JSON check": {"a: b": [1, [2.5, 0], {"c": None}]}, "k:y": "é😀\t"}},
            {"name": "at", "type": "number", "default": 1e21, "required": True},
        ],
        "libraryPins": {"acme_policy": 2},
    }


def test_reads_hand_written_yaml_as_yaml_1_2_core():
    text = """\
    ---
    # a comment
    name: Keyword check   # trailing comment
    settings:
    - {name: mode, type: enum, default: all, options: [all, any]}
    - name: strict
      default: yes        # YAML 1.2: a string (PyYAML's 1.1 would say True)
    - name: n
      default: 1.0        # the service (JavaScript) reads 1
    - name: quote
      default: 'it''s'
    - name: hex
      default: 0x1F
    - name: empty
      default:
    libraryPins: {}
    """
    assert loads(textwrap.dedent(text)) == {
        "name": "Keyword check",
        "settings": [
            {"name": "mode", "type": "enum", "default": "all", "options": ["all", "any"]},
            {"name": "strict", "default": "yes"},
            {"name": "n", "default": 1},
            {"name": "quote", "default": "it's"},
            {"name": "hex", "default": 31},
            {"name": "empty", "default": None},
        ],
        "libraryPins": {},
    }
    assert type(loads("a: 1.0")["a"]) is int and type(loads("a: 1.5")["a"]) is float
    assert math.isinf(loads("a: -.inf")["a"]) and loads("a: ~\nb: Null\nc: TRUE") == {"a": None, "b": None, "c": True}


def test_reads_a_file_that_is_json():
    # The CLI tests write template.yaml with JSON.stringify; pretty JSON over lines too.
    manifest = {"name": "T", "settings": [{"name": "at", "type": "number", "default": 0.5}], "libraryPins": {}}
    assert loads(json.dumps(manifest)) == manifest
    assert loads(json.dumps(manifest, indent=2)) == manifest


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("name: T\ndescription: |\n  two\n  lines\n", 2, "block scalars (| and >) are not read"),
        ("name: &n T\n", 1, "anchors (&), aliases (*) and tags (!) are not read"),
        ("name: T\nother: *n\n", 2, "anchors (&), aliases (*) and tags (!) are not read"),
        ("name: !!str T\n", 1, "anchors (&), aliases (*) and tags (!) are not read"),
        ("name: T\nname: U\n", 2, "the key 'name' appears twice"),
        ("settings:\n\t- name: a\n", 2, "indentation must be spaces, not tabs"),
        ("description: first\n  second\n", 2, "a value cannot go on over several lines"),
        ('description: "first\n  second"\n', 1, "a double-quoted value must end on its line"),
        ("options: [all,\n  any]\n", 1, "a flow list [...] must close on its line"),
        ("settings:\n    - name: a\n  - name: b\n", 3, "indentation matches no"),
        ("name: a: b\n", 1, "a value holding ': ' must be quoted"),
        ('name: "\\q"\n', 1, "unknown escape \\q"),
        ("name: T\n---\nname: U\n", 2, "only one YAML document is read"),
        ('{"name": "T",\n "name": "U"}\n', 1, "the key 'name' appears twice"),
        ('{"name": "T",\n "settings": }\n', 2, "not JSON"),
    ],
)
def test_anything_else_is_refused_naming_the_line(text, line, message):
    with pytest.raises(TemplateYamlError) as raised:
        loads(text)
    assert raised.value.line == line
    assert message in raised.value.message
    assert str(raised.value).startswith(f"line {line}: ")


# ------------------------------------------------------------ python -m oodle_eval run, PyYAML hidden

SHOW_PARAMS = "import json\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='p', value=json.dumps(ctx.params, sort_keys=True))])\n"


def run_without_pyyaml(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m oodle_eval ARGS` where `import yaml` fails (a package of that name raising ImportError comes first)."""
    blocker = tmp_path / "hide-pyyaml" / "yaml"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('PyYAML is hidden by this test')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(blocker.parent), str(LIB)]))
    env.pop("OODLE_EVAL_SHIMS", None)
    hidden = subprocess.run([sys.executable, "-c", "import yaml"], capture_output=True, text=True, env=env)
    assert hidden.returncode != 0 and "hidden by this test" in hidden.stderr  # the test cannot pass with PyYAML visible
    return subprocess.run([sys.executable, "-m", "oodle_eval", *args], capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=60)


def test_run_reads_the_pulled_folder_without_pyyaml(tmp_path):
    folder = tmp_path / "kw"
    folder.mkdir()
    (folder / "evaluate.py").write_text(SHOW_PARAMS)
    (folder / "template.yaml").write_text(PULLED)
    result = run_without_pyyaml(tmp_path, "run", str(folder / "evaluate.py"), "--params", '{"at": 3}', "--json")
    assert result.returncode == 0, result.stderr
    params = json.loads(json.loads(result.stdout)[0]["value"])
    assert params == {"at": 3, "mode": "all", "required": [], "weights": {"JSON check": {"a: b": [1, [2.5, 0], {"c": None}]}, "k:y": "é😀\t"}}


def test_run_names_the_line_of_yaml_it_does_not_read(tmp_path):
    folder = tmp_path / "kw"
    folder.mkdir()
    (folder / "evaluate.py").write_text(SHOW_PARAMS)
    (folder / "template.yaml").write_text('name: "T"\nsettings:\n  - name: "note"\n    default: >\n      folded\n')
    result = run_without_pyyaml(tmp_path, "run", str(folder / "evaluate.py"))
    assert result.returncode == 2
    assert f"{folder / 'template.yaml'}:4: block scalars (| and >) are not read" in result.stderr
    assert "--no-template" in result.stderr
