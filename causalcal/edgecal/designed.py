"""Pairs the tool asks the scientist to check: a draw whose inclusion rates are known, and
the calibration its answers allow (docs/design.md §9.12; issue 39).

A scientist's own known pairs sit at the ends of the probability range and their
inclusion rates are unknown (§9.3). Here the tool picks the pairs: every pair not already
known falls in a stratum of its bootstrap P(related) (the five bins of §9.1), and
:func:`suggest_pairs` draws 2 from each stratum and the rest in proportion to the strata's
sizes (``allocation="proportional"``: the answers go where the pairs are, most of them
among the pairs the bootstrap never relates, whose rate a map must place), or equally
(``"equal"``, water-filling as §9.1), uniformly within each. The scientist answers with
the usual relations or ``unknown``. A stratum's answered pairs are then a simple random
sample of it, if answers are missing at random within a stratum, so:

* the selection depends on the pair's probabilities only, not on its truth: no offsets are
  needed, a map of P(related) fitted with weights ``1 / rate`` (rate = answered / stratum
  size) estimates the population's;
* the number of related pairs has the Horvitz–Thompson estimate Σ_s N_s · r_s / a_s (N_s
  pairs, a_s answered, r_s of them related) with its stratified standard error
  (:meth:`AnswerDesign.related_pairs`).

The design travels with the file: the columns :data:`DESIGN_COLUMNS` of each suggested row.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.stats import chi2

from causalcal._io import read_csv_file
from causalcal.calibration import N_BINS, probability_bins
from causalcal.edgecal.noisy import direction_rates, noisy_terms
from causalcal.edgecal.sampling import allocate_draws, proportional_draws
from causalcal.edgecal.simulated import SimulatedAdjacency, SimulatedCausal
from causalcal.edges import pair_from_index, pair_index
from causalcal.errors import InputError

__all__ = ["ALLOCATIONS", "DESIGN_COLUMNS", "UNKNOWN", "AnswerDesign", "Answers",
           "DesignedAdjacency", "DesignedCausal", "calibration_test", "identity_prior_mode",
           "read_answers", "suggest_pairs"]

#: The columns a suggested file carries beside ``a, b, relation``: the pair's bootstrap
#: P(related), its stratum, the stratum's pairs and how many of them were asked.
DESIGN_COLUMNS = ("p_related", "stratum", "stratum_pairs", "stratum_drawn")
#: Answers that leave a suggested pair open (compared without case or blanks).
UNKNOWN = ("unknown", "")


@dataclass(frozen=True)
class AnswerDesign:
    """The strata of a suggested draw and its answers (arrays over the five strata).

    Attributes
    ----------
    sizes : pairs in each stratum when the draw was made
    drawn : pairs asked in each stratum
    answered : pairs answered (not ``unknown``) in each stratum
    related : answered pairs that are related (adjacent; one causes the other)
    """

    sizes: np.ndarray
    drawn: np.ndarray
    answered: np.ndarray
    related: np.ndarray

    @property
    def rates(self) -> np.ndarray:
        """Each stratum's inclusion rate of an answered pair (answered / size)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.sizes > 0, self.answered / self.sizes, 0.0)

    def related_pairs(self, share: np.ndarray | None = None, inflation: np.ndarray | float = 1.0
                      ) -> tuple[float, float]:
        """The Horvitz–Thompson estimate of the related pairs among the strata's pairs, and
        its standard error (stratified, with the finite-population correction; a stratum's
        variance uses its share with half a pair added to each kind, so a stratum whose
        answers are all of one kind still counts its uncertainty; a stratum without
        answers counts as unrelated). ``share``: each stratum's share of related pairs
        when not the answers' own (answers that may be wrong, :func:`~.noisy.stratum_shares`),
        whose variance is ``inflation`` times the answers'."""
        a, n = self.answered.astype(float), self.sizes.astype(float)
        if share is None:
            share = np.divide(self.related, a, out=np.zeros_like(a), where=a > 0)
        smooth = (self.related + 0.5) / (a + 1)
        var = np.divide(smooth * (1 - smooth), a, out=np.zeros_like(a), where=a > 0) * inflation
        fpc = np.divide(n - a, n, out=np.zeros_like(a), where=n > 0)
        return float((n * share).sum()), float(np.sqrt((n ** 2 * fpc * var).sum()))

    def as_dict(self) -> dict:
        estimate, se = self.related_pairs()
        return {"sizes": self.sizes.tolist(), "drawn": self.drawn.tolist(),
                "answered": self.answered.tolist(), "related": self.related.tolist(),
                "related_pairs": estimate, "related_pairs_se": se}


