"""Resumable on-disk checkpoints for bootstrap runs (docs/design.md §6).

A checkpoint is a directory::

    DIR/manifest.json        what the run is: data fingerprint, seed, search, options, n_boot
    DIR/rep-000017.npz       replicate 17's CPDAG as (pair keys, edge-type labels)
    DIR/.lock                advisory lock held while a run uses the directory

Every file is written to a temporary name inside ``DIR`` (``.tmp-…``), flushed, fsynced
and then renamed with :func:`os.replace`, which is atomic on POSIX and Windows: a reader
sees either the old file or the complete new one, never a partial file. An interrupted
run (Ctrl-C, ``kill -9``, power loss before the rename) can therefore leave only
``.tmp-…`` files behind; they are ignored and removed when the directory is next opened.
``manifest.json`` is the marker of a checkpoint folder: a non-empty folder without one
(or with one that is not ours) is refused before anything in it is locked or removed.

Replicate ``b`` depends only on the data, the seed, the search and its options (its
multiplicities come from a generator seeded by ``(seed, b)``), so the manifest pins
those and refuses to mix runs that differ in any of them. ``n_boot`` is recorded (the
largest requested so far) but a different ``n_boot`` is allowed: a run with a larger
``n_boot`` reuses the finished replicates ``0 … n_boot − 1`` and adds the rest.

Each replicate file also carries its index and the run's identity, :func:`run_digest`
(SHA-256 of the weight scheme, data fingerprint, seed, search and options), so a
replicate copied from another run's checkpoint is recomputed, with a warning, as a
renamed or damaged one is. The replicates of a checkpoint written before replicates
carried the digest (its manifest has no ``replicate_identity``) are checked as they were
then and stamped with the digest when the checkpoint is first opened.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from causalcal._io import TMP_PREFIX, atomic_write, check_npz_sizes, check_output_dir, parse_json
from causalcal._version import __version__
from causalcal.data import DiscreteData, MixedData
from causalcal.edges import n_pairs
from causalcal.errors import InputError

from .score.registry import flat_score_options
from .search.registry import search_table

__all__ = ["Checkpoint", "CheckpointMismatchError", "check_checkpoint_folder",
           "check_provenance", "data_fingerprint", "data_for", "feed_replicates", "run_provenance",
           "search_identity"]

FORMAT = "causalcal-bootstrap-checkpoint"
FORMAT_VERSION = 1
#: How replicate b's sample multiplicities are drawn; part of the manifest so a
#: future change of scheme can never silently mix with old replicates.
WEIGHT_SCHEME = "multinomial(n, 1/n) from numpy.random.default_rng([seed, b])"
MANIFEST = "manifest.json"
LOCK = ".lock"
#: Sub-folders of a checkpoint that hold checkpoints of their own: the bootstraps of the
#: data sets simulated for simulation-informed calibration (docs/design.md §9.7).
NESTED_PREFIX = "simulation-"
_REPLICATE_RE = re.compile(r"^rep-(\d{6,})\.npz$")
#: What a replicate depends on (manifest keys); their digest is stored in each replicate.
IDENTITY_KEYS = ("weights", "data_fingerprint", "seed", "search", "search_options")
#: The manifest's note that its replicates carry :func:`run_digest` (older ones do not).
REPLICATE_IDENTITY = "sha256 of the manifest's " + ", ".join(IDENTITY_KEYS) + " (JSON)"


class CheckpointMismatchError(InputError):
    """The checkpoint directory was made by a run with different data or options."""


def data_fingerprint(data: DiscreteData | MixedData) -> str:
    """SHA-256 of the data's shape, variable names, arities and integer codes (hex); of a
    :class:`~causalcal.data.MixedData` also its column kinds and continuous values."""
    h = hashlib.sha256()
    if isinstance(data, MixedData):
        h.update(f"mixed|{data.n_samples}x{data.n_vars}|".encode())
        h.update("\x00".join(data.names).encode())
        for part in data.fingerprint_parts():
            h.update(b"|")
            h.update(part)
        return h.hexdigest()
    codes = np.ascontiguousarray(data.codes)
    h.update(f"{codes.shape[0]}x{codes.shape[1]}|{codes.dtype.str}|".encode())
    h.update("\x00".join(data.names).encode())
    h.update(b"|")
    h.update(np.ascontiguousarray(data.arities, dtype="<i8").tobytes())
    h.update(b"|")
    h.update(codes.tobytes())
    return h.hexdigest()


def search_identity(search: str | Callable[..., Any]) -> str:
    """A stable name for a search: its registry name, or ``module:qualname`` of a callable."""
    if isinstance(search, str):
        return search
    module = getattr(search, "__module__", None) or type(search).__module__
    qualname = getattr(search, "__qualname__", None) or type(search).__qualname__
    return f"{module}:{qualname}"


def run_digest(manifest: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of what every replicate of a run depends on: the manifest's weight
    scheme, data fingerprint, seed, search and search options."""
    identity = {key: manifest.get(key) for key in IDENTITY_KEYS}
    text = json.dumps(identity, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _jsonable(value: Any) -> Any:
    """Canonical JSON-ready form of a search option (numpy scalars/arrays, tuples, sets)."""
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"ndarray": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonable(v) for v in value), key=repr)
    if callable(value):
        return search_identity(value)
    return repr(value)


