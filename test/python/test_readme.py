"""The README's commands run as written: every `tilec-opt` and `tilec` line of its shell blocks
(from the repository root, with the environment's tools on PATH), and the Quick start's main
job, the vector-add tutorial run as a script (here without a GPU, so in the interpreter)."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
TOOLS = ("tilec-opt", "tilec")


def shell_commands(text: str) -> list[str]:
    """The command lines of the ```sh blocks, continuation lines joined."""
    commands = []
    for block in re.findall(r"^```(?:sh|bash|shell)\n(.*?)^```", text, re.M | re.S):
        commands += [line.strip() for line in block.replace("\\\n", " ").splitlines()
                     if line.strip()]
    return commands


def tool_commands(text: str) -> list[list[str]]:
    """The shell lines that run `tilec-opt` or `tilec`, as argument lists (`# comments` gone)."""
    found = []
    for line in shell_commands(text):
        words = shlex.split(line, comments=True)
        if words and Path(words[0]).name in TOOLS:
            found.append(words)
    return found


def tools_env() -> dict[str, str]:
    """PATH with this environment's bin folder (where tilec-opt is installed) first, and no GPU
    visible, so a run here matches a machine without one."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("TILEC_INTERPRET", None)
    return env


COMMANDS = tool_commands(README)


def test_the_readme_has_tilec_opt_examples():
    assert sum(Path(words[0]).name == "tilec-opt" for words in COMMANDS) >= 8


def test_the_readme_says_how_tilec_opt_gets_on_path():
    """Bare `tilec-opt` lines need the environment activated, said before the first of them."""
    first = README.find("\ntilec-opt ")
    assert first == -1 or "source .venv/bin/activate" in README[:first]


@pytest.mark.parametrize("words", COMMANDS, ids=[" ".join(w)[:60] for w in COMMANDS])
def test_readme_command_runs(words):
    result = subprocess.run(words, cwd=ROOT, env=tools_env(), capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, f"{shlex.join(words)}\n{result.stderr[-3000:]}"


def main_job() -> str:
    """The command of the Quick start's "Run the main job" block."""
    quick_start = README.split("## Quick start", 1)[1]
    after = quick_start.split("Run the main job", 1)[1]
    return shell_commands(after)[0]


def test_the_main_job_runs_the_vector_add_tutorial():
    steps = [step.strip() for step in main_job().split("&&")]
    assert steps[0] == "scripts/bootstrap", steps
    assert shlex.split(steps[-1]) == [".venv/bin/python", "tutorials/01-vector-add.py"], steps


def test_vector_add_tutorial_runs_as_a_script_without_a_gpu():
    result = subprocess.run([sys.executable, "tutorials/01-vector-add.py"], cwd=ROOT,
                            env=tools_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "vector add (interpreter): matches NumPy, max error 0.0"], result.stdout
