"""Protobuf text format (text_format) for messages declared with graph/protobuf.py: writer and parser.

Layout (protobuf's text format; tf-checkpoint-format.md §5 for the ``checkpoint`` file, §7 for text ``.meta``)::

    name: scalar            ints, floats (inf, nan), true/false, enum names, "C-escaped strings"
    name { fields }         a sub-message (``name: { }`` and ``name < >`` are accepted too)
    name: [v, v]            a repeated field as a list
    map { key: k value: v } one map entry;  # comments run to the end of the line

Writing is protobuf 7's Python ``text_format.MessageToString`` (``as_utf8=True``, its default): fields in
number order, proto3 zero values left out (by bit pattern: ``-0.0`` and ``nan`` are written), one line per
repeated value, map entries sorted by key (an entry leaves out its zero key / scalar value, as protobuf),
two-space indentation.  ``string`` values are raw UTF-8 with ``"`` ``'`` ``\\`` and ``\\t \\n \\r``
backslash-escaped and the other ASCII controls and DEL as 3-digit octal; ``bytes`` values escape every byte
outside printable ASCII as octal.  Doubles print as Python ``str``; floats as protobuf's ToShortestFloat.

Parsing is a port of protobuf's ``Tokenizer`` and ``_Parser`` in ``Merge`` mode (later singular values win,
repeated values append, a sub-message merges): line-based tokens, ``#`` comments, ``'`` quotes, adjacent
strings joined, ``[a, b]`` lists, ``,``/``;`` separators, CUnescape's C escapes and quirks, ``1.5f``,
``inf``, ``-Infinity``, ``nan``, ``0x``/C-octal integers with range checks, enum names or numbers, and
``allow_unknown_field`` skipping as protobuf does.  Anything else raises :class:`ParseError` with its line
and column, worded as protobuf words it.
"""

from __future__ import annotations

import math
import re
import struct
import unicodedata

from graph.proto.protobuf import (BOOL, BYTES, DOUBLE, ENUM, FIXED32, FIXED64, FLOAT, INT32, INT64, SFIXED32, SFIXED64,
                            SINT32, SINT64, STRING, UINT32, UINT64, Field, MapField, Message, ScalarType)

__all__ = ["ParseError", "message_to_string", "merge", "MAX_RECURSION_DEPTH"]

MAX_RECURSION_DEPTH = 100  # text_format.Merge's max_recursion_depth default


class ParseError(ValueError):
    """Text that protobuf's text_format rejects (text_format.ParseError); line and column are 1-based."""

    def __init__(self, message: str | None = None, line: int | None = None, column: int | None = None):
        if message is not None and line is not None:
            location = str(line) if column is None else "%d:%d" % (line, column)
            message = "%s : %s" % (location, message)
        super().__init__(*([] if message is None else [message]))
        self.line = line
        self.column = column

    def GetLine(self) -> int | None:  # noqa: N802 - protobuf's name
        """The 1-based line of the error."""
        return self.line

    def GetColumn(self) -> int | None:  # noqa: N802 - protobuf's name
        """The 1-based column of the error."""
        return self.column


# ------------------------------------------------------------------------------------------ writing

# protobuf text_encoding._str_escapes: ASCII controls and DEL as \ooo, a few named escapes.
_STR_ESCAPES = {i: "\\%03o" % i for i in list(range(32)) + [127]}
_STR_ESCAPES.update({ord("\t"): "\\t", ord("\n"): "\\n", ord("\r"): "\\r", ord('"'): '\\"', ord("'"): "\\'",
                     ord("\\"): "\\\\"})
# text_encoding._byte_escapes: the same, plus every non-ASCII byte as \ooo.
_BYTE_ESCAPES = [_STR_ESCAPES.get(i) or ("\\%03o" % i if i >= 128 else chr(i)) for i in range(256)]
_FLOAT32 = struct.Struct("<f")


def message_to_string(message: Message) -> str:
    """``message`` in text format, as protobuf 7's ``text_format.MessageToString`` writes it.

    Raises:
        ParseError: if the message holds unknown (undeclared) fields, which text format cannot show.
    """
    lines: list[str] = []
    _print_message(message, "", lines)
    return "".join(lines)


