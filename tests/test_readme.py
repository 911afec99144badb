"""README.md: every python block runs, every `$ tf1-saver` line succeeds, the commands match .ci/run.

The python blocks run in order, in one fresh process (no TensorFlow importable) whose working
directory is an empty temporary directory holding a copy of tests/data/.  The console blocks run
each `$ tf1-saver ...` line through the command line's entry point in that directory.  The two
install commands are checked against .ci/run and the tutorial's path (running pip needs a network).
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)

DRIVER = r"""
import json, sys
sys.modules["tensorflow"] = None  # the README never needs TensorFlow
blocks = json.load(open(sys.argv[1]))
for line, kind, code in blocks:
    if kind == "python":
        exec(compile(code, f"README.md, block at line {line}", "exec"), {"__name__": "__main__"})
    else:
        from saver.cli import main
        for command in code:
            print("$", " ".join(command), flush=True)
            status = main(command)
            if status not in ((0, 1) if command[0] == "diff" else (0,)):  # diff: 1 = they differ
                sys.exit(f"README.md line {line}: exit code {status} from tf1-saver {' '.join(command)}")
"""


def _blocks():
    text = open(README, encoding="utf-8").read()
    return [(text[:match.start()].count("\n") + 1, match.group(1), match.group(2)) for match in FENCE.finditer(text)]


def _console_commands(code):
    import shlex
    commands = []
    for line in code.splitlines():
        assert line.startswith("$ tf1-saver "), f"console blocks hold only `$ tf1-saver` lines: {line!r}"
        commands.append(shlex.split(line[len("$ tf1-saver "):]))
    return commands


def test_every_block_has_a_known_kind():
    kinds = {kind for _, kind, _ in _blocks()}
    assert kinds <= {"python", "console", "bash", "text"}, kinds


def test_install_commands_are_the_ci_ones():
    bash = [code.strip() for _, kind, code in _blocks() if kind == "bash"]
    assert bash[0] == ("python3 -m venv .venv && .venv/bin/pip install -e . && "
                       ".venv/bin/python tutorials/01_variables.py")
    ci = open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8").read()
    assert bash[1] in ci.splitlines(), "README's test command must be exactly the line .ci/run runs"
    assert len(bash) == 2 and os.path.exists(os.path.join(ROOT, "tutorials", "01_variables.py"))


def test_blocks_run(tmp_path):
    shutil.copytree(os.path.join(ROOT, "tests", "data"), tmp_path / "tests" / "data",
                    ignore=shutil.ignore_patterns("make_fixtures.py", "_scratch"))
    blocks = []
    for line, kind, code in _blocks():
        if kind == "python":
            blocks.append((line, kind, code))
        elif kind == "console":
            blocks.append((line, kind, _console_commands(code)))
    assert sum(kind == "python" for _, kind, _ in blocks) >= 5
    (tmp_path / "blocks.json").write_text(json.dumps(blocks))
    result = subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path / "blocks.json")], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False,
                            env={**os.environ, "PYTHONPATH": ROOT})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "net/l1/bias/.ATTRIBUTES/VARIABLE_VALUE" in result.stdout
    assert "Restored 1 of 3 variables" in result.stdout
    for name in ("model.ckpt.index", "guide.svg", "variables.svg", "guide.npz", "weights.safetensors",
                 "renamed/ckpt.index", "imported/ckpt.index"):
        assert (tmp_path / name).exists(), name


def test_readme_picture_exists_and_is_small():
    for name in ("tf2_guide.svg", "variables.svg"):
        path = os.path.join(ROOT, "tutorials", "images", name)
        assert os.path.getsize(path) < 30_000
    text = open(README, encoding="utf-8").read()
    assert "](tutorials/images/tf2_guide.svg)" in text


@pytest.mark.parametrize("code", [0, 1, 2, 3, 4, 5, 6, 130])
def test_exit_codes_documented(code):
    from saver.cli import EXIT_CODES
    text = open(README, encoding="utf-8").read()
    assert code in EXIT_CODES and f"| {code} |" in text