def run_provenance(data: DiscreteData, *, n_boot: int, seed: int,
                   search: str | Callable[..., Any],
                   search_options: Mapping[str, Any]) -> dict[str, Any]:
    """What a bootstrap run is, as its checkpoint's manifest pins it (and as its result's
    ``EdgeProbabilities.provenance`` records it): weight scheme, data fingerprint, seed,
    search, its options (background knowledge included) and ``n_boot``."""
    return {"weights": WEIGHT_SCHEME, "data_fingerprint": data_fingerprint(data),
            "seed": int(seed), "search": search_identity(search),
            "search_options": _jsonable(flat_score_options(dict(search_options))),
            "n_boot": int(n_boot)}


def check_provenance(checkpoint: str | os.PathLike, provenance: Mapping[str, Any] | None,
                     source: str) -> None:
    """Refuse (``InputError``, naming both) to read pair features for the probabilities of
    ``source`` from a ``checkpoint`` folder of another run: a different seed, search,
    search options, data or weight scheme, or fewer replicates than their ``n_boot``."""
    path = Path(checkpoint)
    manifest = _read_marker(path)
    if manifest is None:
        raise InputError(f"checkpoint {path} holds no bootstrap run to read {source}'s pair "
                         "features from")
    if provenance is None:
        raise InputError(f"{source} records no provenance (seed, n_boot, search, options; "
                         "written by an older causalcal or built in memory), so it cannot be "
                         f"matched with checkpoint {path}; recompute it with the bootstrap's "
                         "features (causalcal bootstrap --features)")
    labels = {"seed": "seed", "search": "search", "search_options": "search options",
              "data_fingerprint": "data", "weights": "bootstrap weight scheme"}
    diffs = [(label, provenance.get(key), manifest.get(key)) for key, label in labels.items()
             if provenance.get(key) != manifest.get(key)]
    if int(provenance.get("n_boot", 0)) > int(manifest.get("n_boot", 0)):
        diffs.append(("n_boot", provenance.get("n_boot"), manifest.get("n_boot")))
    if diffs:
        said = "; ".join(f"{label}: {json.dumps(mine)[:60]} for the probabilities, "
                         f"{json.dumps(theirs)[:60]} in the checkpoint"
                         for label, mine, theirs in diffs)
        raise InputError(f"{source} and checkpoint {path} come from different bootstrap runs "
                         f"({said}); give the checkpoint of the run that computed them")


