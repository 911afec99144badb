"""TensorFlow's error classes: OpError and one subclass per canonical status code.

The names, codes and constructor signatures follow ``tensorflow.errors`` so that
``except tf.errors.NotFoundError`` and ``raise tf.errors.NotFoundError(None, None, "msg")`` port
unchanged.
"""

from __future__ import annotations

__all__ = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
    "PermissionDeniedError", "UnauthenticatedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError",
    "UnimplementedError", "InternalError", "UnavailableError", "DataLossError",
    "exception_type_from_error_code", "error_code_from_exception_type",
]

# Canonical status codes (tensorflow/core/protobuf/error_codes.proto).
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """An error raised while building or running a graph, with TensorFlow's status code.

    Args (TensorFlow's): node_def (the failing op's NodeDef, or None), op (the failing Operation, or
    None), message, error_code (a canonical status code), then TF's optional payloads.
    """

    def __init__(self, node_def, op, message, error_code, *args):
        super().__init__(message, *args)
        self._node_def = node_def
        self._op = op
        self._message = "" if message is None else str(message)
        self._error_code = error_code

    @property
    def message(self) -> str:
        """The error message, without the op context."""
        return self._message

    @property
    def op(self):
        """The Operation that failed, or None."""
        return self._op

    @property
    def node_def(self):
        """The NodeDef of the failed op, or None."""
        return self._node_def

    @property
    def error_code(self) -> int:
        """The canonical status code of this error."""
        return self._error_code

    def __str__(self) -> str:
        if self._op is not None:
            name = getattr(self._op, "name", self._op)
            return f"{self._message}\n\t [[node {name}]]"
        return self._message

    def __reduce__(self):
        if type(self) is OpError:
            return (OpError, (self._node_def, self._op, self._message, self._error_code))
        return (type(self), (self._node_def, self._op, self._message))


class CancelledError(OpError):
    """An operation or step was cancelled."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, CANCELLED, *args)


class UnknownError(OpError):
    """An unknown error."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, UNKNOWN, *args)


class InvalidArgumentError(OpError):
    """An operation received an invalid argument."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, INVALID_ARGUMENT, *args)


class DeadlineExceededError(OpError):
    """A deadline expired before the operation could complete."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, DEADLINE_EXCEEDED, *args)


class NotFoundError(OpError):
    """A requested entity (a file, a key) was not found."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, NOT_FOUND, *args)


class AlreadyExistsError(OpError):
    """An entity we tried to create already exists."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, ALREADY_EXISTS, *args)


class PermissionDeniedError(OpError):
    """The caller does not have permission to run an operation."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, PERMISSION_DENIED, *args)


class UnauthenticatedError(OpError):
    """The request does not have valid authentication credentials."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, UNAUTHENTICATED, *args)


class ResourceExhaustedError(OpError):
    """Some resource (memory, disk) has been exhausted."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, RESOURCE_EXHAUSTED, *args)


class FailedPreconditionError(OpError):
    """The system is not in a state to run an operation (e.g. an uninitialized variable was read)."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, FAILED_PRECONDITION, *args)


class AbortedError(OpError):
    """The operation was aborted."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, ABORTED, *args)


class OutOfRangeError(OpError):
    """An operation iterated past the valid input range."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, OUT_OF_RANGE, *args)


class UnimplementedError(OpError):
    """An operation has not been implemented (e.g. an op type without a kernel)."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, UNIMPLEMENTED, *args)


class InternalError(OpError):
    """An internal invariant was broken."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, INTERNAL, *args)


class UnavailableError(OpError):
    """The runtime is currently unavailable."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, UNAVAILABLE, *args)


class DataLossError(OpError):
    """Unrecoverable data loss or corruption (e.g. a bad checksum)."""

    def __init__(self, node_def, op, message, *args):
        super().__init__(node_def, op, message, DATA_LOSS, *args)


_CODE_TO_CLASS = {
    CANCELLED: CancelledError, UNKNOWN: UnknownError, INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError, NOT_FOUND: NotFoundError, ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError, UNAUTHENTICATED: UnauthenticatedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError, FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError, OUT_OF_RANGE: OutOfRangeError, UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError, UNAVAILABLE: UnavailableError, DATA_LOSS: DataLossError,
}


def exception_type_from_error_code(error_code: int) -> type:
    """Returns the OpError subclass for a canonical status code."""
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls: type) -> int:
    """Returns the canonical status code of an OpError subclass."""
    for code, candidate in _CODE_TO_CLASS.items():
        if candidate is cls:
            return code
    raise KeyError(cls)
