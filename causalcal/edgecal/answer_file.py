"""The suggested file and its design record (docs/design.md §9.12; issue 49 item 4).

``causalcal suggest --out ask.csv`` writes two files, one unit: ``ask.csv``, the rows the
scientist answers (:data:`~.draws.ANSWER_COLUMNS`, then :data:`~.draws.DESIGN_COLUMNS`,
no probability beside the blank answer), and ``ask.csv.json``, the design record: the
:class:`~.draws.Draw` (the variables, the strata's sizes and the bootstrap's mean in each,
the pairs left out, the strata's fingerprint, every round with the pairs it drew, their
strata and bootstrap P(related)), the SHA-256 of the CSV as written, and a checksum of the
record itself. A spreadsheet that opens ``ask.csv`` and saves it in place leaves the
record as it was; the rows are then checked against it (:mod:`.answers`): any edit of a
design cell, a foreign pair, a round the record does not hold, a record edited by hand, is
an ``InputError`` naming the file, the row and the column.

:func:`describe_suggested` tells the command line's file checks what an existing file is:
the untouched file ``suggest`` made (the CSV's SHA-256 is the recorded one), or one with
the scientist's answers in it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from causalcal._io import atomic_write
from causalcal._suggest_record import (
    FORMAT,
    describe_suggested,
    load_record,
    record_checksum,
    record_path,
)
from causalcal.edgecal.draws import Draw, Round
from causalcal.errors import InputError

__all__ = ["FORMAT", "describe_suggested", "read_draw", "record_path", "write_suggested"]

_VERSION = 1


def _round_doc(r: Round, names: tuple[str, ...]) -> dict:
    from causalcal.pairs import pair_from_index

    i, j = pair_from_index(r.keys, len(names))
    return {"round": r.number, "seed": r.seed, "allocation": r.allocation,
            "drawn": r.drawn.tolist(),
            "pairs": [[names[a], names[b], int(s), float(f"{p:.6g}")]
                      for a, b, s, p in zip(i, j, r.strata, r.p_related, strict=True)]}


def _document(draw: Draw, csv_sha256: str, data_fingerprint: str | None) -> dict:
    doc = {"format": FORMAT, "version": _VERSION, "relations": draw.relations,
           "names": list(draw.names), "data_fingerprint": data_fingerprint,
           "strata_fingerprint": draw.strata_fingerprint, "chain": draw.chain,
           "sizes": draw.sizes.tolist(),
           "means": [None if not np.isfinite(m) else float(f"{m:.6g}") for m in draw.means],
           "excluded": draw.excluded.tolist(),
           "rounds": [_round_doc(r, draw.names) for r in draw.rounds],
           "csv_sha256": csv_sha256}
    doc["checksum"] = record_checksum(doc)
    return doc


def write_suggested(path: str | os.PathLike, draw: Draw,
                    data_fingerprint: str | None = None) -> tuple[Path, Path]:
    """Write the last round of ``draw`` to the CSV ``path`` and the design record to
    ``PATH.json``, each atomically (the CSV first: a record always describes a CSV that
    was written). Returns the two paths."""
    path = Path(path)
    text = draw.table().to_csv(index=False, lineterminator="\n")
    with atomic_write(path, newline="") as handle:
        handle.write(text)
    record = record_path(path)
    doc = _document(draw, hashlib.sha256(text.encode("utf-8")).hexdigest(), data_fingerprint)
    with atomic_write(record, encoding="utf-8") as handle:
        handle.write(json.dumps(doc, indent=1) + "\n")
    return path, record


def read_draw(path: str | os.PathLike) -> Draw | None:
    """The :class:`~.draws.Draw` recorded beside the suggested file ``path`` (None when it
    has no record); an ``InputError`` naming the record when it was edited or damaged."""
    record = record_path(path)
    if not record.exists():
        return None
    doc = load_record(record)
    if doc is None:
        raise InputError(f"{record}: not a design record of causalcal suggest (it is read "
                         f"as the record of {path})")
    if doc.get("checksum") != record_checksum(doc):
        raise InputError(f"{record}: the design record was edited (its checksum does not "
                         "match): it must stay as causalcal suggest wrote it — edit only the "
                         f"relation and confidence columns of {Path(path).name}")
    try:
        return _draw(doc)
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise InputError(f"{record}: a damaged design record ({type(err).__name__}: {err})"
                         ) from None


def _draw(doc: dict) -> Draw:
    from causalcal.pairs import pair_index

    names = tuple(str(n) for n in doc["names"])
    index = {n: k for k, n in enumerate(names)}
    rounds = []
    for r in doc["rounds"]:
        a = np.array([index[p[0]] for p in r["pairs"]], dtype=np.int64)
        b = np.array([index[p[1]] for p in r["pairs"]], dtype=np.int64)
        rounds.append(Round(int(r["round"]), pair_index(np.minimum(a, b), np.maximum(a, b),
                                                        len(names)),
                            np.array([int(p[2]) for p in r["pairs"]], dtype=np.int64),
                            np.asarray(r["drawn"], dtype=np.int64),
                            np.array([float(p[3]) for p in r["pairs"]]), int(r["seed"]),
                            str(r["allocation"])))
    means = np.array([np.nan if m is None else float(m) for m in doc["means"]])
    return Draw(str(doc["relations"]), names, np.asarray(doc["sizes"], dtype=np.int64), means,
                np.asarray(doc["excluded"], dtype=np.int64), str(doc["strata_fingerprint"]),
                tuple(rounds))
