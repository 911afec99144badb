"""``tf.test.StubOutForTesting``: replace attributes of modules, classes or objects, and put them back."""

from __future__ import annotations

import inspect

__all__ = ["StubOutForTesting"]


class StubOutForTesting:
    """Stubs attributes out for a test and restores them on ``CleanUp`` (or leaving its ``with`` block).

    ``Set(parent, name, new)`` replaces ``parent.name`` itself; ``SmartSet(obj, name, new)`` replaces it where it
    is defined: on a module or on the object holding it, else on the class of the MRO that defines it.
    A staticmethod is put back as a staticmethod.
    """

    def __init__(self):
        self.cache: list[tuple] = []
        self.stubs: list[tuple] = []

    def __del__(self):
        self.CleanUp()

    def __enter__(self):
        return self

    def __exit__(self, unused_exc_type, unused_exc_value, unused_tb) -> None:
        self.CleanUp()

    def CleanUp(self) -> None:  # noqa: N802 - TF's names throughout
        """Undoes every SmartSet and Set, last first."""
        self.SmartUnsetAll()
        self.UnsetAll()

    def SmartSet(self, obj, attr_name: str, new_attr) -> None:  # noqa: N802
        """Replaces ``obj.attr_name`` with ``new_attr`` where it is defined (for an instance: on its class unless the
        instance holds it).

        Raises:
            AttributeError: if no class of the MRO has the attribute.
        """
        if inspect.ismodule(obj) or (not inspect.isclass(obj) and attr_name in obj.__dict__):
            orig_obj, orig_attr = obj, getattr(obj, attr_name)
        else:
            mro = list(inspect.getmro(obj if inspect.isclass(obj) else obj.__class__))
            mro.reverse()
            orig_obj, orig_attr, found = None, None, False
            for cls in mro:  # as TF: the last class tried (the most derived) is the one restored
                try:
                    orig_obj, orig_attr, found = cls, getattr(obj, attr_name), True
                except AttributeError:
                    continue
            if not found:
                raise AttributeError("Attribute not found.")
        # getattr turns a staticmethod into a plain function; keep it a staticmethod when put back.
        old_attribute = obj.__dict__.get(attr_name)
        if old_attribute is not None and isinstance(old_attribute, staticmethod):
            orig_attr = staticmethod(orig_attr)
        self.stubs.append((orig_obj, attr_name, orig_attr))
        setattr(orig_obj, attr_name, new_attr)

    def SmartUnsetAll(self) -> None:  # noqa: N802
        """Reverses the SmartSet calls, last first."""
        for args in reversed(self.stubs):
            setattr(*args)
        self.stubs = []

    def Set(self, parent, child_name: str, new_child) -> None:  # noqa: N802
        """Replaces ``parent.child_name`` with ``new_child``, keeping the old value for ``UnsetAll``."""
        old_child = getattr(parent, child_name)
        old_attribute = parent.__dict__.get(child_name)
        if old_attribute is not None and isinstance(old_attribute, staticmethod):
            old_child = staticmethod(old_child)
        self.cache.append((parent, old_child, child_name))
        setattr(parent, child_name, new_child)

    def UnsetAll(self) -> None:  # noqa: N802
        """Reverses the Set calls, last first (so a twice-set attribute gets its first value back)."""
        for parent, old_child, child_name in reversed(self.cache):
            setattr(parent, child_name, old_child)
        self.cache = []
