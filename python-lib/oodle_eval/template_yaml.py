"""A reader for ``template.yaml`` without PyYAML: the YAML subset ``oodle genai templates pull`` writes.

The service reads the same file with a full YAML 1.2 parser; this module reads the part of YAML
that ``pull`` and ``push`` write, plus what people usually type by hand, and names the line of
anything else, so a local run never needs a package that is not installed::

    name: "Keyword check"              # a block mapping; keys plain or quoted
    settings:
      - name: "mode"                   # a block sequence, of mappings or of scalars
        default: "all"
        options: ["all", "any"]        # a flow collection on one line (JSON, or YAML's [a, b] / {k: v})
    libraryPins: {}

What it reads:

- block mappings and block sequences nested by indentation (spaces only), including the compact
  forms ``- name: x`` and ``- - a``;
- scalars on one line: double-quoted (JSON's escapes and YAML's ``\\x \\0 \\e \\_ \\N \\L \\P``),
  single-quoted (``''`` for a quote), and plain ones resolved by the YAML 1.2 core schema, as the
  service's parser resolves them (``null ~ true false``, integers, ``0x``/``0o``, floats,
  ``.inf``/``.nan``; ``yes``/``no``/``on``/``off`` stay strings);
- flow collections written on one line; a whole file that is JSON;
- comments (``#`` at the start of a line or after a space), blank lines, a leading ``---``.

What it refuses, naming the line (:class:`TemplateYamlError`): block scalars (``|``, ``>``),
values over several lines, anchors, aliases and tags, tabs in indentation, duplicate keys, more
than one document, and indentation that matches no enclosing block.

Numbers are read as the service holds them: the service parses the file in JavaScript, which has
one number type and writes an integral number without a fraction, so ``1.0`` is the integer ``1``
here too (``ctx.params`` then holds the same value locally and in the sandbox).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["TemplateYamlError", "loads"]


class TemplateYamlError(ValueError):
    """A ``template.yaml`` outside the subset this module reads (or not YAML at all).

    Attributes:
        line: the 1-based line number the problem is on.
        message: what is wrong and what to write instead.
    """

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass
class _Line:
    number: int
    indent: int
    text: str  # without the indentation; may end with a comment


_INT = re.compile(r"[-+]?[0-9]+")
_OCT = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(inf|Inf|INF)")
_NAN = re.compile(r"\.(nan|NaN|NAN)")
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", "e": "\x1b",
            " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _as_service_reads(value: float) -> float | int:
    """An integral float as the integer JavaScript's JSON writes for it (|x| < 1e21, as Number#toString)."""
    if math.isfinite(value) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def _normalise(value: Any) -> Any:
    if isinstance(value, float):
        return _as_service_reads(value)
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value


def _plain(text: str, line: int) -> Any:
    """A plain scalar by the YAML 1.2 core schema."""
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if _INT.fullmatch(text):
        return int(text)
    if _OCT.fullmatch(text):
        return int(text[2:], 8)
    if _HEX.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.fullmatch(text):
        return math.nan
    first = text[0]
    if first in "&*!":
        raise TemplateYamlError(line, "anchors (&), aliases (*) and tags (!) are not read: write the value itself")
    if first in "|>":
        raise TemplateYamlError(line, 'block scalars (| and >) are not read: write the text as one double-quoted line ("first\\nsecond")')
    if first in "@`%":
        raise TemplateYamlError(line, f"a plain value cannot start with {first!r}: quote it")
    return text