def data_for(probabilities, data: DiscreteData, source: str) -> DiscreteData:
    """``data`` with the columns in the order of ``probabilities``' variables, checked
    against the data fingerprint their bootstrap recorded (docs/design.md §10): other
    variables, or other data with the same column names (another file, other rows, other
    binning or missing-value options), are an ``InputError`` naming ``source``; the same
    data with the columns in another order are the data. Probabilities that record no
    fingerprint (an older causalcal, or built in memory) are used with a warning.

    Examples
    --------
    >>> import numpy as np
    >>> from causalcal.bootstrap import BootstrapSettings, data_for
    >>> from causalcal.data import DiscreteData
    >>> rng = np.random.default_rng(0)
    >>> data = DiscreteData(rng.integers(0, 2, (60, 3)), names=["a", "b", "c"])
    >>> probs = BootstrapSettings(n_boot=2, progress=False).run(data)
    >>> data_for(probs, data, "probs.npz").names
    ['a', 'b', 'c']
    >>> other = DiscreteData(rng.integers(0, 2, (60, 3)), names=["a", "b", "c"])
    >>> data_for(probs, other, "probs.npz")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    causalcal.errors.InputError: probs.npz: computed from other data than these, ...
    """
    names = [str(n) for n in probabilities.names]
    if sorted(names) != sorted(data.names):
        theirs, ours = set(names), set(data.names)
        only = [f"only in {where}: {', '.join(map(repr, sorted(extra)[:5]))}"
                for where, extra in ((source, theirs - ours), ("the data", ours - theirs))
                if extra]
        raise InputError(f"{source}: computed for other variables than the data's "
                         f"({'; '.join(only) or 'a name given twice'})")
    ordered = data if names == data.names else data.in_order(names)
    recorded = (getattr(probabilities, "provenance", None) or {}).get("data_fingerprint")
    if recorded is None:
        warnings.warn(f"{source} records no data fingerprint (an older causalcal, or built "
                      "in memory): it cannot be checked that it was computed from these data",
                      UserWarning, stacklevel=2)
    elif recorded != data_fingerprint(ordered):
        raise InputError(f"{source}: computed from other data than these, with the same "
                         "columns (the data's fingerprint differs from the one it records: "
                         "another file or other rows, or other --discretize, --na-values, "
                         "--drop-columns or --missing options than its bootstrap's)")
    return ordered


def _read_marker(path: Path) -> dict[str, Any] | None:
    """The manifest of checkpoint folder ``path`` (our marker file); ``None`` if the folder
    is new or empty. A folder with other content and no valid manifest is refused."""
    if not path.is_dir():
        return None
    manifest_path = path / MANIFEST
    if not manifest_path.exists():
        others = sorted(p.name for p in path.iterdir() if p.name != LOCK
                        and not p.name.startswith(f"{TMP_PREFIX}{MANIFEST}.")
                        and not p.name.startswith(NESTED_PREFIX))
        if others:
            raise InputError(
                f"checkpoint {path}: folder is not empty and has no {MANIFEST} "
                f"(found {', '.join(others[:3])}); use an empty or new folder"
            )
        return None
    try:
        found = parse_json(manifest_path.read_text(encoding="utf-8"), manifest_path)
    except (OSError, ValueError) as err:
        raise InputError(
            f"checkpoint {path}: unreadable {MANIFEST} ({err}); "
            "delete the directory to start afresh"
        ) from None
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        raise InputError(f"checkpoint {path}: {MANIFEST} is not a causalcal checkpoint")
    return found


