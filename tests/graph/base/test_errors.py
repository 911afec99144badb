"""graph.errors: TensorFlow's error classes, codes and constructor signatures."""

import inspect
import pickle

import pytest

from graph import errors

NAMES = ["CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError", "NotFoundError",
         "AlreadyExistsError", "PermissionDeniedError", "UnauthenticatedError", "ResourceExhaustedError",
         "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError",
         "UnavailableError", "DataLossError"]


def test_constructor_and_message():
    error = errors.NotFoundError(None, None, "no such key")
    assert error.message == str(error) == "no such key"
    assert error.error_code == errors.NOT_FOUND and error.op is None and error.node_def is None
    assert isinstance(error, errors.OpError)
    with pytest.raises(TypeError):  # one signature, TensorFlow's: no message-only shortcut
        errors.NotFoundError("no such key")


def test_errors_are_declared_classes_that_pickle():
    for name in NAMES:
        cls = getattr(errors, name)
        assert inspect.isclass(cls) and cls.__module__ == "graph.errors" and cls.__doc__
        error = pickle.loads(pickle.dumps(cls(None, None, "m")))
        assert type(error) is cls and error.message == "m"
    generic = pickle.loads(pickle.dumps(errors.OpError(None, None, "m", errors.ABORTED)))
    assert generic.error_code == errors.ABORTED


def test_code_mapping_round_trips():
    for name in NAMES:
        cls = getattr(errors, name)
        code = errors.error_code_from_exception_type(cls)
        assert errors.exception_type_from_error_code(code) is cls
        assert cls(None, None, "m").error_code == code


@pytest.mark.tf
def test_same_names_and_codes_as_tensorflow(tf1):
    for name in NAMES:
        theirs = getattr(tf1.errors, name)
        ours = getattr(errors, name)
        assert ours.__name__ == theirs.__name__
        assert ours(None, None, "m").error_code == theirs(None, None, "m").error_code
        assert str(inspect.signature(ours.__init__)) == str(inspect.signature(theirs.__init__))
    assert str(inspect.signature(errors.OpError.__init__)) == str(inspect.signature(tf1.errors.OpError.__init__))
