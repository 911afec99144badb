"""Gradient declarations of the variable ops: updates carry no gradient (TensorFlow's ``state_grad.py``).

TensorFlow declares Assign, AssignAdd and AssignSub not differentiable.  Ops it leaves
unregistered stay unregistered here: VariableV2 has no inputs, so its gradient is never
looked up, and CountUpTo and IsVariableInitialized give integers or booleans, which
tf.gradients never differentiates.
"""

from __future__ import annotations

from graph.gradients.registry import NotDifferentiable

__all__: list[str] = []  # declarations only

for _op_type in ("Assign", "AssignAdd", "AssignSub"):
    NotDifferentiable(_op_type)
