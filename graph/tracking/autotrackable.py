"""AutoTrackable: an object whose trackable attributes are its checkpoint dependencies, by attribute name."""

from __future__ import annotations

from graph.tracking.base import Trackable
from graph.tracking.data_structures import sticky_attribute_assignment

__all__ = ["AutoTrackable"]


class AutoTrackable(Trackable):
    """Tracks every trackable value assigned to an attribute under the attribute's name (TF's AutoTrackable)."""

    def __setattr__(self, name: str, value) -> None:
        if not name.startswith("_self_") and getattr(self, "_self_setattr_tracking", True):
            self._maybe_initialize_trackable()
            value = sticky_attribute_assignment(self, name, value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._delete_tracking(name)
        object.__delattr__(self, name)
