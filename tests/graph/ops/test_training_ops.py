"""Tests for graph/ops/training_ops.py: every Apply*/SparseApply* kernel against TF's raw ops, attrs, errors."""

import os
import signal

import numpy as np
import pytest

import graph.compat.v1 as ours
from graph import errors
from graph.ops import intra_op, training_ops, training_updates

RNG = np.random.default_rng(7)
SHAPE = (3, 2)
ROWS = [2, 0, 2]  # a repeated row: the kernels update it twice, in order
SCALARS = {"lr": 0.1, "alpha": 0.1, "l1": 0.01, "l2": 0.02, "rho": 0.9, "momentum": 0.8, "epsilon": 1e-3,
           "beta1": 0.9, "beta2": 0.999, "beta1_power": 0.9 ** 3, "beta2_power": 0.999 ** 3, "lr_power": -0.5,
           "l2_shrinkage": 0.05}
REF_VALUES = {  # slots that must stay positive (accumulators) or dominate (ms over mg^2) get offsets
    "var": 0.0, "accum": 1.0, "accum_update": 0.5, "m": 0.0, "v": 0.5, "ms": 2.0, "mg": 0.0, "mom": 0.0,
    "linear": 0.0, "gradient_accumulator": 0.0, "gradient_squared_accumulator": 1.0,
}


def _snake(op_type: str) -> str:
    """The builder's name: ApplyRMSProp -> apply_rms_prop, SparseApplyFtrlV2 -> sparse_apply_ftrl_v2."""
    name = op_type.replace("RMSProp", "RmsProp").replace("AdagradDA", "AdagradDa").replace("FtrlV2", "Ftrl_v2")
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


def _case(op_type, sparse_shape=SHAPE, **overrides):
    spec = training_ops._SPECS[op_type]
    rows = len(ROWS) if spec.sparse else sparse_shape[0]
    inputs = {}
    for name in spec.inputs[:spec.refs]:
        inputs[name] = (RNG.standard_normal(sparse_shape) * 0.5 + REF_VALUES[name]).astype(np.float32)
        if name in ("accum", "v", "ms", "gradient_squared_accumulator", "accum_update"):
            inputs[name] = np.abs(inputs[name]) + np.float32(0.1)
    inputs[spec.grad_name] = RNG.standard_normal((rows,) + sparse_shape[1:]).astype(np.float32)
    if spec.sparse:
        inputs["indices"] = np.array(ROWS, np.int32)
    for name in spec.scalars:
        inputs[name] = np.int64(4) if name == "global_step" else np.float32(SCALARS[name])
    inputs.update(overrides)
    return pytest.param(op_type, inputs, id=op_type + "".join(f"-{k}={v}" for k, v in overrides.items()))


CASES = [_case(op_type) for op_type in training_ops._SPECS] + [
    _case("ApplyAdam", use_nesterov=True),
    _case("ApplyMomentum", use_nesterov=True),
    _case("SparseApplyMomentum", use_nesterov=True),
    _case("ApplyAdagrad", update_slots=False),
    _case("SparseApplyAdagrad", sparse_shape=(3,)),
    _case("SparseApplyProximalAdagrad", sparse_shape=(3,)),
    _case("ApplyFtrl", multiply_linear_by_lr=True),
    _case("ApplyFtrl", lr_power=np.float32(-0.7), l1=np.float32(0.0)),
    _case("ApplyFtrlV2", multiply_linear_by_lr=True, lr_power=np.float32(-0.3)),
    _case("SparseApplyFtrl", sparse_shape=(3,)),
    _case("SparseApplyFtrlV2", lr_power=np.float32(-0.6)),
    _case("ApplyProximalGradientDescent", l1=np.float32(0.0)),
    _case("ApplyProximalAdagrad", l1=np.float32(0.0)),
    _case("ApplyAdagradDA", l1=np.float32(0.0)),
]