class _Scanner:
    """Scalars and one-line flow collections from position ``pos`` of one line's text."""

    def __init__(self, text: str, line: int):
        self.text = text
        self.pos = 0
        self.line = line

    def error(self, message: str) -> TemplateYamlError:
        return TemplateYamlError(self.line, message)

    def skip_spaces(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def at_end(self) -> bool:
        """True when only spaces and a comment are left."""
        rest = self.text[self.pos:]
        stripped = rest.lstrip(" \t")
        spaced = len(rest) > len(stripped) or self.pos == 0 or self.text[self.pos - 1] in " \t"
        return stripped == "" or (stripped.startswith("#") and spaced)

    def double_quoted(self) -> str:
        assert self.text[self.pos] == '"'
        self.pos += 1
        out: list[str] = []
        while True:
            if self.pos >= len(self.text):
                raise self.error("a double-quoted value must end on its line (write line breaks as \\n)")
            ch = self.text[self.pos]
            if ch == '"':
                self.pos += 1
                return "".join(out)
            if ch == "\\":
                if self.pos + 1 >= len(self.text):
                    raise self.error("a double-quoted value must end on its line (write line breaks as \\n)")
                code = self.text[self.pos + 1]
                if code in _HEX_ESCAPES:
                    digits = self.text[self.pos + 2 : self.pos + 2 + _HEX_ESCAPES[code]]
                    if len(digits) != _HEX_ESCAPES[code] or not all(c in "0123456789abcdefABCDEF" for c in digits):
                        raise self.error(f"\\{code} must be followed by {_HEX_ESCAPES[code]} hexadecimal digits")
                    out.append(chr(int(digits, 16)))
                    self.pos += 2 + len(digits)
                    continue
                if code not in _ESCAPES:
                    raise self.error(f"unknown escape \\{code} in a double-quoted value")
                out.append(_ESCAPES[code])
                self.pos += 2
                continue
            out.append(ch)
            self.pos += 1

    def single_quoted(self) -> str:
        assert self.text[self.pos] == "'"
        self.pos += 1
        out: list[str] = []
        while True:
            if self.pos >= len(self.text):
                raise self.error("a single-quoted value must end on its line")
            ch = self.text[self.pos]
            if ch == "'":
                if self.text[self.pos + 1 : self.pos + 2] == "'":
                    out.append("'")
                    self.pos += 2
                    continue
                self.pos += 1
                return "".join(out)
            out.append(ch)
            self.pos += 1

    def quoted(self) -> str:
        raw = self.double_quoted() if self.text[self.pos] == '"' else self.single_quoted()
        try:
            return _join_surrogates(raw)
        except UnicodeDecodeError:
            raise self.error("a \\u escape names half of a surrogate pair without the other half") from None

    def plain(self, in_flow: bool) -> Any:
        """A plain scalar up to a comment, ': ' (an error outside flow keys) and, in flow, , [ ] { }."""
        start = self.pos
        stops = ",[]{}" if in_flow else ""
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch in stops:
                break
            if ch == "#" and self.pos > start and self.text[self.pos - 1] in " \t":
                break
            if ch == ":" and (self.pos + 1 == len(self.text) or self.text[self.pos + 1] in " \t" or (in_flow and self.text[self.pos + 1] in ",[]{}")):
                if in_flow:
                    break
                raise self.error("a value holding ': ' must be quoted (or the mapping written on lines of its own)")
            self.pos += 1
        return _plain(self.text[start : self.pos].rstrip(" \t"), self.line)

    def value(self, in_flow: bool = False) -> Any:
        """One value: quoted, a flow collection, or plain."""
        self.skip_spaces()
        if self.pos >= len(self.text):
            return None
        ch = self.text[self.pos]
        if ch in "\"'":
            return self.quoted()
        if ch == "[":
            return self.flow_sequence()
        if ch == "{":
            return self.flow_mapping()
        if in_flow and ch in ",]}":
            return None
        return self.plain(in_flow)

    def flow_sequence(self) -> list[Any]:
        self.pos += 1
        items: list[Any] = []
        while True:
            self.skip_spaces()
            if self.pos >= len(self.text) or self.text[self.pos] == "#":
                raise self.error("a flow list [...] must close on its line: write it on one line, or as a block list of '- ' lines")
            if self.text[self.pos] == "]":
                self.pos += 1
                return items
            items.append(self.value(in_flow=True))
            self.skip_spaces()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
            elif self.pos < len(self.text) and self.text[self.pos] != "]":
                raise self.error(f"expected , or ] in a flow list, found {self.text[self.pos]!r}")

    def flow_mapping(self) -> dict[str, Any]:
        self.pos += 1
        result: dict[str, Any] = {}
        while True:
            self.skip_spaces()
            if self.pos >= len(self.text) or self.text[self.pos] == "#":
                raise self.error("a flow mapping {...} must close on its line: write it on one line, or as indented key: value lines")
            if self.text[self.pos] == "}":
                self.pos += 1
                return result
            key = self.quoted() if self.text[self.pos] in "\"'" else self.plain(in_flow=True)
            key = _key_text(key)
            if key in result:
                raise self.error(f"the key {key!r} appears twice")
            self.skip_spaces()
            value = None
            if self.pos < len(self.text) and self.text[self.pos] == ":":
                self.pos += 1
                value = self.value(in_flow=True)
            result[key] = value
            self.skip_spaces()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                self.pos += 1
            elif self.pos < len(self.text) and self.text[self.pos] != "}":
                raise self.error(f"expected , or }} in a flow mapping, found {self.text[self.pos]!r}")


def _join_surrogates(text: str) -> str:
    """Pairs of escaped UTF-16 surrogates (as JSON writes characters beyond U+FFFF) as one character."""
    if not any("\ud800" <= c <= "\udfff" for c in text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16")


def _key_text(key: Any) -> str:
    """A mapping key as the service holds it: a string, as JavaScript makes an object key of it.

    ``null: x`` has the key "", ``true: x`` "true", ``1.0: x`` "1", ``0x10: x`` "16".
    """
    if key is None:
        return ""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, float):
        return str(_as_service_reads(key))
    return str(key)


def _inline(text: str, line: int) -> Any:
    """A whole value written on the rest of one line."""
    scanner = _Scanner(text, line)
    value = scanner.value()
    if not scanner.at_end():
        raise TemplateYamlError(line, f"unexpected {scanner.text[scanner.pos:].strip()!r} after the value")
    return value


def _split_key(text: str, line: int) -> tuple[str, str] | None:
    """``key: rest`` → (key, rest); None when the line is not a mapping entry."""
    if text[0] in "\"'":
        scanner = _Scanner(text, line)
        key = scanner.quoted()
        scanner.skip_spaces()
        if scanner.text[scanner.pos : scanner.pos + 1] != ":":
            return None
        rest = scanner.text[scanner.pos + 1 :]
        if rest and rest[0] not in " \t":
            return None
        return key, rest
    if text[0] in "[]{},#&*!|>%@`" or text.startswith("- ") or text == "-" or text.startswith("? "):
        return None
    match = re.search(r":(\s|$)", text)
    if match is None:
        return None
    key = text[: match.start()].rstrip(" \t")
    if " #" in key:
        return None
    return _key_text(_plain(key, line) if key else ""), text[match.start() + 1 :]


def _is_item(text: str) -> bool:
    return text == "-" or text.startswith("- ") or text.startswith("-\t")


class _Parser:
    def __init__(self, lines: list[_Line]):
        self.lines = lines
        self.i = 0

    def peek(self) -> _Line | None:
        return self.lines[self.i] if self.i < len(self.lines) else None

    def block(self, indent: int) -> Any:
        """The node whose first line is the current one, at ``indent``."""
        line = self.lines[self.i]
        if _is_item(line.text):
            return self.sequence(indent)
        if _split_key(line.text, line.number) is not None:
            return self.mapping(indent)
        self.i += 1
        value = _inline(line.text, line.number)
        following = self.peek()
        if following is not None and following.indent > indent:
            raise TemplateYamlError(following.number, "a value cannot go on over several lines: write it on one line (quoted, with \\n for line breaks)")
        return value

    def nested(self, parent_indent: int, allow_same_indent_list: bool) -> Any:
        """The block under a ``key:`` or ``-`` with nothing after it (None when there is none)."""
        following = self.peek()
        if following is None:
            return None
        if following.indent > parent_indent or (allow_same_indent_list and following.indent == parent_indent and _is_item(following.text)):
            return self.block(following.indent)
        return None

    def sequence(self, indent: int) -> list[Any]:
        items: list[Any] = []
        while (line := self.peek()) is not None and line.indent == indent and _is_item(line.text):
            rest = line.text[1:]
            content = rest.lstrip(" \t")
            if content == "" or content.startswith("#"):
                self.i += 1
                items.append(self.nested(indent, allow_same_indent_list=False))
            else:
                # The compact form "- key: value" / "- - a": the content is a node at its own column.
                column = indent + 1 + (len(rest) - len(content))
                self.lines[self.i] = _Line(line.number, column, content)
                items.append(self.block(column))
        line = self.peek()
        if line is not None and line.indent > indent:
            raise TemplateYamlError(line.number, "this line's indentation matches no list item or key above it")
        return items

    def mapping(self, indent: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        while (line := self.peek()) is not None and line.indent == indent:
            split = _split_key(line.text, line.number)
            if split is None:
                if _is_item(line.text):
                    raise TemplateYamlError(line.number, "a list item where a key was expected (indent the list under its key)")
                raise TemplateYamlError(line.number, "expected key: value")
            key, rest = split
            if key in result:
                raise TemplateYamlError(line.number, f"the key {key!r} appears twice")
            self.i += 1
            stripped = rest.strip(" \t")
            if stripped == "" or stripped.startswith("#"):
                result[key] = self.nested(indent, allow_same_indent_list=True)
            else:
                result[key] = _inline(rest, line.number)
                following = self.peek()
                if following is not None and following.indent > indent:
                    raise TemplateYamlError(following.number, "a value cannot go on over several lines: write it on one line (quoted, with \\n for line breaks)")
        line = self.peek()
        if line is not None and line.indent > indent:
            raise TemplateYamlError(line.number, "this line's indentation matches no key above it")
        return result


class _DuplicateKey(Exception):
    def __init__(self, key: str):
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _lines(text: str) -> list[_Line]:
    lines: list[_Line] = []
    started = False
    # Only \n (and \r\n) end a line in YAML 1.2; str.splitlines would also split on U+0085 and U+2028.
    for number, raw in enumerate(text.split("\n"), start=1):
        raw = raw[:-1] if raw.endswith("\r") else raw
        body = raw.lstrip(" ")
        if body == "" or body.startswith("#"):
            continue
        if body.startswith("\t"):
            raise TemplateYamlError(number, "indentation must be spaces, not tabs")
        if raw.startswith("---") and (len(raw) == 3 or raw[3] in " \t"):
            after = raw[3:].strip(" \t")
            if started:
                raise TemplateYamlError(number, "only one YAML document is read (a --- line other than the first)")
            if after and not after.startswith("#"):
                raise TemplateYamlError(number, "write the document on the lines after ---, not on its line")
            started = True
            continue
        if raw.startswith("...") and (len(raw) == 3 or raw[3] in " \t"):
            raise TemplateYamlError(number, "only one YAML document is read (a ... line)")
        if raw.startswith("%"):
            raise TemplateYamlError(number, "YAML directives (%) are not read")
        started = True
        lines.append(_Line(number, len(raw) - len(body), body.rstrip(" \t")))
    return lines


def loads(text: str) -> Any:
    """Parses ``template.yaml`` text (the subset described in the module docstring).

    Returns:
        The document as Python values (dict, list, str, int, float, bool, None); None for an
        empty document.

    Raises:
        TemplateYamlError: anything outside the subset, or not YAML, naming the line.
    """
    lines = _lines(text)
    if not lines:
        return None
    if lines[0].text[0] in "[{" and lines[0].indent == 0:
        # A file that is JSON (JSON is YAML), possibly over several lines.
        try:
            return _normalise(json.loads(text, object_pairs_hook=_unique_keys))
        except _DuplicateKey as duplicate:
            raise TemplateYamlError(lines[0].number, f"the key {duplicate.key!r} appears twice") from None
        except ValueError as error:
            if len(lines) == 1:
                return _normalise(_inline(lines[0].text, lines[0].number))
            raise TemplateYamlError(getattr(error, "lineno", lines[0].number), f"not JSON: {getattr(error, 'msg', error)}") from None
    parser = _Parser(lines)
    value = parser.block(lines[0].indent)
    leftover = parser.peek()
    if leftover is not None:
        raise TemplateYamlError(leftover.number, "this line does not continue the block above it (check its indentation: a list item and a key cannot share one level)")
    return _normalise(value)
