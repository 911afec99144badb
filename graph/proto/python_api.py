"""protobuf's Python message API over the codec's messages, with protobuf's lazy sub-message semantics.

Messages that users read or build by hand (tf.train.Example, Event, Summary, ...) derive from
:class:`ProtoMessage` and declare their fields with this module's :class:`Field` / :class:`MapField`.
They then behave as protobuf's generated classes do:

- reading an unset sub-message gives an empty message; ``HasField`` stays False and the parent's bytes
  do not change.  The same empty message is handed out until the field is set or cleared.
- the first mutation of such a message (setting a field, appending to a repeated field, adding a map
  entry, ``CopyFrom`` / ``MergeFrom`` / ``ParseFromString`` / ``SetInParent``) sets it in its parent,
  and the parent in its own parent, up to the first message already set.  A oneof member set that way
  clears the other members of its group, as protobuf does.
- an unset oneof scalar member reads as its zero value (``simple_value`` reads 0.0), not None.
- a map of messages creates a missing key's message on ``[]`` (protobuf's MessageMap).

The codec's own Message (graph/proto/protobuf.py) keeps None for unset sub-messages: framework
messages (GraphDef, NodeDef, TensorProto, ...) are walked by code that tests for None, so they stay
codec messages.  Such a message read here while unset (``Summary.Value.tensor``) cannot report its
edits: its parent adopts it once it is no longer empty, when the parent is next read, tested or
serialized (an edit that leaves it empty, e.g. setting ``dtype = 0``, does not set it, unlike protobuf).

Serialization writes map entries sorted by key, which is protobuf's ``deterministic=True``; protobuf's
default order is its hash table's, which no caller can rely on.
"""

from __future__ import annotations

from typing import Any

from graph.proto import protobuf, text_format

__all__ = ["ProtoMessage", "Field", "MapField", "RepeatedContainer", "MessageMap"]


def _changed(owner) -> None:
    modified = getattr(owner, "_modified", None)
    if modified is not None:
        modified()


class RepeatedContainer(list):
    """A repeated field's list that tells its message when it changes (protobuf's repeated container)."""

    def __init__(self, owner, field: protobuf.Field, items=()):
        super().__init__(items)
        self._owner = owner
        self._field = field

    def add(self, **kwargs):
        """Appends a new message built from ``kwargs`` and returns it (repeated message fields only)."""
        if not self._field.is_message:
            raise AttributeError(f"'{self._field.name}' is a repeated scalar field: use append")
        item = self._field.kind(**kwargs)
        self.append(item)
        return item

    def append(self, item) -> None:
        super().append(item)
        _changed(self._owner)

    def extend(self, items) -> None:
        super().extend(items)
        _changed(self._owner)

    def insert(self, index, item) -> None:
        super().insert(index, item)
        _changed(self._owner)

    def __setitem__(self, index, item) -> None:
        super().__setitem__(index, item)
        _changed(self._owner)

    def __delitem__(self, index) -> None:
        super().__delitem__(index)
        _changed(self._owner)

    def __iadd__(self, items):
        self.extend(items)
        return self

    def pop(self, index=-1):
        item = super().pop(index)
        _changed(self._owner)
        return item

    def remove(self, item) -> None:
        super().remove(item)
        _changed(self._owner)

    def clear(self) -> None:
        super().clear()
        _changed(self._owner)

    def sort(self, *args, **kwargs) -> None:
        super().sort(*args, **kwargs)
        _changed(self._owner)

    def reverse(self) -> None:
        super().reverse()
        _changed(self._owner)

    def MergeFrom(self, other) -> None:  # noqa: N802 - protobuf's name
        """Appends the items of ``other``."""
        self.extend(other)

    def __reduce__(self):
        return list, (list(self),)


class MessageMap(dict):
    """A map field's dict that tells its message when it changes; a message map creates missing keys."""

    def __init__(self, owner, field: protobuf.Field, items=()):
        super().__init__(items)
        self._owner = owner
        self._field = field

    def __missing__(self, key):
        if not self._field.is_message:
            raise KeyError(key)
        value = self[key] = self._field.kind()
        return value

    def get_or_create(self, key):
        """The message under ``key``, created when missing (protobuf's MessageMap.get_or_create)."""
        return self[key]

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        _changed(self._owner)

    def __delitem__(self, key) -> None:
        super().__delitem__(key)
        _changed(self._owner)

    def update(self, *args, **kwargs) -> None:
        super().update(*args, **kwargs)
        _changed(self._owner)

    def setdefault(self, key, default=None):
        value = super().setdefault(key, default)
        _changed(self._owner)
        return value

    def pop(self, key, *default):
        value = super().pop(key, *default)
        _changed(self._owner)
        return value

    def clear(self) -> None:
        super().clear()
        _changed(self._owner)

    def __reduce__(self):
        return dict, (dict(self),)


