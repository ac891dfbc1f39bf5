"""Safe file handling: atomic writes, checked inputs and output locations, CSV text.

Every file causalcal writes goes through :func:`atomic_write`: a temporary file in the
same folder, fsynced, then renamed over the target, so a crash or Ctrl-C never leaves a
truncated output. Temporary names carry the host and process id; a leftover of a process
that no longer runs is removed the next time the same file is written. Input files are
read through :func:`input_file` / :func:`read_text`, whose errors name the file.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import socket
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from causalcal.errors import InputError, MissingFileError, WriteError

__all__ = [
    "TMP_PREFIX",
    "atomic_write",
    "check_output_dir",
    "check_npz_sizes",
    "check_output_file",
    "input_file",
    "check_text_file",
    "parse_json",
    "read_csv_file",
]

#: Name prefix of the temporary files (a crash may leave one; they are safe to delete).
TMP_PREFIX = ".tmp-"
_UMASK_LOCK = threading.Lock()


# ------------------------------------------------------------------------ writing
def _umask() -> int:
    """The process's umask (read from /proc where possible: no window with umask 0)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _owner_tag() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: it exists, owned by someone else
        return True
    return True


def sweep_stale_temp_files(folder: Path, name: str) -> None:
    """Remove temporary files of ``folder/name`` left by dead processes on this host."""
    prefix = f"{TMP_PREFIX}{name}."
    host = socket.gethostname()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        owner = entry.name[len(prefix):].rpartition(".")[0]
        owner_host, _, pid = owner.rpartition("-")
        if owner_host == host and pid.isdigit() and not _process_alive(int(pid)):
            Path(entry.path).unlink(missing_ok=True)


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # e.g. not possible on this platform
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", **open_kwargs) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success it replaces ``path`` atomically.

    The file is flushed and fsynced before the rename, so after a crash ``path`` holds
    either the old or the complete new content. A new file gets the permissions
    ``0o666 & ~umask`` (as ``open`` would give it); a replaced file keeps its own.

    ``mode`` is ``"w"`` (text; ``open_kwargs`` such as ``encoding``/``newline`` apply) or
    ``"wb"``. Parent folders are created. If the block raises, the temporary file is
    removed and ``path`` is left as it was; an ``OSError`` is raised again as
    :class:`~causalcal.errors.WriteError` naming ``path``.
    """
    path = Path(path)
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        sweep_stale_temp_files(path.parent, path.name)
        try:
            perms = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            perms = 0o666 & ~_umask()
        fd, tmp = tempfile.mkstemp(dir=path.parent,
                                   prefix=f"{TMP_PREFIX}{path.name}.{_owner_tag()}.")
        with os.fdopen(fd, mode, **open_kwargs) as handle:
            os.fchmod(handle.fileno(), perms)
            yield handle
            handle.flush()
            os.fsync(handle.fileno())  # the data are on disk before the rename
        os.replace(tmp, path)
        tmp = None
        _fsync_folder(path.parent)
    except OSError as err:
        raise WriteError(err.errno, err.strerror or str(err), str(path)) from err
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def _probe_folder(folder: Path, what: str) -> None:
    """Check that a file can be created in the nearest existing folder of ``folder``."""
    existing = folder
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(f"{what}: {existing} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(dir=existing, prefix=f"{TMP_PREFIX}probe.")
    except OSError as err:
        raise InputError(f"{what}: cannot write in {existing}: {err.strerror}") from None
    os.close(fd)
    os.unlink(probe)


def check_output_file(path: str | os.PathLike, what: str = "output") -> Path:
    """Fail early (``InputError``) if ``path`` cannot be written: a folder is in the way,
    a parent is a file, or its folder is read-only. Creates nothing."""
    path = Path(path)
    label = f"{what} {path}"
    mode = _mode(path, label)  # a symbolic link loop would fail the write at the end
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(f"{label}: is a folder, not a file")
    _probe_folder(path.parent if str(path.parent) else Path("."), label)
    return path


def check_output_dir(path: str | os.PathLike, what: str = "output folder") -> Path:
    """Fail early (``InputError``) if folder ``path`` cannot be created or written to."""
    path = Path(path)
    label = f"{what} {path}"
    mode = _mode(path, label)
    if mode is not None and not stat.S_ISDIR(mode):
        raise InputError(f"{label}: exists and is not a folder")
    _probe_folder(path, label)
    return path


def _mode(path: Path, label: str) -> int | None:
    """``path``'s file mode (links followed); ``None`` if nothing is there. A path that
    cannot be looked at (a symbolic link loop, say) is an ``InputError`` naming ``label``."""
    try:
        return os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # a parent that is a file: no such path
        return None
    except OSError as err:
        raise InputError(f"{label}: {_stat_problem(err)}") from None


# ------------------------------------------------------------------------ reading
def input_file(path: str | os.PathLike) -> Path:
    """``path`` as a Path if it is an existing, readable file; else an ``InputError``."""
    path = Path(path)
    mode = _mode(path, str(path))
    if mode is None:
        raise MissingFileError(f"{path}: no such file")
    if stat.S_ISDIR(mode):
        raise InputError(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise InputError(f"{path}: is {_special_kind(mode)}, not a regular file; causalcal "
                         "reads files it can read twice: save the content to a file")
    if not os.access(path, os.R_OK):
        raise InputError(f"{path}: permission denied")
    return path


def _stat_problem(err: OSError) -> str:
    """Why a path cannot be looked at, in words."""
    if err.errno == errno.ELOOP:
        return "a loop of symbolic links (a link that leads back to itself)"
    return err.strerror or str(err)


def _special_kind(mode: int) -> str:
    """What a file that is neither a folder nor a regular file is."""
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def parse_json(text: str, where: str | os.PathLike) -> object:
    """``json.loads(text)``; bad JSON, or JSON nested too deeply for Python's parser, is an
    ``InputError`` naming ``where``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply to read (a crafted or damaged "
                         "file)") from None
    except ValueError as err:
        raise InputError(f"{where}: not valid JSON ({err})") from None


