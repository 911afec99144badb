"""Math and reduction gradients: values against TensorFlow and central differences, one case per table row."""

import pytest

from graph.base import kernels
from graph.gradients import registry
from tests.graph.gradients import gradient_table


@pytest.mark.tf
@pytest.mark.parametrize("op_type,build,arrays", gradient_table.CASES,
                         ids=[f"{case[0]}-{i}" for i, case in enumerate(gradient_table.CASES)])
def test_gradient_matches_tensorflow_and_numeric(tf1, op_type, build, arrays):
    gradient_table.check_case(tf1, build, arrays)


def _project_op_types():
    """Registered op types whose kernels the project defines (other tests register kernels of their own)."""
    return [t for t in kernels.registered_types()
            if not getattr(kernels.lookup(t).compute, "__module__", "").startswith("tests.")]


def test_every_registered_op_type_has_a_gradient_declaration():
    # Every kernel is differentiable, declared NotDifferentiable, or never asked for by TF's walk.
    undeclared = sorted(t for t in _project_op_types()
                        if not registry.is_registered(t) and t not in gradient_table.UNREGISTERED_IN_TF
                        and t not in gradient_table.PENDING_ELSEWHERE and not t.startswith(("Apply", "SparseApply", "ResourceApply", "ResourceSparseApply")))
    assert undeclared == []


def test_pending_types_are_really_undeclared():
    # The pending set must shrink as the other gradient modules land, never hide a registered type.
    assert sorted(t for t in gradient_table.PENDING_ELSEWHERE if registry.is_registered(t)) == []


def test_not_differentiable_declarations_are_tensorflows():
    for op_type in ("Less", "Equal", "LogicalAnd", "Range", "BitwiseAnd", "StopGradient"):
        assert registry.lookup(op_type) is None