#: how :func:`suggest_pairs` shares the draws between the strata
ALLOCATIONS = ("proportional", "equal")


def suggest_pairs(raw, n: int, seed: int = 0, exclude: np.ndarray | None = None,
                  allocation: str = "proportional") -> pd.DataFrame:
    """``n`` pairs to ask about, drawn from the five strata of their P(related) =
    1 − (probability of class 0) in ``raw`` (:class:`EdgeProbabilities` or
    :class:`~causalcal.causal.CausalProbabilities`) — 2 from each and the rest in
    proportion to the strata's sizes (``allocation="proportional"``,
    :func:`~causalcal.edgecal.sampling.proportional_draws`), or equally (``"equal"``,
    :func:`~causalcal.edgecal.sampling.allocate_draws`) —, leaving out the pair keys
    ``exclude`` (pairs already known). Returns ``a, b, relation`` (``unknown``) and
    :data:`DESIGN_COLUMNS`, ordered by stratum from the most likely related down."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"the number of pairs to suggest must be a whole number >= 1, got {n!r}")
    if allocation not in ALLOCATIONS:
        raise InputError(f"allocation must be one of {', '.join(ALLOCATIONS)}, "
                         f"got {allocation!r}")
    p = 1.0 - raw.column(0).astype(np.float64)
    keep = np.ones(len(p), dtype=bool)
    if exclude is not None:
        keep[np.asarray(exclude, dtype=np.int64)] = False
    members = np.flatnonzero(keep)
    if n > len(members):
        raise InputError(f"asked for {n} pairs, but only {len(members)} are not known already")
    strata = probability_bins(p[members])
    sizes = np.bincount(strata, minlength=N_BINS)
    rng = np.random.default_rng(seed)
    take = (proportional_draws(sizes, int(n)) if allocation == "proportional"
            else allocate_draws(sizes, int(n), rng))
    chosen = [np.sort(rng.choice(members[strata == s], int(take[s]), replace=False))
              for s in range(N_BINS)]
    keys = np.concatenate(chosen[::-1])
    i, j = pair_from_index(keys, raw.n_vars)
    names = np.asarray(raw.names, dtype=object)
    stratum = probability_bins(p[keys]).astype(np.int64)
    return pd.DataFrame({"a": names[i], "b": names[j], "relation": "unknown",
                         "p_related": p[keys], "stratum": stratum,
                         "stratum_pairs": sizes[stratum], "stratum_drawn": take[stratum]})


@dataclass(frozen=True)
class Answers:
    """A known-relations file read with its design: the answered pairs (one row per pair,
    as the relation kind reads them), each pair's inclusion rate (NaN for a pair the
    scientist added, whose rate is unknown) and the design (None without suggested rows)."""

    pairs: pd.DataFrame
    rates: np.ndarray
    design: AnswerDesign | None = None
    unknown: int = 0

    def without(self, drop: np.ndarray) -> Answers:
        """The answers less the pairs at the rows ``drop`` (bool) marks."""
        pairs = self.pairs[~drop].reset_index(drop=True)
        pairs.attrs = dict(self.pairs.attrs)
        rates = self.rates[~drop] if len(self.rates) else self.rates
        return Answers(pairs, rates, self.design, self.unknown)


def _design_rows(frame: pd.DataFrame, source: str) -> np.ndarray:
    """Which rows carry a suggested pair's design (checked to be whole numbers)."""
    if not set(DESIGN_COLUMNS) <= set(frame.columns):
        return np.zeros(len(frame), dtype=bool)
    cells = frame[list(DESIGN_COLUMNS[1:])].map(
        lambda v: "" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v).strip())
    designed = (cells != "").all(axis=1).to_numpy()
    values = pd.to_numeric(cells[designed].stack(), errors="coerce")
    if values.isna().any() or (values < 0).any() or (values % 1 != 0).any():
        raise InputError(f"{source}: the columns {', '.join(DESIGN_COLUMNS[1:])} of suggested "
                         "rows must hold the whole numbers `causalcal suggest` wrote")
    return designed


