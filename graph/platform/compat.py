"""``tf.compat``'s text helpers (``as_bytes``, ``as_text``, ``as_str``, ``as_str_any``, ``path_to_str``) and number
type tuples."""

from __future__ import annotations

import numbers
import os

import numpy as np

__all__ = ["as_bytes", "as_text", "as_str", "as_str_any", "path_to_str", "bytes_or_text_types", "integral_types",
           "real_types", "complex_types"]

bytes_or_text_types = (bytes, str)
# What isinstance checks of numbers accept, Python's and numpy's alike (tf.compat's tuples).
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)


def as_bytes(bytes_or_text, encoding: str = "utf-8") -> bytes:
    """``bytes_or_text`` as bytes (str is encoded with ``encoding``).

    Raises:
        TypeError: if it is neither bytes, bytearray nor str.
    """
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding: str = "utf-8") -> str:
    """``bytes_or_text`` as str (bytes are decoded with ``encoding``).

    Raises:
        TypeError: if it is neither bytes nor str.
    """
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text  # Python 3: str is text


def as_str_any(value, encoding: str = "utf-8") -> str:
    """``value`` as str: bytes decoded, anything else through ``str()``."""
    if isinstance(value, bytes):
        return as_str(value, encoding=encoding)
    return str(value)


def path_to_str(path):
    """A path-like object (``pathlib.Path``) as its string; anything else unchanged."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    return path
