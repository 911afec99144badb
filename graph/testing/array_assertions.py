"""The value assertions of ``tf.test.TestCase``: arrays, tensors and nests of them compared as TF 2.21 compares them.

Tensors (and variables, SparseTensors, IndexedSlices) are evaluated in the test's session first; everything
else goes through ``np.array``.  Failure messages are TF's: ``assertAllClose`` names the path of the mismatching
leaf (``a[1][key]``), the indices, values, differences and tolerances, then numpy's ``assert_allclose`` report.
"""

from __future__ import annotations

import collections.abc
import itertools
import math

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph.core.indexed_slices import IndexedSlices
from graph.core.sparse_tensor import SparseTensor
from graph.core.tensor import Tensor
from graph.variables.variables import Variable

__all__ = ["ArrayAssertions", "is_tf_type"]

# TF casts these extension types to float32 before np.allclose, whose type promotion does not know them.
_CUSTOM_FLOAT_NAMES = frozenset(("bfloat16", "float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
                                 "float8_e5m2fnuz"))


def is_tf_type(value) -> bool:
    """Whether ``value`` is a graph value a TestCase evaluates before comparing (TF's tensor_util.is_tf_type)."""
    return isinstance(value, (Tensor, Variable, SparseTensor, IndexedSlices))


def _where(condition) -> tuple:
    """TF's numpy_compat.np_where: ``nonzero`` of at least a 1-d array (numpy 2.1 refuses 0-d)."""
    return np.atleast_1d(np.asarray(condition)).nonzero()


def _as_float32_if_custom(array: np.ndarray) -> np.ndarray:
    return array.astype(np.float32) if array.dtype.name in _CUSTOM_FLOAT_NAMES else array


