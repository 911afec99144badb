"""Tests for graph/platform/compat.py: tf.compat's text helpers give TensorFlow's results and errors."""

import pathlib

import pytest

from graph.platform import compat

CASES = [("as_bytes", ("é",)), ("as_bytes", ("é", "latin-1")), ("as_bytes", (b"ab",)),
         ("as_bytes", (bytearray(b"a"),)), ("as_bytes", (3,)), ("as_text", (b"\xc3\xa9",)), ("as_text", ("x",)),
         ("as_text", (b"\xe9", "latin-1")), ("as_text", (3,)), ("as_text", (bytearray(b"a"),)), ("as_str", (b"a",)),
         ("as_str_any", (3,)), ("as_str_any", (b"ab",)), ("as_str_any", (pathlib.Path("/a"),)),
         ("path_to_str", (pathlib.Path("/a/b"),)), ("path_to_str", ("/a",)), ("path_to_str", (7,))]


def _outcome(function, args):
    try:
        return function(*args)
    except TypeError as error:
        return "TypeError", str(error)


@pytest.mark.tf
@pytest.mark.parametrize("name,args", CASES)
def test_same_as_tensorflow(tf_module, name, args):
    ours = _outcome(getattr(compat, name), args)
    assert ours == _outcome(getattr(tf_module.compat, name), args)
    assert type(ours) is type(_outcome(getattr(tf_module.compat, name), args))


@pytest.mark.tf
def test_bytes_or_text_types(tf_module):
    assert compat.bytes_or_text_types == tf_module.compat.bytes_or_text_types