class Field(protobuf.Field):
    """A field with protobuf's read semantics: lazy empty sub-messages, zero-valued oneof scalars,
    repeated values in a :class:`RepeatedContainer`."""

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        values = instance._values
        value = values.get(self.name)
        if self.repeated:
            if type(value) is not RepeatedContainer or value._owner is not instance:
                value = values[self.name] = RepeatedContainer(instance, self, value or ())
            return value
        if value is not None:
            return value
        if not self.is_message:
            return self.kind.default  # an unset presence scalar (a oneof member) reads as zero
        lazy = instance.__dict__.get("_lazy")
        if lazy is None:
            lazy = {}
            object.__setattr__(instance, "_lazy", lazy)
        child = lazy.get(self.name)
        if child is not None and not isinstance(child, ProtoMessage) and instance._adopt_edited():
            return values[self.name]
        if child is None:
            child = lazy[self.name] = self.kind()
            if isinstance(child, ProtoMessage):
                object.__setattr__(child, "_parent", (instance, self))
        return child

    def __set__(self, instance, value) -> None:
        _forget_lazy(instance, self.name)
        super().__set__(instance, value)
        _changed(instance)


class MapField(protobuf.MapField):
    """A map field held as a :class:`MessageMap` (a message map creates a missing key's message)."""

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        values = instance._values
        value = values.get(self.name)
        if type(value) is not MessageMap or value._owner is not instance:
            value = values[self.name] = MessageMap(instance, self, value or {})
        return value

    def __set__(self, instance, value) -> None:
        instance._values[self.name] = MessageMap(instance, self, value)
        _changed(instance)


def _forget_lazy(instance, name: str) -> None:
    """Detaches the empty message handed out for field ``name``: the field is being set or cleared."""
    lazy = instance.__dict__.get("_lazy")
    if lazy:
        child = lazy.pop(name, None)
        if isinstance(child, ProtoMessage):
            object.__setattr__(child, "_parent", None)