class ArrayAssertions:
    """Mixin of TF's value assertions; the class it joins provides ``evaluate`` and unittest's assertions."""

    def assertNear(self, f1, f2, err, msg=None) -> None:  # noqa: N802 - TF's names throughout
        """``|f1 - f2| <= err`` (equal values, infinities included, always pass)."""
        f1, f2 = np.squeeze(f1), np.squeeze(f2)
        if f1 != f2:
            diff = math.fabs(f1 - f2)
            self.assertTrue(diff <= err, "%f != %f +/- %f (difference: %g)%s"
                            % (f1, f2, err, diff, " (%s)" % msg if msg is not None else ""))

    def assertArrayNear(self, farray1, farray2, err, msg=None) -> None:  # noqa: N802
        """Two float sequences of one length, element-wise within ``err``."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def _NDArrayNear(self, ndarray1, ndarray2, err) -> bool:  # noqa: N802
        return np.linalg.norm(ndarray1 - ndarray2) < err

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None) -> None:  # noqa: N802
        """The Frobenius norm of the difference is below ``err``."""
        self.assertTrue(self._NDArrayNear(ndarray1, ndarray2, err), msg=msg)

    def _GetNdArray(self, a):  # noqa: N802
        if is_tf_type(a):
            a = self.evaluate(a)
        if isinstance(a, np.ndarray):
            return a
        try:
            return np.array(a)
        except ValueError as error:  # a ragged nest: numpy >= 1.24 needs dtype=object said aloud, as TF does
            if "inhomogeneous shape" in str(error):
                return np.array(a, dtype=object)
            raise

    def evaluate_if_both_tensors(self, a, b):
        """``(a, b)`` evaluated together when both are graph values, else as given."""
        if is_tf_type(a) and is_tf_type(b):
            return self.evaluate((a, b))
        return a, b

    # ------------------------------------------------------------------ closeness
    def _assertArrayLikeAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None) -> None:  # noqa: N802
        a, b = self.evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        # Small arrays are printed in the shape message; big ones would make it unreadable (and slow).
        if a.shape != b.shape and (b.ndim <= 3 or b.size < 500):
            shape_message = "Shape mismatch: expected %s, got %s with contents %s." % (a.shape, b.shape, b)
        else:
            shape_message = "Shape mismatch: expected %s, got %s." % (a.shape, b.shape)
        self.assertEqual(a.shape, b.shape, shape_message)
        messages = [msg]
        a_dtype = a.dtype
        a, b = _as_float32_if_custom(a), _as_float32_if_custom(b)
        if np.allclose(a, b, rtol=rtol, atol=atol):
            return
        # Name the elements outside atol + rtol * |b|, then let numpy's report follow.
        cond = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b), np.isnan(a) != np.isnan(b))
        if a.ndim:
            x, y = a[_where(cond)], b[_where(cond)]
            messages.append("not close where = {}".format(_where(cond)))
        else:
            x, y = a, b
        messages.append("not close lhs = {}".format(x))
        messages.append("not close rhs = {}".format(y))
        messages.append("not close dif = {}".format(np.abs(x - y)))
        messages.append("not close tol = {}".format(atol + rtol * np.abs(y)))
        messages.append("dtype = {}, shape = {}".format(a_dtype, a.shape))
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg="\n".join(str(m) for m in messages),
                                   equal_nan=True)

    def _assertAllCloseRecursive(self, a, b, rtol=1e-6, atol=1e-6, path=None, msg=None) -> None:  # noqa: N802
        path = path or []
        path_str = ("[" + "][".join(str(p) for p in path) + "]") if path else ""
        msg = msg if msg else ""
        if hasattr(a, "_asdict"):  # namedtuples compare as the dicts of their fields
            a = a._asdict()
        if hasattr(b, "_asdict"):
            b = b._asdict()
        a_is_dict = isinstance(a, collections.abc.Mapping)
        if a_is_dict != isinstance(b, collections.abc.Mapping):
            raise ValueError("Can't compare dict to non-dict, a%s vs b%s. %s" % (path_str, path_str, msg))
        if a_is_dict:
            self.assertItemsEqual(a.keys(), b.keys(),
                                  msg="mismatched keys: a%s has keys %s, but b%s has keys %s. %s"
                                  % (path_str, a.keys(), path_str, b.keys(), msg))
            for key in a:
                path.append(key)
                self._assertAllCloseRecursive(a[key], b[key], rtol=rtol, atol=atol, path=path, msg=msg)
                del path[-1]
        elif isinstance(a, (list, tuple)):
            # One array comparison when the nest is rectangular; element by element when it is not.
            try:
                a, b = self.evaluate_if_both_tensors(a, b)
                self._assertArrayLikeAllClose(self._GetNdArray(a), self._GetNdArray(b), rtol=rtol, atol=atol,
                                              msg="Mismatched value: a%s is different from b%s. %s"
                                              % (path_str, path_str, msg))
            except (ValueError, TypeError, NotImplementedError):
                if len(a) != len(b):
                    raise ValueError("Mismatched length: a%s has %d items, but b%s has %d items. %s"
                                     % (path_str, len(a), path_str, len(b), msg)) from None
                for index, (a_item, b_item) in enumerate(zip(a, b)):
                    path.append(str(index))
                    self._assertAllCloseRecursive(a_item, b_item, rtol=rtol, atol=atol, path=path, msg=msg)
                    del path[-1]
        else:
            try:
                self._assertArrayLikeAllClose(a, b, rtol=rtol, atol=atol,
                                              msg="Mismatched value: a%s is different from b%s. %s"
                                              % (path_str, path_str, msg))
            except TypeError as error:
                message = "Error: a%s has %s, but b%s has %s. %s" % (path_str, type(a), path_str, type(b), msg)
                error.args = (error.args[0] + " : " + message,) + error.args[1:]
                raise

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None) -> None:  # noqa: N802
        """``a`` and ``b`` (arrays, tensors, or nests of dicts, namedtuples, tuples and lists of them) agree
        element-wise within ``atol + rtol * |b|``.

        Raises:
            AssertionError: at the first mismatching leaf, naming its path.
            ValueError: when one side is a dict and the other is not, or sequences differ in length.
        """
        self._assertAllCloseRecursive(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6,  # noqa: N802
                                      float_atol=1e-6, half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2,
                                      bfloat16_atol=1e-2, msg=None) -> None:
        """assertAllClose with the tolerances widened to the least precise dtype of ``a`` and ``b``."""
        a, b = self.evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        if a.dtype in (np.float32, np.complex64) or b.dtype in (np.float32, np.complex64):
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if a.dtype == np.float16 or b.dtype == np.float16:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if a.dtype == dtypes_lib.bfloat16.as_numpy_dtype or b.dtype == dtypes_lib.bfloat16.as_numpy_dtype:
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None) -> None:  # noqa: N802
        """Some element of ``a`` and ``b`` is not close."""
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError("The two values are close at all elements. %s" % (msg or ""))

    # ------------------------------------------------------------------ equality and order
    def assertAllEqual(self, a, b, msg=None) -> None:  # noqa: N802
        """``a`` and ``b`` have one shape and equal elements (NaN equals NaN for floating types)."""
        msg = msg if msg else ""
        a, b = self.evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        if b.ndim <= 3 or b.size < 500:
            self.assertEqual(a.shape, b.shape, "Shape mismatch: expected %s, got %s."
                             " Contents: %r. \n%s." % (a.shape, b.shape, b, msg))
        else:
            self.assertEqual(a.shape, b.shape, "Shape mismatch: expected %s, got %s. %s" % (a.shape, b.shape, msg))
        same = a == b
        if dtypes_lib.as_dtype(a.dtype).is_floating:
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if np.all(same):
            return
        messages = [msg]
        diff = np.logical_not(same)
        if a.ndim:
            x, y = a[_where(diff)], b[_where(diff)]
            messages.append("not equal where = {}".format(_where(diff)))
        else:
            x, y = a, b
        messages.append("not equal lhs = %r" % x)
        messages.append("not equal rhs = %r" % y)
        if a.dtype.kind != b.dtype.kind and {a.dtype.kind, b.dtype.kind} <= {"U", "S", "O"}:
            # str against bytes: compare both as bytes, as TF does, so numpy reports the real difference.
            a = np.array([item.encode("utf-8") if isinstance(item, str) else item for item in a.flat])
            b = np.array([item.encode("utf-8") if isinstance(item, str) else item for item in b.flat])
        np.testing.assert_array_equal(a, b, err_msg="\n".join(messages))

    def assertNotAllEqual(self, a, b, msg=None) -> None:  # noqa: N802
        """Some element of ``a`` and ``b`` differs."""
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError("The two values are equal at all elements. %s" % (msg or ""))

    def assertAllGreater(self, a, comparison_target) -> None:  # noqa: N802
        """Every element of ``a`` is greater than ``comparison_target``."""
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertGreater(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLess(self, a, comparison_target) -> None:  # noqa: N802
        """Every element of ``a`` is less than ``comparison_target``."""
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertLess(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target) -> None:  # noqa: N802
        """Every element of ``a`` is at least ``comparison_target``."""
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertGreaterEqual(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target) -> None:  # noqa: N802
        """Every element of ``a`` is at most ``comparison_target``."""
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertLessEqual(np.max(self._GetNdArray(a)), comparison_target)

    def _format_subscripts(self, subscripts, value, limit=10, indent=2) -> list[str]:
        """Up to ``limit`` lines ``  [i j] : value`` for the subscripts (as ``nonzero`` gives them), then "..."."""
        lines = []
        subscripts = np.transpose(subscripts)
        prefix = " " * indent
        if np.ndim(value) == 0:
            return [prefix + "[0] : " + str(value)]
        for subscript in itertools.islice(subscripts, limit):
            lines.append(prefix + str(subscript) + " : " + str(value[tuple(subscript)]))
        if len(subscripts) > limit:
            lines.append(prefix + "...")
        return lines

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,  # noqa: N802
                         open_upper_bound=False) -> None:
        """Every element of ``target`` is a number within the bounds (``open_*`` excludes that bound).

        Raises:
            AssertionError: for a non-numeric dtype, for NaNs, or naming the elements out of range.
        """
        target = self._GetNdArray(target)
        if not (np.issubdtype(target.dtype, np.floating) or np.issubdtype(target.dtype, np.integer)):
            raise AssertionError("The value of %s does not have an ordered numeric type, instead it has type: %s"
                                 % (target, target.dtype))
        nan_subscripts = _where(np.isnan(target))
        if np.size(nan_subscripts):
            raise AssertionError("%d of the %d element(s) are NaN. Subscripts(s) and value(s) of the NaN element(s):\n"
                                 % (len(nan_subscripts[0]), np.size(target))
                                 + "\n".join(self._format_subscripts(nan_subscripts, target)))
        range_str = (("(" if open_lower_bound else "[") + str(lower_bound) + ", " + str(upper_bound)
                     + (")" if open_upper_bound else "]"))
        violations = np.less_equal(target, lower_bound) if open_lower_bound else np.less(target, lower_bound)
        violations = np.logical_or(violations, np.greater_equal(target, upper_bound) if open_upper_bound
                                   else np.greater(target, upper_bound))
        violation_subscripts = _where(violations)
        if np.size(violation_subscripts):
            raise AssertionError("%d of the %d element(s) are outside the range %s. "
                                 % (len(violation_subscripts[0]), np.size(target), range_str)
                                 + "Subscript(s) and value(s) of the offending elements:\n"
                                 + "\n".join(self._format_subscripts(violation_subscripts, target)))

    def assertAllInSet(self, target, expected_set) -> None:  # noqa: N802
        """Every element of ``target`` is in ``expected_set`` (a list, tuple or set)."""
        target = self._GetNdArray(target)
        diff = np.setdiff1d(target.flatten(), list(expected_set))
        if np.size(diff):
            raise AssertionError("%d unique element(s) are not in the set %s: %s" % (np.size(diff), expected_set, diff))

    def assertDTypeEqual(self, target, expected_dtype) -> None:  # noqa: N802
        """``target``'s value (evaluated, as an array) has numpy dtype ``expected_dtype``."""
        self.assertEqual(self._GetNdArray(target).dtype, expected_dtype)

    def assertShapeEqual(self, input_a, input_b, msg=None) -> None:  # noqa: N802
        """Two arrays, numpy scalars or tensors have one shape (a tensor's static shape).

        Raises:
            TypeError: for anything else (TF's wording).
        """
        if not isinstance(input_a, (np.ndarray, np.generic, Tensor)):
            raise TypeError("input_a must be a Numpy ndarray, Numpy scalar, or a Tensor."
                            f"Instead received {type(input_a)}")
        if not isinstance(input_b, (np.ndarray, np.generic, Tensor)):
            raise TypeError("input_b must be a Numpy ndarray, Numpy scalar, or a Tensor."
                            f"Instead received {type(input_b)}")
        shape_a = input_a.get_shape().as_list() if isinstance(input_a, Tensor) else input_a.shape
        shape_b = input_b.get_shape().as_list() if isinstance(input_b, Tensor) else input_b.shape
        self.assertAllEqual(shape_a, shape_b, msg=msg)

    def assertDictEqual(self, a, b, msg=None) -> None:  # noqa: N802
        """unittest's dict equality, else key by key: floats with assertAllClose, the rest with assertAllEqual."""
        try:
            super().assertDictEqual(a, b, msg)
        except Exception:  # noqa: BLE001 - TF falls back to array comparison on any failure
            self.assertSameElements(a.keys(), b.keys())
            for key, value in a.items():
                a_value, b_value = self.evaluate_if_both_tensors(value, b[key])
                if np.issubdtype(self._GetNdArray(a_value).dtype, np.floating):
                    self.assertAllClose(value, b[key], msg=key)
                else:
                    self.assertAllEqual(value, b[key], msg=key)
