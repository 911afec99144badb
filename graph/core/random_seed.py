"""The graph-level random seed and TensorFlow's rules for the seeds a random op uses (random_seed.py)."""

from __future__ import annotations

from graph.core.graph import get_default_graph

__all__ = ["DEFAULT_GRAPH_SEED", "set_random_seed", "get_seed"]

# The graph seed used when only an op seed is given.
DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def set_random_seed(seed) -> None:
    """Sets the default graph's random seed."""
    get_default_graph().seed = seed


def get_seed(op_seed):
    """The (graph seed, op seed) pair a random op uses, by TensorFlow's rules (random_seed.get_seed)."""
    graph = get_default_graph()
    global_seed = graph.seed
    if global_seed is not None:
        if op_seed is None:
            # TF 2.x counts the seedless random ops of each graph (random_seed._graph_to_seed_dict).
            op_seed = getattr(graph, "_seed_counter", 0)
            graph._seed_counter = op_seed + 1
        seeds = (int(global_seed) % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        seeds = (None, None)
    if seeds == (0, 0):  # (0, 0) would mean "nondeterministic" to the kernels
        seeds = (0, _MAXINT32)
    return seeds
