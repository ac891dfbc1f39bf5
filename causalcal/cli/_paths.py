"""The files a command reads and writes, checked against each other before any work
(docs/design.md §10).

Every command registers its inputs and outputs in a :class:`FilePlan`, sidecars and
derived files included, and calls :meth:`FilePlan.check` before it starts: an output
that is also an input, or two outputs at one path, are refused naming both paths and
options; an output that would replace an existing file of another kind (data, known
relations, a sidecar, …) is refused unless ``--force``.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

from causalcal.errors import InputError

__all__ = ["FilePlan", "describe_file"]

# what a file holds, as describe_file names it
PROBABILITIES = "edge probabilities"
SIDECAR = "an edge-probabilities sidecar (metadata of a .csv)"
RANKING = "ranked pairs (causalcal discover)"
REPORT = "a discover report (causalcal discover, OUT.json)"
RELATIONS = "relations a,b,relation (known, truth or calibration pairs)"
#: a file of suggested pairs as ``causalcal suggest`` wrote it (its design record says so)
SUGGESTED = "pairs to ask, not answered yet (causalcal suggest)"
#: a suggested file edited since: the scientist's answers
ANSWERED = "suggested pairs with your answers (causalcal suggest, then edited)"
SUGGESTED_RECORD = "the design record of suggested pairs (causalcal suggest, ASK.csv.json)"
TABLE = "a data table"
MEASURES = "measures (causalcal evaluate --json)"
GRAPH = "a graph"
IMAGE = "an image"
#: a run's report page (``--report FILE.html``), recognised by the marker in its head
HTML_REPORT = "a run report page (causalcal --report)"
#: What a figure can be written as (matplotlib's formats that need no extra program).
IMAGE_SUFFIXES = (".png", ".pdf", ".svg")
NETWORK = "a Bayesian network (network.json)"
BIF = "a Bayesian network (BIF)"
#: an output that replaces no existing file unless --force
NEW = "nothing (a new file)"


def _first_line(path: Path) -> str:
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        for line in handle:
            if not line.startswith("#"):
                return line.strip().lstrip("\ufeff")
    return ""


def _describe_json(path: Path) -> str:
    from causalcal._edges_io import SIDECAR_FORMAT

    if path.stat().st_size > 64 << 20:
        return "a JSON file"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return "a file that is not JSON"
    except RecursionError:
        return "JSON nested too deeply to read (a crafted or damaged file)"
    if not isinstance(doc, dict):
        return "a JSON file"
    fmt = doc.get("format")
    if fmt == "causalcal.suggest":
        return SUGGESTED_RECORD
    if fmt == SIDECAR_FORMAT:
        return SIDECAR
    if fmt == "causalcal.graph" or {"nodes", "directed", "undirected"} <= set(doc):
        return GRAPH
    if isinstance(fmt, str) and "network" in fmt:
        return NETWORK
    if fmt == "causalcal.discover-report":
        return REPORT
    if {"n_pairs", "bin_size"} <= set(doc):
        return MEASURES
    return f"a JSON file (format {fmt!r})" if fmt else "a JSON file"


def _describe_npz(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as archive:
            members = set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return "a file that is not a .npz archive"
    return PROBABILITIES if {"probs.npy", "pairs.npy"} <= members else "a .npz archive"


def describe_file(path: str | os.PathLike) -> str | None:
    """What an existing file holds (one of this module's kinds, or a description);
    ``None`` for a missing or empty file."""
    path = Path(path)
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return None
    except OSError:
        return None
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            from causalcal._suggest_record import describe_suggested

            made = describe_suggested(path)  # by its design record, not by its columns
            if made is not None:
                return SUGGESTED if made == "untouched" else ANSWERED
            columns = _first_line(path).split(",")
            if columns[:3] == ["a", "b", "p_none"]:
                return PROBABILITIES
            if columns[:3] in (["a", "b", "p_adjacent"], ["a", "b", "p_a_causes_b"]):
                return RANKING  # edge types, or causal relations (--relations causal)
            if columns[:3] == ["a", "b", "relation"]:
                return RELATIONS
            return TABLE
        if suffix == ".json":
            return _describe_json(path)
        if suffix == ".npz":
            return _describe_npz(path)
    except OSError:
        return "a file that cannot be read"
    if suffix in (".html", ".htm"):
        from causalcal._report_page import is_report_page

        return HTML_REPORT if is_report_page(path) else "a web page"
    return {".png": IMAGE, ".gml": GRAPH, ".dot": GRAPH, ".graphml": GRAPH,
            ".bif": BIF}.get(suffix, "a file")


def _key(path: Path) -> tuple:
    """Identity of a path: the same file through links or other spellings is one key."""
    try:
        stat = path.stat()
        return ("inode", stat.st_dev, stat.st_ino)
    except OSError:
        return ("path", os.path.realpath(path))


class FilePlan:
    """The paths one command reads and writes; :meth:`check` before any work."""

    def __init__(self, force: bool = False) -> None:
        self.force = force
        self.reads: list[tuple[str, Path]] = []
        self.writes: list[tuple[str, Path, str | None]] = []

    def read(self, option: str, path: str | os.PathLike | None,
             sidecar: bool = False) -> None:
        """An input, which must be a readable file (checked now, so that a missing file
        fails before any heavy import); with ``sidecar`` a ``.csv``'s ``PATH.json`` is an
        input too, if it exists."""
        if path is None:
            return
        from causalcal._io import input_file

        self.reads.append((option, input_file(path)))
        if sidecar and Path(path).suffix.lower() == ".csv":
            self.reads.append((f"{option}'s sidecar", Path(f"{path}.json")))

    def write(self, option: str, path: str | os.PathLike | None,
              kind: str | None = None) -> None:
        """An output holding ``kind`` (``None``: a folder or any kind); a probabilities
        ``.csv`` brings its sidecar ``PATH.json``."""
        if path is None:
            return
        self.writes.append((option, Path(path), kind))
        if kind == PROBABILITIES and Path(path).suffix.lower() == ".csv":
            self.writes.append((f"{option}'s sidecar", Path(f"{path}.json"), SIDECAR))

    def check(self) -> None:
        """Refuse (``InputError``) clashing paths, and replacing a file of another kind
        unless ``force``."""
        seen: dict[tuple, tuple[str, Path, str]] = {}
        for option, path in self.reads:
            seen.setdefault(_key(path), (option, path, "read"))
        for option, path, kind in self.writes:
            key = _key(path)
            if key in seen:
                other, other_path, how = seen[key]
                role = "the input" if how == "read" else "also written as"
                raise InputError(
                    f"{option} {path} is {role} {other} {other_path}; the command would "
                    "overwrite it: choose another output file")
            seen[key] = (option, path, "write")
            self._check_kind(option, path, kind)

    def _check_kind(self, option: str, path: Path, kind: str | None) -> None:
        if kind is None or self.force:
            return
        found = describe_file(path)
        if found is not None and kind == NEW:
            raise InputError(f"{option} {path}: the file exists and holds {found}; choose "
                             "another output folder or pass --force to replace it")
        if found is not None and found != kind:
            more = (f" (to ask more pairs of its design: --more {path} --out ASK2.csv)"
                    if found == ANSWERED and kind == SUGGESTED else "")
            raise InputError(
                f"{option} {path}: the file exists and holds {found}, not {kind}; choose "
                f"another output file or pass --force to replace it{more}")
