"""Every code block in README.md runs as written (issue 9; issue 28 point 6).

Each ``python`` block runs on its own, in a fresh interpreter and a fresh temporary
folder (a reader may copy any one of them), and writes only into folders of its own (no
two blocks write the same file). Then the README is followed in document order in one
folder: each ``python`` block's files, as its own run wrote them, are placed there where
the block comes, and every ``console`` line (starting with ``$``) runs there through the
shell. The python blocks run once (a shared fixture), not again in one interpreter.
The two quick-start ``make`` commands would recurse into this suite, so they are checked
with ``make -n`` (the targets exist and do what the README says) instead of being run.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, flags=re.S)
PYTHON_BLOCKS = [code for kind, code in BLOCKS if kind == "python"]


def _env():
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def test_readme_has_code():
    kinds = {k for k, _ in BLOCKS}
    assert "python" in kinds and "console" in kinds


def test_quick_start_make_targets():
    for target in ("demo", "test"):
        assert f"make {target}" in README
        dry = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True)
        assert dry.returncode == 0, dry.stderr


@pytest.fixture(scope="module")
def alone(tmp_path_factory) -> list[tuple[Path, subprocess.CompletedProcess]]:
    """Every python block run on its own, in document order: a fresh interpreter and an
    empty folder ``block<k>`` of its own; ``(folder, run)`` per block, up to the first
    that fails. Both tests below read these runs, so each block runs once."""
    root = tmp_path_factory.mktemp("readme")
    runs = []
    for k, code in enumerate(PYTHON_BLOCKS):
        folder = root / f"block{k}"
        folder.mkdir()
        script = root / f"block{k}.py"
        script.write_text(code, encoding="utf-8")
        run = subprocess.run([sys.executable, str(script)], cwd=folder, env=_env(),
                             capture_output=True, text=True, timeout=600)
        runs.append((folder, run))
        if run.returncode:
            break
    return runs


def _block_ran(alone, k: int) -> Path:
    """The folder python block ``k`` ran in, after checking that it ran."""
    assert k < len(alone), f"README python block {k} did not run (an earlier one failed)"
    folder, run = alone[k]
    assert run.returncode == 0, f"README python block {k} failed:\n{run.stderr[-3000:]}"
    return folder


@pytest.mark.slow
def test_readme_blocks_run(tmp_path, alone):
    """The blocks in document order in one folder: each python block's files (from its
    run on its own; they lie in folders of its own, see the next test) are placed in the
    folder where it comes, and every console line (``$ command``, but ``make``) runs
    there through the shell, so a command finds the files the examples above it wrote."""
    k = 0
    for kind, code in BLOCKS:
        if kind == "python":
            shutil.copytree(_block_ran(alone, k), tmp_path, dirs_exist_ok=True)
            k += 1
        elif kind == "console":
            for line in code.splitlines():
                if line.startswith("$ ") and not line[2:].startswith("make "):
                    cmd = line[2:].strip()
                    out = subprocess.run(cmd, shell=True, cwd=tmp_path, env=_env(),
                                         capture_output=True, text=True, timeout=900)
                    assert out.returncode == 0, (f"README command failed: {cmd}\n"
                                                 f"{out.stdout[-2000:]}\n{out.stderr[-3000:]}")


@pytest.mark.slow
def test_python_blocks_run_alone_and_write_apart(alone):
    """Every python block on its own (``NameError: np`` was a failure), in a fresh
    interpreter and folder; what it writes is in folders of its own, and no two blocks
    write into the same folder (following the README in one folder overwrites
    nothing)."""
    owner: dict[str, int] = {}
    for k in range(len(PYTHON_BLOCKS)):
        folder = _block_ran(alone, k)
        for entry in folder.iterdir():
            assert entry.is_dir(), f"block {k} wrote {entry.name} outside a folder of its own"
            assert entry.name not in owner, f"blocks {owner[entry.name]} and {k} write {entry}"
            owner[entry.name] = k
