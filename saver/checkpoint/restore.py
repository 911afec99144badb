"""Object-based restore in graph mode: matching Python objects to checkpoint nodes, and the load statuses.

A restore walks the checkpoint's object graph and the live objects side by side from the root: a checkpoint
child binds to the Python child of the same local name, a slot node to ``optimizer.get_slot(variable,
name)``.  Each bound variable gets a ``RestoreV2`` + ``Assign`` pair reading the checkpoint prefix fed at
run time (TF's graph-mode ``restore_ops``).  Objects created after ``restore()`` are matched the next time
the status is used (``run_restore_ops``, ``initialize_or_restore``, the asserts): TensorFlow's delayed
restoration, seen from the session as TF shows it.  Statuses raise TF's AssertionErrors with TF's wording.
"""

from __future__ import annotations

from collections import deque

from graph.core import graph as graph_lib
from graph.ops import constant_ops, state_ops
from graph.proto.text_format import to_text
from graph.runtime.session import Session
from graph.core.default_session import get_default_session
from graph.tracking import list_objects, set_update_uid, trackable_children, update_uid
from graph.train.optimizer import Optimizer
from graph.variables.variables import Variable
from saver.graph_ops import save_ops
from saver.storage.object_graph import ObjectGraph
from saver.storage.object_graph_keys import VARIABLE_VALUE_KEY

__all__ = ["CheckpointLoadStatus", "InitializationOnlyStatus", "RestoreCoordinator", "file_prefix_tensor",
           "node_names", "session_or_default"]

_MAX_SHOWN_UNMATCHED = 10  # TF shows at most ten unmatched objects in an assertion


def session_or_default(session: Session | None) -> Session:
    """`session`, else the default session.

    Raises:
      ValueError: if neither exists (graph mode needs a session to run save and restore ops).
    """
    session = session or get_default_session()
    if session is None:
        raise ValueError("No session: pass session=... or run inside `with tf.Session() as sess:` "
                         "(graph mode runs save and restore ops in a session)")
    return session


def node_names(graph: ObjectGraph) -> dict[int, str]:
    """TF's pretty names of nodes: ``(root).net.w``; slots ``<optimizer>'s state 'm' for <variable>``."""
    names = {0: ("(root)",)}
    queue = deque([0])
    while queue:
        node_id = queue.popleft()
        for child_id, local_name in graph.nodes[node_id].children:
            if child_id not in names:
                names[child_id] = names[node_id] + (local_name,)
                queue.append(child_id)
    pretty = {node_id: ".".join(path) for node_id, path in names.items()}
    for slot in graph.slot_variables():
        pretty[slot.slot_variable_node_id] = "%s's state '%s' for %s" % (
            pretty.get(slot.optimizer_node_id), slot.slot_name, pretty.get(slot.original_variable_node_id))
    return pretty


