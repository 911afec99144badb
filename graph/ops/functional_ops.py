"""TF1's higher-order functions ``map_fn``, ``scan``, ``foldl`` and ``foldr``: while loops over TensorArrays.

Each is built as TensorFlow 1.x builds it (v2 control flow disabled): the elements are unstacked
into TensorArrays (``map/TensorArrayUnstack/...``), a ``while_loop`` (``map/while/...``) reads
element ``i``, calls ``fn`` and, for ``map_fn`` and ``scan``, writes the result into an output
TensorArray that is stacked after the loop.  ``maximum_iterations`` is the element count, as TF
passes it, so the graphs (and their gradients, through the TensorArray and while-loop gradients)
match TF's op by op.  TF also sets the variable scope's caching device around ``fn``; a device
function returning the op's own device changes no op here, so these builders (below the variables
layer) leave the scope alone.
"""

from __future__ import annotations

from collections.abc import Callable

from graph.base import nest
from graph.base.shapes import Dimension, TensorShape
from graph.core.graph import Tensor, convert_to_tensor, name_scope
from graph.ops import array_ops
from graph.ops import constant_ops
from graph.ops import tensor_array_ops
from graph.ops.control_flow_while import while_loop

__all__ = ["map_fn", "scan", "foldl", "foldr"]


def _is_nested(structure) -> bool:
    return isinstance(structure, (list, tuple, dict))


def _assert_same_structure(expected, got) -> None:
    """TF's nest.assert_same_structure (check_types): ValueError for another nesting, TypeError for another
    sequence type, both opening with TF's first line."""
    head = ("The two structures don't have the same nested structure.\n\nFirst structure: "
            f"type={type(expected).__name__} str={expected!r}\n\nSecond structure: "
            f"type={type(got).__name__} str={got!r}\n\nMore specifically: ")
    if nest.structure_signature(_loose(expected)) != nest.structure_signature(_loose(got)):
        raise ValueError(head + "the nesting differs")
    mismatch = _sequence_type_mismatch(expected, got)
    if mismatch is not None:
        first, second = mismatch
        raise TypeError(head + "The two namedtuples don't have the same sequence type. First structure "
                        f"type={type(first).__name__} has type {type(first).__name__}, while second structure "
                        f"type={type(second).__name__} has type {type(second).__name__}")


def _loose(structure):
    """``structure`` with every list and tuple a list (nesting compared apart from sequence types)."""
    if isinstance(structure, dict):
        return {key: _loose(value) for key, value in structure.items()}
    if isinstance(structure, (list, tuple)):
        return [_loose(part) for part in structure]
    return None


def _sequence_type_mismatch(expected, got):
    """The first pair of same-placed sequences of different types (None: none)."""
    if not _is_nested(expected):
        return None
    if type(expected) is not type(got) and not (isinstance(expected, dict) and isinstance(got, dict)):
        return expected, got
    parts = [(expected[key], got[key]) for key in sorted(expected)] if isinstance(expected, dict) \
        else list(zip(expected, got))
    for first, second in parts:
        mismatch = _sequence_type_mismatch(first, second)
        if mismatch is not None:
            return mismatch
    return None


def _first_dimension(tensor: Tensor) -> Dimension:
    return Dimension(tensor.shape.with_rank_at_least(1)[0])


def _element_count(elems_flat: list) -> tuple[Dimension, Tensor | int]:
    """The static first dimension shared by ``elems_flat`` (checked compatible) and the count to loop over."""
    n_static = _first_dimension(elems_flat[0])
    for tensor in elems_flat[1:]:
        n_static.assert_is_compatible_with(_first_dimension(tensor))
    return n_static, n_static.value or array_ops.shape(elems_flat[0])[0]


def _set_first_dimension(results: list, n_static: Dimension) -> None:
    for result in results:
        result.set_shape(TensorShape([n_static]).concatenate(result.shape[1:]))


def _check_callable(fn, message: str) -> None:
    if not callable(fn):
        # TF formats fn.__name__: a non-callable without one (a number) raises TF's AttributeError instead
        raise TypeError(message.format(name=fn.__name__))


