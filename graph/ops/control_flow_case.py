"""``tf.case``: the first branch whose predicate holds, built as nested TF1 ``cond`` ops as TensorFlow does.

With ``exclusive=True`` an ``Assert`` (in scope ``case/Assert``) checks that at most one predicate
holds; without ``default`` the last pair becomes the default, guarded by Asserts that none of the
others holds and that its own predicate does.
"""

from __future__ import annotations

import collections
import functools

from graph.base import dtypes as dtypes_lib
from graph.core.graph import Tensor, control_dependencies, name_scope
from graph.ops import constant_ops, control_flow_ops, math_ops
from graph.ops.array_concat_ops import stack
from graph.ops.control_flow_assert import Assert
from graph.ops import reduction_ops

__all__ = ["case"]


def _assert_at_most_n_true(predicates, n: int, message: str):
    """An Assert that at most ``n`` of ``predicates`` are true (TF's _assert_at_most_n_true)."""
    preds_c = stack(predicates, name="preds_c")
    num_true = reduction_ops.reduce_sum(math_ops.cast(preds_c, dtypes_lib.int32), name="num_true_conds")
    condition = math_ops.less_equal(num_true, constant_ops.constant(n, name="n_true_conds"))
    names = ", ".join(getattr(p, "name", "?") for p in predicates)
    return Assert(condition, data=[f"{message}: more than {n} conditions ({names}) evaluated as True:", preds_c],
                  summarize=len(predicates))


def _default_action(predicates, actions):
    """The last pair as the default, asserting that no other predicate and its own predicate hold."""
    k = len(predicates) - 1
    predicate, action = predicates[k], actions[k]
    others, other_actions = predicates[:k], actions[:k]

    def default_action():
        others_message = ("Implementation error: selected default action #%d was called, but some of other "
                          "predicates are True: " % k)
        default_message = ("Input error: None of conditions evaluated as True:",
                           stack(predicates, name="preds_c"))
        with control_dependencies([_assert_at_most_n_true(others, n=0, message=others_message),
                                   Assert(predicate, data=default_message)]):
            return action()
    return default_action, others, other_actions


def _verify(pred_fn_pairs) -> tuple[list, list]:
    """(predicates, actions) from ``pred_fn_pairs`` (a list of pairs, or a dict), each pair checked."""
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, collections.OrderedDict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, dict):  # graph mode: sorted by predicate name, as TensorFlow
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if not isinstance(pred, Tensor):
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if pred.dtype.base_dtype != dtypes_lib.bool:
            raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    predicates, actions = zip(*pred_fn_pairs)
    return list(predicates), list(actions)


def case(pred_fn_pairs, default=None, exclusive: bool = False, strict: bool = False, name: str = "case"):
    """The result of the first ``fn`` whose ``pred`` is true, else of ``default``.

    Raises:
        TypeError: if a pair is not (bool Tensor, callable).
    """
    predicates, actions = _verify(pred_fn_pairs)
    with name_scope(name, "case", [predicates]):
        if default is None:
            default, predicates, actions = _default_action(predicates, actions)
        fn = default
        for predicate, action in reversed(list(zip(predicates, actions))):
            fn = functools.partial(control_flow_ops.cond, predicate, true_fn=action, false_fn=fn, strict=strict)
        if exclusive:
            with control_dependencies([_assert_at_most_n_true(predicates, n=1, message="Input error: exclusive=True")]):
                return fn()
        return fn()
