"""Tests for graph/proto/protobuf.py: message golden bytes and round trips (varints: test_wire.py; text format:
test_text_format.py)."""

import ast
import pathlib

import pytest

import graph.proto
from tests.graph.proto_messages import Kitchen, Saverish, Shape


def test_wire_golden_bytes_and_round_trip():
    message = Saverish(filename_tensor_name="save/Const:0", max_to_keep=5, keep_checkpoint_every_n_hours=10000.0,
                       version=2)
    data = message.to_bytes()
    assert data == b"\x0a\x0csave/Const:0\x20\x05\x35\x00\x40\x1c\x46\x38\x02"
    assert Saverish.from_bytes(data) == message


def test_kitchen_wire_round_trip():
    message = Kitchen(i=-5, u=2**64 - 1, d=0.1, b=b"\x00\xff", packed=[1, -2, 3], aliases={"b": "2", "a": "1"},
                      shapes=[Shape(dim=[Shape.Dim(size=-1)])], sub={"k": Shape()}, f=0.5)
    assert Kitchen.from_bytes(message.to_bytes()) == message


def _imports(path: pathlib.Path) -> set[str]:
    """Every module ``path`` imports, at its top and inside functions."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_messages_know_nothing_of_text_format_and_proto_imports_only_below():
    package = pathlib.Path(graph.proto.__file__).parent
    for module in ("wire", "protobuf"):
        assert not {name for name in _imports(package / f"{module}.py") if "text" in name}, module
    for path in sorted(package.glob("*.py")):
        ours = {name for name in _imports(path) if name == "graph" or name.startswith("graph.")}
        assert all(name.startswith(("graph.base", "graph.errors", "graph.proto")) for name in ours), (path.name, ours)


def test_protobuf_method_spellings():
    """HasField / ClearField / WhichOneof / SerializeToString / FromString as protobuf's generated classes."""
    from graph.proto.framework import AttrValue, NodeDef
    node = NodeDef(name="a", op="Const", input=["b"])
    node.attr["x"] = AttrValue(i=3)
    assert node.HasField("experimental_debug_info") is False
    with pytest.raises(ValueError, match='no singular "input" field'):
        node.HasField("input")
    with pytest.raises(ValueError, match='no "nope" field'):
        node.ClearField("nope")
    assert node.attr["x"].WhichOneof("value") == "i"
    assert NodeDef.FromString(node.SerializeToString()) == node
    node.ClearField("input")
    assert node.input == []