def _run(tf, builder, op_type, inputs):
    spec = training_ops._SPECS[op_type]
    refs = {name: tf.Variable(inputs[name], name=name) for name in spec.inputs[:spec.refs]}
    kwargs = {name: refs.get(name, inputs.get(name)) for name in spec.inputs}
    kwargs.update({k: bool(v) for k, v in inputs.items() if k not in spec.inputs})
    out = builder(**kwargs)
    results = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):  # twice: the second update reads what the first wrote
            sess.run(out)
            results.append({name: sess.run(ref) for name, ref in refs.items()})
    return out, results


@pytest.mark.tf
@pytest.mark.parametrize("op_type,inputs", CASES)
def test_kernels_match_tensorflow(tf1, op_type, inputs):
    tf_out, expected = _run(tf1, getattr(tf1.raw_ops, op_type), op_type, inputs)
    with ours.Graph().as_default():
        out, actual = _run(ours, getattr(training_ops, _snake(op_type)), op_type, inputs)
    assert out.op.type == op_type and out.name == tf_out.name
    assert out.dtype.name == tf_out.dtype.name and out.shape.as_list() == tf_out.shape.as_list()
    assert sorted(out.op.attrs) == sorted(k for k in tf_out.op.node_def.attr)
    assert [t.name for t in out.op.inputs] == [t.name for t in tf_out.op.inputs]
    for step, (mine, theirs) in enumerate(zip(actual, expected)):
        for name in theirs:
            np.testing.assert_allclose(mine[name], theirs[name], rtol=2e-6, atol=1e-7, err_msg=f"{name} step {step}")


LARGE = (700, 500)  # 350,000 elements: over one chunk of a dense in-place update, the last chunk shorter
LARGE_CASES = [_case("ApplyAdam", sparse_shape=LARGE), _case("ApplyAdam", sparse_shape=LARGE, use_nesterov=True),
               _case("ApplyMomentum", sparse_shape=LARGE, use_nesterov=True),
               _case("ApplyGradientDescent", sparse_shape=LARGE)]


@pytest.mark.tf
@pytest.mark.parametrize("op_type,inputs", LARGE_CASES)
def test_chunked_updates_match_one_piece_and_tensorflow(tf1, monkeypatch, op_type, inputs):
    assert inputs["var"].size > training_updates._CHUNK
    _, expected = _run(tf1, getattr(tf1.raw_ops, op_type), op_type, inputs)
    with ours.Graph().as_default():
        _, chunked = _run(ours, getattr(training_ops, _snake(op_type)), op_type, inputs)
    monkeypatch.setattr(intra_op, "_CORES", 1)  # one thread, one piece: the update as written
    monkeypatch.setattr(training_updates, "_CHUNK", inputs["var"].size)
    with ours.Graph().as_default():
        _, whole = _run(ours, getattr(training_ops, _snake(op_type)), op_type, inputs)
    for step, (mine, one_piece, theirs) in enumerate(zip(chunked, whole, expected)):
        for name in theirs:
            np.testing.assert_array_equal(mine[name], one_piece[name], err_msg=f"{name} step {step}")
            np.testing.assert_allclose(mine[name], theirs[name], rtol=2e-6, atol=1e-7, err_msg=f"{name} step {step}")


