"""Tests for graph/platform/flags.py and app.py: tf.flags definitions parse argv as TF's; tf.app.run."""

import subprocess
import sys
import textwrap

import pytest
from absl import flags as absl_flags

from graph.platform import app, flags

ARGV = ["prog", "--name=x", "--steps", "7", "--rate=0.5", "--nofast", "--layers=1,2,3", "--mode=eval", "rest"]


def _parsed(flags_module, argv):
    """Flags defined through ``flags_module`` on a fresh FlagValues, parsed from ``argv``: (values, leftover)."""
    values = absl_flags.FlagValues()
    flags_module.DEFINE_string("name", "default", "a string", flag_values=values)
    flags_module.DEFINE_integer("steps", 1, "an integer", flag_values=values)
    flags_module.DEFINE_float("rate", 0.1, "a float", flag_values=values)
    flags_module.DEFINE_boolean("fast", True, "a boolean", flag_values=values)
    flags_module.DEFINE_bool("verbose", False, "another boolean", flag_values=values)
    flags_module.DEFINE_list("layers", [], "a list", flag_values=values)
    flags_module.DEFINE_enum("mode", "train", ["train", "eval"], "an enum", flag_values=values)
    flags_module.DEFINE_string(flag_name="old", default_value="o", docstring="TF's old keywords", flag_values=values)
    leftover = values(argv)
    return {name: values[name].value for name in sorted(values)}, leftover


@pytest.mark.tf
def test_definitions_parse_argv_as_tensorflow(tf_module):
    assert _parsed(flags, ARGV) == _parsed(tf_module.flags, ARGV)
    assert _parsed(flags, ARGV)[0]["layers"] == ["1", "2", "3"] and _parsed(flags, ARGV)[1] == ["prog", "rest"]


@pytest.mark.tf
def test_same_errors_as_tensorflow(tf_module):
    for argv in (["prog", "--steps=x"], ["prog", "--mode=test"], ["prog", "--unknown=1"]):
        with pytest.raises(absl_flags.Error) as ours:
            _parsed(flags, argv)
        with pytest.raises(absl_flags.Error) as theirs:
            _parsed(tf_module.flags, argv)
        assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)


def test_flags_parse_sys_argv_on_first_read(monkeypatch):
    values = absl_flags.FlagValues()
    flags.DEFINE_integer("batch", 4, "batch size", flag_values=values)
    wrapper = flags._FlagValuesWrapper(values)
    monkeypatch.setattr(sys, "argv", ["prog", "--batch=9"])
    assert not wrapper.is_parsed()
    assert wrapper.batch == 9 and wrapper.is_parsed() and "batch" in wrapper and len(wrapper) == 1
    wrapper.batch = 3
    assert values.batch == 3


_PROGRAM = """
import sys
import {module} as tf

tf.app.flags.DEFINE_integer("epochs", 2, "training epochs")
tf.flags.DEFINE_string("out", "model", "output prefix")
FLAGS = tf.app.flags.FLAGS


def main(argv):
    print("main", FLAGS.epochs, FLAGS.out, argv[1:])
    return 3


if __name__ == "__main__":
    tf.app.run(argv=["prog", "--epochs=5", "--undefined_flag=1", "positional"])
"""


def _run_program(module: str, directory) -> subprocess.CompletedProcess:
    script = directory / f"program_{module.replace('.', '_')}.py"
    script.write_text(textwrap.dedent(_PROGRAM.format(module=module)))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          cwd=str(directory), env={"PYTHONPATH": ":".join(sys.path), "TF_CPP_MIN_LOG_LEVEL": "3"})


@pytest.mark.tf
def test_app_run_as_tensorflow(tf_module, tmp_path):
    ours = _run_program("graph.compat.v1", tmp_path)
    theirs = _run_program("tensorflow.compat.v1", tmp_path)
    assert ours.stdout == theirs.stdout == "main 5 model ['--undefined_flag=1', 'positional']\n"
    assert ours.returncode == theirs.returncode == 3


def test_app_names_its_main_default():
    assert app.__all__ == ["run", "flags"] and app.flags is flags