class ProtoMessage(protobuf.Message):
    """A codec message answering protobuf's Python API (HasField, CopyFrom, ListFields, str(), ...)."""

    _parent: tuple | None = None  # (parent message, field) while this is an unset sub-message read lazily

    def _modified(self) -> None:
        """Sets this message in its parent (and so on upward) the first time it changes, as protobuf does."""
        link = self._parent
        if link is None:
            return
        parent, field = link
        object.__setattr__(self, "_parent", None)
        lazy = parent.__dict__.get("_lazy")
        if lazy is not None and lazy.get(field.name) is self:
            del lazy[field.name]
        protobuf.Field.__set__(field, parent, self)  # clears the other members of a oneof
        parent._modified()

    def _adopt_edited(self) -> bool:
        """Sets the codec messages handed out lazily that were edited since (they cannot say so)."""
        lazy = self.__dict__.get("_lazy")
        adopted = False
        for name, child in list(lazy.items()) if lazy else ():
            if not isinstance(child, ProtoMessage) and child.to_bytes():
                del lazy[name]
                protobuf.Field.__set__(type(self)._by_name[name], self, child)
                adopted = True
        if adopted:
            self._modified()
        return adopted

    def to_bytes(self, deterministic: bool = False) -> bytes:
        """Serializes this message (SerializeToString)."""
        if "_lazy" in self.__dict__:
            self._adopt_edited()
        return super().to_bytes(deterministic)

    def has(self, name: str) -> bool:
        """True when the field is set (HasField); repeated/map fields: non-empty."""
        if "_lazy" in self.__dict__:
            self._adopt_edited()
        return super().has(name)

    def which_oneof(self, group: str) -> str | None:
        """The name of the set member of oneof ``group`` (WhichOneof)."""
        if "_lazy" in self.__dict__:
            self._adopt_edited()
        return super().which_oneof(group)

    def _replace_values(self, parsed: protobuf.Message) -> None:
        lazy = self.__dict__.get("_lazy")
        for name in list(lazy or ()):
            _forget_lazy(self, name)
        object.__setattr__(self, "_values", parsed._values)
        object.__setattr__(self, "_unknown", parsed._unknown)
        self._modified()

    def SerializeToString(self, deterministic: bool = True) -> bytes:  # noqa: N802 - protobuf's name
        """The message's wire bytes (map entries sorted by key, as protobuf's deterministic mode)."""
        del deterministic  # always deterministic: see the module docstring
        return self.to_bytes(deterministic=True)

    def SerializePartialToString(self, deterministic: bool = True) -> bytes:  # noqa: N802 - protobuf's name
        """The same as SerializeToString (proto3 has no required fields)."""
        return self.SerializeToString(deterministic)

    @classmethod
    def FromString(cls, data: bytes):  # noqa: N802 - protobuf's name
        """The message parsed from wire bytes."""
        return cls.from_bytes(bytes(data))

    def ParseFromString(self, data: bytes) -> int:  # noqa: N802 - protobuf's name
        """Replaces this message's contents with the parsed ``data``; returns its length."""
        self._replace_values(type(self).from_bytes(bytes(data)))
        return len(data)

    def MergeFromString(self, data: bytes) -> int:  # noqa: N802 - protobuf's name
        """Merges the parsed ``data`` into this message; returns its length."""
        self._replace_values(type(self).from_bytes(self.to_bytes() + bytes(data)))
        return len(data)

    def CopyFrom(self, other: protobuf.Message) -> None:  # noqa: N802 - protobuf's name
        """Makes this message a copy of ``other``.

        Raises:
            TypeError: if ``other`` is another message type.
        """
        self._check_same_type(other, "CopyFrom")
        if other is not self:
            self._replace_values(type(self).from_bytes(other.to_bytes()))

    def MergeFrom(self, other: protobuf.Message) -> None:  # noqa: N802 - protobuf's name
        """Merges ``other`` into this message (repeated fields append, sub-messages merge).

        Raises:
            TypeError: if ``other`` is another message type.
        """
        self._check_same_type(other, "MergeFrom")
        self._replace_values(type(self).from_bytes(self.to_bytes() + other.to_bytes()))

    def _check_same_type(self, other, method: str) -> None:
        if not isinstance(other, type(self)):
            raise TypeError(f"Parameter to {method}() must be instance of same class: expected "
                            f"{self._full_name} got {type(other).__name__}.")

    def SetInParent(self) -> None:  # noqa: N802 - protobuf's name
        """Marks this (possibly empty) sub-message as set in its parent."""
        self._modified()

    def Clear(self) -> None:  # noqa: N802 - protobuf's name
        """Unsets every field."""
        self._replace_values(type(self)())

    def HasField(self, field_name: str) -> bool:  # noqa: N802 - protobuf's name
        """Whether sub-message or presence field ``field_name`` is set.

        Raises:
            ValueError: for an unknown or repeated field, or a proto3 scalar without presence (as protobuf).
        """
        field = type(self)._by_name.get(field_name)
        if field is not None and not field.repeated and not (field.presence or field.is_message):
            raise ValueError(f"Field {self._full_name}.{field_name} does not have presence.")
        return super().HasField(field_name)

    def __deepcopy__(self, memo=None):
        return type(self).from_bytes(self.to_bytes())

    def __reduce__(self):
        return type(self).from_bytes, (self.to_bytes(),)

    def ClearField(self, field_name: str) -> None:  # noqa: N802 - protobuf's name
        """Unsets field ``field_name`` (ValueError for a name the message does not declare)."""
        super().ClearField(field_name)
        _forget_lazy(self, field_name)

    def WhichOneof(self, oneof_group: str) -> str | None:  # noqa: N802 - protobuf's name
        """The set member of oneof ``oneof_group``, or None (ValueError for an unknown group)."""
        if oneof_group not in self._oneofs:
            raise ValueError(f'Protocol message has no oneof "{oneof_group}" field.')
        return self.which_oneof(oneof_group)

    def ListFields(self) -> list[tuple[protobuf.Field, Any]]:  # noqa: N802 - protobuf's name
        """(field, value) of every set field, by field number (fields carry ``name`` and ``number``)."""
        return [(field, getattr(self, field.name)) for field in self._fields if self.has(field.name)]

    def IsInitialized(self) -> bool:  # noqa: N802 - protobuf's name
        """True: proto3 messages have no required fields."""
        return True

    def ByteSize(self) -> int:  # noqa: N802 - protobuf's name
        """The length of the serialized message."""
        return len(self.to_bytes())

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.ListFields() == other.ListFields() and self._unknown == other._unknown

    __hash__ = None  # mutable, as protobuf's messages

    def __str__(self) -> str:
        if "_lazy" in self.__dict__:
            self._adopt_edited()
        return text_format.to_text(self)
