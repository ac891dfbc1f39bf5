"""Standard benchmark networks and BIF import/export through pgmpy (optional extra ``bif``).

The classic networks of the Bayesian Network Repository (alarm, asia, child,
insurance, hepar2, win95pts, andes, pigs, link, munin, …) are shipped with causalcal
as JSON in ``causalcal/simulate/networks/`` (converted once from the BIF files that
pgmpy distributed), so :func:`load_network` works offline and without pgmpy.
:func:`from_bif` reads any BIF file with pgmpy's ``BIFReader``.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

import numpy as np

from causalcal._io import input_file
from causalcal.errors import InputError
from causalcal.simulate.bif_write import bif_labels
from causalcal.simulate.network import BayesianNetwork

__all__ = ["available_networks", "from_bif", "from_pgmpy", "load_network", "to_pgmpy"]

BIF_EXTRA_HINT = "install the optional extra: pip install 'causalcal[bif]' (it provides pgmpy)"
#: BIF files may round CPT entries; rows within this of 1 are renormalised on import.
BIF_ROW_TOL = 1e-3
#: Largest BIF text read (the biggest repository network, munin, is about 2 MiB).
MAX_BIF_BYTES = 256 << 20


def _import_pgmpy(what: str):
    try:
        import pgmpy  # noqa: F401
    except ImportError:
        raise ImportError(f"{what} needs pgmpy, which is not installed; {BIF_EXTRA_HINT}") from None
    import pgmpy

    return pgmpy


def from_pgmpy(model, meta: dict | None = None) -> BayesianNetwork:
    """Convert a pgmpy discrete Bayesian network (with all CPDs) to a :class:`BayesianNetwork`.

    Variables keep pgmpy's node order; each CPD's evidence axes are permuted into
    ascending parent-index order (see :mod:`causalcal.simulate.network`).
    """
    names = [str(n) for n in model.nodes()]
    index = {n: k for k, n in enumerate(names)}
    arities, parents, cpts, states = [], [], [], []
    for name in names:
        cpd = model.get_cpds(name)
        if cpd is None:
            raise InputError(f"variable {name!r} has no CPD")
        variables = [str(x) for x in cpd.variables]
        card = [int(c) for c in cpd.cardinality]
        evidence = variables[1:]
        pa = [index[e] for e in evidence]
        values = np.asarray(cpd.get_values(), dtype=np.float64)  # (card, prod(evidence_card))
        table = values.reshape([card[0], *card[1:]])
        perm = np.argsort(pa, kind="stable")
        table = np.transpose(table, [0, *(1 + perm)])
        table = table.reshape(card[0], -1).T.copy()
        sums = table.sum(axis=1, keepdims=True)
        if np.any(np.abs(sums - 1) > BIF_ROW_TOL):
            row = int(np.argmax(np.abs(sums[:, 0] - 1)))
            raise InputError(
                f"variable {name!r}: CPT row {row} sums to {sums[row, 0]:.6g}, not 1"
            )
        table /= sums
        arities.append(card[0])
        parents.append(np.asarray(pa, dtype=np.int64)[perm])
        cpts.append(table)
        state_map = getattr(cpd, "state_names", None) or {}
        states.append([str(s) for s in state_map.get(cpd.variable, range(card[0]))])
    return BayesianNetwork(names, arities, parents, cpts, states, meta=meta)


def _read_bif_text(path: Path) -> str:
    """The text of a BIF file; a ``.gz`` file is decompressed as a stream, at most
    :data:`MAX_BIF_BYTES` of it (a larger one is refused, so a bad file cannot fill memory)."""
    import gzip

    opener = gzip.open if path.suffix.lower() == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:
            text = handle.read(MAX_BIF_BYTES + 1)
    except (OSError, EOFError, UnicodeDecodeError) as err:  # gzip.BadGzipFile is an OSError
        raise InputError(f"{path}: cannot read as a BIF file ({err})") from None
    if len(text) > MAX_BIF_BYTES:
        raise InputError(f"{path}: larger than {MAX_BIF_BYTES >> 20} MiB of text; "
                         "not a BIF network causalcal can read")
    return text


def from_bif(path: str | os.PathLike) -> BayesianNetwork:
    """Read a discrete Bayesian network from a BIF file, optionally gzipped (needs pgmpy:
    the ``bif`` extra). A file without any variable is refused. Names that causalcal
    rewrote into BIF words come back as they were (its ``property label`` and ``property
    states`` lines, :func:`causalcal.simulate.bif_write.bif_labels`)."""
    path = input_file(path)
    _import_pgmpy("reading BIF files")
    from pgmpy.readwrite import BIFReader

    text = _read_bif_text(path)
    try:
        model = BIFReader(string=text).get_model()
    except Exception as err:  # pgmpy raises assorted parser errors
        raise InputError(f"{path}: could not parse as BIF ({type(err).__name__}: {err})") from None
    if len(model.nodes()) == 0:
        raise InputError(f"{path}: no variables found; is it a BIF file?")
    try:
        network = from_pgmpy(model, meta={"source": str(path)})
    except ValueError as err:
        raise InputError(f"{path}: {err}") from None
    return _with_labels(network, bif_labels(text))


def _with_labels(network: BayesianNetwork, labels: dict) -> BayesianNetwork:
    """``network`` with its variables and states named as its BIF's properties say
    (where they name every state, and the names stay distinct)."""
    names = [labels.get(n, (None, None))[0] or n for n in network.names]
    if len(set(names)) < len(names):
        names = list(network.names)
    states = []
    for word, own in zip(network.names, network.state_names):
        given = labels.get(word, (None, None))[1]
        ok = given is not None and len(given) == len(own) and len(set(given)) == len(given)
        states.append(list(given) if ok else list(own))
    return BayesianNetwork(names, network.arities, network.parents, network.cpts, states,
                           meta=network.meta)


def to_pgmpy(network: BayesianNetwork):
    """The network as a pgmpy ``DiscreteBayesianNetwork`` with a ``TabularCPD`` per node."""
    _import_pgmpy("to_pgmpy()")
    from pgmpy.factors.discrete import TabularCPD

    try:
        from pgmpy.models import DiscreteBayesianNetwork as Model
    except ImportError:  # older pgmpy
        from pgmpy.models import BayesianNetwork as Model

    names = network.names
    model = Model()
    model.add_nodes_from(names)
    model.add_edges_from((names[p], names[v]) for v, pa in enumerate(network.parents) for p in pa)
    cpds = []
    for v, name in enumerate(names):
        pa = [names[p] for p in network.parents[v]]
        state_names = {names[u]: [str(s) for s in network.state_names[u]]
                       for u in [v, *network.parents[v]]}
        cpds.append(TabularCPD(
            name,
            int(network.arities[v]),
            network.cpts[v].T,
            evidence=pa or None,
            evidence_card=[int(network.arities[p]) for p in network.parents[v]] or None,
            state_names=state_names,
        ))
    model.add_cpds(*cpds)
    return model


def _network_dir() -> Path:
    return Path(str(resources.files("causalcal.simulate").joinpath("networks")))


def available_networks() -> list[str]:
    """Names of the benchmark networks shipped with causalcal (for :func:`load_network`)."""
    folder = _network_dir()
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.json"))


def _pgmpy_lacks_example(key: str) -> bool:
    """True if pgmpy is installed (found without importing it) and has no model ``key``."""
    import importlib.util

    if not key.isidentifier():
        return True
    spec = importlib.util.find_spec("pgmpy")
    if spec is None or not spec.submodule_search_locations:
        return False  # not installed: load_network reports the missing extra
    for root in spec.submodule_search_locations:
        folder = Path(root) / "example_models" / "bnlearn"
        if folder.is_dir():
            return not (folder / f"{key}.py").is_file()
    return False  # older pgmpy layout: let it try


def load_network(name: str) -> BayesianNetwork:
    """A standard benchmark network by name, e.g. ``load_network("alarm")``.

    Shipped networks (:func:`available_networks`) load offline from JSON; a name is
    never read as a path (a network file loads with :meth:`BayesianNetwork.load`). Any
    other name is tried with pgmpy's ``example_models.load_model("bnlearn/<name>")``
    (needs the ``bif`` extra; recent pgmpy downloads the file from the Hugging Face Hub).
    """
    key = str(name).strip().lower()
    if key in available_networks():  # a shipped name, never a path (no '../')
        return BayesianNetwork.load(_network_dir() / f"{key}.json")
    shipped = ", ".join(available_networks()) or "none"
    if _pgmpy_lacks_example(key):
        raise InputError(
            f"unknown network {name!r}: not shipped with causalcal (shipped: {shipped}) "
            "and not among pgmpy's bnlearn example models"
        )
    try:
        _import_pgmpy(f"network {name!r} is not shipped with causalcal (shipped: {shipped}); "
                      "loading it")
    except ImportError as err:
        raise InputError(str(err)) from None
    unknown = InputError(
        f"unknown network {name!r}: not shipped with causalcal (shipped: {shipped}) "
        "and not among pgmpy's bnlearn example models"
    )
    if not key.isidentifier():
        raise unknown
    try:
        import importlib.util

        from pgmpy.example_models import load_model
    except ImportError:  # older pgmpy: the deprecated helper
        load_model = None
    try:
        if load_model is None:
            from pgmpy.utils import get_example_model

            model = get_example_model(key)
        else:
            # look the name up without importing every example model (slow)
            if importlib.util.find_spec(f"pgmpy.example_models.bnlearn.{key}") is None:
                raise unknown
            model = load_model(f"bnlearn/{key}")
    except ValueError as err:
        if err is unknown:
            raise
        raise InputError(f"pgmpy could not load network {name!r}: {str(err)[:200]}") from None
    except Exception as err:
        raise InputError(
            f"network {name!r} is not shipped with causalcal (shipped: {shipped}) and pgmpy "
            f"could not load it (it downloads from the Hugging Face Hub): "
            f"{type(err).__name__}: {str(err)[:200]}"
        ) from None
    return from_pgmpy(model, meta={"source": f"pgmpy bnlearn/{key}"})
