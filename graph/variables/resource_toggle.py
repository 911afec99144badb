"""Whether ``tf.Variable`` builds resource variables: TF's resource_variables_toggle, and the class it builds.

``tf.enable_resource_variables()`` flips a process-wide default (TF1's default is reference
variables); `graph.variables.resource_variables` registers its class here when imported, so the
reference ``Variable`` can build one for ``use_resource=True`` without importing the module above it.
"""

from __future__ import annotations

__all__ = ["enable_resource_variables", "disable_resource_variables", "resource_variables_enabled",
           "register_resource_variable_class", "resource_variable_class"]

_STATE = {"enabled": False, "class": None}


def enable_resource_variables() -> None:
    """Makes ``tf.Variable`` and ``get_variable`` create resource variables by default."""
    _STATE["enabled"] = True


def disable_resource_variables() -> None:
    """Makes ``tf.Variable`` and ``get_variable`` create reference variables by default (TF1's default)."""
    _STATE["enabled"] = False


def resource_variables_enabled() -> bool:
    """True after ``enable_resource_variables()``."""
    return _STATE["enabled"]


def register_resource_variable_class(cls: type) -> None:
    """Records the ResourceVariable class (called once, by graph.variables.resource_variables)."""
    _STATE["class"] = cls


def resource_variable_class() -> type:
    """The registered ResourceVariable class.

    Raises:
        RuntimeError: if graph.variables.resource_variables was never imported.
    """
    if _STATE["class"] is None:
        raise RuntimeError("Resource variables need graph.variables.resource_variables to be imported first "
                           "(graph.compat.v1 imports it).")
    return _STATE["class"]
