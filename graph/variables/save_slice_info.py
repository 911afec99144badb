"""SaveSliceInfo: where a variable's slice sits in the full tensor a partitioned variable saves."""

from __future__ import annotations

from graph.core.name_scopes import prepend_name_scope, strip_name_scope
from graph.proto.framework import SaveSliceInfoDef

__all__ = ["SaveSliceInfo"]


class SaveSliceInfo:
    """Where a partition sits in its full variable: ``full_name``, ``full_shape``, ``var_offset``, ``var_shape``."""

    def __init__(self, full_name: str | None = None, full_shape=None, var_offset=None, var_shape=None,
                 save_slice_info_def: SaveSliceInfoDef | None = None, import_scope: str | None = None):
        if save_slice_info_def:
            self.full_name = prepend_name_scope(save_slice_info_def.full_name, import_scope)
            self.full_shape = list(save_slice_info_def.full_shape)
            self.var_offset = list(save_slice_info_def.var_offset)
            self.var_shape = list(save_slice_info_def.var_shape)
        else:
            self.full_name = full_name
            self.full_shape = full_shape
            self.var_offset = var_offset
            self.var_shape = var_shape

    @property
    def spec(self) -> str:
        """The checkpoint's shape-and-slice string, e.g. ``'7 2 0,3:0,2'``."""
        full_shape_str = " ".join("%d" % d for d in self.full_shape) + " "
        slice_str = ":".join("%d,%d" % (o, s) for o, s in zip(self.var_offset, self.var_shape))
        return full_shape_str + slice_str

    @classmethod
    def from_spec(cls, spec: str) -> SaveSliceInfo:
        """Parses a `spec` string (no ``full_name``).

        Raises:
            ValueError: with TensorFlow's messages for malformed specs.
        """
        if not spec:
            return cls()
        try:
            full_shape_str, slice_str = spec.rsplit(" ", 1)
        except ValueError as error:
            raise ValueError("Spec string must contain space-separated full_shape info.") from error
        full_shape = []
        for dim in full_shape_str.split():
            try:
                full_shape.append(int(dim))
            except ValueError as error:
                raise ValueError("Spec string full_shape must be a sequence of integers. "
                                 f"Found '{dim}', which is not an integer.") from error
        var_offset, var_shape = [], []
        for dim_spec in slice_str.split(":"):
            try:
                offset, length = dim_spec.split(",")
            except ValueError as error:
                raise ValueError("Spec string must contain comma-separated pairs of offsets and shapes.") from error
            try:
                var_offset.append(int(offset))
            except ValueError as error:
                raise ValueError("Spec string var_offset must be an integer. "
                                 f"Found '{offset}', which is not an integer.") from error
            try:
                var_shape.append(int(length))
            except ValueError as error:
                raise ValueError("Spec string var_shape must be an integer. "
                                 f"Found '{length}', which is not an integer.") from error
        return cls(full_shape=full_shape, var_offset=var_offset, var_shape=var_shape)

    def to_proto(self, export_scope: str | None = None) -> SaveSliceInfoDef | None:
        """This slice as a SaveSliceInfoDef, or None if ``full_name`` is outside ``export_scope``."""
        if export_scope is None or self.full_name.startswith(export_scope):
            return SaveSliceInfoDef(full_name=strip_name_scope(self.full_name, export_scope),
                                    full_shape=list(self.full_shape), var_offset=list(self.var_offset),
                                    var_shape=list(self.var_shape))
        return None

    def __repr__(self) -> str:
        return (f"SaveSliceInfo(full_name={self.full_name!r}, full_shape={self.full_shape}, "
                f"var_offset={self.var_offset}, var_shape={self.var_shape})")
