"""Fixtures shared by the graph tests."""

import pytest

from graph.core import graph as graph_lib


@pytest.fixture
def g():
    """A fresh Graph, the default graph for the test's duration."""
    graph = graph_lib.Graph()
    with graph.as_default():
        yield graph
