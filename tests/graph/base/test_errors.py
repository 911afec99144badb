"""graph.base.errors: TensorFlow's error classes, codes and constructor forms."""

import pytest

from graph.base import errors

NAMES = ["CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError", "NotFoundError",
         "AlreadyExistsError", "PermissionDeniedError", "UnauthenticatedError", "ResourceExhaustedError",
         "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError",
         "UnavailableError", "DataLossError"]


def test_constructor_forms_and_message():
    full = errors.NotFoundError(None, None, "no such key")
    short = errors.NotFoundError("no such key")
    assert full.message == short.message == str(short) == "no such key"
    assert short.error_code == errors.NOT_FOUND and short.op is None
    assert isinstance(short, errors.OpError)


def test_code_mapping_round_trips():
    for name in NAMES:
        cls = getattr(errors, name)
        code = errors.error_code_from_exception_type(cls)
        assert errors.exception_type_from_error_code(code) is cls
        assert cls("m").error_code == code


@pytest.mark.tf
def test_same_names_and_codes_as_tensorflow(tf1):
    for name in NAMES:
        theirs = getattr(tf1.errors, name)
        ours = getattr(errors, name)
        assert ours.__name__ == theirs.__name__
        assert ours(None, None, "m").error_code == theirs(None, None, "m").error_code
