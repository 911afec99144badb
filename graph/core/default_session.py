"""The default-session stack: which Session `Tensor.eval` and `Operation.run` use (TF's framework/ops.py).

It sits beside the default-graph stack so that core only calls downward: a Session (graph.runtime)
pushes itself here in ``as_default()``; `eval`/`run` look it up and call its ``run``.
"""

from __future__ import annotations

import threading

__all__ = ["get_default_session", "push_default_session", "pop_default_session", "clear_default_session_stack",
           "run_using_default_session"]


class _SessionStack(threading.local):
    def __init__(self):
        self.stack: list = []


_session_stack = _SessionStack()


def get_default_session():
    """The innermost session of `as_default()` contexts, or None."""
    return _session_stack.stack[-1] if _session_stack.stack else None


def push_default_session(session) -> None:
    """Makes ``session`` the default session (until `pop_default_session`)."""
    _session_stack.stack.append(session)


def pop_default_session(session) -> None:
    """Removes ``session`` from the stack (the innermost entry first, as contexts may exit out of order)."""
    stack = _session_stack.stack
    if stack and stack[-1] is session:
        stack.pop()
    elif session in stack:
        stack.remove(session)


def clear_default_session_stack() -> None:
    """Forgets every default session of this thread (`reset_default_graph` does this)."""
    _session_stack.stack.clear()


def run_using_default_session(fetch, feed_dict, graph, session=None, is_tensor: bool = True):
    """Runs ``fetch`` for `Tensor.eval` / `Operation.run` in ``session`` or the default session.

    Raises:
        ValueError: with TensorFlow's messages, when there is no default session or the session runs
            another graph.
    """
    verb, what = ("evaluate tensor using `eval()`", "eval") if is_tensor else ("execute operation using `run()`", "run")
    thing = "tensor" if is_tensor else "operation"
    action = "evaluate tensor" if is_tensor else "execute operation"
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError(f"Cannot {verb}: No default session is registered. Use `with sess.as_default()` or "
                             f"pass an explicit session to `{what}(session=sess)`")
        if session.graph is not graph:
            raise ValueError(f"Cannot use the default session to {action}: the {thing}'s graph is different from "
                             f"the session's graph. Pass an explicit session to `{what}(session=sess)`.")
    elif session.graph is not graph:
        raise ValueError(f"Cannot use the given session to {action}: the {thing}'s graph is different from the "
                         f"session's graph.")
    return session.run(fetch, feed_dict)