def _format_float(value: float) -> str:
    """type_checkers.ToShortestFloat: the shortest %g that survives a float32 round trip, printed by str."""
    single = _FLOAT32.unpack(_FLOAT32.pack(value))[0]
    if math.isnan(single) or math.isinf(single):
        return str(single)
    precision = 6
    rounded = float("%.*g" % (precision, single))
    while _FLOAT32.unpack(_FLOAT32.pack(rounded))[0] != single:
        precision += 1
        rounded = float("%.*g" % (precision, single))
    return str(rounded)


def _format_scalar(kind: ScalarType, value) -> str:
    if kind is STRING:
        return '"' + value.translate(_STR_ESCAPES) + '"'
    if kind is BYTES:
        return '"' + "".join([_BYTE_ESCAPES[byte] for byte in bytes(value)]) + '"'
    if kind is BOOL:
        return "true" if value else "false"
    if kind.by_number and value in kind.by_number:
        return kind.by_number[value]
    if kind is FLOAT:
        return _format_float(value)
    if kind is DOUBLE:
        return str(float(value))
    return str(int(value))


def _print_message(message: Message, pad: str, lines: list) -> None:
    if message._unknown:
        raise ParseError(f"{type(message).__name__} holds unknown fields, which text format cannot show")
    values = message._values
    inner = pad + "  "
    for field in message._fields:
        value = values.get(field.name)
        if value is None:
            continue
        name = field.name
        if isinstance(field, MapField):  # entries as protobuf prints them: zero keys / scalar values left out
            key_kind, value_kind, value_is_message = field.key_kind, field.kind, field.is_message
            for key in sorted(value):
                lines.append(f"{pad}{name} {{\n")
                if not key_kind.is_default(key):
                    lines.append(f"{inner}key: {_format_scalar(key_kind, key)}\n")
                item = value[key]
                if value_is_message:
                    lines.append(f"{inner}value {{\n")
                    _print_message(item, inner + "  ", lines)
                    lines.append(f"{inner}}}\n")
                elif not value_kind.is_default(item):
                    lines.append(f"{inner}value: {_format_scalar(value_kind, item)}\n")
                lines.append(f"{pad}}}\n")
        elif field.is_message:
            for item in (value if field.repeated else (value,)):
                lines.append(f"{pad}{name} {{\n")
                _print_message(item, inner, lines)
                lines.append(f"{pad}}}\n")
        elif field.repeated:
            kind = field.kind
            for item in value:
                lines.append(f"{pad}{name}: {_format_scalar(kind, item)}\n")
        elif field.presence or not field.kind.is_default(value):
            lines.append(f"{pad}{name}: {_format_scalar(field.kind, value)}\n")


# ------------------------------------------------------------------------------------------ tokens

# The token and whitespace rules of protobuf's text_format.Tokenizer.
_QUOTES = "\"'"
_TOKEN = re.compile("|".join(
    [r"[a-zA-Z_][0-9a-zA-Z_+-]*", r"([0-9+-]|(\.[0-9]))[0-9a-zA-Z_.+-]*"]
    + [r"{q}[^{q}\n\\]*((\\.)+[^{q}\n\\]*)*({q}|\\?$)".format(q=q) for q in _QUOTES]))
_WHITESPACE_OR_COMMENT = re.compile(r"(\s|(#.*$))+", re.MULTILINE)
_IDENTIFIER = re.compile(r"[^\d\W]\w*")
_IDENTIFIER_OR_NUMBER = re.compile(r"\w+")
_C_OCTAL_INTEGER = re.compile(r"(-?)0(\d+)$")
_FLOAT_OCTAL_PREFIX = re.compile(r"-?0[0-9]+")
_FLOAT_INFINITY = re.compile(r"-?inf(?:inity)?f?$", re.IGNORECASE)
_FLOAT_NAN = re.compile(r"nanf?$", re.IGNORECASE)
_SIMPLE_ESCAPES = {ord("\\"): 0x5C, ord("'"): 0x27, ord('"'): 0x22, ord("a"): 7, ord("b"): 8, ord("f"): 12,
                   ord("n"): 10, ord("r"): 13, ord("t"): 9, ord("v"): 11}
