"""Pairs joined only by a hidden common cause: what the GFCI bootstrap says of them beside
the FGES bootstrap (issue 40's acceptance; docs/results.md "PAG edge types").

For the hidden-confounder cases of the misspecification benchmark (docs/design.md §9.11;
bootstraps cached by ``studies.misspec.cases.cached_case``: FGES 200 replicates, GFCI
``--n-boot``), the pairs of observed children of one hidden node that the observed DAG
does not join by an arc and neither of which causes the other. Per case, their mean raw
PAG probabilities — of a definite arc (``-->`` or ``<--``), of ``<->``, of any edge, of
an arc (any edge but ``<->``) — and the FGES bootstrap's P(adjacent) and P(directed) on
the same pairs; the acceptance line asks the mean P(definite arc) below 0.2. Also, over
every pair, the Brier score of P(arc) (PAG) and P(adjacent) (FGES) against the observed
DAG's arcs, and the seven PAG edge types against the true PAG (``evaluate.pag_metrics``:
accuracy, overall and per-type ECE).

    python -m experiments.pag_hidden_pairs                 # the cases cached
    python -m experiments.pag_hidden_pairs --compute       # bootstrap the missing ones
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from causalcal.evaluate.pag_metrics import pag_edge_metrics
from causalcal.pairs import PAGEdgeType, pair_index
from causalcal.simulate import load_network
from studies.discover_known.cases import stable_seed
from studies.misspec.cases import (
    CACHE,
    FAMILIES,
    SEEDED_AS,
    case_name,
    load_case,
    pag_truth,
    parse_name,
)

RECORDS = Path(__file__).resolve().parents[1] / "results" / "pag" / "hidden_pairs.jsonl"
HIDDEN = ("hidden-alarm", "hidden-insurance", "hidden-child", "latent")


def confounded_pairs(case: str) -> np.ndarray:
    """Pair keys (data order) of two observed children of one hidden node that the
    observed DAG does not join by an arc and neither of which causes the other (so the
    hidden cause is all that joins them: ``<->`` in the true MAG if adjacent; where one
    causes the other the MAG joins them by an arc, ``-->``, rightly)."""
    family, n, seed = parse_name(case)
    made = FAMILIES[family](n, stable_seed("misspec", SEEDED_AS.get(family, family), seed))
    names = made.names
    index = {v: k for k, v in enumerate(names)}
    if family == "latent":
        groups = made.details["latent_children"]
    else:
        net = load_network(family.split("-", 1)[1])
        hidden = {net.names.index(h) for h in made.details["hidden"]}
        groups = [[net.names[c] for c in range(net.n_vars) if h in set(net.parents[c])
                   and net.names[c] in index] for h in hidden]
    keys = set()
    for group in groups:
        for a in group:
            for b in group:
                if index[a] < index[b]:
                    keys.add(int(pair_index(index[a], index[b], len(names))))
    keys = np.array(sorted(keys), dtype=np.int64)
    return keys[(made.edge_truth[keys] == 0) & (made.causal_truth[keys] == 0)]


def measure(case: str, n_boot: int) -> dict:
    """The record of one case (see the module)."""
    _, fges_probs, edge_truth, _ = load_case(case)
    _, pag_probs, _, _ = load_case(case, n_boot=n_boot, search="gfci")
    keys = confounded_pairs(case)
    P, F = pag_probs.dense(np.float64), fges_probs.dense(np.float64)
    arc = pag_probs.p_arc()
    y = (np.asarray(edge_truth) != 0).astype(float)
    on = {"pairs": len(keys),
          "pag_definite_arc": P[keys][:, [PAGEdgeType.TAIL_ARROW, PAGEdgeType.ARROW_TAIL]]
          .sum(axis=1).mean() if len(keys) else None,
          "pag_bidirected": P[keys, PAGEdgeType.ARROW_ARROW].mean() if len(keys) else None,
          "pag_adjacent": (1.0 - P[keys, 0]).mean() if len(keys) else None,
          "pag_arc": arc[keys].mean() if len(keys) else None,
          "fges_adjacent": (1.0 - F[keys, 0]).mean() if len(keys) else None,
          "fges_directed": F[keys][:, 1:3].sum(axis=1).mean() if len(keys) else None}
    true_pag = pag_truth(case)
    m = pag_edge_metrics(P, true_pag)
    return {"case": case, "n_boot_gfci": n_boot, **{k: v if v is None else float(v)
                                                    for k, v in on.items()},
            "pairs": len(keys),
            **{f"true_pag_{k}": m[k] for k in ("accuracy", "overall_ece", "overall_brier",
                                               "arc_ece", "arc_brier", "tail_arrow_ece",
                                               "arrow_arrow_recall", "arrow_arrow_precision")},
            "pag_arc_brier_all": float(np.mean((arc - y) ** 2)),
            "fges_adjacent_brier_all": float(np.mean((1.0 - F[:, 0] - y) ** 2))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.pag_hidden_pairs",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 8000])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--n-boot", type=int, default=100, help="GFCI replicates (100)")
    parser.add_argument("--compute", action="store_true",
                        help="bootstrap cases not cached yet (else they are skipped)")
    args = parser.parse_args(argv)
    rows = []
    for seed in args.seeds:
        for n in args.sizes:
            for family in HIDDEN:
                case = case_name(family, n, seed)
                if not args.compute and not (CACHE / f"{case}.gfci.npz").is_file():
                    continue
                rows.append(measure(case, args.n_boot))
                r = rows[-1]
                print(f"{case:28s} {r['pairs']:3d} pairs: PAG definite arc "
                      f"{r['pag_definite_arc'] or 0:.3f}, <-> {r['pag_bidirected'] or 0:.3f}, "
                      f"arc {r['pag_arc'] or 0:.3f}; FGES adjacent {r['fges_adjacent'] or 0:.3f}"
                      f" | Brier all pairs PAG P(arc) {r['pag_arc_brier_all']:.4f}, FGES "
                      f"P(adj) {r['fges_adjacent_brier_all']:.4f} | true PAG: accuracy "
                      f"{r['true_pag_accuracy']:.3f}, ECE {r['true_pag_overall_ece']:.4f}",
                      flush=True)
    RECORDS.parent.mkdir(parents=True, exist_ok=True)
    with open(RECORDS, "w", encoding="utf-8") as handle:
        for r in rows:
            handle.write(json.dumps(r) + "\n")
    weights = np.array([r["pairs"] for r in rows], dtype=float)
    for key in ("pag_definite_arc", "pag_bidirected", "pag_arc", "fges_adjacent"):
        values = np.array([r[key] or 0.0 for r in rows])
        print(f"mean over {int(weights.sum())} pairs: {key} "
              f"{np.sum(values * weights) / max(weights.sum(), 1):.3f}; over cases "
              f"{np.mean([r[key] for r in rows if r[key] is not None]):.3f}")


if __name__ == "__main__":
    main()
