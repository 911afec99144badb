"""No code execution from files: no pickle anywhere, ``allow_pickle=False`` on every numpy load.

Static checks walk the AST of every module of the packages (``graph``, ``saver`` and any other
top-level package of the repository); behavioural checks feed files that would run code if anything
unpickled them (a pickle "bomb" that creates a marker file) and check that the marker never appears.
"""

from __future__ import annotations

import ast
import os
import pickle

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FORBIDDEN_MODULES = {"pickle", "cPickle", "_pickle", "dill", "cloudpickle", "shelve", "marshal", "joblib",
                     "copyreg"}
NUMPY_LOADERS = {"load", "read_array", "read_array_header_1_0", "open_memmap"}
NUMPY_WRITERS = {"save", "write_array"}
# Dynamic imports whose module names come from tables in the source, never from files (reviewed).
REVIEWED_DYNAMIC_IMPORTS = {"graph/compat/v1.py", "saver/saveable.py", "saver/saver.py", "saver/__init__.py"}


def package_files() -> list[str]:
    """Every .py file of the repository's packages (directories with __init__.py), not tests."""
    out = []
    for name in sorted(os.listdir(ROOT)):
        top = os.path.join(ROOT, name)
        if name in ("tests", "venv") or name.startswith(".") or not os.path.isfile(os.path.join(top, "__init__.py")):
            continue
        for directory, _, files in os.walk(top):
            out += [os.path.join(directory, f) for f in files if f.endswith(".py")]
    return out


def _calls(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield node


def _dotted(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    return "?"


def test_packages_found():
    files = [os.path.relpath(f, ROOT) for f in package_files()]
    assert any(f.startswith("saver/") for f in files) and any(f.startswith("graph/") for f in files)


@pytest.mark.parametrize("path", package_files(), ids=lambda p: os.path.relpath(p, ROOT))
def test_no_pickle_and_safe_numpy_loads(path):
    relative = os.path.relpath(path, ROOT)
    with open(path, encoding="utf-8") as file:
        tree = ast.parse(file.read(), path)
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            problems += ["imports %s" % a.name for a in node.names if a.name.split(".")[0] in FORBIDDEN_MODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in FORBIDDEN_MODULES:
            problems.append("imports from %s" % node.module)
    for call in _calls(tree):
        name = _dotted(call.func)
        keywords = {k.arg: k.value for k in call.keywords}
        last = name.rsplit(".", 1)[-1]
        numpy_call = name.startswith(("np.", "numpy.")) or ".format." in name
        if numpy_call and (last in NUMPY_LOADERS or last in NUMPY_WRITERS):
            value = keywords.get("allow_pickle")
            if not (isinstance(value, ast.Constant) and value.value is False):
                problems.append("line %d: %s without allow_pickle=False" % (call.lineno, name))
        if name in ("eval", "exec", "compile", "builtins.eval", "builtins.exec"):
            problems.append("line %d: calls %s" % (call.lineno, name))
        if name in ("__import__", "importlib.import_module") and relative not in REVIEWED_DYNAMIC_IMPORTS:
            problems.append("line %d: dynamic import %s (review it, then list the file)" % (call.lineno, name))
        if "allow_pickle" in keywords and not (isinstance(keywords["allow_pickle"], ast.Constant)
                                               and keywords["allow_pickle"].value is False):
            problems.append("line %d: allow_pickle is not the constant False" % call.lineno)
    assert not problems, "%s: %s" % (relative, problems)


# -------------------------------------------------------------------------------- behaviour


class _Bomb:
    """Unpickling this creates the marker file (what an attacker's payload would do)."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_pickle_payload_in_a_string_tensor_stays_bytes(tmp_path):
    from saver.format.bundle import write_checkpoint
    from saver.storage.reader import load_checkpoint
    marker = str(tmp_path / "pwned")
    payload = pickle.dumps(_Bomb(marker))
    prefix = write_checkpoint(str(tmp_path / "c"), {"s": np.array([payload], dtype=object)})
    with load_checkpoint(prefix) as reader:
        value = reader.get_tensor("s")
    assert value.tolist() == [payload] and not os.path.exists(marker)


def test_pickled_object_array_in_an_npz_is_refused(tmp_path):
    from saver.storage import export
    from graph.errors import DataLossError
    marker = str(tmp_path / "pwned")
    path = str(tmp_path / "evil.npz")
    array = np.empty(1, dtype=object)
    array[0] = _Bomb(marker)
    np.savez(path, x=array)  # numpy pickles object arrays when allowed to (the default for savez)
    with pytest.raises((DataLossError, ValueError)):
        list(export.read_tensors(path))
    assert not os.path.exists(marker)


def test_object_graph_and_state_file_are_never_unpickled(tmp_path):
    from saver.storage import state
    from saver.storage.object_graph import ObjectGraph
    from graph.errors import DataLossError
    marker = str(tmp_path / "pwned")
    payload = pickle.dumps(_Bomb(marker))
    try:
        ObjectGraph.from_bytes(payload)
    except DataLossError:
        pass
    (tmp_path / "checkpoint").write_bytes(payload)
    try:
        state.get_checkpoint_state(str(tmp_path))
    except ValueError:
        pass
    assert not os.path.exists(marker)
