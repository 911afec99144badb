"""Tests for graph/base/kernels.py: the ref-input check every variable-updating kernel shares."""

import types

import numpy as np
import pytest

from graph import errors
from graph.base import kernels

OP = types.SimpleNamespace(type="ApplyAdam", name="Adam/update_w/ApplyAdam")  # what the check reads of an op


def test_variable_ref_passes_a_reference_through():
    ref = kernels.VariableRef({"w": np.zeros(2)}, "w")
    assert kernels.variable_ref(OP, ref, 0, "var") is ref


@pytest.mark.parametrize("index,input_name,where", [(0, None, "input 0 (got"), (2, "v", "input 2 ('v') (got")])
def test_variable_ref_names_the_op_and_input_of_a_fed_value(index, input_name, where):
    with pytest.raises(errors.InvalidArgumentError) as caught:
        kernels.variable_ref(OP, np.zeros(2), index, input_name)
    assert caught.value.op is OP
    assert caught.value.message == (f"ApplyAdam 'Adam/update_w/ApplyAdam' needs a variable reference at {where} a "
                                    "ndarray; was the variable's ref tensor fed?)")
