"""Every CLI command walked through each class of bad argument (issue 14): a missing input, an input of
the wrong type, a special file, an unwritable output and a full disk.  Each run ends within seconds
with the documented exit code (README's table, saver/cli/__init__.py) and exactly one line on stderr
naming the file at fault -- never a traceback, a temporary name or a hang -- and leaves no temporary
file behind.  Unwritable outputs and a full disk are injected (EACCES at open, ENOSPC at write) in the
output's directory: the suite runs as root in CI, where permissions do not stop writes.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import io
import os
import signal
import sys

import numpy as np
import pytest

from saver.cli import EXIT_CODES, main
from saver.format.bundle_writer import write_checkpoint
from saver.storage import export
from tests import TEST_DATA

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs, SIGALRM")

GUIDE = os.path.join(TEST_DATA, "tf2_guide")  # a TF2 checkpoint: has an object graph to draw
_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

# command -> argv with {x} (the bad input), {g} (a good checkpoint), {n} (a good .npz), {o} (an output prefix)
INPUTS = {
    "inspect": ["inspect", "{x}"],
    "inspect --all_tensors": ["inspect", "{x}", "--all_tensors"],
    "tree": ["tree", "{x}"],
    "diff a": ["diff", "{x}", "{g}"],
    "diff b": ["diff", "{g}", "{x}"],
    "rename": ["rename", "{x}", "--add-prefix", "p/", "-o", "{o}"],
    "drop": ["drop", "{x}", "*", "-o", "{o}"],
    "keep": ["keep", "{x}", "*", "-o", "{o}"],
    "export": ["export", "{x}", "{o}.npz"],
    "import": ["import", "{x}", "-o", "{o}"],
    "picture": ["picture", "{x}"],
    "meta": ["meta", "{x}"],
}
OUTPUTS = {
    "rename -o": ["rename", "{g}", "--add-prefix", "p/", "-o", "{o}"],
    "drop -o": ["drop", "{g}", "x", "-o", "{o}"],
    "keep -o": ["keep", "{g}", "x", "-o", "{o}"],
    "drop --in-place": ["drop", "{g}", "x", "--in-place"],
    "export npz": ["export", "{g}", "{o}.npz"],
    "export safetensors": ["export", "{g}", "{o}.safetensors"],
    "import": ["import", "{n}", "-o", "{o}"],
    "picture -o": ["picture", GUIDE, "-o", "{o}.svg"],
}
TEMP_MARKERS = (".tempstate", ".rewrite", ".tmp")


@pytest.fixture
def alarm():
    def expire(*_):
        raise TimeoutError("the command blocked")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def files(tmp_path):
    good = str(tmp_path / "good" / "m")
    write_checkpoint(good, {"x": np.arange(4, dtype=np.float32), "y": np.int64(3)})
    npz = str(tmp_path / "good.npz")
    export.export_checkpoint(good, npz)
    return {"g": good, "n": npz, "o": str(tmp_path / "out" / "r"), "tmp": tmp_path}


def _bad_input(kind: str, tmp_path, command: str) -> str:
    """A path of the given class, of the type the command reads (checkpoint, .npz or .meta)."""
    suffix = {"import": ".npz", "meta": ".meta"}.get(command.split()[0], "")
    path = str(tmp_path / ("bad" + suffix))
    if kind == "missing":
        return path
    if kind == "wrong type":  # text where a checkpoint / archive / MetaGraphDef is expected
        with open(path + ("" if suffix else ".index"), "w") as file:
            file.write("this is not a checkpoint\n" * 3)
        return path
    assert kind == "special file"
    os.mkfifo(path + ("" if suffix else ".index"))
    return path


EXPECTED_INPUT_CODES = {"missing": {3}, "wrong type": {4}, "special file": {4}}


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv + ["--no-progress"], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _one_line(code: int, err: str, names: str) -> None:
    assert code in EXIT_CODES, code
    assert err.count("\n") == 1 and err.startswith("tf1-saver"), err
    assert "Traceback" not in err and not any(m in err for m in TEMP_MARKERS), err
    assert names in err, f"{err!r} does not name {names!r}"


@pytest.mark.parametrize("kind", sorted(EXPECTED_INPUT_CODES))
@pytest.mark.parametrize("command", sorted(INPUTS))
def test_bad_inputs(command, kind, files, alarm, capfd, safety_report):
    tmp_path = files["tmp"]
    bad = _bad_input(kind, tmp_path, command)
    argv = [a.format(x=bad, **files) for a in INPUTS[command]]
    code, _, err = _run(argv)
    _one_line(code, err, "bad")
    assert code in EXPECTED_INPUT_CODES[kind], (command, kind, err)
    assert capfd.readouterr().err == ""  # nothing else on the real stderr (no logged warnings)
    assert not os.path.exists(files["o"] + ".index")
    safety_report.setdefault("cli_walk", {}).setdefault(kind, 0)
    safety_report["cli_walk"][kind] += 1


@contextlib.contextmanager
def failing_writes(directory: str, code: int):
    """Opening for writing under ``directory`` fails with EACCES, or (ENOSPC) every write to such a file."""
    directory = os.path.abspath(directory) + os.sep
    real_open, real_os_open, real_write = builtins.open, os.open, os.write
    fds: set[int] = set()

    def inside(path) -> bool:
        return not isinstance(path, int) and os.path.abspath(os.fspath(path)).startswith(directory)

    def refuse(path):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))

    class Full:
        def __init__(self, file):
            self._file = file

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._file.close()

        def __getattr__(self, name):
            return getattr(self._file, name)

    def os_open(path, flags, *args, **kwargs):
        if flags & _WRITE and inside(path):
            if code == errno.EACCES:
                refuse(path)
            fd = real_os_open(path, flags, *args, **kwargs)
            fds.add(fd)
            return fd
        return real_os_open(path, flags, *args, **kwargs)

    def write(fd, data):
        if fd in fds:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    def open_(file, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+") and inside(file):
            if code == errno.EACCES:
                refuse(file)
            return Full(real_open(file, mode, *args, **kwargs))
        return real_open(file, mode, *args, **kwargs)

    builtins.open, os.open, os.write = open_, os_open, write
    try:
        yield
    finally:
        builtins.open, os.open, os.write = real_open, real_os_open, real_write


@pytest.mark.parametrize("failure", [errno.EACCES, errno.ENOSPC], ids=["unwritable", "disk full"])
@pytest.mark.parametrize("command", sorted(OUTPUTS))
def test_unwritable_output_and_full_disk(command, failure, files, alarm, safety_report):
    os.makedirs(os.path.dirname(files["o"]))
    argv = [a.format(**files) for a in OUTPUTS[command]]
    where = os.path.dirname(files["g"] if "--in-place" in command else files["o"])
    before = sorted(os.listdir(where))
    with failing_writes(where, failure):
        code, _, err = _run(argv)
    _one_line(code, err, where)
    assert code == 7, err
    assert os.strerror(failure) in err
    assert sorted(os.listdir(where)) == before, "a failed write left files behind"
    if "--in-place" in command:  # the original is untouched
        assert _run(["diff", files["g"], files["g"]])[0] == 0
    safety_report.setdefault("cli_walk", {}).setdefault(os.strerror(failure), 0)
    safety_report["cli_walk"][os.strerror(failure)] += 1