_HEX = frozenset(b"0123456789abcdefABCDEF")
_OCT = frozenset(b"01234567")
_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)
_UINT32 = (0, (1 << 32) - 1)
_UINT64 = (0, (1 << 64) - 1)
_INTEGER_RANGE = {INT32: _INT32, SINT32: _INT32, SFIXED32: _INT32, INT64: _INT64, SINT64: _INT64,
                  SFIXED64: _INT64, UINT32: _UINT32, FIXED32: _UINT32, UINT64: _UINT64, FIXED64: _UINT64}


class _Tokenizer:
    """protobuf's text_format.Tokenizer: tokens line by line, whitespace and ``#`` comments skipped."""

    def __init__(self, text: str):
        self._lines = text.split("\n")
        self._next_line = 0
        self._line = -1
        self._column = 0
        self._current = ""
        self._more = True
        self._previous = (0, 0)
        self.token = ""
        self._skip_whitespace()
        self.next()

    def _pop_line(self) -> None:
        while len(self._current) <= self._column:
            if self._next_line >= len(self._lines):
                self._current, self._more = "", False
                return
            self._current = self._lines[self._next_line]
            self._next_line += 1
            self._line += 1
            self._column = 0

    def _skip_whitespace(self) -> None:
        while True:
            self._pop_line()
            match = _WHITESPACE_OR_COMMENT.match(self._current, self._column)
            if not match:
                return
            self._column += len(match.group(0))

    def next(self) -> None:
        """Moves to the next token ("" at the end)."""
        self._previous = (self._line, self._column)
        self._column += len(self.token)
        self._skip_whitespace()
        if not self._more:
            self.token = ""
            return
        match = _TOKEN.match(self._current, self._column)
        self.token = match.group(0) if match else self._current[self._column]

    def at_end(self) -> bool:
        """True when every token was consumed."""
        return not self.token

    def error(self, message: str) -> ParseError:
        """A ParseError at the current token, quoting its line as protobuf does."""
        return ParseError("'%s': %s" % (self._current, message), self._line + 1, self._column + 1)

    def error_previous(self, message: str) -> ParseError:
        """A ParseError at the previous token."""
        return ParseError(message, self._previous[0] + 1, self._previous[1] + 1)

    def try_consume(self, token: str) -> bool:
        """Consumes ``token`` if it is next."""
        if self.token == token:
            self.next()
            return True
        return False

    def consume(self, token: str) -> None:
        """Consumes ``token`` or raises."""
        if not self.try_consume(token):
            raise self.error('Expected "%s".' % token)

    def consume_identifier(self) -> str:
        """Consumes an identifier (a word not starting with a digit)."""
        result = self.token
        if not _IDENTIFIER.match(result):
            raise self.error("Expected identifier.")
        self.next()
        return result

    def consume_identifier_or_number(self) -> str:
        """Consumes a field name."""
        result = self.token
        if not _IDENTIFIER_OR_NUMBER.match(result):
            raise self.error("Expected identifier or number, got %s." % result)
        self.next()
        return result

    def consume_integer(self, bounds: tuple[int, int]) -> int:
        """Consumes an integer (decimal, ``0x`` hex or C octal) within ``bounds``."""
        try:
            result = _parse_integer(self.token)
        except ValueError as error:
            raise self.error(str(error)) from None
        if not bounds[0] <= result <= bounds[1]:
            raise self.error("Value out of range: %d" % result)
        self.next()
        return result

    def consume_float(self) -> float:
        """Consumes a number as protobuf's ParseFloat reads it (``1.5f``, ``inf``, ``-Infinity``, ``nan``)."""
        try:
            result = _parse_float(self.token)
        except ValueError as error:
            raise self.error(str(error)) from None
        self.next()
        return result

    def consume_bool(self) -> bool:
        """Consumes ``true``/``t``/``1``/``True`` or ``false``/``f``/``0``/``False``."""
        if self.token in ("true", "t", "1", "True"):
            result = True
        elif self.token in ("false", "f", "0", "False"):
            result = False
        else:
            raise self.error('Expected "true" or "false".')
        self.next()
        return result

    def consume_enum(self, kind: ScalarType) -> int:
        """Consumes an enum value: a number (proto3 enums are open) or one of the kind's names."""
        text = self.token
        try:
            result = int(text, 0)
        except ValueError:
            if text not in kind.names:
                raise self.error('Enum type "%s" has no value named %s.' % (kind.name, text)) from None
            result = kind.names[text]
        if not _INT32[0] <= result <= _INT32[1]:
            raise self.error("Value out of range: %d" % result)
        self.next()
        return result

    def consume_string(self) -> str:
        """Consumes one or more adjacent quoted strings, unescapes them and decodes UTF-8."""
        data = self.consume_byte_string()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise self.error("Couldn't parse string: " + str(error)) from None

    def consume_byte_string(self) -> bytes:
        """Consumes one or more adjacent quoted strings and unescapes them."""
        parts = [self._consume_single_string()]
        while self.token and self.token[0] in _QUOTES:
            parts.append(self._consume_single_string())
        return b"".join(parts)

    def _consume_single_string(self) -> bytes:
        text = self.token
        if len(text) < 1 or text[0] not in _QUOTES:
            raise self.error("Expected string but found: %r" % (text,))
        if len(text) < 2 or text[-1] != text[0]:
            raise self.error("String missing ending quote: %r" % (text,))
        try:
            result = _unescape(text[1:-1])
        except ValueError as error:
            raise self.error(str(error)) from None
        self.next()
        return result

    def attempt(self, consume, *args) -> bool:
        """Runs ``consume(*args)``; False instead of its ParseError (protobuf's TryConsume* methods)."""
        try:
            consume(*args)
        except ParseError:
            return False
        return True


