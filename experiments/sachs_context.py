"""What experimental conditions as context (Joint Causal Inference; Mooij, Magliacane &
Claassen 2020) do to the bootstrap's raw P(A causes B) on the Sachs et al. (2005) data —
issue 40 item 4, docs/results.md "Sachs with context".

The 11 proteins in their own tertiles (as ``studies.misspec`` discretises them), searched
with the pooled rows' condition (:mod:`studies.discover_known.sachs_conditions`) as

- ``none``: left out (the pooled data as before);
- ``variable``: the condition index 0–8 as one more variable, no knowledge (what the
  column alone does);
- ``condition``: the condition index as one context column;
- ``reagents``: one 0/1 context column per reagent (ICAM-2, the AKT inhibitor, G06976,
  psitectorigenin, U0126, LY294002, PMA, β2cAMP; CD3/CD28 is the absence of the last
  two), targets unknown;
- ``targets``: those columns with the targets Sachs et al. name (ICAM-2's unknown).

The measure: AUROC of raw P(A causes B) over the 110 ordered protein pairs against the
consensus network's ancestry (both ways for a pair on its feedback cycle), as
``studies.misspec.measures``; beside it the AUROC of P(adjacent) over the 55 protein
pairs, their expected number of edges and the directed share of it (tail–arrow
edges: a → b in a CPDAG, a --> b in a PAG). One JSON line per
(search, variant) is appended to ``results/sachs_context.jsonl``.

    python -m experiments.sachs_context --n-boot 100 --jobs 2 [--search fges|boss|gfci]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from causalcal.bootstrap import bootstrap_edge_probabilities
from causalcal.causal import CausalProbabilities
from causalcal.data import DiscreteData, discretize
from causalcal.knowledge import Context, Knowledge
from causalcal.metrics import roc_auc
from causalcal.pairs import pair_index
from studies.discover_known.cases import SACHS_DATA, SACHS_DIR
from studies.discover_known.sachs_conditions import SACHS_CONDITIONS, label_conditions
from studies.misspec.cases import BOTH_WAYS, sachs

VARIANTS = ("none", "variable", "condition", "reagents", "targets")
OUT = Path("results/sachs_context.jsonl")
#: the edge types with a tail at one end and an arrowhead at the other (CPDAG and PAG)
DIRECTED = ("p_forward", "p_backward", "p_tail_arrow", "p_arrow_tail")
#: reagent column -> the conditions (0-8) that got it
REAGENTS = {"icam2": (1,), "aktinhib": (2,), "g0076": (3,), "psitect": (4,), "u0126": (5,),
            "ly": (6,), "pma": (7,), "b2camp": (8,)}


def variant_data(variant: str) -> tuple[DiscreteData, Knowledge | None]:
    """The proteins in tertiles with the variant's context columns, and its knowledge."""
    raw = pd.read_csv(SACHS_DIR / SACHS_DATA)
    proteins = discretize(raw, "quantile", 3, columns=list(raw.columns))
    condition = label_conditions(raw, tuple(c.rows for c in SACHS_CONDITIONS))["condition"]
    if variant == "none":
        return DiscreteData.from_frame(proteins), None
    if variant in ("variable", "condition"):
        return (DiscreteData.from_frame(proteins.assign(condition=condition)),
                Knowledge(context=["condition"]) if variant == "condition" else None)
    columns = {name: np.isin(condition, rows).astype(int) for name, rows in REAGENTS.items()}
    targets = {name: SACHS_CONDITIONS[rows[0]].targets for name, rows in REAGENTS.items()}
    context = [Context(name, (targets[name] or None) if variant == "targets" else None)
               for name in REAGENTS]
    return DiscreteData.from_frame(proteins.assign(**columns)), Knowledge(context=context)


def protein_measures(probs, n_proteins: int, edge_truth: np.ndarray,
                     causal_truth: np.ndarray) -> dict:
    """Over the protein pairs (the first ``n_proteins`` variables): the AUROC of P(a causes
    b) over ordered pairs against the consensus network's ancestry, the AUROC of
    P(adjacent) against its arcs, the expected number of adjacent pairs and the share of
    that which is directed."""
    i, j = np.triu_indices(n_proteins, 1)
    rows = pair_index(i, j, len(probs.names))
    p = CausalProbabilities.from_counts(probs.ancestral, probs.names).dense(np.float64)[rows]
    y = np.concatenate([(causal_truth == 1) | (causal_truth == BOTH_WAYS),
                        (causal_truth == 2) | (causal_truth == BOTH_WAYS)]).astype(np.int64)
    edges = probs.dense(np.float64)[rows]
    adjacent = 1.0 - edges[:, 0]
    directed = [k for k, c in enumerate(probs.columns) if c in DIRECTED]
    return {"causes_auroc": round(roc_auc(y, np.concatenate([p[:, 1], p[:, 2]])), 4),
            "adj_auroc": round(roc_auc((edge_truth != 0).astype(np.int64), adjacent), 4),
            "expected_edges": round(float(adjacent.sum()), 2),
            "directed_share": round(float(edges[:, directed].sum() / adjacent.sum()), 4)}


def run(variant: str, search: str, n_boot: int, jobs: int) -> dict:
    data, knowledge = variant_data(variant)
    truth_data, edge_truth, causal_truth, _ = sachs(observational=False)
    n_proteins = truth_data.n_vars
    assert data.names[:n_proteins] == truth_data.names
    start = time.perf_counter()
    probs = bootstrap_edge_probabilities(data, n_boot=n_boot, search=search, seed=0,
                                         n_jobs=jobs, ancestral=True, progress=False,
                                         knowledge=knowledge)
    return {"variant": variant, "search": search, "n_boot": n_boot,
            **protein_measures(probs, n_proteins, edge_truth, causal_truth),
            "context": [] if knowledge is None else [c.column for c in knowledge.context],
            "seconds": round(time.perf_counter() - start, 1), "jobs": jobs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-boot", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--search", default="fges")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    for variant in args.variants:
        record = run(variant, args.search, args.n_boot, args.jobs)
        print(json.dumps(record), flush=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a") as handle:
            handle.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
