"""``discover`` with a scientist's known relations vs raw bootstrap frequencies (issue 26).

    python -m studies.discover_known [--networks asia sachs … sachs-real] [--n 500 2000]
        [--schemes random10 random20 cpdag10 easy10] [--draws 10] [--n-boot 200]
        [--jobs 1] [--tag baseline] [--kwargs '{"calibrator": "temperature"}']
        [--simulations R] [--relations edges|causal] [--summary]

Run from the repository root. For every case (a shipped benchmark network sampled at
each ``--n``, seeded, columns shuffled; ``sachs-real``: Sachs et al.'s flow-cytometry
data in tertiles with the consensus network; :mod:`.cases`) the bootstrap (``--n-boot``
replicates, seed 0) is computed once and cached in ``results/discover_known/cache/``
(ignored by git). For every scheme and draw a known set is drawn (seeded by case, scheme
and draw; :mod:`.draws`), :func:`.draws.calibrate_draw` is called (``causalcal.discover``
with the cached probabilities; ``--kwargs`` adds keyword arguments), and the raw and
calibrated measures on the held-out pairs are appended as one line to
``results/discover_known/TAG.jsonl`` (:mod:`.records`). Draws already in that file are
skipped, so a run resumes; ``--summary`` rebuilds the table and the acceptance checks
from the records alone (:mod:`.summary`) and writes
``docs/results/discover_known/summary-TAG.md`` (with ``--schemes`` also given, of those
schemes only: ``summary-TAG-SCHEME….md``).

``--relations causal`` (issue 30) measures causal relations instead ("a causes b,
possibly through other variables"; :mod:`.causal`): the same cases, with the
bootstrap's ancestral counts cached as ``CASE_bNBOOT_anc.npz`` (with ``--simulations R``
the simulated causal pairs as ``CASE_bNBOOT_simR_anc.table.npz``), its own schemes
(default ``random10 random20``; also ``direct10``), records in ``causal-TAG.jsonl``
(``TAG.jsonl`` when it begins with ``causal``) and the summary ``summary-causal-TAG.md``
(likewise).

``causalcal.discover`` is called in exactly two places, one per kind of relation:
:func:`.draws.calibrate_draw` and :func:`.causal.calibrate_draw`.
"""
