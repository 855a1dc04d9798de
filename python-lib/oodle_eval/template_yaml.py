"""``template.yaml`` (a folder of ``oodle genai templates pull``) read with PyYAML, as the CLI reads it.

The CLI reads and writes the file with the npm package ``yaml`` (YAML 1.2, core schema;
src/cli/template-yaml.ts). PyYAML implements YAML 1.1, whose ``SafeLoader`` reads plain scalars
by other rules (``yes``/``no``/``on``/``off`` are booleans, ``010`` is octal, ``1e3`` a string,
``2001-12-14`` a date, ``1:20`` the integer 80, ``<<`` merges) and keeps the last of two equal keys.
``CoreLoader`` keeps PyYAML's parser and reads the document as the CLI does:

- plain scalars by YAML 1.2's core schema: ``null``/``Null``/``NULL``/``~``/empty, ``true``/``false``
  (three spellings each), integers (decimal, ``0o`` octal, ``0x`` hex), floats; anything else a
  string. An explicit tag (``!!int``) must fit its own core pattern;
- a tag outside the core schema (``!!timestamp``, ``!!binary``, ``!!set``, ``!foo``), a key that
  appears twice, a list or mapping as a key, and a number that JSON cannot hold (``.inf``, ``.nan``,
  beyond ±1.8e308) are refused, naming the line;
- numbers as the service holds them: JavaScript has one number type (a 64-bit float) and writes an
  integral number below 1e21 without a fraction, so ``1.0`` is the integer ``1`` here, ``10**21`` the
  float ``1e21`` and 12345678901234567890 the 12345678901234567000 JavaScript holds (``ctx.params``
  then holds the same value locally and in the sandbox);
- a key that is no string as JavaScript makes it one: ``1`` -> ``"1"``, ``true`` -> ``"true"``,
  ``null`` -> ``""``; JSON's escape of a character beyond U+FFFF (``"\\ud83d\\ude00"``) as that
  character.

Everything else is PyYAML's: block scalars, anchors and aliases, flow collections over lines, a
file that is JSON. Its errors (a tab in indentation, an unknown escape, a second document) keep
PyYAML's wording with the line. test/fixtures/template-yaml-cases.json holds the files that both
readers are tested on.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node

__all__ = ["CoreLoader", "TemplateYamlError", "loads"]

_TAG = "tag:yaml.org,2002:"

# YAML 1.2 core schema, as the npm package yaml tests each tag (its src/schema/core/*.ts).
_NULL = re.compile(r"~|[Nn]ull|NULL|")
_BOOL = re.compile(r"[Tt]rue|TRUE|[Ff]alse|FALSE")
_INT = re.compile(r"[-+]?[0-9]+")
_OCT = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+")
_FLOAT_NAN = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN")
_JS_EXACT = 2**53
_JS_POSITIONAL = 1e21  # JavaScript writes an integral number below this without an exponent


class TemplateYamlError(ValueError):
    """A ``template.yaml`` that is not YAML, or not data as the service reads it.

    Attributes:
        line: the 1-based line number the problem is on.
        message: what is wrong.
    """

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


def _refuse(node: Node, message: str) -> ConstructorError:
    return ConstructorError(None, None, message, node.start_mark)


def _as_service_reads(value: int | float, node: Node) -> int | float:
    """A number as JavaScript holds it and JSON then carries it to the sandbox."""
    if type(value) is int and -_JS_EXACT <= value <= _JS_EXACT:
        return value
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise _refuse(node, f"{node.value!r} is not a number JSON can hold (no .inf, .nan or numbers beyond ±1.8e308)")
    if number.is_integer() and abs(number) < _JS_POSITIONAL:
        return int(Decimal(repr(number)))  # the shortest digits, as JavaScript writes them
    return number


def _js_key(key: Any) -> str:
    """A scalar key as JavaScript's ``String(key)`` writes it (the CLI's object keys)."""
    if isinstance(key, str):
        return key
    if key is None:
        return ""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    text = repr(key)  # a float: the same shortest digits, written JavaScript's way
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    if -6 <= int(exponent) < 21:  # where JavaScript writes the digits without an exponent
        return format(Decimal(text), "f")
    return f"{mantissa}e{int(exponent):+d}"


_SURROGATE = re.compile("[\ud800-\udfff]")


def _joined(text: str) -> str:
    """``"\\ud83d\\ude00"`` (JSON's escape of one character beyond U+FFFF) as that one character,
    as JavaScript reads it; PyYAML leaves two halves. A lone half stays as it is."""
    if not _SURROGATE.search(text):
        return text
    try:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        return text


class CoreLoader(yaml.SafeLoader):
    """PyYAML's safe loader reading YAML 1.2's core schema (see the module docstring)."""

    yaml_implicit_resolvers: dict = {}
    yaml_constructors: dict = {}

    def construct_null(self, node: Node) -> None:
        if not _NULL.fullmatch(node.value):
            raise _refuse(node, f"!!null {node.value!r} is not null")
        return None

    def construct_bool(self, node: Node) -> bool:
        if not _BOOL.fullmatch(node.value):
            raise _refuse(node, f"!!bool {node.value!r} is not true or false (YAML 1.2)")
        return node.value.lower() == "true"

    def construct_int(self, node: Node) -> int | float:
        text = node.value
        if _INT.fullmatch(text):
            value = int(text)
        elif _OCT.fullmatch(text):
            value = int(text[2:], 8)
        elif _HEX.fullmatch(text):
            value = int(text[2:], 16)
        else:
            raise _refuse(node, f"!!int {text!r} is not an integer (YAML 1.2: 12, 0o14 or 0xC)")
        return _as_service_reads(value, node)

    def construct_float(self, node: Node) -> int | float:
        text = node.value
        if _FLOAT_NAN.fullmatch(text):
            raise _refuse(node, f"{text!r} is not a number JSON can hold (no .inf, .nan or numbers beyond ±1.8e308)")
        if not _FLOAT.fullmatch(text):
            raise _refuse(node, f"!!float {text!r} is not a float (YAML 1.2)")
        return _as_service_reads(float(text), node)

    def construct_str(self, node: Node) -> str:
        return _joined(self.construct_scalar(node))

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[str, Any]:
        """A mapping with string keys; a key twice, or a list or mapping as a key, is refused."""
        if not isinstance(node, MappingNode):
            raise _refuse(node, f"expected a mapping, found {node.id}")
        mapping: dict[str, Any] = {}
        seen: set[tuple[str, Any]] = set()
        for key_node, value_node in node.value:
            if key_node.id != "scalar":
                raise _refuse(key_node, "a key must be a string (or a number, true, false, null), not a list or mapping")
            key = self.construct_object(key_node, deep=deep)
            identity = ("number", key) if isinstance(key, (int, float)) and not isinstance(key, bool) else (type(key).__name__, key)
            if identity in seen:
                raise _refuse(key_node, f"the key {_js_key(key)!r} appears twice")
            seen.add(identity)
            mapping[_js_key(key)] = self.construct_object(value_node, deep=deep)
        return mapping

    def construct_undefined(self, node: Node) -> None:
        raise _refuse(node, f"the tag {node.tag.replace(_TAG, '!!')} is not read: template.yaml holds JSON data (strings, numbers, true/false, null, lists, mappings)")


for _tag, _pattern, _first in (
    ("null", _NULL, ["~", "n", "N", ""]),
    ("bool", _BOOL, list("tTfF")),
    ("int", re.compile(f"{_INT.pattern}|{_OCT.pattern}|{_HEX.pattern}"), list("-+0123456789")),
    ("float", re.compile(f"{_FLOAT.pattern}|{_FLOAT_NAN.pattern}"), list("-+0123456789.")),
):
    CoreLoader.add_implicit_resolver(_TAG + _tag, re.compile(f"^(?:{_pattern.pattern})$"), _first)
for _tag, _constructor in (
    ("null", CoreLoader.construct_null),
    ("bool", CoreLoader.construct_bool),
    ("int", CoreLoader.construct_int),
    ("float", CoreLoader.construct_float),
    ("str", CoreLoader.construct_str),
    ("seq", yaml.SafeLoader.construct_yaml_seq),
    ("map", yaml.SafeLoader.construct_yaml_map),
):
    CoreLoader.add_constructor(_TAG + _tag, _constructor)
CoreLoader.add_constructor(None, CoreLoader.construct_undefined)


def _line(error: yaml.YAMLError, text: str) -> int:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if mark is not None:
        return mark.line + 1
    position = getattr(error, "position", None)  # a ReaderError: a character YAML does not allow
    return text.count("\n", 0, position) + 1 if isinstance(position, int) else 1


def _message(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.reader.ReaderError):
        return f"the character #x{error.character:04x} is not allowed in YAML: write it escaped in a double-quoted string"
    problem = getattr(error, "problem", None) or str(error)
    context = getattr(error, "context", None)
    return f"{problem} ({context})" if context else problem


def loads(text: str) -> Any:
    """Parses ``template.yaml`` text (see the module docstring); an empty file is None.

    Raises:
        TemplateYamlError: not YAML, or not data as the service reads it; with its line.
    """
    try:
        return yaml.load(text, Loader=CoreLoader)  # noqa: S506 -- CoreLoader is a SafeLoader
    except yaml.YAMLError as error:
        raise TemplateYamlError(_line(error, text), _message(error)) from None