class RestoreCoordinator:
    """One ``restore()``: the checkpoint's graph, the objects bound to its nodes, and the restore ops."""

    def __init__(self, root, save_path: str, graph: ObjectGraph, restore_uid: int, prefix_tensor):
        self.root = root
        self.save_path = save_path
        self.object_graph = graph
        self.restore_uid = restore_uid
        self.prefix_tensor = prefix_tensor
        self.object_by_proto_id: dict[int, object] = {}
        self.restore_ops: list = []
        self.unused_attributes: dict[int, list[str]] = {}
        self.all_python_objects: dict[int, object] = {}
        self.expect_partial = False
        self._nodes = graph.proto.nodes

    @property
    def feed_dict(self) -> dict:
        """Feeds the checkpoint prefix to the restore ops."""
        return {self.prefix_tensor: self.save_path}

    def match(self) -> None:
        """Binds every live object that has a checkpoint node and is not bound yet (delayed restoration)."""
        if 0 not in self.object_by_proto_id:
            self._bind(0, self.root)
        queue = deque([0])
        visited = {0}
        while queue:
            node_id = queue.popleft()
            children = trackable_children(self.object_by_proto_id[node_id])
            for child in self._nodes[node_id].children:
                live = children.get(child.local_name)
                if live is None:
                    continue
                bound = self.object_by_proto_id.get(child.node_id)
                if bound is None:
                    self._bind(child.node_id, live)
                elif bound is not live:
                    continue  # another object already holds this node (TF keeps the first binding)
                if child.node_id not in visited:
                    visited.add(child.node_id)
                    queue.append(child.node_id)
        for slot in self.object_graph.slot_variables():
            optimizer = self.object_by_proto_id.get(slot.optimizer_node_id)
            variable = self.object_by_proto_id.get(slot.original_variable_node_id)
            if not isinstance(optimizer, Optimizer) or variable is None or \
                    slot.slot_variable_node_id in self.object_by_proto_id:
                continue
            slot_variable = optimizer.get_slot(variable, slot.slot_name)
            if slot_variable is not None:
                self._bind(slot.slot_variable_node_id, slot_variable)

    def _bind(self, node_id: int, obj) -> None:
        self.object_by_proto_id[node_id] = obj
        attributes = self._nodes[node_id].attributes
        fresh = self.restore_uid > update_uid(obj)
        set_update_uid(obj, self.restore_uid)
        if not attributes:
            return
        if not isinstance(obj, Variable):
            self.unused_attributes[node_id] = [a.name for a in attributes]
            return
        unused = [a.name for a in attributes if a.name != VARIABLE_VALUE_KEY]
        if unused:
            self.unused_attributes[node_id] = unused
        value = next((a for a in attributes if a.name == VARIABLE_VALUE_KEY), None)
        if value is not None and fresh:  # a newer restore already gave this object its value
            self.restore_ops.append(self._restore_variable(obj, value.checkpoint_key))

    def _restore_variable(self, variable: Variable, key: str):
        graph = variable.op.graph
        with graph.as_default(), graph_lib.name_scope(None, "restore"):
            with graph_lib.device("/cpu:0"):
                restored = save_ops.restore_v2(self.prefix_tensor, [key], [""], [variable.dtype.base_dtype])[0]
            return state_ops.assign(variable, restored,
                                    validate_shape=variable.get_shape().is_fully_defined()).op