def check_checkpoint_folder(path: str | os.PathLike) -> None:
    """Before any work: refuse a folder that is not ours (leaving it untouched) or that
    cannot be written in."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InputError(f"checkpoint {path}: exists and is not a directory")
    _read_marker(path)
    check_output_dir(path, "checkpoint")


class Checkpoint:
    """A checkpoint directory for one bootstrap configuration.

    Use :meth:`open` (validates or creates the manifest, takes the lock, removes stale
    temp files), then :meth:`finished`, :meth:`read` and :meth:`write`; :meth:`close`
    releases the lock. Also a context manager.
    """

    def __init__(self, path: str | os.PathLike, manifest: dict[str, Any]) -> None:
        self.path = Path(path)
        self.manifest = manifest
        #: the largest edge-type label a replicate of this search holds (3: a CPDAG's)
        self.max_label = 3
        self._lock_handle: Any = None

    # ------------------------------------------------------------------ open
    @classmethod
    def open(
        cls,
        path: str | os.PathLike,
        data: DiscreteData,
        *,
        n_boot: int,
        seed: int,
        search: str | Callable[..., Any],
        search_options: Mapping[str, Any],
    ) -> Checkpoint:
        """Open (or create) ``path`` for this run; refuse one made with other arguments.

        Raises :class:`CheckpointMismatchError` (an ``InputError``) naming every field
        that differs, and ``InputError`` if ``path`` is a non-empty folder that is not
        a checkpoint or is in use by another process.
        """
        path = Path(path)
        check_checkpoint_folder(path)  # a folder that is not ours is refused untouched
        path.mkdir(parents=True, exist_ok=True)
        wanted = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            **run_provenance(data, n_boot=n_boot, seed=seed, search=search,
                             search_options=search_options),
            "n_samples": int(data.n_samples),
            "n_vars": int(data.n_vars),
            "causalcal_version": __version__,
            "replicate_identity": REPLICATE_IDENTITY,
        }
        self = cls(path, wanted)
        self.max_label = search_table(search).n_classes - 1
        self._acquire_lock()
        try:
            found = _read_marker(path)  # again, now that we hold the lock
            self._remove_temp_files()
            if found is None:
                self._write_manifest()
                return self
            self._check_compatible(found)
            if found.get("replicate_identity") != REPLICATE_IDENTITY:
                self._stamp_replicates()  # written before replicates carried the digest
            if found.get("causalcal_version") != __version__:
                warnings.warn(
                    f"checkpoint {path} was written by causalcal "
                    f"{found.get('causalcal_version')}, this is {__version__}; "
                    "its finished replicates are reused",
                    stacklevel=3,
                )
            wanted["n_boot"] = max(int(found.get("n_boot", 0)), int(n_boot))
            if wanted != found:
                self._write_manifest()
        except BaseException:
            self.close()
            raise
        return self

    def _check_compatible(self, found: Mapping[str, Any]) -> None:
        labels = {
            "format_version": "checkpoint format version",
            "weights": "bootstrap weight scheme",
            "data_fingerprint": "data (fingerprint of codes, arities and names)",
            "n_samples": "number of rows",
            "n_vars": "number of variables",
            "seed": "seed",
            "search": "search",
            "search_options": "search options",
        }
        diffs = []
        for key, label in labels.items():
            mine, theirs = self.manifest[key], found.get(key)
            if mine != theirs:
                if key == "data_fingerprint" and isinstance(theirs, str):
                    diffs.append(f"{label}: checkpoint {theirs[:12]}…, now {mine[:12]}…")
                else:
                    diffs.append(
                        f"{label}: checkpoint {json.dumps(theirs)}, now {json.dumps(mine)}"
                    )
        if diffs:
            raise CheckpointMismatchError(
                f"checkpoint {self.path} was made with different arguments — "
                + "; ".join(diffs)
                + ". Use another --checkpoint directory, or delete this one to start afresh."
            )

    def _stamp_replicates(self) -> None:
        """Store the run's digest in every replicate of a checkpoint written before
        replicates carried it (checked as they were then; damaged ones are removed)."""
        for b in self.finished():
            replicate = self.read(b, stamped=False)
            if replicate is not None:
                self.write(b, *replicate)

    def _write_manifest(self) -> None:
        text = json.dumps(self.manifest, indent=2, sort_keys=True) + "\n"
        with atomic_write(self.path / MANIFEST, encoding="utf-8") as handle:
            handle.write(text)

    def _remove_temp_files(self) -> None:
        for p in self.path.iterdir():
            if p.name.startswith(TMP_PREFIX):
                p.unlink(missing_ok=True)

    def _acquire_lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no advisory lock
            return
        handle = open(self.path / LOCK, "a+b")  # noqa: SIM115 - held until close()
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            handle.close()
            if err.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                raise InputError(
                    f"checkpoint {self.path} is in use by another running bootstrap"
                ) from None
            # e.g. ENOLCK on some network file systems: go on without the lock
            warnings.warn(
                f"checkpoint {self.path}: cannot lock ({err}); make sure no other run uses it",
                stacklevel=3,
            )
            return
        self._lock_handle = handle

    def close(self) -> None:
        """Release the directory lock (finished replicates stay on disk)."""
        if self._lock_handle is not None:
            self._lock_handle.close()  # closing the file releases the flock
            self._lock_handle = None

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ replicates
    def replicate_path(self, b: int) -> Path:
        return self.path / f"rep-{b:06d}.npz"

    def finished(self) -> list[int]:
        """Indices of all replicates on disk (any ``b``, sorted)."""
        out = []
        for p in self.path.iterdir():
            m = _REPLICATE_RE.match(p.name)
            if m:
                out.append(int(m.group(1)))
        return sorted(out)

    def write(self, b: int, keys: np.ndarray, labels: np.ndarray) -> None:
        """Store replicate ``b`` (pair keys and labels, see :func:`causalcal.edges.pair_index`)
        with its index and the run's digest."""
        keys = np.asarray(keys, dtype=np.int64)
        labels = np.asarray(labels, dtype=np.int8)
        with atomic_write(self.replicate_path(b), "wb") as handle:
            np.savez(handle, replicate=np.int64(b), run=np.str_(run_digest(self.manifest)),
                     keys=keys, labels=labels)

    def read(self, b: int, stamped: bool = True) -> tuple[np.ndarray, np.ndarray] | None:
        """Replicate ``b``'s ``(keys, labels)``; ``None`` (file removed, with a warning)
        if the file is unreadable or inconsistent, holds another replicate or (with
        ``stamped``) does not carry this run's digest, so the replicate is simply redone."""
        path = self.replicate_path(b)
        try:
            run, keys, labels = _load_replicate(path, b, int(self.manifest["n_vars"]),
                                                self.max_label)
        except Exception as err:  # noqa: BLE001 - any damage means "redo this replicate"
            problem = f"is damaged ({err})"
        else:
            if not stamped or run == run_digest(self.manifest):
                return keys, labels
            problem = ("was not made by this run (it carries another run's seed, data, "
                       "search or options, or no run identity)")
        warnings.warn(f"checkpoint {self.path}: replicate file {path.name} {problem}; it "
                      "will be recomputed", stacklevel=2)
        path.unlink(missing_ok=True)
        return None


