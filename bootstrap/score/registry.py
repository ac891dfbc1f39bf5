"""Every score by name, made with its parameters (docs/design.md §5.3).

:func:`get_score` (``"bdeu"``, ``"bic"``, ``"sem-bic"``, ``"dg-bic"``) returns a
:class:`~.protocol.Score`: the name and parameters, checked when made. The searches take
one (``fges(data, weights, score=get_score("bic", penalty_discount=2))``; a name alone
means its defaults). :func:`score_options` turns the flat options of the command line and
of earlier versions (``score="bic", penalty_discount=2``) into ``score=`` once, before a
bootstrap; :func:`flat_score_options` writes a score back in that flat form, which is
what a checkpoint's identity records (so runs of earlier versions resume).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from causalcal.errors import InputError

from .discrete.specs import BDeu, DiscreteBIC
from .gaussian.specs import DegenerateGaussianBIC, SemBIC
from .protocol import Score

__all__ = ["SCORE_PARAMETERS", "as_score", "available_scores", "flat_score_options",
           "get_score", "score_options"]

_SCORES: dict[str, type[Score]] = {
    cls.name: cls for cls in (BDeu, DiscreteBIC, SemBIC, DegenerateGaussianBIC)}
#: Every score parameter a search's options may carry flat (beside ``score``).
SCORE_PARAMETERS = tuple(dict.fromkeys(
    f.name for cls in _SCORES.values() for f in fields(cls)))
DEFAULT_SCORE = "bdeu"


def available_scores() -> list[str]:
    """The names :func:`get_score` accepts.

    Examples
    --------
    >>> from causalcal.bootstrap import available_scores
    >>> available_scores()
    ['bdeu', 'bic', 'dg-bic', 'sem-bic']
    """
    return sorted(_SCORES)


def get_score(name: str, **parameters: Any) -> Score:
    """The score called ``name`` (any case, ``_`` for ``-``) with ``parameters``; an
    unknown name or parameter, or a bad value, is an ``InputError`` naming it.

    Examples
    --------
    >>> from causalcal.bootstrap import get_score
    >>> get_score("sem_bic", penalty_discount=2)
    SemBIC(penalty_discount=2.0, sample_size='effective')
    >>> get_score("bdeu", penalty_discount=2)
    Traceback (most recent call last):
    ...
    causalcal.errors.InputError: score 'bdeu' has no parameter 'penalty_discount'; ...
    """
    key = str(name).strip().lower().replace("_", "-")
    cls = _SCORES.get(key)
    if cls is None:
        raise InputError(f"unknown score {name!r}; available: {', '.join(available_scores())}")
    accepted = [f.name for f in fields(cls)]
    unknown = sorted(set(parameters) - set(accepted))
    if unknown:
        takes = ", ".join(accepted) or "no parameters"
        raise InputError(f"score {cls.name!r} has no parameter {unknown[0]!r}; it takes {takes}")
    return cls(**parameters)


def as_score(score: Score | str) -> Score:
    """``score`` itself, or the score of that name with its defaults."""
    if isinstance(score, Score):
        return score
    if isinstance(score, str):
        return get_score(score)
    raise InputError(f"score must be a score name ({', '.join(available_scores())}) or a "
                     f"Score, got {type(score).__name__}")


def score_options(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with a flat ``score`` name and its parameters (``sample_prior``,
    ``penalty_discount``, …) made into one ``score=`` :class:`~.protocol.Score`; options
    without any are returned as they are. A parameter beside a ``Score`` object, or one
    the named score does not take, is an ``InputError``."""
    given = {k: options[k] for k in SCORE_PARAMETERS if k in options}
    if "score" not in options and not given:
        return dict(options)
    score = options.get("score", DEFAULT_SCORE)
    rest = {k: v for k, v in options.items() if k != "score" and k not in given}
    if isinstance(score, Score):
        if given:
            raise InputError(f"{', '.join(given)} given beside the score {score}; give the "
                             "parameters in the score")
        return {**rest, "score": score}
    return {**rest, "score": get_score(score, **given)}


def flat_score_options(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with ``score=`` written flat: ``score`` = its name (left out for BDeu,
    the default) and its parameters that differ from their defaults."""
    score = options.get("score")
    if not isinstance(score, Score):
        return dict(options)
    rest = {k: v for k, v in options.items() if k != "score"}
    named = {} if score.name == DEFAULT_SCORE else {"score": score.name}
    return {**rest, **named, **score.options()}