def check_text_file(path: str | os.PathLike, allow_nul: bool = False) -> Path:
    """``path`` if it is a readable UTF-8 text file (without NUL bytes unless
    ``allow_nul``), else an ``InputError`` naming the file and line. Reads it in blocks."""
    path = input_file(path)
    decoder = codecs.getincrementaldecoder("utf-8")()
    line = 1
    try:
        with open(path, "rb") as handle:
            while block := handle.read(1 << 20):
                nul = -1 if allow_nul else block.find(b"\x00")
                if nul >= 0:
                    line += block.count(b"\n", 0, nul)
                    raise InputError(f"{path}: line {line}: NUL byte; this is not a text "
                                     "(CSV) file")
                try:
                    decoder.decode(block)
                except UnicodeDecodeError as err:
                    line += block.count(b"\n", 0, max(err.start, 0))
                    raise InputError(f"{path}: line {line}: not UTF-8 text; save the file "
                                     "as UTF-8") from None
                line += block.count(b"\n")
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise InputError(f"{path}: line {line}: not UTF-8 text (it ends inside a "
                         "character); save the file as UTF-8") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror})") from None
    return path


#: The most a DEFLATE stream expands (1032:1), with slack for headers: a member of a zip
#: archive that claims to expand more is crafted.
_MAX_DEFLATE_RATIO = 1100


def check_npz_sizes(path: str | os.PathLike) -> dict[str, tuple[tuple[int, ...], object]]:
    """Refuse (``InputError`` naming ``path``) a ``.npz`` archive whose arrays declare more
    data than the archive holds (a crafted header would otherwise make ``numpy.load``
    allocate it), before any array is loaded. Reads only the zip directory and each
    array's ``.npy`` header (:mod:`numpy.lib.format`). Returns each array's declared shape
    and dtype, by name, for the caller to bound by what the file should hold."""
    import zipfile

    import numpy as np
    from numpy.lib import format as npy

    declared_shapes = {}
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            name = info.filename.removesuffix(".npy")
            if (info.compress_type != zipfile.ZIP_STORED
                    and info.file_size > _MAX_DEFLATE_RATIO * info.compress_size + 4096):
                raise InputError(f"{path}: array {name!r} claims {info.file_size} bytes "
                                 f"packed into {info.compress_size}; a damaged or crafted "
                                 "file")
            if not info.filename.endswith(".npy"):
                continue
            with archive.open(info) as member:
                version = npy.read_magic(member)
                read_header = (npy.read_array_header_1_0 if version == (1, 0)
                               else npy.read_array_header_2_0)
                shape, _, dtype = read_header(member)
            declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if declared > info.file_size:
                raise InputError(f"{path}: array {name!r} declares shape {shape} of "
                                 f"{dtype} ({declared} bytes) but the file holds "
                                 f"{info.file_size} bytes for it; a damaged or crafted file")
            declared_shapes[name] = (tuple(shape), dtype)
    return declared_shapes