# ----------------------------------------------------------------- map_fn
def map_fn(fn: Callable, elems, dtype=None, parallel_iterations: int | None = None, back_prop: bool = True,
           swap_memory: bool = False, infer_shape: bool = True, name: str | None = None,
           fn_output_signature=None):
    """``fn`` applied to each slice of ``elems`` along axis 0 (nested structures too), results stacked.

    Args:
        fn: called with one element (as structured as ``elems``); returns a structure of tensors.
        elems: a tensor or nested structure of tensors sharing their first dimension.
        dtype / fn_output_signature: the structure of dtypes ``fn`` returns, when it differs from ``elems``.
        parallel_iterations, back_prop, swap_memory: passed to the while loop (10 iterations by default).
        infer_shape: whether the output TensorArrays require one element shape.
        name: the name scope (``map``).
    Returns:
        ``fn``'s results stacked on a new first axis, structured as ``fn_output_signature`` or ``elems``.
    Raises:
        TypeError: ``fn`` is not callable or returns another sequence type.
        ValueError: ``elems`` holds no tensor, a scalar, or tensors of different first dimensions.
    """
    if fn_output_signature is None:
        fn_output_signature = dtype
    _check_callable(fn, "The provided function {name} is not callable.fn must be callable.")
    parallel_iterations = parallel_iterations or 10
    elems_flat = nest.flatten(elems)
    if not elems_flat:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors. Got "
                         f"{elems}, which does not contain any Tensors.")
    if fn_output_signature is None:
        result_dtypes = None  # each result has its element's dtype
        result_structure = elems
    else:
        result_dtypes = nest.flatten(fn_output_signature)
        result_structure = fn_output_signature
    with name_scope(name, "map", [e for e in elems_flat if isinstance(e, Tensor)]):
        elems_flat = [convert_to_tensor(t, name="elem") for t in elems_flat]
        if elems_flat[0].shape.ndims is not None and elems_flat[0].shape.ndims < 1:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
        n_static, n = _element_count(elems_flat)
        elems_ta = [tensor_array_ops.TensorArray(dtype=t.dtype, size=n, dynamic_size=False, infer_shape=True)
                    for t in elems_flat]
        elems_ta = [ta.unstack(t) for ta, t in zip(elems_ta, elems_flat)]
        i = constant_ops.constant(0)
        if result_dtypes is None:
            result_dtypes = [t.dtype for t in elems_flat]
        result_ta = [tensor_array_ops.TensorArray(dtype=d, size=n, dynamic_size=False, infer_shape=infer_shape,
                                                  element_shape=None) for d in result_dtypes]

        def compute(i, tas):
            value = nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_ta])
            result = fn(value)
            _assert_same_structure(fn_output_signature or elems, result)
            tas = [ta.write(i, v) for ta, v in zip(tas, nest.flatten(result))]
            return (i + 1, tas)

        _, r_a = while_loop(lambda i, _: i < n, compute, (i, result_ta), parallel_iterations=parallel_iterations,
                            back_prop=back_prop, swap_memory=swap_memory, maximum_iterations=n)
        results = [r.stack() for r in r_a]
        _set_first_dimension(results, n_static)
        return nest.pack_sequence_as(result_structure, results)


# ----------------------------------------------------------------- scan
def scan(fn: Callable, elems, initializer=None, parallel_iterations: int = 10, back_prop: bool = True,
         swap_memory: bool = False, infer_shape: bool = True, reverse: bool = False, name: str | None = None):
    """The running accumulation ``a = fn(a, elem)`` over ``elems`` along axis 0, every ``a`` stacked.

    Without ``initializer`` the first element (the last with ``reverse``) starts the accumulation and is
    the first output.  ``elems`` and ``initializer`` may be nested structures.

    Raises:
        TypeError: ``fn`` is not callable or returns another sequence type than the accumulator.
        ValueError: ``fn`` returns another structure than the accumulator's.
    """
    _check_callable(fn, "{name} is not callable. Please provide a callable function.")
    input_is_sequence = _is_nested(elems)
    input_flatten = (lambda x: nest.flatten(x)) if input_is_sequence else (lambda x: [x])
    input_pack = (lambda x: nest.pack_sequence_as(elems, x)) if input_is_sequence else (lambda x: x[0])
    if initializer is None:
        output_flatten, output_pack = input_flatten, input_pack
    else:
        output_is_sequence = _is_nested(initializer)
        output_flatten = (lambda x: nest.flatten(x)) if output_is_sequence else (lambda x: [x])
        output_pack = (lambda x: nest.pack_sequence_as(initializer, x)) if output_is_sequence else (lambda x: x[0])
    elems_flat = input_flatten(elems)
    with name_scope(name, "scan", [e for e in elems_flat if isinstance(e, Tensor)]):
        elems_flat = [convert_to_tensor(elem, name="elem") for elem in elems_flat]
        n = elems_flat[0].shape.with_rank_at_least(1)[0]
        n = Dimension(n).value
        if n is None:
            n = array_ops.shape(elems_flat[0])[0]
        elems_ta = [tensor_array_ops.TensorArray(dtype=elem.dtype, size=n, dynamic_size=False,
                                                 element_shape=elem.shape[1:], infer_shape=True)
                    for elem in elems_flat]
        elems_ta = [ta.unstack(elem) for ta, elem in zip(elems_ta, elems_flat)]
        if initializer is None:
            a_flat = [elem.read(n - 1 if reverse else 0) for elem in elems_ta]
            start = 1
        else:
            a_flat = [convert_to_tensor(init) for init in output_flatten(initializer)]
            start = 0
        accs_ta = [tensor_array_ops.TensorArray(dtype=init.dtype, size=n, dynamic_size=False,
                                                element_shape=init.shape if infer_shape else None,
                                                infer_shape=infer_shape) for init in a_flat]
        if initializer is None:
            accs_ta = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs_ta, a_flat)]

        def compute(i, a_flat, tas):
            packed_elems = input_pack([ta.read(i) for ta in elems_ta])
            a_out = fn(output_pack(a_flat), packed_elems)
            _assert_same_structure(elems if initializer is None else initializer, a_out)
            flat_a_out = output_flatten(a_out)
            tas = [ta.write(i, value) for ta, value in zip(tas, flat_a_out)]
            return (i - 1 if reverse else i + 1, flat_a_out, tas)

        if reverse:
            initial_i, condition = n - 1 - start, (lambda i, _1, _2: i >= 0)
        else:
            initial_i, condition = start, (lambda i, _1, _2: i < n)
        _, _, r_a = while_loop(condition, compute, (initial_i, a_flat, accs_ta),
                               parallel_iterations=parallel_iterations, back_prop=back_prop,
                               swap_memory=swap_memory, maximum_iterations=n)
        results = [r.stack() for r in r_a]
        n_static = _first_dimension(elems_flat[0])
        for elem in elems_flat[1:]:
            n_static.assert_is_compatible_with(_first_dimension(elem))
        _set_first_dimension(results, n_static)
        return output_pack(results)


