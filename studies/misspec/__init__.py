"""The misspecification benchmark: the raw bootstrap on data no discrete BN over the
observed variables generated (issue 39, item 1; docs/design.md §9.11).

    python -m studies.misspec [--families …] [--n 500 2000 8000] [--seeds 0 1 2]
        [--no-sachs] [--cases NAME …] [--n-boot 200] [--jobs 2] [--summary]

Cases (:mod:`.cases`): ``FAMILY-nN-sSEED`` for the families ``hidden-alarm``,
``hidden-insurance``, ``hidden-child``, ``latent``, ``additive``, ``nonadditive``,
``pooled``, ``noise-alarm`` (generators of :mod:`causalcal.simulate.misspecified`), and
``sachs-all``, ``sachs-obs``. Each is bootstrapped once (``n_boot`` = 200, ancestral,
seed 0) and cached in ``results/misspec/cache/`` (ignored by git); its measures
(:mod:`.measures`) are one line of ``results/misspec/raw.jsonl``.

Other code reads a case with :func:`load_case`.
"""

from .cases import SACHS_CASES, all_cases, case_name, load_case

__all__ = ["SACHS_CASES", "all_cases", "case_name", "load_case"]
