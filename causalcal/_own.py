"""How causalcal marks the files it writes, so that a later run replaces only a file it
made and nobody has edited since (docs/design.md §10).

A file is never judged causalcal's by its suffix or its column names alone:

* text formats with comments (BIF, DOT, GML, GraphML) carry a first line (after an XML
  declaration) ``// written by causalcal: WHAT; sha256 HEX of the lines below`` in the
  format's comment syntax (:func:`marked`, :func:`text_mark`): a reader skips it, and an
  edit anywhere below it shows;
* a CSV cannot carry one (``pandas.read_csv`` reads causalcal's CSVs as they are): the JSON
  file beside it records its SHA-256 (the probabilities' sidecar, ``discover``'s report,
  :func:`write_digest_sidecar` for the others; :func:`sidecar_records`);
* a figure carries :data:`FIGURE_MARK` in its metadata (:func:`figure_metadata`,
  :func:`is_own_figure`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

__all__ = ["FIGURE_MARK", "MARK_LIMIT", "TextMark", "figure_metadata", "file_digest",
           "is_own_figure", "marked", "sidecar_records", "text_mark", "write_digest_sidecar"]

#: the comment syntax of each marked text format: (start, end)
_COMMENTS = {".bif": ("//", ""), ".dot": ("//", ""), ".gml": ("#", ""),
             ".graphml": ("<!--", " -->")}
_MARK = re.compile(rb"^(?://|#|<!--) written by causalcal: ([^;\r\n]*); sha256 ([0-9a-f]{64}) "
                   rb"of the lines below(?: -->)?\r?\n?$")
#: The largest file whose mark is checked (a larger one is not taken for causalcal's).
MARK_LIMIT = 256 << 20
#: What causalcal's figures say in their metadata (PNG Software, PDF and SVG Creator).
FIGURE_MARK = "causalcal figure"


def file_digest(path: str | os.PathLike) -> str | None:
    """SHA-256 (hex) of a file's bytes, or ``None`` if it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def marked(text: str, suffix: str, what: str) -> str:
    """``text`` (a file of format ``suffix``, written with ``\\n`` line ends) with
    causalcal's mark: a comment line naming ``what`` and the SHA-256 of the lines below,
    first or right after an XML declaration."""
    start, end = _COMMENTS[suffix.lower()]
    lines = text.splitlines(keepends=True)
    at = 1 if lines and lines[0].startswith("<?xml") else 0
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    mark = f"{start} written by causalcal: {what}; sha256 {digest} of the lines below{end}\n"
    return "".join(lines[:at]) + mark + "".join(lines[at:])


class TextMark:
    """What a text file's causalcal mark says: ``what`` it holds and whether the lines
    below it are still those it was written with (``intact``)."""

    def __init__(self, what: str, intact: bool) -> None:
        self.what, self.intact = what, intact


def text_mark(path: str | os.PathLike) -> TextMark | None:
    """The causalcal mark of a text file (:func:`marked`), or ``None`` if it has none (or
    is larger than :data:`MARK_LIMIT`, or cannot be read)."""
    try:
        if Path(path).stat().st_size > MARK_LIMIT:
            return None
        with open(path, "rb") as handle:
            data = handle.read(MARK_LIMIT)
    except OSError:
        return None
    lines = data.splitlines(keepends=True)
    at = 1 if lines and lines[0].startswith(b"<?xml") else 0
    found = _MARK.match(lines[at]) if len(lines) > at else None
    if found is None:
        return None
    rest = b"".join(lines[:at] + lines[at + 1:])
    intact = hashlib.sha256(rest).hexdigest() == found.group(2).decode("ascii")
    return TextMark(found.group(1).decode("utf-8", "replace"), intact)


def write_digest_sidecar(path: str | os.PathLike, fmt: str, what: str) -> Path:
    """Write ``PATH.json`` recording the SHA-256 of the file just written at ``path`` (a
    CSV, which cannot carry a mark), atomically; its path."""
    from causalcal._io import atomic_write

    path = Path(path)
    side = Path(f"{path}.json")
    doc = {"format": fmt, "what": what, "file": path.name, "sha256": file_digest(path)}
    with atomic_write(side, encoding="utf-8") as handle:
        json.dump(doc, handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    return side


def sidecar_records(path: str | os.PathLike, formats: tuple[str, ...]) -> bool | None:
    """Whether the JSON file ``PATH.json`` (of one of ``formats``) records the SHA-256 of
    the file now at ``path``: ``True`` (also for a sidecar of an older causalcal, which
    recorded none), ``False`` (it records another: the file was edited or replaced),
    ``None`` (no such sidecar)."""
    side = Path(f"{path}.json")
    try:
        if not side.is_file() or side.stat().st_size > (64 << 20):
            return None
        doc = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(doc, dict) or doc.get("format") not in formats:
        return None
    recorded = [entry.get("sha256") for entry in (doc, doc.get("previous"))
                if isinstance(entry, dict) and isinstance(entry.get("sha256"), str)]
    return not recorded or file_digest(path) in recorded


def figure_metadata(fmt: str) -> dict[str, str]:
    """matplotlib ``savefig`` metadata carrying :data:`FIGURE_MARK` (png, pdf, svg)."""
    from causalcal._version import __version__

    key = "Software" if fmt.lower() == "png" else "Creator"
    return {key: f"{FIGURE_MARK} (causalcal {__version__})"}


def is_own_figure(path: str | os.PathLike) -> bool:
    """Whether an image file carries :data:`FIGURE_MARK` (in its first or last 64 KiB,
    where PNG, SVG and PDF keep their metadata)."""
    window = 64 << 10
    mark = FIGURE_MARK.encode("ascii")
    try:
        with open(path, "rb") as handle:
            head = handle.read(window)
            size = os.fstat(handle.fileno()).st_size
            if mark in head:
                return True
            handle.seek(max(size - window, 0))
            return mark in handle.read(window)
    except OSError:
        return False
