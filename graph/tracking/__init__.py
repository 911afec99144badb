"""graph/tracking: tf.Module and the object tracking behind TF2 object-based checkpoints."""

from graph.tracking.autotrackable import AutoTrackable
from graph.tracking.base import (NoDependency, Trackable, breadth_first_objects, is_trackable, list_objects,
                                 set_update_uid, slot_variables_of, trackable_children, update_uid)
from graph.tracking.data_structures import ListWrapper, wrap_or_unwrap
from graph.tracking.module import Module

__all__ = [
    "AutoTrackable", "ListWrapper", "Module", "NoDependency", "Trackable", "breadth_first_objects",
    "is_trackable", "list_objects", "set_update_uid", "slot_variables_of", "trackable_children",
    "update_uid", "wrap_or_unwrap",
]
