"""TensorFlow's error classes: OpError and one subclass per canonical status code.

The names, codes and constructor signature follow ``tensorflow.errors`` so that
``except tf.errors.NotFoundError`` ports unchanged.  For convenience the
subclasses also accept a single message argument (``NotFoundError("msg")``).
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
    """An error raised while building or running a graph, with TensorFlow's status code."""

    def __init__(self, node_def=None, op=None, message=None, error_code=UNKNOWN):
        if op is None and message is None and isinstance(node_def, str):
            node_def, message = None, node_def
        super().__init__(message)
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
        return (type(self), (self._node_def, self._op, self._message))


def _subclass(class_name: str, code: int, doc: str) -> type:
    def __init__(self, node_def=None, op=None, message=None, *args):
        OpError.__init__(self, node_def, op, message, code)

    return type(class_name, (OpError,), {"__init__": __init__, "__doc__": doc, "__module__": __name__})


CancelledError = _subclass("CancelledError", CANCELLED, "An operation or step was cancelled.")
UnknownError = _subclass("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _subclass(
    "InvalidArgumentError", INVALID_ARGUMENT, "An operation received an invalid argument.")
DeadlineExceededError = _subclass(
    "DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired before the operation could complete.")
NotFoundError = _subclass("NotFoundError", NOT_FOUND, "A requested entity (a file, a key) was not found.")
AlreadyExistsError = _subclass("AlreadyExistsError", ALREADY_EXISTS, "An entity we tried to create already exists.")
PermissionDeniedError = _subclass(
    "PermissionDeniedError", PERMISSION_DENIED, "The caller does not have permission to run an operation.")
UnauthenticatedError = _subclass(
    "UnauthenticatedError", UNAUTHENTICATED, "The request does not have valid authentication credentials.")
ResourceExhaustedError = _subclass(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "Some resource (memory, disk) has been exhausted.")
FailedPreconditionError = _subclass(
    "FailedPreconditionError", FAILED_PRECONDITION,
    "The system is not in a state to run an operation (e.g. an uninitialized variable was read).")
AbortedError = _subclass("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _subclass("OutOfRangeError", OUT_OF_RANGE, "An operation iterated past the valid input range.")
UnimplementedError = _subclass(
    "UnimplementedError", UNIMPLEMENTED, "An operation has not been implemented (e.g. an op type without a kernel).")
InternalError = _subclass("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _subclass("UnavailableError", UNAVAILABLE, "The runtime is currently unavailable.")
DataLossError = _subclass("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption (e.g. a bad checksum).")

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