def _parse_integer(text: str) -> int:
    """text_format._ParseAbstractInteger: ``int(text, 0)``, with C's ``0755`` read as octal."""
    octal = _C_OCTAL_INTEGER.match(text)
    try:
        return int(octal.group(1) + "0o" + octal.group(2) if octal else text, 0)
    except ValueError:
        raise ValueError("Couldn't parse integer: %s" % text) from None


def _parse_float(text: str) -> float:
    """text_format.ParseFloat: Python's float(), then ``inf``/``nan`` spellings, then a trailing ``f``."""
    if _FLOAT_OCTAL_PREFIX.match(text):
        raise ValueError("Invalid octal float: %s" % text)
    try:
        return float(text)
    except ValueError:
        pass
    if _FLOAT_INFINITY.match(text):
        return -math.inf if text[0] == "-" else math.inf
    if _FLOAT_NAN.match(text):
        return math.nan
    try:
        return float(text.rstrip("fF"))
    except ValueError:
        raise ValueError("Couldn't parse float: %s" % text) from None


def _unescape(text: str) -> bytes:
    """C-style unescaping as protobuf's CUnescape: \\u/\\U first, then byte escapes over the UTF-8 bytes."""
    if "\\" not in text:  # nothing to unescape (both phases below would leave the text as it is)
        return text.encode("utf-8")
    # Phase 1 runs over the raw_unicode_escape form, where chars above U+00FF are \\uXXXX / \\UXXXXXXXX
    # text; so a backslash right before such a char escapes the escape's own backslash (protobuf quirk).
    text = "".join(c if ord(c) <= 0xFF else ("\\u%04x" % ord(c) if ord(c) <= 0xFFFF else "\\U%08x" % ord(c))
                   for c in text)
    out = []
    i = 0
    while i < len(text):  # phase 1: \uXXXX and \UXXXXXXXX after an odd run of backslashes
        if text[i] != "\\":
            out.append(text[i])
            i += 1
            continue
        end = i
        while end < len(text) and text[end] == "\\":
            end += 1
        run = end - i
        if run % 2 == 1 and end < len(text) and text[end] in "uU":
            out.append("\\" * (run - 1))
            out.append(_unicode_escape(text, end - 1))
            i = end + (5 if text[end] == "u" else 9)
        else:
            out.append("\\" * run)
            i = end
    try:
        data = "".join(out).encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(str(error)) from error
    result = bytearray()
    i = 0
    while i < len(data):  # phase 2: byte escapes (Python's unicode_escape rules, results must fit a byte)
        byte = data[i]
        if byte != 0x5C:
            result.append(byte)
            i += 1
            continue
        if i + 1 >= len(data):
            raise ValueError("\\ at end of string")
        code = data[i + 1]
        if code in _SIMPLE_ESCAPES:
            result.append(_SIMPLE_ESCAPES[code])
            i += 2
        elif code in _OCT:
            j = i + 1
            while j < len(data) and j < i + 4 and data[j] in _OCT:
                j += 1
            result.append(_fit_byte(int(data[i + 1:j], 8)))
            i = j
        elif code == ord("x"):
            j = i + 2
            while j < len(data) and j < i + 4 and data[j] in _HEX:
                j += 1
            if j == i + 2:
                raise ValueError("truncated \\xXX escape at position %d" % i)
            result.append(int(data[i + 2:j], 16))
            i = j
        elif code in b"uU":
            width = 4 if code == ord("u") else 8
            digits = data[i + 2:i + 2 + width]
            if len(digits) != width or not all(c in _HEX for c in digits):
                raise ValueError("truncated \\%sXXXX escape at position %d" % (chr(code), i))
            result.append(_fit_byte(int(digits, 16)))
            i += 2 + width
        elif code == ord("N"):
            end = data.find(b"}", i)
            if data[i + 2:i + 3] != b"{" or end < 0:
                raise ValueError("malformed \\N character escape at position %d" % i)
            try:
                char = unicodedata.lookup(data[i + 3:end].decode("latin-1"))
            except KeyError as error:
                raise ValueError("unknown Unicode character name at position %d" % i) from error
            result.append(_fit_byte(ord(char)))
            i = end + 1
        else:  # an unknown escape keeps its backslash
            result.append(byte)
            i += 1
    return bytes(result)