def _load_replicate(path: Path, b: int, n_vars: int,
                    max_label: int = 3) -> tuple[str | None, np.ndarray, np.ndarray]:
    """``(run digest or None, keys, labels)`` of replicate file ``path``, which must hold
    replicate ``b`` over ``n_vars`` variables; an exception if it does not."""
    check_npz_sizes(path)
    with np.load(path, allow_pickle=False) as z:
        stored_b = int(z["replicate"])
        run = str(z["run"]) if "run" in z.files else None
        keys = np.asarray(z["keys"], dtype=np.int64)
        labels = np.asarray(z["labels"], dtype=np.int8)
    if stored_b != b:
        raise InputError(f"it holds replicate {stored_b}")
    total = n_pairs(n_vars)
    ok = (
        keys.shape == labels.shape
        and keys.ndim == 1
        and (len(keys) == 0 or (keys.min() >= 0 and keys.max() < total))
        and np.all((labels >= 1) & (labels <= max_label))
        and np.all(np.diff(keys) > 0)
    )
    if not ok:
        raise InputError("inconsistent contents")
    return run, keys, labels


def feed_replicates(checkpoint: str | os.PathLike, data: DiscreteData, sink: Any, *,
                    n_boot: int, seed: int, search: str | Callable[..., Any],
                    search_options: Mapping[str, Any]) -> None:
    """``sink.add(keys, labels)`` for replicates 0 … ``n_boot`` − 1 of a finished bootstrap,
    read from its checkpoint folder (the arguments of the run that wrote it, knowledge
    included in ``search_options``); no search is run. A checkpoint of another run, with
    fewer replicates or with an unreadable one is an ``InputError``."""
    with Checkpoint.open(checkpoint, data, n_boot=n_boot, seed=seed, search=search,
                         search_options=search_options) as ckpt:
        finished = set(ckpt.finished())
        if not finished.issuperset(range(n_boot)):
            raise InputError(f"{checkpoint}: {len(finished & set(range(n_boot)))} of {n_boot} "
                             "replicates finished; run the bootstrap first")
        for b in range(n_boot):
            replicate = ckpt.read(b)
            if replicate is None:
                raise InputError(f"{checkpoint}: replicate {b} is unreadable; rerun the "
                                 "bootstrap")
            sink.add(*replicate)
