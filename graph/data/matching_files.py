"""tf.train.match_filenames_once: a local variable holding the files a glob pattern matched when initialized."""

from __future__ import annotations

from graph.core.graph import Tensor, convert_to_tensor, get_default_graph, name_scope
from graph.core.graph_keys import GraphKeys
from graph.data import readers  # noqa: F401  (registers the MatchingFiles kernel)
from graph.variables.variables import Variable

__all__ = ["matching_files", "match_filenames_once"]


def matching_files(pattern, name: str | None = None) -> Tensor:
    """A ``MatchingFiles`` op: the sorted file names matching the glob pattern(s), a string vector."""
    pattern = convert_to_tensor(pattern)
    return get_default_graph().create_op("MatchingFiles", [pattern], name=name or "MatchingFiles").outputs[0]


def match_filenames_once(pattern, name: str | None = None) -> Variable:
    """A local, non-trainable variable initialized to the files matching `pattern` (evaluated once, as TF's)."""
    with name_scope(name, "matching_filenames", [pattern]) as name:
        return Variable(matching_files(pattern), name=name, trainable=False, validate_shape=False,
                        collections=[GraphKeys.LOCAL_VARIABLES])
