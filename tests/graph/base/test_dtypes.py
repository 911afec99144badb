"""graph.base.dtypes: enum numbers, numpy mapping, reference types; checked against TensorFlow."""

import ml_dtypes
import numpy as np
import pytest

from graph.base import dtypes
from graph.ops import constant_ops

EXPECTED_ENUMS = {
    "float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7,
    "complex64": 8, "int64": 9, "bool": 10, "qint8": 11, "quint8": 12, "qint32": 13, "bfloat16": 14,
    "qint16": 15, "quint16": 16, "uint16": 17, "complex128": 18, "float16": 19, "resource": 20,
    "variant": 21, "uint32": 22, "uint64": 23,
}


@pytest.mark.parametrize("name,enum", sorted(EXPECTED_ENUMS.items()))
def test_enum_numbers_match_types_proto(name, enum):
    dtype = dtypes.as_dtype(name)
    assert dtype.as_datatype_enum == enum
    assert dtypes.as_dtype(enum) is dtype
    assert dtype._as_ref.as_datatype_enum == enum + 100
    assert dtype._as_ref.base_dtype is dtype


def test_numpy_round_trip_and_aliases():
    assert dtypes.as_dtype(np.float32) is dtypes.float32
    assert dtypes.as_dtype(np.dtype("int64")) is dtypes.int64
    assert dtypes.as_dtype(ml_dtypes.bfloat16) is dtypes.bfloat16
    assert dtypes.as_dtype("half") is dtypes.float16 and dtypes.as_dtype("double") is dtypes.float64
    assert dtypes.as_dtype(np.dtype("S4")) is dtypes.string
    assert dtypes.as_dtype(float) is dtypes.float32 and dtypes.as_dtype(bool) is dtypes.bool
    assert dtypes.as_dtype("float") is dtypes.float32 and dtypes.as_dtype("float_ref") is dtypes.float32_ref
    assert dtypes.qint8.as_numpy_dtype == np.dtype([("qint8", np.int8)])
    assert dtypes.as_dtype(dtypes.qint8.as_numpy_dtype) is dtypes.qint8
    assert dtypes.float32 == "float32" and dtypes.float32 != dtypes.float64
    assert dtypes.bfloat16.size == 2 and dtypes.complex128.size == 16


def test_unknown_values_raise_type_error():
    for bad in ("floaty", 99, np.dtype("datetime64[s]"), int, str, "DT_FLOAT", None, [1]):
        with pytest.raises(TypeError, match="Cannot convert the argument `type_value`"):
            dtypes.as_dtype(bad)


def test_names_in_messages():
    assert str(dtypes.float32) == "<dtype: 'float32'>" and repr(dtypes.float32) == "tf.float32"
    assert dtypes.float32.message_name == "float" and dtypes.int32.message_name == "int32"
    assert dtypes.float32_ref.proto_name == "DT_FLOAT_REF"


@pytest.mark.tf
def test_agrees_with_tensorflow(tf1):
    for name in EXPECTED_ENUMS:
        theirs = tf1.as_dtype(name)
        ours = dtypes.as_dtype(name)
        assert ours.name == theirs.name
        assert ours.as_datatype_enum == theirs.as_datatype_enum
        assert ours._as_ref.name == theirs._as_ref.name
        assert ours.is_floating == theirs.is_floating, name
        assert ours.is_integer == theirs.is_integer, name
        assert ours.is_complex == theirs.is_complex, name
        assert ours.is_quantized == theirs.is_quantized, name
        if theirs.is_numpy_compatible and name not in ("string",):
            assert np.dtype(ours.as_numpy_dtype) == np.dtype(theirs.as_numpy_dtype), name
        if theirs.is_floating or (theirs.is_integer and not theirs.is_quantized):
            assert ours.min == theirs.min and ours.max == theirs.max, name
    for ref_case in (("float32", "float32_ref"), ("float32_ref", "float32")):
        a, b = ref_case
        assert dtypes.as_dtype(a).is_compatible_with(dtypes.as_dtype(b)) == \
            tf1.as_dtype(a).is_compatible_with(tf1.as_dtype(b))


# Spellings a TF1 script may pass as a dtype; each is checked against tf.as_dtype, errors included.
SPELLINGS = [
    "float", "double", "half", "int", "long", "str", "bytes", "complex", "float32", "float32_ref", "float_ref",
    "double_ref", "half_ref", "float16_ref", "DT_FLOAT", "int64", "bool", "string", "complex64", "uint8", "bfloat16",
    "qint8", "resource", "variant", "floaty", "",
    np.float32, np.float64, np.float16, np.int8, np.int32, np.int64, np.uint16, np.bool_, np.str_, np.bytes_,
    np.object_, np.complex128, np.intc, np.longlong, np.longdouble, ml_dtypes.bfloat16,
    np.dtype("float32"), np.dtype(">f4"), np.dtype("S4"), np.dtype("U3"), np.dtype("datetime64[s]"),
    np.dtype([("qint8", np.int8)]),
    float, int, bool, str, bytes, complex, object,
    0, 1, 2, 19, 99, 101, 200, True, None, 1.5, [1], np.zeros(3), np.array([1], np.int32),
]


def _outcome(as_dtype, value):
    try:
        return as_dtype(value).name
    except TypeError as error:
        return ("TypeError", str(error))


@pytest.mark.tf
@pytest.mark.parametrize("value", SPELLINGS, ids=repr)
def test_spellings_agree_with_tensorflow(tf1, value):
    assert _outcome(dtypes.as_dtype, value) == _outcome(tf1.as_dtype, value)


@pytest.mark.tf
def test_equality_with_spellings_agrees_with_tensorflow(tf1):
    for other in ("float32", "float", np.float32, 1, True, "floaty", None, int):
        assert (dtypes.float32 == other) == (tf1.float32 == other), other
        assert (dtypes.float32 != other) == (tf1.float32 != other), other


def test_placeholder_takes_a_string_spelling(g):
    x = constant_ops.placeholder("float", [None, 3])
    assert x.dtype is dtypes.float32 and x.shape.as_list() == [None, 3]
    assert constant_ops.placeholder(np.float64).dtype is dtypes.float64
    assert constant_ops.placeholder("float32_ref").dtype is dtypes.float32
