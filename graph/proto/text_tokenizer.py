"""Protobuf text format tokens: protobuf's ``text_format.Tokenizer`` and the scalars it reads.

Layout of a token (protobuf's text_format.py; text_format.py in this package draws the grammar)::

    identifier : [a-zA-Z_][0-9a-zA-Z_+-]*            field names, enum names, true/false, inf/nan
    number     : ([0-9+-]|\\.[0-9])[0-9a-zA-Z_.+-]*    decimal, 0x hex, C octal 0755, 1.5f, 1e5
    string     : "..." or '...' on one line          C escapes (CUnescape), adjacent strings joined
    skipped    : whitespace, # comment to end of line

Integers are range-checked per field kind; floats read as protobuf's ParseFloat (``1.5f``, ``inf``,
``-Infinity``, ``nan``); strings are unescaped as protobuf's CUnescape, quirks included.  Every problem is
a :class:`ParseError` with its 1-based line and column, worded as protobuf words it.
"""

from __future__ import annotations

import math
import re
import unicodedata

from graph.proto.wire import (FIXED32, FIXED64, INT32, INT64, SFIXED32, SFIXED64, SINT32, SINT64, UINT32, UINT64,
                              ScalarType)

__all__ = ["ParseError", "Tokenizer", "INTEGER_RANGE", "INT64_RANGE", "UINT64_RANGE"]


class ParseError(ValueError):
    """Text that protobuf's text_format rejects (text_format.ParseError); line and column are 1-based."""

    def __init__(self, message: str | None = None, line: int | None = None, column: int | None = None):
        if message is not None and line is not None:
            location = str(line) if column is None else "%d:%d" % (line, column)
            message = "{} : {}".format(location, message)
        super().__init__(*([] if message is None else [message]))
        self.line = line
        self.column = column

    def GetLine(self) -> int | None:  # noqa: N802 - protobuf's name
        """The 1-based line of the error."""
        return self.line

    def GetColumn(self) -> int | None:  # noqa: N802 - protobuf's name
        """The 1-based column of the error."""
        return self.column


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
INT64_RANGE = (-(1 << 63), (1 << 63) - 1)
_UINT32 = (0, (1 << 32) - 1)
UINT64_RANGE = (0, (1 << 64) - 1)
INTEGER_RANGE = {  # field kind -> (min, max) a text integer may take
    INT32: _INT32, SINT32: _INT32, SFIXED32: _INT32, INT64: INT64_RANGE, SINT64: INT64_RANGE,
    SFIXED64: INT64_RANGE, UINT32: _UINT32, FIXED32: _UINT32, UINT64: UINT64_RANGE, FIXED64: UINT64_RANGE}


class Tokenizer:
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
        return ParseError("'{}': {}".format(self._current, message), self._line + 1, self._column + 1)

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
                raise self.error('Enum type "{}" has no value named {}.'.format(kind.name, text)) from None
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
            raise self.error("Expected string but found: {!r}".format(text))
        if len(text) < 2 or text[-1] != text[0]:
            raise self.error("String missing ending quote: {!r}".format(text))
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