def read_answers(known: pd.DataFrame | str | os.PathLike, names: list[str], kind) -> Answers:
    """The known relations of ``known`` (a file or frame, ``a, b, relation``), with the
    design of its suggested rows (:data:`DESIGN_COLUMNS`) when it has some: suggested rows
    answered ``unknown`` (or left empty) are dropped and counted per stratum; the others
    are read by ``kind`` (:meth:`RelationKind.read_known`) like any known relation."""
    source = "known relations" if isinstance(known, pd.DataFrame) else str(known)
    frame = known if isinstance(known, pd.DataFrame) else read_csv_file(
        known, comments=True, dtype=str, keep_default_na=False)[1]
    frame = frame.rename(columns=lambda c: str(c).strip())
    designed = _design_rows(frame, source)
    if not designed.any():
        return Answers(kind.read_known(known, names), np.full(0, np.nan))
    relation = frame["relation"].fillna("").astype(str).str.strip().str.lower()
    open_ = designed & relation.isin(UNKNOWN).to_numpy()
    pairs = kind.read_known(frame[~open_].reset_index(drop=True), names)
    index = {name: k for k, name in enumerate(names)}
    a, b = frame["a"].map(index).to_numpy(), frame["b"].map(index).to_numpy()
    keys = pair_index(np.minimum(a, b), np.maximum(a, b), len(names))
    cols = frame[list(DESIGN_COLUMNS[1:])].to_numpy()[designed].astype(float).astype(np.int64)
    stratum_of = dict(zip(keys[designed], cols[:, 0], strict=True))
    sizes, drawn = np.zeros(N_BINS, np.int64), np.zeros(N_BINS, np.int64)
    sizes[cols[:, 0]], drawn[cols[:, 0]] = cols[:, 1], cols[:, 2]
    labels, Y = kind.label_sets(pairs)
    related, unrelated = ~Y[:, 0], Y[:, 0] & ~Y[:, 1:].any(axis=1)
    pair_keys = pair_index(pairs["i"].to_numpy(), pairs["j"].to_numpy(), len(names))
    stratum = np.array([stratum_of.get(k, -1) for k in pair_keys], dtype=np.int64)
    settled = (stratum >= 0) & (related | unrelated)  # an answer that settles relatedness
    answered = np.bincount(stratum[settled], minlength=N_BINS)
    design = AnswerDesign(sizes, drawn, answered,
                          np.bincount(stratum[settled & related], minlength=N_BINS))
    rates = np.full(len(pairs), np.nan)
    rates[settled] = design.rates[stratum[settled]]
    return Answers(pairs, rates, design, int(open_.sum()))


def calibration_test(x: np.ndarray, y: np.ndarray, weights: np.ndarray, slope: float,
                     intercept: float, clusters: np.ndarray | None = None,
                     errors: np.ndarray | None = None) -> float:
    """The p-value of Cox's (1958) calibration test: is ``logit q = slope · x + intercept``
    (fitted by weighted logistic regression of ``y`` on ``x`` = logit p) different from
    the identity (slope 1, intercept 0)? A Wald test with the design-based (sandwich)
    covariance of the weighted fit, clustered by ``clusters`` (the two directions of a
    pair), χ² with 2 degrees of freedom; with ``errors`` (each answer's ``(e0, e1)``) the
    fit's likelihood is the label-noise model's (:func:`~.noisy.noisy_terms`). A map that
    reverses the bootstrap's order (slope ≤ 0) counts only where the slope is below 0 by
    two standard errors (p = 1 else): the answers must show the order reversed, not
    merely flat."""
    X = np.column_stack([np.ones(len(x)), x])
    w = np.asarray(weights, dtype=np.float64)
    _, d1, d2 = noisy_terms(X @ np.array([intercept, slope]), y, errors)
    bread = (X * (w * d2)[:, None]).T @ X
    score = X * (w * -d1)[:, None]
    if clusters is not None:
        _, inverse = np.unique(clusters, return_inverse=True)
        score = np.vstack([np.bincount(inverse, score[:, k]) for k in range(2)]).T
    try:
        inv = np.linalg.inv(bread)
        cov = inv @ (score.T @ score) @ inv
        d = np.array([intercept, slope - 1.0])
        stat = float(d @ np.linalg.solve(cov, d))
    except np.linalg.LinAlgError:
        return 1.0
    if slope <= 0 and not slope + 2 * np.sqrt(max(cov[1, 1], 0.0)) < 0:
        return 1.0
    return float(chi2.sf(stat, 2)) if np.isfinite(stat) else 1.0


