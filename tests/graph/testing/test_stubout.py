"""Tests for graph/testing/stubout.py: tf.test.StubOutForTesting replaces and restores as TensorFlow's does."""

import os
import types

import pytest

import graph.compat.v1 as tf


def _scenario(stubs_class):
    """What one sequence of stubbings does: the values seen while stubbed and after CleanUp."""
    class Base:
        def method(self):
            return "base"

        @staticmethod
        def helper():
            return "helper"

    class Derived(Base):
        pass

    module = types.ModuleType("stubbed")
    module.value = 1
    instance = Derived()
    seen = []
    stubs = stubs_class()
    stubs.Set(module, "value", 2)
    stubs.Set(module, "value", 3)
    stubs.SmartSet(instance, "method", lambda self: "instance stub")  # set on the class, not the instance
    stubs.SmartSet(Derived, "helper", staticmethod(lambda: "stub helper"))
    stubs.Set(Base, "helper", staticmethod(lambda: "base stub"))
    seen.append((module.value, instance.method(), "method" in vars(Derived), Derived.helper(), Base.helper()))
    stubs.CleanUp()
    seen.append((module.value, instance.method(), "method" in vars(Derived), Derived.helper(),
                 isinstance(vars(Derived).get("helper"), staticmethod), isinstance(vars(Base)["helper"], staticmethod),
                 Base.helper()))
    with stubs_class() as scoped:
        scoped.Set(os.path, "exists", lambda path: "stubbed")
        seen.append(os.path.exists("/nowhere"))
    seen.append(os.path.exists("/nowhere"))
    with pytest.raises(AttributeError) as missing:
        stubs_class().SmartSet(Derived, "absent", 1)
    seen.append(str(missing.value))
    return seen


def test_stub_out_and_clean_up():
    assert _scenario(tf.test.StubOutForTesting) == [
        (3, "instance stub", True, "stub helper", "base stub"),
        # helper came from Base: put back on Derived as a plain function, on Base as the staticmethod it was
        (1, "base", True, "helper", False, True, "helper"),
        "stubbed", False, "Attribute not found."]


@pytest.mark.tf
def test_stub_out_as_tensorflow(tf_module):
    assert _scenario(tf.test.StubOutForTesting) == _scenario(tf_module.test.StubOutForTesting)