def test_intra_op_parts_run_all_and_raise_the_first_error():
    done = []
    intra_op.run_parts([lambda i=i: done.append(i) for i in range(5)])
    assert sorted(done) == list(range(5))

    def fail(message):
        raise ValueError(message)
    for _ in range(20):  # whichever thread runs which part, the error is the first part's in list order
        with pytest.raises(ValueError, match="^first$"):
            intra_op.run_parts([lambda: fail("first"), lambda: done.append("after"), lambda: fail("second")])
    assert done.count("after") == 20  # the other parts still ran


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_intra_op_pool_works_in_a_forked_child():
    intra_op.run_parts([lambda: None, lambda: None])  # the parent's pool has started
    pid = os.fork()
    if pid == 0:  # the child: a pool thread inherited from the parent would never run the second part
        signal.alarm(20)  # so a hang ends the child (killed by SIGALRM) and the test fails
        done = []
        intra_op.run_parts([lambda: done.append(0), lambda: done.append(1)])
        os._exit(0 if sorted(done) == [0, 1] else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_builder_errors():
    with ours.Graph().as_default():
        w = ours.Variable([1.0, 2.0], name="w")
        with pytest.raises(TypeError, match="^'ApplyGradientDescent' Op requires that input 'var' be a mutable tensor"):
            training_ops.apply_gradient_descent(ours.constant([1.0, 2.0]), 0.1, [1.0, 1.0])
        with pytest.raises(TypeError, match="^Input 'alpha' of 'ApplyGradientDescent' Op has type float64 that does "
                                            "not match type float32 of argument 'var'.$"):
            training_ops.apply_gradient_descent(w, ours.constant(0.1, ours.float64), [1.0, 1.0])
        with pytest.raises(ValueError, match="ApplyGradientDescent"):
            training_ops.apply_gradient_descent(w, 0.1, [1.0, 1.0, 1.0])
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1 for input 'alpha'"):
            training_ops.apply_gradient_descent(w, [0.1, 0.2], [1.0, 1.0])
        with pytest.raises(TypeError, match="parameter 'indices' has DataType float32"):
            training_ops.sparse_apply_proximal_gradient_descent(w, 0.1, 0.0, 0.0, [1.0], ours.constant([0.0]))


def test_kernel_errors_name_the_op():
    with ours.Graph().as_default():
        w = ours.Variable([[1.0], [2.0]], name="w")
        accum = ours.Variable([[1.0], [1.0]], name="accum")
        update = training_ops.apply_adagrad(w, accum, 0.1, ours.constant([[1.0], [1.0]]))
        feed = ours.placeholder(ours.float32, [None, 1])
        fed = training_ops.apply_gradient_descent(w, 0.1, feed)
        rows = ours.placeholder(ours.int32, [None])
        sparse = training_ops.sparse_apply_adagrad(w, accum, 0.1, ours.constant([[1.0]]), rows)
        with ours.Session() as sess:
            with pytest.raises(errors.FailedPreconditionError,
                               match="^Attempting to use uninitialized value w\n") as caught:
                sess.run(update)
            assert caught.value.op.name == "ApplyAdagrad"
            sess.run(ours.global_variables_initializer())
            with pytest.raises(errors.InvalidArgumentError, match=r"^var and delta do not have the same shape\[2,1\] "
                                                                  r"\[3,1\]"):
                sess.run(fed, {feed: np.ones((3, 1), np.float32)})
            with pytest.raises(errors.InvalidArgumentError, match="^Index 5 at offset 0 in indices is out of range"):
                sess.run(sparse, {rows: [5]})
            np.testing.assert_allclose(sess.run(w), [[1.0], [2.0]])  # a refused update writes nothing


def test_sparse_updates_run_in_rounds_of_distinct_rows():
    """Each round holds at most one position per index, in order: the k-th occurrences of every index."""
    rounds = training_updates.occurrence_rounds(np.array([3, 1, 3, 3, 0, 1]))
    assert [r.tolist() for r in rounds] == [[0, 1, 4], [2, 5], [3]]
    assert training_updates.occurrence_rounds(np.array([], np.int64)) == []


def test_use_locking_makes_concurrent_updates_exclusive():
    # TF's use_locking=True holds the variable's mutex through an Apply*: updates from concurrent runs all land.
    # Without the lock, numpy's in-place passes over a large variable interleave (they drop the GIL).
    import threading

    size = 1_000_000
    with ours.Graph().as_default():
        variable = ours.Variable(np.zeros(size, np.float32))
        step = ours.train.GradientDescentOptimizer(-1.0, use_locking=True).apply_gradients(
            [(ours.constant(np.ones(size, np.float32)), variable)])
        with ours.Session() as sess:
            sess.run(variable.initializer)
            threads = [threading.Thread(target=lambda: [sess.run(step) for _ in range(10)]) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            np.testing.assert_array_equal(sess.run(variable), np.full(size, 40, np.float32))