class CheckpointLoadStatus:
    """Returned by ``Checkpoint.restore(path)``: checks and runs the restore (TF's CheckpointLoadStatus)."""

    def __init__(self, coordinator: RestoreCoordinator):
        self._checkpoint = coordinator
        self._root = coordinator.root

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Asserts every Python object and every checkpointed value was matched.

        Raises:
          AssertionError: naming the first unresolved checkpoint object (TF's text) or unused attributes.
        """
        self.assert_existing_objects_matched()
        names = node_names(self._checkpoint.object_graph)
        for node_id, node in enumerate(self._checkpoint.object_graph.proto.nodes):
            if node.attributes and node_id not in self._checkpoint.object_by_proto_id:
                raise AssertionError(f"Unresolved object in checkpoint {names.get(node_id)}: {to_text(node)}")
        if self._checkpoint.unused_attributes:
            lines = "\n".join(f"{names.get(node_id)} ({self._checkpoint.object_by_proto_id[node_id]}): {attributes}"
                              for node_id, attributes in self._checkpoint.unused_attributes.items())
            raise AssertionError("Unused attributes in these objects (the attributes exist in the checkpoint but "
                                 f"were not restored):\n{lines}")
        return self

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Asserts every existing Python object with a value has a checkpoint value.

        Raises:
          AssertionError: "Found N Python objects that were not bound to checkpointed values, ...".
        """
        self._checkpoint.match()
        for node_id, node in enumerate(self._checkpoint.object_graph.proto.nodes):
            bound = self._checkpoint.object_by_proto_id.get(node_id)
            if bound is not None and update_uid(bound) < self._checkpoint.restore_uid:
                raise AssertionError(f"Object {to_text(node)} not assigned a value from checkpoint.")
        for obj in list_objects(self._root):
            self._checkpoint.all_python_objects[id(obj)] = obj
        bound_ids = {id(obj) for obj in self._checkpoint.object_by_proto_id.values()}
        unused = [obj for obj in self._checkpoint.all_python_objects.values()
                  if isinstance(obj, Variable) and id(obj) not in bound_ids]
        if unused:
            shown = min(_MAX_SHOWN_UNMATCHED, len(unused))
            raise AssertionError(f"Found {len(unused)} Python objects that were not bound to checkpointed values, "
                                 "likely due to changes in the Python program. Showing "
                                 f"{shown} of {len(unused)} unmatched objects: {unused[:shown]}")
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """Asserts something besides the root matched.

        Raises:
          AssertionError: "Nothing except the root object matched a checkpointed value. ..." (TF's text).
        """
        self._checkpoint.match()
        for obj in list_objects(self._root):
            self._checkpoint.all_python_objects[id(obj)] = obj
        if len(self._checkpoint.object_by_proto_id) <= 1:
            bound_ids = {id(obj) for obj in self._checkpoint.object_by_proto_id.values()}
            unused = [obj for obj in self._checkpoint.all_python_objects.values()
                      if isinstance(obj, Variable) and id(obj) not in bound_ids]
            if unused:
                raise AssertionError("Nothing except the root object matched a checkpointed value. Typically this "
                                     "means that the checkpoint does not match the Python program. The following "
                                     f"objects have no matching checkpointed value: {unused}")
            raise AssertionError(f"Nothing to load. No dependencies have been added to {self._root} yet.")
        return self

    def run_restore_ops(self, session: Session | None = None) -> None:
        """Runs the restore ops of every matched object (objects created since restore() included)."""
        session = session_or_default(session)
        self._checkpoint.match()
        session.run(self._checkpoint.restore_ops, feed_dict=self._checkpoint.feed_dict)

    def initialize_or_restore(self, session: Session | None = None) -> None:
        """Restores matched variables and runs the initializers of the others (unless a later restore
        claims them)."""
        session = session_or_default(session)
        self._checkpoint.match()
        bound_ids = {id(obj) for obj in self._checkpoint.object_by_proto_id.values()}
        initializers = [obj.initializer for obj in list_objects(self._root)
                        if isinstance(obj, Variable) and id(obj) not in bound_ids
                        and update_uid(obj) < self._checkpoint.restore_uid]
        self.run_restore_ops(session)
        session.run(initializers)

    def expect_partial(self) -> CheckpointLoadStatus:
        """Silences warnings about incomplete checkpoint restores; returns self."""
        self._checkpoint.expect_partial = True
        return self


class InitializationOnlyStatus:
    """Returned by ``Checkpoint.restore(None)``: only initializes (TF's InitializationOnlyStatus)."""

    _NOTHING = "No checkpoint specified (save_path=None); nothing is being restored."

    def __init__(self, root, restore_uid: int):
        self._root = root
        self._restore_uid = restore_uid

    def assert_consumed(self):
        """Always fails: nothing is being restored."""
        raise AssertionError(self._NOTHING)

    def assert_existing_objects_matched(self):
        """Always fails: nothing is being restored."""
        raise AssertionError(self._NOTHING)

    def assert_nontrivial_match(self):
        """Always fails: nothing is being restored."""
        raise AssertionError(self._NOTHING)

    def expect_partial(self) -> InitializationOnlyStatus:
        """Nothing to silence; returns self."""
        return self

    def run_restore_ops(self, session: Session | None = None) -> None:
        """Always fails: there are no restore ops."""
        raise AssertionError("No checkpoint specified, so no restore ops are available (save_path=None to "
                             "Saver.restore).")

    def initialize_or_restore(self, session: Session | None = None) -> None:
        """Runs the initializers of every variable not claimed by a later restore."""
        session = session_or_default(session)
        session.run([obj.initializer for obj in list_objects(self._root)
                     if isinstance(obj, Variable) and update_uid(obj) < self._restore_uid])


def file_prefix_tensor(graph):
    """The string Const a graph's restore ops read their prefix from (fed per restore, as TF's "model")."""
    with graph.as_default(), graph_lib.device("/cpu:0"):
        return constant_ops.constant("model")
