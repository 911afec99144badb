"""``tf.flags`` / ``tf.app.flags``: absl-py's flags as TensorFlow re-exports them.

Two differences from ``absl.flags``, both TensorFlow's: the DEFINE functions also accept TF's old keyword
names (``flag_name``, ``default_value``, ``docstring``), and ``FLAGS`` parses ``sys.argv`` the first time a
flag is read before any explicit parse (absl raises UnparsedFlagAccessError instead).
"""

from __future__ import annotations

import functools
import logging
import sys

from absl import flags as absl_flags
from absl.flags import *  # noqa: F401,F403  (tf.flags is absl.flags: every public name)

__all__ = list(absl_flags.__all__)  # the names re-exported from absl.flags, wrapped ones included

_logger = logging.getLogger("tensorflow")

# tf.flags's old keyword names and absl's new ones.
_RENAMED_ARGUMENTS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _accepting_old_names(define):
    """``define`` taking TF's old keyword names too (warning, as TensorFlow does, that they are deprecated)."""

    @functools.wraps(define)
    def wrapper(*args, **kwargs):
        renamed = {new: kwargs.pop(old) for old, new in _RENAMED_ARGUMENTS.items() if old in kwargs}
        if renamed:
            _logger.warning("Use of the keyword argument names (flag_name, default_value, docstring) is "
                            "deprecated, please use (name, default, help) instead.")
        return define(*args, **kwargs, **renamed)

    return wrapper


DEFINE_string = _accepting_old_names(absl_flags.DEFINE_string)
DEFINE_boolean = _accepting_old_names(absl_flags.DEFINE_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _accepting_old_names(absl_flags.DEFINE_float)
DEFINE_integer = _accepting_old_names(absl_flags.DEFINE_integer)


class _FlagValuesWrapper:
    """absl's FLAGS, parsing ``sys.argv`` on the first read of a flag before any explicit parse (as TF's)."""

    def __init__(self, flag_values: absl_flags.FlagValues):
        self.__dict__["_wrapped"] = flag_values

    def __getattribute__(self, name: str):
        if name == "__dict__":
            return super().__getattribute__(name)
        return self.__dict__["_wrapped"].__getattribute__(name)

    def __getattr__(self, name: str):
        wrapped = self.__dict__["_wrapped"]
        if not wrapped.is_parsed():
            wrapped(sys.argv)
        return wrapped.__getattr__(name)

    def __setattr__(self, name: str, value) -> None:
        self.__dict__["_wrapped"].__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self.__dict__["_wrapped"].__delattr__(name)

    def __dir__(self):
        return self.__dict__["_wrapped"].__dir__()

    def __getitem__(self, name: str):
        return self.__dict__["_wrapped"].__getitem__(name)

    def __setitem__(self, name: str, flag) -> None:
        self.__dict__["_wrapped"].__setitem__(name, flag)

    def __contains__(self, name: str) -> bool:
        return self.__dict__["_wrapped"].__contains__(name)

    def __len__(self) -> int:
        return self.__dict__["_wrapped"].__len__()

    def __iter__(self):
        return self.__dict__["_wrapped"].__iter__()

    def __str__(self) -> str:
        return self.__dict__["_wrapped"].__str__()

    def __call__(self, *args, **kwargs):
        return self.__dict__["_wrapped"].__call__(*args, **kwargs)


# The DEFINE wrappers above call absl from this module: key flags belong to the module that calls them.
absl_flags.disclaim_key_flags()

FLAGS = _FlagValuesWrapper(absl_flags.FLAGS)