def read_npz_arrays(path: str | os.PathLike, *names: str,
                    optional: tuple[str, ...] = ()) -> dict:
    """The arrays ``names`` (and those of ``optional`` that exist) of a ``.npz`` file,
    read without pickle. A missing file or array, a damaged archive or an array of
    pickled objects is an ``InputError`` naming the file."""
    import zipfile

    import numpy as np

    path = input_file(path)
    try:
        check_npz_sizes(path)
        with np.load(path, allow_pickle=False) as archive:
            missing = [n for n in names if n not in archive.files]
            if missing:
                raise InputError(f"{path}: no array {missing[0]!r} (it holds "
                                 f"{', '.join(archive.files) or 'nothing'})")
            return {n: archive[n] for n in (*names, *optional) if n in archive.files}
    except InputError:
        raise
    except ValueError as err:
        if "pickle" in str(err):
            raise InputError(f"{path}: holds pickled Python objects, which causalcal does "
                             "not load (they could run code); write plain arrays") from None
        raise InputError(f"{path}: not a readable .npz file ({err})") from None
    except (OSError, EOFError, zipfile.BadZipFile) as err:
        raise InputError(f"{path}: not a readable .npz file ({err})") from None


def _comment_lines(handle: IO[str]) -> list[str]:
    """Consume the leading lines starting with ``#``; return them without the ``#``."""
    comments = []
    while True:
        start = handle.tell()
        line = handle.readline()
        if not line.startswith("#"):
            handle.seek(start)
            return comments
        comments.append(line[1:].rstrip("\r\n"))


_DELIMITERS = {";": "semicolon", "\t": "tab", "|": "vertical bar"}


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _check_header(path: Path, header: list[str]) -> None:
    if all(_looks_numeric(name) for name in header):
        shown = ",".join(header[:5]) + ("…" if len(header) > 5 else "")
        raise InputError(f"{path}: the first line ({shown}) holds numbers, not column "
                         "names; the file needs a header row")
    if len(header) == 1:
        for char, label in _DELIMITERS.items():
            if char in header[0]:
                raise InputError(f"{path}: the header line has one column holding {label}s; "
                                 f"the file looks {label}-separated, but causalcal reads "
                                 "comma-separated CSV")
    empty = [k + 1 for k, h in enumerate(header) if not h.strip()]
    if empty:
        raise InputError(f"{path}: column {empty[0]} has no name in the header line")
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InputError(f"{path}: column name {name!r} appears twice in the header line")
        seen.add(name)


def read_csv_file(path: str | os.PathLike, *, comments: bool = False, allow_nul: bool = False,
                  **read_csv_kwargs):
    """``(comment lines, DataFrame)`` of a UTF-8 CSV file with a header row.

    With ``comments``, leading lines starting with ``#`` are returned apart (without the
    ``#``); pandas reads the rest with ``read_csv_kwargs``. NUL bytes are refused unless
    ``allow_nul`` (names written by causalcal may hold any character). Every problem is an
    ``InputError`` naming the file: not UTF-8 text, a NUL byte, an empty file, another
    delimiter than a comma, duplicate or empty column names, rows with more fields than
    the header line, anything pandas cannot parse.
    """
    import warnings

    import pandas as pd

    path = check_text_file(path, allow_nul)
    header: list[str] = []
    with open(path, encoding="utf-8-sig", newline="") as handle:
        found = _comment_lines(handle) if comments else []
        start = handle.tell()

        def parse(**kwargs):
            handle.seek(start)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error", pd.errors.ParserWarning)
                    return pd.read_csv(handle, index_col=False, **kwargs)
            except pd.errors.EmptyDataError:
                raise InputError(f"{path}: file is empty (a CSV file with a header row "
                                 "is expected)") from None
            except pd.errors.ParserWarning:
                raise InputError(f"{path}: a row has more fields than the header line "
                                 f"({len(header)} columns)") from None
            except (pd.errors.ParserError, ValueError, OverflowError) as err:
                message = " ".join(str(err).split())
                raise InputError(f"{path}: not a valid CSV file: {message}") from None

        same_tokens = {k: v for k, v in read_csv_kwargs.items() if k == "skipinitialspace"}
        first = parse(header=None, nrows=1, dtype=str, keep_default_na=False, **same_tokens)
        header = [str(h) for h in first.iloc[0].tolist()]
        _check_header(path, header)
        frame = parse(header=0, **read_csv_kwargs)
    frame.columns = header[: frame.shape[1]]
    return found, frame
