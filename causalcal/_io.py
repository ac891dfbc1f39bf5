"""Atomic file writes: a crash or Ctrl-C never leaves a half-written result behind."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = ["TMP_PREFIX", "atomic_write"]

#: Name prefix of the temporary files (a crash may leave one; they are safe to delete).
TMP_PREFIX = ".tmp-"


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", **open_kwargs) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success it replaces ``path`` atomically.

    The file is flushed and fsynced before the rename, so after a crash ``path`` holds
    either the old or the complete new content.

    ``mode`` is ``"w"`` (text; ``open_kwargs`` such as ``encoding``/``newline`` apply) or
    ``"wb"``. Parent folders are created. If the block raises, the temporary file is
    removed and ``path`` is left as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f"{TMP_PREFIX}{path.name}.")
    try:
        with os.fdopen(fd, mode, **open_kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())  # the data are on disk before the rename
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
