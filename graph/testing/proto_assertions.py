"""``assertProtoEquals``: a message compared with another or with its text format, as TF's TestCase compares them.

TF's rule (util/protobuf/compare.py): equal messages pass; otherwise both are normalized (floats rounded to 6
digits, doubles to 7; with ``relative_tolerance``, close floats of the expected side take the actual's value)
and their text formats must be equal, so a failure shows unittest's line diff of the two texts.  The messages
given are not modified (TF normalizes them in place; here copies are).
"""

from __future__ import annotations

from graph.proto import text_format
from graph.proto.framework import GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER, GraphDef
from graph.proto.node_def import EncodedGraphDef
from graph.proto.protobuf import Field, MapField, Message
from graph.proto.wire import DOUBLE, FLOAT

__all__ = ["ProtoAssertions"]


def _plain_class(message: Message) -> type:
    """The class a blank message of ``message``'s kind is built from (a lazily decoded GraphDef is a GraphDef)."""
    return GraphDef if isinstance(message, EncodedGraphDef) else type(message)


def _copy(message: Message) -> Message:
    return _plain_class(message).FromString(message.SerializeToString())


def _declared_fields(message: Message) -> list[Field]:
    """The fields ``message``'s class declares, by number."""
    kind = type(message)
    fields = [getattr(kind, name) for name in dir(kind) if isinstance(getattr(kind, name, None), Field)]
    return sorted(fields, key=lambda field: field.number)


def _set_fields(message: Message) -> list[tuple[Field, object]]:
    """(field, value) of the fields set in ``message``, by number (protobuf's ListFields)."""
    return [(field, getattr(message, field.name)) for field in _declared_fields(message) if message.has(field.name)]


def _normalize_numbers(message: Message) -> None:
    """TF's NormalizeNumberFields: floats to 6 decimals, doubles to 7, recursing into sub-messages."""
    for field, value in _set_fields(message):
        if isinstance(field, MapField):
            if field.is_message:
                for item in value.values():
                    _normalize_numbers(item)
            continue
        values = value if field.repeated else [value]
        if field.kind is FLOAT or field.kind is DOUBLE:
            digits = 6 if field.kind is FLOAT else 7
            rounded = [round(float(item), digits) for item in values]
            setattr(message, field.name, rounded if field.repeated else rounded[0])
        elif field.is_message:
            for item in values:
                _normalize_numbers(item)


def _close(x: float, y: float, relative_tolerance: float) -> bool:
    """compare.isClose: NaNs equal NaNs, infinities only themselves, else within the relative tolerance."""
    if x != x or y != y:
        return (x != x) == (y != y)
    if x in (float("inf"), float("-inf")) or y in (float("inf"), float("-inf")):
        return x == y
    return abs(x - y) <= relative_tolerance * max(abs(x), abs(y))


def _adopt_close_floats(expected: Message, actual: Message, relative_tolerance: float) -> None:
    """compare.checkFloatEqAndReplace: ``expected``'s floats that are close to ``actual``'s take their values."""
    for (field, expected_value), (actual_field, actual_value) in zip(_set_fields(expected), _set_fields(actual)):
        if field is not actual_field:  # TF pairs the set fields by position; only like fields can match
            continue
        if isinstance(field, MapField):
            if field.is_message:
                for left, right in zip(expected_value.values(), actual_value.values()):
                    _adopt_close_floats(left, right, relative_tolerance)
            continue
        lefts = expected_value if field.repeated else [expected_value]
        rights = actual_value if field.repeated else [actual_value]
        if field.kind is FLOAT or field.kind is DOUBLE:
            merged = [right if _close(left, right, relative_tolerance) else left for left, right in zip(lefts, rights)]
            merged += lefts[len(merged):]
            setattr(expected, field.name, merged if field.repeated else merged[0])
        elif field.is_message:
            for left, right in zip(lefts, rights):
                _adopt_close_floats(left, right, relative_tolerance)


class ProtoAssertions:
    """Mixin of TF's protobuf assertions; the class it joins provides unittest's assertions."""

    def _AssertProtoEquals(self, a, b, msg=None, relative_tolerance=None) -> None:  # noqa: N802 - TF's name
        if a == b:
            return
        a, b = _copy(a), _copy(b)
        _normalize_numbers(a)
        _normalize_numbers(b)
        if relative_tolerance is not None:
            _adopt_close_floats(a, b, relative_tolerance)
        self.assertMultiLineEqual(text_format.to_text(a), text_format.to_text(b), msg=msg)

    def assertProtoEquals(self, expected_message_maybe_ascii, validate_message, msg=None,  # noqa: N802
                          relative_tolerance=None) -> None:
        """``validate_message`` equals the expected message, given as a message or in text format.

        Raises:
            AssertionError: showing the line diff of the two messages' text formats (also, as TF's
                ``assert False``, when the arguments are neither two messages of one type nor text and a
                message).
            ParseError: when the text does not parse as a message of ``validate_message``'s type.
        """
        if isinstance(expected_message_maybe_ascii, _plain_class(validate_message)):
            expected = expected_message_maybe_ascii
        elif isinstance(expected_message_maybe_ascii, (str, bytes)):
            expected = _plain_class(validate_message)()
            text_format.merge(expected_message_maybe_ascii, expected)
        else:
            raise AssertionError("Can't compare protos of type %s and %s." % (type(expected_message_maybe_ascii),
                                                                            type(validate_message)))
        self._AssertProtoEquals(expected, validate_message, msg=msg, relative_tolerance=relative_tolerance)

    def assertProtoEqualsVersion(self, expected, actual, producer=GRAPH_DEF_VERSION,  # noqa: N802
                                 min_consumer=GRAPH_DEF_VERSION_MIN_CONSUMER, msg=None) -> None:
        """assertProtoEquals of a GraphDef text with ``versions { producer min_consumer }`` put in front."""
        expected = "versions { producer: %d min_consumer: %d };\n%s" % (producer, min_consumer, expected)
        self.assertProtoEquals(expected, actual, msg=msg)
