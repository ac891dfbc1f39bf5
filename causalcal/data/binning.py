"""Binning numeric columns into ordered categories (docs/design.md §3, "Binning").

One spec type for the library and the command line, parsed in one place
(:func:`parse_discretize`): :class:`Bins` (``METHOD:K``, scikit-learn's
``KBinsDiscretizer``), :class:`Keep` (``keep``: a numeric nominal column left as its
values) and :class:`Cuts` (``cuts:a,b,c``: given cut points, bins ``< a``, ``[a, b)``, …,
``>= c``). A method that leaves fewer non-empty bins than asked (a value holding most
rows) is replaced, with a :class:`~causalcal.errors.DataWarning`, by the equal-count cuts
between distinct values (:func:`equal_count_cuts`). The bins chosen are logged (logger
``causalcal.data.bins``). Re-exported by :mod:`causalcal.data`.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from causalcal.data.columns import refuse_identifier, row_number
from causalcal.errors import DataWarning, InputError

log = logging.getLogger("causalcal.data.bins")

#: ``Bins`` methods: scikit-learn's ``KBinsDiscretizer`` strategies.
DISCRETIZE_METHODS = ("quantile", "uniform", "kmeans")
_SPEC_HELP = ("METHOD:K (METHOD one of quantile, uniform, kmeans; K >= 2), keep, or "
              "cuts:A,B,... (increasing numbers)")


@dataclass(frozen=True)
class Bins:
    """``METHOD:K``: ``n_bins`` bins by ``method`` (quantile = equal counts, uniform = equal
    widths, kmeans = 1-d k-means), or the equal-count cuts where those leave fewer.

    Examples
    --------
    >>> from causalcal.data import Bins
    >>> str(Bins()), str(Bins("uniform", 4))
    ('quantile:3', 'uniform:4')
    """

    method: str = "quantile"
    n_bins: int = 3

    def __post_init__(self) -> None:
        if self.method not in DISCRETIZE_METHODS:
            raise InputError(f"unknown discretization method {self.method!r}; use one of "
                             f"{', '.join(DISCRETIZE_METHODS)}")
        k = self.n_bins
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
            raise InputError(f"n_bins must be an integer of at least 2, got {k!r}")

    @property
    def size(self) -> int:
        return int(self.n_bins)

    def __str__(self) -> str:
        return f"{self.method}:{self.n_bins}"


@dataclass(frozen=True)
class Keep:
    """``keep``: the column is not binned; its values are its categories (a numeric
    nominal column such as a marital-status code).

    Examples
    --------
    >>> from causalcal.data import Keep
    >>> str(Keep())
    'keep'
    """

    size = None

    def __str__(self) -> str:
        return "keep"


@dataclass(frozen=True)
class Cuts:
    """``cuts:a,b,c``: bins ``< a``, ``[a, b)``, ``[b, c)``, ``>= c`` (left-closed, as every
    bin label reads); ``points`` finite and strictly increasing.

    Examples
    --------
    >>> from causalcal.data import Cuts
    >>> str(Cuts((1.0, 5000.0)))
    'cuts:1,5000'
    """

    points: tuple[float, ...]

    def __post_init__(self) -> None:
        try:
            points = tuple(float(p) for p in self.points)
        except (TypeError, ValueError):
            raise InputError(f"cut points must be numbers, got {self.points!r}") from None
        if not points or not all(map(math.isfinite, points)):
            raise InputError(f"cut points must be one or more finite numbers, got {points}")
        if any(b <= a for a, b in zip(points, points[1:])):
            raise InputError(f"cut points must increase, got {', '.join(map(_number, points))}")
        object.__setattr__(self, "points", points)

    @property
    def size(self) -> int:
        return len(self.points) + 1

    def __str__(self) -> str:
        return "cuts:" + ",".join(map(_number, self.points))


#: What one column gets.
BinSpec = Bins | Keep | Cuts


@dataclass(frozen=True)
class Discretization:
    """A whole spec: ``columns`` by name and ``default`` for every other numeric column with
    more distinct values than its bins (``None``: only the named columns).

    Examples
    --------
    >>> from causalcal.data import Bins, Discretization, Keep
    >>> spec = Discretization({"marital": Keep()}, default=Bins("quantile", 3))
    >>> str(spec.columns["marital"]), str(spec.default)
    ('keep', 'quantile:3')
    """

    columns: Mapping[str, BinSpec] = field(default_factory=dict)
    default: Bins | None = None


def _number(value: float) -> str:
    return f"{value:.15g}"


def parse_bin_spec(rule: BinSpec | str | tuple, name: str | None = None) -> BinSpec:
    """One column's spec from a :data:`BinSpec`, ``(method, n_bins)`` or text (``METHOD:K``,
    ``keep``, ``cuts:A,B,...``); an ``InputError`` naming the column (``name``)."""
    where = "" if name is None else f"{name}="
    try:
        if isinstance(rule, (Bins, Keep, Cuts)):
            spec = rule
        elif isinstance(rule, tuple):
            spec = Bins(*rule)
        elif isinstance(rule, str):
            spec = _parse_text(rule.strip())
        else:
            raise InputError(f"expected {_SPEC_HELP}")
    except InputError as err:
        raise InputError(f"discretize {where}{rule}: {err}") from None
    if name is None and not isinstance(spec, Bins):
        raise InputError(f"discretize {spec}: keep and cuts are for a named column "
                         "(NAME=keep, NAME=cuts:A,B); the default must be METHOD:K")
    return spec


def _parse_text(text: str) -> BinSpec:
    if text == "keep":
        return Keep()
    kind, colon, rest = text.partition(":")
    if kind == "cuts" and colon:
        try:
            points = tuple(float(p) for p in rest.split(",") if p.strip())
        except ValueError:
            raise InputError(f"cut points must be numbers, got {rest!r}") from None
        return Cuts(points)
    if kind in DISCRETIZE_METHODS and rest.strip().isdigit():
        return Bins(kind, int(rest))
    raise InputError(f"expected {_SPEC_HELP}")


def _split_items(text: str) -> list[str]:
    """``--discretize`` text as items; a bare number continues the ``cuts:`` before it."""
    items: list[str] = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        if items and "cuts:" in items[-1] and _is_number(token):
            items[-1] += "," + token
        else:
            items.append(token)
    return items


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_discretize(spec, max_arity: int | None = None) -> Discretization:
    """A :class:`Discretization` from ``None`` (nothing), ``(method, n_bins)`` or a
    :class:`Bins` (the default), a mapping ``{column or None: spec}`` (each spec a
    :data:`BinSpec`, ``(method, n_bins)`` or its text), a :class:`Discretization`, or text
    as ``--discretize`` takes it: comma-separated ``METHOD:K`` (the default) and
    ``NAME=METHOD:K``, ``NAME=keep``, ``NAME=cuts:A,B,...`` items, e.g.
    ``"age=quantile:4,marital=keep,re74=cuts:1,5000,quantile:3"`` (docs/design.md §3).
    More bins than ``max_arity`` (when given) are an error naming the column.

    Examples
    --------
    >>> from causalcal.data import parse_discretize
    >>> spec = parse_discretize("age=quantile:4,marital=keep,income=cuts:1000,5000")
    >>> {name: str(rule) for name, rule in spec.columns.items()}
    {'age': 'quantile:4', 'marital': 'keep', 'income': 'cuts:1000,5000'}
    """
    if spec is None:
        return Discretization()
    if isinstance(spec, Discretization):
        items = [*spec.columns.items(), *([(None, spec.default)] if spec.default else [])]
    elif isinstance(spec, (tuple, Bins)):
        items = [(None, spec)]
    elif isinstance(spec, str):
        items = []
        for item in _split_items(spec) or [spec]:
            name, _, rule = item.rpartition("=")
            items.append((name.strip() or None, rule))
    elif isinstance(spec, Mapping):
        items = list(spec.items())
    else:
        raise InputError(f"discretize: expected text, (method, n_bins) or a mapping, got "
                         f"{type(spec).__name__}")
    columns: dict[str, BinSpec] = {}
    default = None
    for name, rule in items:
        key = None if name is None else str(name)
        parsed = parse_bin_spec(rule, key)
        if key in columns or (key is None and default is not None):
            raise InputError(f"discretize: {'the default' if key is None else repr(key)} is "
                             "given twice; give each column and the default once")
        if parsed.size is not None and max_arity is not None and parsed.size > max_arity:
            where = "" if key is None else f"{key}="
            raise InputError(f"discretize {where}{parsed}: {parsed.size} bins > "
                             f"max_arity={max_arity} (--max-arity)")
        if key is None:
            default = parsed
        else:
            columns[key] = parsed
    return Discretization(columns, default)


def discretize(
    frame: pd.DataFrame,
    method: str = "quantile",
    n_bins: int = 3,
    *,
    columns: Sequence[str] | None = None,
    per_column: Mapping[str, BinSpec | str] | None = None,
) -> pd.DataFrame:
    """Bin numeric columns into ordered categories (docs/design.md §3, "Binning").

    ``columns`` get ``n_bins`` bins by ``method`` (scikit-learn's ``KBinsDiscretizer``:
    ``"quantile"`` = equal-frequency, ``"uniform"`` = equal-width, ``"kmeans"`` = 1-d
    k-means); by default every numeric column with more than ``n_bins`` distinct values
    that ``per_column`` does not name (an identifier among them, integers all distinct, is
    an error). ``per_column`` maps a column to its own spec: :class:`Bins` (``"uniform:4"``),
    :class:`Keep` (``"keep"``: left as it is) or :class:`Cuts` (``"cuts:1,5000"``: bins
    ``< 1``, ``[1, 5000)``, ``>= 5000``). Where a method leaves fewer non-empty bins than
    asked, the column gets the equal-count cuts between its distinct values instead (a
    ``DataWarning`` says so); given cuts with an empty bin are warned about. A binned
    column becomes an ordered ``Categorical`` labelled by its bins (``< 0.25``,
    ``[0.25, 1.5)``, ``>= 1.5``); the bins and their counts are logged (logger
    ``causalcal.data.bins``) and the edges kept in ``result.attrs["bin_edges"]``. A missing
    or non-numeric value is an error naming the column and row.

    Examples
    --------
    >>> import pandas as pd
    >>> from causalcal.data import discretize
    >>> frame = pd.DataFrame({"age": [20, 30, 40, 50, 60, 70, 80, 90], "sex": list("fmfmfmfm")})
    >>> discretize(frame, "quantile", 2)["age"].tolist()
    ['< 55', '< 55', '< 55', '< 55', '>= 55', '>= 55', '>= 55', '>= 55']
    """
    default = Bins(method, n_bins)
    named = parse_discretize(dict(per_column or {})).columns
    unknown = [c for c in [*(columns or []), *named] if c not in frame.columns]
    if unknown:
        raise InputError(f"discretize: no column {unknown[0]!r}")
    if columns is None:
        columns = [c for c in frame.columns
                   if c not in named and _looks_continuous(frame[c], default.n_bins)]
        for name in columns:
            refuse_identifier(frame[name], str(name))
    plan = {**dict.fromkeys(columns, default), **named}
    out = frame.copy()
    edges_of: dict[str, list[float]] = {}
    for name in frame.columns:
        rule = plan.get(name)
        if rule is None or isinstance(rule, Keep):
            continue
        values = _numbers(frame, name)
        codes, edges, how = _cut(values, rule, str(name))
        labels = _bin_labels(edges)
        out[name] = pd.Categorical.from_codes(codes, categories=labels, ordered=True)
        edges_of[str(name)] = edges
        counts = np.bincount(codes, minlength=len(labels))
        log.info("column %r: %s bins %s", str(name), how, _with_counts(labels, counts))
    out.attrs["bin_edges"] = edges_of
    return out


def discretize_by(frame: pd.DataFrame, spec: Discretization) -> pd.DataFrame:
    """``frame`` binned by a :func:`parse_discretize` spec (what ``from_csv`` does).

    Examples
    --------
    >>> import pandas as pd
    >>> from causalcal.data import discretize_by, parse_discretize
    >>> frame = pd.DataFrame({"age": [20, 30, 40, 50, 60, 70, 80, 90]})
    >>> discretize_by(frame, parse_discretize("age=cuts:45"))["age"].tolist()
    ['< 45', '< 45', '< 45', '>= 45', '>= 45', '>= 45', '>= 45', '>= 45']
    """
    if spec.default is None:
        return discretize(frame, columns=[], per_column=spec.columns)
    return discretize(frame, spec.default.method, spec.default.n_bins,
                      per_column=spec.columns)


def _numbers(frame: pd.DataFrame, name) -> np.ndarray:
    values = pd.to_numeric(frame[name], errors="coerce").to_numpy(np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        cell = frame[name].iloc[row]
        what = "missing value" if pd.isna(cell) else f"{cell!r} is not a finite number"
        raise InputError(f"column {name!r}, row {row_number(frame, row)}: {what}; cannot "
                         "discretize it")
    return values


def _cut(values: np.ndarray, rule: Bins | Cuts, name: str) -> tuple[np.ndarray, list, str]:
    """Codes, edges (lowest, cut points, highest) and what made them."""
    low, high = float(values.min()), float(values.max())
    if isinstance(rule, Cuts):
        codes = np.searchsorted(rule.points, values, side="right")
        edges = [min(low, rule.points[0]), *rule.points, max(high, rule.points[-1])]
        empty = np.flatnonzero(np.bincount(codes, minlength=rule.size) == 0)
        if len(empty):
            labels = _bin_labels(edges)
            warnings.warn(f"column {name!r}: {rule} leaves {len(empty)} of {rule.size} bins "
                          f"empty ({', '.join(labels[k] for k in empty)}); they are kept as "
                          "categories no row has", DataWarning, stacklevel=4)
        return codes, edges, "given"
    codes, edges = _kbins(values, rule)
    filled = len(np.unique(codes))
    if filled >= rule.n_bins:
        return codes, edges, rule.method
    distinct, counts = np.unique(values, return_counts=True)
    starts = equal_count_cuts(counts, min(rule.n_bins, len(distinct)))
    cuts = distinct[starts].tolist()
    codes = np.searchsorted(cuts, values, side="right")
    edges = [low, *cuts, high]
    top = int(np.argmax(counts))
    fewer = (f"; the column has only {len(distinct)} distinct values, one bin each"
             if len(distinct) < rule.n_bins else "")
    warnings.warn(
        f"column {name!r}: {rule} leaves {filled} non-empty bin{'s' * (filled != 1)} of "
        f"{rule.n_bins} ({counts[top] / len(values):.0%} of the rows are "
        f"{_number(distinct[top])}); cut between distinct values for the most equal "
        f"counts instead{fewer}: "
        f"{_with_counts(_bin_labels(edges), np.bincount(codes, minlength=len(cuts) + 1))}",
        DataWarning, stacklevel=4)
    return codes, edges, "equal-count"


def _kbins(values: np.ndarray, rule: Bins) -> tuple[np.ndarray, list[float]]:
    from sklearn.preprocessing import KBinsDiscretizer

    binner = KBinsDiscretizer(n_bins=rule.size, encode="ordinal", strategy=rule.method,
                              subsample=None)
    with warnings.catch_warnings():  # "bins whose width are too small" are dropped
        warnings.simplefilter("ignore", UserWarning)
        codes = binner.fit_transform(values.reshape(-1, 1)).ravel().astype(np.int64)
    return codes, binner.bin_edges_[0].tolist()


def equal_count_cuts(counts: np.ndarray, n_bins: int) -> np.ndarray:
    """Where bins 2 … ``n_bins`` start among ``len(counts)`` sorted distinct values with
    these row ``counts``: the partition into ``n_bins`` non-empty runs of consecutive values
    whose row counts have the least sum of squares (the most equal counts); among equally
    good ones the last cut lowest, then the one before it, and so on.

    Dynamic programming over the runs, O(n_bins · D log D) for D values: the lowest optimal
    start of the last run is monotone in the run's end (the squared cost satisfies the
    quadrangle inequality), so each layer is solved by divide and conquer, one numpy step
    per level of the recursion.

    Examples
    --------
    >>> import numpy as np
    >>> from causalcal.data import equal_count_cuts
    >>> equal_count_cuts(np.array([5, 1, 1, 1]), 2)  # 5 rows | 3 rows
    array([1])
    """
    total = np.concatenate([[0], np.cumsum(np.asarray(counts, dtype=np.int64))])
    d = len(counts)
    if not 1 <= n_bins <= d:
        raise InputError(f"cannot cut {d} distinct values into {n_bins} non-empty bins")
    best = np.full(d + 1, np.int64(2) ** 62)  # no partition
    best[0] = 0  # no values, no runs
    start = np.zeros((n_bins + 1, d + 1), dtype=np.int64)
    for layer in range(1, n_bins + 1):
        best = _solve_layer(total, best, start[layer], layer, d - (n_bins - layer))
    cuts, end = [], d
    for layer in range(n_bins, 1, -1):
        end = int(start[layer, end])
        cuts.append(end)
    return np.asarray(cuts[::-1], dtype=np.int64)


def _solve_layer(total: np.ndarray, before: np.ndarray, start: np.ndarray, lo: int,
                 hi: int) -> np.ndarray:
    """``here[j] = min_i before[i] + (total[j] - total[i])²`` over ``lo - 1 <= i < j`` for
    ``lo <= j <= hi`` (else unreachable), the lowest optimal ``i`` stored in ``start[j]``:
    every sub-range of ends of one recursion level at once."""
    here = np.full_like(before, np.int64(2) ** 62)
    ends = [np.array([v]) for v in (lo, hi, lo - 1, len(before) - 2)]
    while len(ends[0]):
        lo_, hi_, first, last = ends
        mid = (lo_ + hi_) // 2
        lengths = np.minimum(last, mid - 1) - first + 1
        offsets = np.cumsum(lengths) - lengths
        segment = np.repeat(np.arange(len(mid)), lengths)
        candidate = first[segment] + np.arange(int(lengths.sum())) - offsets[segment]
        cost = before[candidate] + (total[mid[segment]] - total[candidate]) ** 2
        lowest = np.minimum.reduceat(cost, offsets)
        hits = np.flatnonzero(cost == lowest[segment])
        pick = candidate[hits[np.unique(segment[hits], return_index=True)[1]]]
        here[mid], start[mid] = lowest, pick
        ends = [np.concatenate(pair) for pair in
                ((lo_, mid + 1), (mid - 1, hi_), (first, pick), (pick, last))]
        keep = ends[0] <= ends[1]
        ends = [e[keep] for e in ends]
    return here


def _looks_continuous(column: pd.Series, n_values: int) -> bool:
    """Whether ``column`` is numeric with more than ``n_values`` distinct values."""
    if isinstance(column.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(column):
        return False
    return pd.api.types.is_numeric_dtype(column) and column.nunique() > n_values


def _with_counts(labels: list[str], counts: np.ndarray) -> str:
    return ", ".join(f"{label} ({int(n)} rows)" for label, n in zip(labels, counts))


def _bin_labels(edges: list[float]) -> list[str]:
    """``< e1``, ``[e1, e2)``, …, ``>= e_last`` with as many digits as keep them apart."""
    inner = edges[1:-1]
    if not inner:
        return ["all"]
    for digits in range(3, 18):
        shown = [str(int(e)) if e == int(e) and abs(e) < 1e15 else f"{e:.{digits}g}"
                 for e in inner]
        if len(set(shown)) == len(shown):
            break
    return ([f"< {shown[0]}"] + [f"[{a}, {b})" for a, b in zip(shown[:-1], shown[1:])]
            + [f">= {shown[-1]}"])