def _unicode_escape(text: str, i: int) -> str:
    width = 4 if text[i + 1] == "u" else 8
    digits = text[i + 2:i + 2 + width]
    if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
        raise ValueError("truncated \\%sXXXX escape at position %d" % (text[i + 1], i))
    value = int(digits, 16)
    if value > 0x10FFFF:
        raise ValueError("illegal Unicode character at position %d" % i)
    return chr(value)


def _fit_byte(value: int) -> int:
    if value > 0xFF:
        raise ValueError("escape value %d does not fit in a byte" % value)
    return value


# ------------------------------------------------------------------------------------------ parsing


def merge(text, message: Message, allow_unknown_field: bool = False) -> Message:
    """Merges text format into ``message`` as protobuf's ``text_format.Merge`` does; returns ``message``.

    Args:
        text: the text (str, or UTF-8 bytes).
        message: the message to merge into.
        allow_unknown_field: skip fields the message does not declare instead of failing.

    Raises:
        ParseError: naming the line and column of the first problem.
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise ParseError(str(error)) from error
    parser = _Parser(_Tokenizer(text), allow_unknown_field)
    while not parser.tokens.at_end():
        parser.merge_field(message)
    return message


class _Parser:
    """text_format._Parser in Merge mode (singular values may repeat: the last one wins)."""

    def __init__(self, tokens: _Tokenizer, allow_unknown_field: bool):
        self.tokens = tokens
        self.allow_unknown_field = allow_unknown_field
        self.depth = 1  # the top-level message counts, as in protobuf

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_RECURSION_DEPTH:
            raise ParseError("Message too deep. Max recursion depth is %d" % MAX_RECURSION_DEPTH)

    def merge_field(self, message: Message) -> None:
        """Merges one ``name: value`` / ``name { ... }`` (or a list of them) into ``message``."""
        tokens = self.tokens
        cls = type(message)
        if tokens.try_consume("["):
            tokens.consume_identifier()
            while tokens.try_consume("."):
                tokens.consume_identifier()
            raise tokens.error_previous('Message type "%s" does not have extensions.' % cls._full_name)
        name = tokens.consume_identifier_or_number()
        field = cls._by_name.get(name)
        if field is None:
            if not self.allow_unknown_field:
                raise tokens.error_previous('Message type "%s" has no field named "%s".' % (cls._full_name, name))
            self._skip_field_contents()
        else:
            if isinstance(field, MapField) or field.is_message:
                tokens.try_consume(":")
                merger = self._merge_message_field
            else:
                tokens.consume(":")
                merger = self._merge_scalar_field
            if field.repeated and tokens.try_consume("["):  # short repeated form: name: [a, b]
                if not tokens.try_consume("]"):
                    while True:
                        merger(message, field)
                        if tokens.try_consume("]"):
                            break
                        tokens.consume(",")
            else:
                merger(message, field)
        if not tokens.try_consume(","):
            tokens.try_consume(";")

    def _merge_message(self, message: Message, end: str) -> None:
        self._enter()
        tokens = self.tokens
        while not tokens.try_consume(end):
            if tokens.at_end():
                raise tokens.error_previous('Expected "%s".' % end)
            self.merge_field(message)
        self.depth -= 1

    def _merge_message_field(self, message: Message, field: Field) -> None:
        tokens = self.tokens
        if tokens.try_consume("<"):
            end = ">"
        else:
            tokens.consume("{")
            end = "}"
        values = message._values
        if isinstance(field, MapField):
            entry = field.entry_class()()
            self._merge_message(entry, end)
            value = entry.value
            if value is None:  # a message value left out: an empty message
                value = field.kind()
            values.setdefault(field.name, {})[entry.key] = value
        elif field.repeated:
            item = field.kind()
            self._merge_message(item, end)
            values.setdefault(field.name, []).append(item)
        else:
            item = values.get(field.name)
            if item is None:
                item = field.kind()
                field._clear_oneof_siblings(values)
                values[field.name] = item
            self._merge_message(item, end)

    def _merge_scalar_field(self, message: Message, field: Field) -> None:
        tokens = self.tokens
        kind = field.kind
        if kind is STRING:
            value = tokens.consume_string()
        elif kind is BYTES:
            value = tokens.consume_byte_string()
        elif kind is FLOAT or kind is DOUBLE:
            value = tokens.consume_float()
        elif kind is BOOL:
            value = tokens.consume_bool()
        elif kind is ENUM or kind.names:
            value = tokens.consume_enum(kind)
        else:
            value = tokens.consume_integer(_INTEGER_RANGE[kind])
        values = message._values
        if field.repeated:
            values.setdefault(field.name, []).append(value)
        else:
            field._clear_oneof_siblings(values)
            values[field.name] = value

    # -- allow_unknown_field: protobuf's _SkipField* ------------------------------------------

    def _skip_field_contents(self) -> None:
        tokens = self.tokens
        # A scalar has ':' and a value not opening a block; anything else must be a message.
        if tokens.try_consume(":") and tokens.token not in ("{", "<"):
            if tokens.token == "[":
                self._skip_repeated_value()
            else:
                self._skip_value()
        else:
            self._skip_message()

    def _skip_field(self) -> None:
        tokens = self.tokens
        if tokens.try_consume("["):  # an extension or an Any type URL
            tokens.consume_identifier()
            count = 1
            while tokens.try_consume("."):
                tokens.consume_identifier()
                count += 1
            if count == 3 and tokens.try_consume("/"):
                tokens.consume_identifier()
                while tokens.try_consume("."):
                    tokens.consume_identifier()
            tokens.consume("]")
        else:
            tokens.consume_identifier_or_number()
        self._skip_field_contents()
        if not tokens.try_consume(","):
            tokens.try_consume(";")

    def _skip_message(self) -> None:
        tokens = self.tokens
        if tokens.try_consume("<"):
            end = ">"
        else:
            tokens.consume("{")
            end = "}"
        self._enter()
        while tokens.token not in (">", "}"):
            self._skip_field()
        tokens.consume(end)
        self.depth -= 1

    def _skip_value(self) -> None:
        tokens = self.tokens
        if not (tokens.attempt(tokens.consume_byte_string) or tokens.attempt(tokens.consume_identifier)
                or tokens.attempt(tokens.consume_integer, _INT64) or tokens.attempt(tokens.consume_integer, _UINT64)
                or tokens.attempt(tokens.consume_float)):
            raise tokens.error("Invalid field value: " + tokens.token)

    def _skip_repeated_value(self) -> None:
        tokens = self.tokens
        tokens.consume("[")
        if not tokens.try_consume("]"):
            while True:
                if tokens.token in ("<", "{"):
                    self._skip_message()
                else:
                    self._skip_value()
                if tokens.try_consume("]"):
                    break
                tokens.consume(",")