def identity_prior_mode(x: np.ndarray, y: np.ndarray, w: np.ndarray, prior_sd: float,
                        errors: np.ndarray | None = None
                        ) -> tuple[np.ndarray, float, np.ndarray]:
    """The posterior mode ``(b, a)`` of the weighted logistic regression ``logit q = a · x
    + b`` under the prior a ~ N(1, prior_sd²), b ~ N(0, prior_sd²), with the negative log
    posterior there and its Hessian (:class:`IdentityPriorFit`); with ``errors`` (each
    answer's ``(e0, e1)``) the likelihood is the label-noise model's (:mod:`.noisy`)."""
    X = np.column_stack([np.ones(len(y)), x])
    prior, precision = np.array([0.0, 1.0]), np.eye(2) / prior_sd ** 2

    def loss(theta):  # the negative log posterior and its gradient
        nll, d1, _ = noisy_terms(X @ theta, y, errors)
        d = theta - prior
        return float(w @ nll + d @ precision @ d / 2), X.T @ (w * d1) + precision @ d

    def hessian(theta):
        d2 = noisy_terms(X @ theta, y, errors)[2]
        return (X * (w * d2)[:, None]).T @ X + precision

    # the noisy likelihood is flatter (each answer's pull is bounded): a finer tolerance
    options = {} if errors is None else {"gtol": 1e-11}
    theta = minimize(loss, prior, jac=True, hess=hessian, method="trust-exact",
                     options=options).x
    return theta, loss(theta)[0], hessian(theta)


class IdentityPriorFit:
    """Mixin for a :class:`~causalcal.edgecal.simulated.LogitLinearMap` fitted on a few
    answers: ``logit q = a · logit p + b`` at its posterior mode under a weak Gaussian prior
    around the identity (a = 1, b = 0; standard deviation :attr:`prior_sd`), the weights
    scaled to the number of answers (docs/design.md §9.12). Answers that the bootstrap's 0
    and 1 separate drive the unpenalised fit's slope without bound (0.000 and 1.000 out,
    lost on every pair it gets wrong); the prior keeps it finite."""

    prior_sd: float = 2.0

    def _solve(self, x, y, w, errors=None) -> tuple[float, float]:
        y = np.asarray(y, dtype=np.float64)
        theta, _, _ = identity_prior_mode(x, y, w * (len(w) / w.sum()), self.prior_sd,
                                          errors)
        return float(theta[0]), float(theta[1])


class DesignedAdjacency(IdentityPriorFit, SimulatedAdjacency):
    """The map of P(adjacent), ``logit q = a · logit p + b``, fitted by weighted logistic
    regression on answered pairs (weights ``1 / rate``: the population's fit); for a pair
    the bootstrap never joined, the population's average split over forward, backward
    (pooled) and undirected. Wrap it in
    :class:`~causalcal.edgecal.model.KeepDirectionSplit` to keep the bootstrap's split."""

    def fit(self, X, y, sample_weight=None, rows=None, row_counts=None,
            errors=None) -> DesignedAdjacency:
        """``X`` the answered pairs' inputs, ``y`` 1 where adjacent; ``rows`` and
        ``row_counts`` all pairs' distinct bootstrap rows (for the split); ``errors``
        each answer's ``(e0, e1)`` (:mod:`.noisy`; None: answers taken as right)."""
        X = np.asarray(X, dtype=np.float64)
        self._fit_samples(1.0 - X[:, 0], np.asarray(y), sample_weight, "adjacent and "
                          "non-adjacent", errors)
        w = np.ones(len(X)) if sample_weight is None else sample_weight
        self.calibration_p_ = calibration_test(self._logit(1.0 - X[:, 0]), y, w,
                                               self.slope_, self.intercept_, errors=errors)
        if rows is None:
            rows, row_counts = X, np.ones(len(X))
        mass = (np.asarray(rows)[:, 1:4] * np.asarray(row_counts)[:, None]).sum(axis=0)
        directed = (mass[0] + mass[1]) / 2
        split = np.array([directed, directed, mass[2]]) + 1e-9
        self.split_ = split / split.sum()
        return self


class DesignedCausal(IdentityPriorFit, SimulatedCausal):
    """The map of P(a causes b) (each direction alone), fitted by weighted logistic
    regression on the answered pairs' two ordered directions."""

    def fit(self, X, Y, sample_weight=None, errors=None) -> DesignedCausal:
        """``X`` the answered pairs' raw rows (neither, a causes b, b causes a), ``Y`` their
        allowed classes (exact answers); ``errors`` each answer's ``(e0, e1)``, from which
        each direction it settles takes its own (:func:`~.noisy.direction_rates`; None:
        answers taken as right)."""
        X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=bool)
        w = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, float)
        p, y = np.concatenate([X[:, 1], X[:, 2]]), np.concatenate([Y[:, 1], Y[:, 2]])
        both = None if errors is None else np.tile(direction_rates(errors), (2, 1))
        self._fit_samples(p, y.astype(int), np.concatenate([w, w]),
                          "causally related and unrelated", both)
        self.calibration_p_ = calibration_test(self._logit(p), y, np.concatenate([w, w]),
                                               self.slope_, self.intercept_,
                                               np.tile(np.arange(len(X)), 2), both)
        return self