# ----------------------------------------------------------------- foldl / foldr
def _fold(fn: Callable, elems, initializer, parallel_iterations: int, back_prop: bool, swap_memory: bool,
          name: str | None, default_name: str, from_left: bool):
    """foldl and foldr: the accumulator carried through a while loop reading ``elems``' TensorArrays."""
    _check_callable(fn, "{name} is not callable. Please provide a callable function.")
    with name_scope(name, default_name, [e for e in nest.flatten(elems) if isinstance(e, Tensor)]):
        elems_flat = [convert_to_tensor(elem, name="elem") for elem in nest.flatten(elems)]
        n = Dimension(elems_flat[0].shape[0]).value or array_ops.shape(elems_flat[0])[0]
        # TF unstacks each original element (a numpy array or list is converted inside unstack)
        elems_ta = nest.map_structure(
            lambda elem: tensor_array_ops.TensorArray(dtype=_dtype_of(elem), size=n, dynamic_size=False,
                                                      infer_shape=True).unstack(elem), elems)
        if from_left:
            if initializer is None:
                a = nest.map_structure(lambda ta: ta.read(0), elems_ta)
                i = constant_ops.constant(1)
            else:
                a, i = initializer, constant_ops.constant(0)

            def compute(i, a):
                elem_i = nest.map_structure(lambda ta: ta.read(i), elems_ta)
                a = fn(a, elem_i)  # before i + 1, as TF builds it
                return [i + 1, a]
            condition = lambda i, a: i < n  # noqa: E731
        else:
            if initializer is None:
                i = n - 1
                a = nest.map_structure(lambda ta: ta.read(i), elems_ta)
            else:
                i, a = n, initializer

            def compute(i, a):
                i -= 1
                elem = nest.map_structure(lambda ta: ta.read(i), elems_ta)
                return [i, fn(a, elem)]
            condition = lambda i, a: i > 0  # noqa: E731
        _, r_a = while_loop(condition, compute, [i, a], parallel_iterations=parallel_iterations,
                            back_prop=back_prop, swap_memory=swap_memory, maximum_iterations=n)
        return r_a


def _dtype_of(elem):
    return elem.dtype if hasattr(elem, "dtype") else convert_to_tensor(elem).dtype


def foldl(fn: Callable, elems, initializer=None, parallel_iterations: int = 10, back_prop: bool = True,
          swap_memory: bool = False, name: str | None = None):
    """``fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])``: ``elems`` folded from the left.

    Without ``initializer`` the first element starts the accumulation.
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldl", True)


def foldr(fn: Callable, elems, initializer=None, parallel_iterations: int = 10, back_prop: bool = True,
          swap_memory: bool = False, name: str | None = None):
    """``elems`` folded from the right: ``fn(...fn(initializer, elems[n-1])..., elems[0])``.

    Without ``initializer`` the last element starts the accumulation.
    """
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldr", False)
