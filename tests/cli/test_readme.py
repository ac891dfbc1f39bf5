"""Every code block in README.md runs as written (issue 9; issue 28 point 6).

Each ``python`` block runs on its own, in a fresh interpreter and a fresh temporary
folder (a reader may copy any one of them), and writes only into folders of its own (no
two blocks write the same file). Then all ``python`` and ``console`` blocks (lines
starting with ``$``) run in document order in one folder, shell commands through
``subprocess``. The two quick-start ``make`` commands would recurse into this suite, so
they are checked with ``make -n`` (the targets exist and do what the README says)
instead of being run.
"""

import os
import re
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


def readme_script() -> str:
    """The README's python and console blocks, in document order, as one Python script.

    Console lines (``$ command``) become checked shell calls; ``make`` lines are skipped
    (see :func:`test_quick_start_make_targets`).
    """
    parts = ["import subprocess", "def _sh(cmd):",
             "    out = subprocess.run(cmd, shell=True, capture_output=True, text=True)",
             "    if out.returncode:",
             "        raise SystemExit(f'README command failed: {cmd}\\n{out.stderr[-3000:]}')"]
    for kind, code in BLOCKS:
        if kind == "python":
            parts.append(code)
        elif kind == "console":
            for line in code.splitlines():
                if line.startswith("$ ") and not line[2:].startswith("make "):
                    parts.append(f"_sh({line[2:].strip()!r})")
    return "\n".join(parts)


@pytest.mark.slow
def test_readme_blocks_run(tmp_path):
    script = tmp_path / "readme_blocks.py"
    script.write_text(readme_script(), encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=_env(),
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"README blocks failed:\n{run.stdout[-2000:]}\n{run.stderr[-3000:]}"



@pytest.mark.slow
def test_python_blocks_run_alone_and_write_apart(tmp_path):
    """Every python block on its own (``NameError: np`` was a failure), in a fresh
    interpreter and folder; what it writes is in folders of its own, and no two blocks
    write into the same folder (following the README in one folder overwrites
    nothing)."""
    owner: dict[str, int] = {}
    for k, code in enumerate(PYTHON_BLOCKS):
        folder = tmp_path / f"block{k}"
        folder.mkdir()
        script = tmp_path / f"block{k}.py"
        script.write_text(code, encoding="utf-8")
        run = subprocess.run([sys.executable, str(script)], cwd=folder, env=_env(),
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"README python block {k} failed:\n{run.stderr[-3000:]}"
        for entry in folder.iterdir():
            assert entry.is_dir(), f"block {k} wrote {entry.name} outside a folder of its own"
            assert entry.name not in owner, f"blocks {owner[entry.name]} and {k} write {entry}"
            owner[entry.name] = k
