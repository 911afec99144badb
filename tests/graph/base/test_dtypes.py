"""graph.base.dtypes: enum numbers, numpy mapping, reference types; checked against TensorFlow."""

import ml_dtypes
import numpy as np
import pytest

from graph.base import dtypes

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
    assert dtypes.as_dtype(float) is dtypes.float32 and dtypes.as_dtype(int) is dtypes.int32
    assert dtypes.as_dtype(bool) is dtypes.bool
    assert dtypes.qint8.as_numpy_dtype == np.dtype([("qint8", np.int8)])
    assert dtypes.as_dtype("DT_FLOAT") is dtypes.float32
    assert dtypes.float32 == "float32" and dtypes.float32 != dtypes.float64
    assert dtypes.bfloat16.size == 2 and dtypes.complex128.size == 16


def test_unknown_values_raise_type_error():
    for bad in ("floaty", 99, np.dtype("datetime64[s]")):
        with pytest.raises(TypeError):
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
