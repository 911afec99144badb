"""Restoring a TF1 name-based checkpoint through tf.train.Checkpoint: NameBasedSaverStatus.

A checkpoint without ``_CHECKPOINTABLE_OBJECT_GRAPH`` was written by a ``tf.train.Saver``; TensorFlow then
matches each variable reachable from the Checkpoint by its global name (its op name), as a Saver would.
Running the status restores every object not yet claimed by a newer restore; a variable whose name the
checkpoint lacks is an unused attribute, reported by ``assert_consumed`` (TF's NameBasedSaverStatus).
"""

from __future__ import annotations

from graph.core import graph as graph_lib
from graph.runtime.session import Session
from graph.tracking import list_objects, set_update_uid, update_uid
from graph.variables.variables import Variable
from saver.checkpoint.restore import session_or_default
from saver.saver import Saver

__all__ = ["NameBasedSaverStatus"]


class NameBasedSaverStatus:
    """Status of ``Checkpoint.restore`` on a name-based checkpoint: restores variables by global name."""

    def __init__(self, root, save_path: str, dtypes_by_name: dict, restore_uid: int):
        self._root = root
        self._save_path = save_path
        self._names = set(dtypes_by_name)
        self._restore_uid = restore_uid
        self._optionally_restored: list = []
        self._unused_attributes: list[tuple[object, list[str]]] = []

    def add_to_optionally_restored(self, variable: Variable) -> None:
        """A variable (save_counter) whose unused attributes assert_consumed forgives.

        As in TensorFlow 2.21's graph mode, it is still gathered by run_restore_ops, so a TF1 Saver checkpoint
        (which has no ``save_counter``) fails there with NotFoundError: convert such checkpoints instead
        (saver.checkpoint.converter).
        """
        self._optionally_restored.append(variable)

    def assert_consumed(self) -> NameBasedSaverStatus:
        """Raises AssertionError if a variable had no value or an object was not restored yet."""
        unused = [(obj, attributes) for obj, attributes in self._unused_attributes
                  if all(obj is not optional for optional in self._optionally_restored)]
        if unused:
            text = "".join(f"\n    {obj}: {attributes}" for obj, attributes in unused)
            raise AssertionError(f"Some objects had attributes which were not restored: {text}")
        for obj in list_objects(self._root):
            if update_uid(obj) < self._restore_uid:
                raise AssertionError(f"Object not restored: {obj}")
        return self

    def assert_existing_objects_matched(self) -> NameBasedSaverStatus:
        """As assert_consumed."""
        return self.assert_consumed()

    def assert_nontrivial_match(self) -> NameBasedSaverStatus:
        """As assert_consumed."""
        return self.assert_consumed()

    def expect_partial(self) -> NameBasedSaverStatus:
        """Nothing to silence; returns self."""
        return self

    def run_restore_ops(self, session: Session | None = None) -> None:
        """Restores, by global name with a new tf.train.Saver, every reachable variable not restored yet.

        Raises:
          NotFoundError: if the checkpoint lacks a variable's name (the Saver's message).
        """
        session = session_or_default(session)
        variables = []
        for obj in list_objects(self._root):
            if update_uid(obj) >= self._restore_uid:
                continue
            set_update_uid(obj, self._restore_uid)
            if isinstance(obj, Variable):
                variables.append(obj)
        if variables:
            with graph_lib.device("/cpu:0"):
                Saver(variables).restore(session, self._save_path)

    def initialize_or_restore(self, session: Session | None = None) -> None:
        """As run_restore_ops."""
        self.run_restore_ops(session)
