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


CALIBRATION_PAIRS = "calibration pairs (causalcal calibrate, OUT.calibration.csv)"
#: the format of the sidecar recording the calibration pairs' checksum
CALIBRATION_FORMAT = "causalcal.calibration-pairs"
CALIBRATION_SIDECAR = "a calibration-pairs sidecar (metadata of a .calibration.csv)"
REPORT_FORMAT = "causalcal.discover-report"
MEASURES_FORMAT = "causalcal.measures"
_RANKING_HEADERS = (["a", "b", "p_adjacent"], ["a", "b", "p_a_causes_b"], ["a", "b", "p_arc"])


def _lines(path: Path, limit: int = 2) -> list[str]:
    """The first ``limit`` lines of a text file, ``#`` comment lines included."""
    out = []
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        for line in handle:
            out.append(line.strip().lstrip("\ufeff"))
            if len(out) == limit:
                break
    return out


def _first_line(path: Path) -> str:
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        for line in handle:
            if not line.startswith("#"):
                return line.strip().lstrip("\ufeff")
    return ""


def _not_ours(what: str, recorded: bool | None, path: Path, where: str) -> str:
    """How a file that looks like one of causalcal's outputs but is not (or no longer) one
    is described (``where``: the JSON file beside it, ``PATH.json``): it is replaced only
    with --force."""
    side = Path(f"{path}.json")
    if recorded is False:
        return f"{what} edited since causalcal wrote it (its checksum in {where} differs)"
    if side.is_file():
        return f"{what} whose {where} holds {describe_file(side)}, not its checksum"
    return f"{what} that causalcal did not write (no {where} recording its checksum)"


def _describe_csv(path: Path) -> str:
    """A CSV is one of causalcal's outputs only if the JSON file beside it records its
    checksum (docs/design.md §10); else it is described by its header."""
    from causalcal._edges_io import SIDECAR_FORMAT
    from causalcal._own import sidecar_records
    from causalcal._suggest_record import describe_suggested

    made = describe_suggested(path)  # by its design record, not by its columns
    if made is not None:
        return SUGGESTED if made == "untouched" else ANSWERED
    columns = _first_line(path).split(",")
    if columns[:3] == ["a", "b", "p_none"]:
        recorded = sidecar_records(path, (SIDECAR_FORMAT,))
        old = recorded is None and any("n_boot=" in line for line in _lines(path, 4))
        return (PROBABILITIES if recorded or old
                else _not_ours("edge probabilities", recorded, path,
                               f"sidecar {path.name}.json"))
    if columns[:3] in _RANKING_HEADERS:  # edge types, causal relations or a PAG's
        recorded = sidecar_records(path, (REPORT_FORMAT,))
        return (RANKING if recorded
                else _not_ours("a ranking of pairs", recorded, path,
                               f"report {path.name}.json"))
    if columns[:3] == ["a", "b", "relation"]:
        recorded = sidecar_records(path, (CALIBRATION_FORMAT,))
        if recorded:
            return CALIBRATION_PAIRS
        return (RELATIONS if recorded is None
                else _not_ours("calibration pairs", recorded, path, f"{path.name}.json"))
    return TABLE


def _describe_json(path: Path) -> str:
    from causalcal._edges_io import SIDECAR_FORMAT
    from causalcal.graph_io import JSON_FORMAT as GRAPH_FORMAT
    from causalcal.pag_io import JSON_FORMAT as PAG_FORMAT

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
    if fmt in (GRAPH_FORMAT, PAG_FORMAT):
        return GRAPH
    if isinstance(fmt, str) and fmt.startswith("causalcal.") and "network" in fmt:
        return NETWORK
    if fmt == REPORT_FORMAT:
        return REPORT
    if fmt == CALIBRATION_FORMAT:
        return CALIBRATION_SIDECAR
    if fmt == MEASURES_FORMAT or (fmt is None and _old_measures(doc)):
        return MEASURES
    return f"a JSON file (format {fmt!r})" if fmt else "a JSON file"


def _old_measures(doc: dict) -> bool:
    """What ``evaluate --json`` wrote before it carried its format: exactly n_pairs,
    bin_size and the measures of PROBS (or of --before and PROBS)."""
    scored = set(doc) - {"n_pairs", "bin_size"}
    return len(doc) - len(scored) == 2 and scored in ({"probs"}, {"before", "after"})


def _describe_npz(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as archive:
            members = set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return "a file that is not a .npz archive"
    ours = {"probs.npy", "pairs.npy", "n_boot.npy"} <= members and bool(
        {"names.npy", "names_json.npy"} & members)
    return PROBABILITIES if ours else "a .npz archive"


def _describe_marked(path: Path, kind: str, what: str) -> str:
    """A text output that carries causalcal's mark on its first line (BIF, DOT, GML,
    GraphML): ``kind`` if the mark is there and the lines below it unedited."""
    from causalcal._own import text_mark

    mark = text_mark(path)
    if mark is None:
        return f"{what} that causalcal did not write (no causalcal mark on its first line)"
    if not mark.intact:
        return f"{what} edited since causalcal wrote it (its lines differ from their checksum)"
    return kind


def describe_file(path: str | os.PathLike) -> str | None:
    """What an existing file holds (one of this module's kinds, or a description);
    ``None`` for a missing or empty file. A file is one of causalcal's output kinds only
    when causalcal's mark, or the checksum in the JSON file beside it, says that
    causalcal wrote it as it is now (docs/design.md §10); never by its suffix or its
    column names alone."""
    from causalcal._own import is_own_figure

    path = Path(path)
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return None
    except OSError:
        return None
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            return _describe_csv(path)
        if suffix == ".json":
            return _describe_json(path)
        if suffix == ".npz":
            return _describe_npz(path)
        if suffix == ".bif":
            return _describe_marked(path, BIF, "a BIF file")
        if suffix in (".gml", ".dot", ".graphml"):
            return _describe_marked(path, GRAPH, f"a {suffix[1:]} file")
        if suffix in IMAGE_SUFFIXES:
            return IMAGE if is_own_figure(path) else "an image causalcal did not draw"
        if suffix in (".html", ".htm"):
            from causalcal._report_page import is_report_page

            return HTML_REPORT if is_report_page(path) else "a web page"
    except OSError:
        return "a file that cannot be read"
    return "a file"


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
