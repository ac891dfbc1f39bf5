"""The Sachs et al. (2005) proteins searched unbinned (issue 50): the averaged network's
adjacency and arrowhead precision and recall against the 18-arc consensus, beside the
binned BDeu route and FASK's published mark (Ramsey & Andrews 2018: 0.63 / 0.75 / 0.57 /
0.71).

    python -m experiments.sachs_unbinned [--n-boot 50] [--jobs 2]
        [--out results/continuous/sachs_unbinned.jsonl]
    python -m experiments.sachs_unbinned --summary results/continuous/sachs_unbinned.jsonl

The 7,466 rows pooled over the nine conditions (``studies/discover_known/data/sachs``),
each route bootstrapped (seed 0), the averaged network at P(adjacent) ≥ 0.5 (an arc a → b
where more than half of it is a → b): adjacency precision and recall over the 55 protein
pairs, arrowhead precision (arcs drawn that are consensus arcs, over the arcs drawn) and
recall (over the consensus arcs), as Tetrad's statistics count them; beside them the
AUROC of P(adjacent) and of P(a causes b) (``experiments.sachs_context``'s measures).
Routes: ``sem-bic`` on the raw and on the log-transformed values, ``dg-bic`` with the
condition index (0–8) as a context column (raw and log), and BDeu on tertiles and
quintiles (with and without the condition as context).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from causalcal._io import atomic_write
from causalcal.bootstrap import bootstrap_edge_probabilities
from causalcal.data import ColumnKinds, DiscreteData, MixedData, discretize
from causalcal.knowledge import Knowledge
from experiments.sachs_context import protein_measures
from studies.discover_known.cases import SACHS_DATA, SACHS_DIR
from studies.discover_known.sachs_conditions import SACHS_CONDITIONS, label_conditions
from studies.misspec.cases import sachs

ROUTES = ("sem-bic", "sem-bic-log", "dg-bic-context", "dg-bic-context-log",
          "bdeu-tertiles", "bdeu-quintiles", "bdeu-tertiles-context")
FASK = {"adj_precision": 0.63, "adj_recall": 0.75, "arrow_precision": 0.57,
        "arrow_recall": 0.71}


def route_data(route: str):
    """The route's table, its search options and its knowledge."""
    raw = pd.read_csv(SACHS_DIR / SACHS_DATA)
    proteins = list(raw.columns)
    if route.endswith("log"):
        raw = np.log(raw)
    condition = label_conditions(pd.read_csv(SACHS_DIR / SACHS_DATA),
                                 tuple(c.rows for c in SACHS_CONDITIONS))["condition"]
    context = "context" in route
    knowledge = Knowledge(context=["condition"]) if context else None
    if route.startswith("bdeu"):
        binned = discretize(raw, "quantile", 3 if "tertiles" in route else 5, columns=proteins)
        frame = binned.assign(condition=condition) if context else binned
        return DiscreteData.from_frame(frame), {}, knowledge
    frame = raw.assign(condition=condition) if context else raw
    if route.startswith("sem-bic"):
        return MixedData.from_frame(frame, data_kind="continuous"), {"score": "sem-bic"}, None
    data = MixedData.from_frame(frame, kinds=ColumnKinds(continuous=tuple(proteins)),
                                keep_discrete=["condition"])
    return data, {"score": "dg-bic"}, knowledge


def network_measures(probs, n_proteins: int, truth_arcs: set[tuple[int, int]]) -> dict:
    """Adjacency and arrowhead precision and recall of the averaged network (≥ 0.5) over
    the protein pairs."""
    graph = probs.averaged_network(0.5)
    arcs = {(int(a), int(b)) for a, b in graph.directed_edges()
            if a < n_proteins and b < n_proteins}
    edges = {frozenset(map(int, e)) for e in graph.undirected_edges()
             if max(e) < n_proteins} | {frozenset(a) for a in arcs}
    true_adj = {frozenset(a) for a in truth_arcs}
    hits = len(edges & true_adj)
    arrow_hits = len(arcs & truth_arcs)
    return {"adj_precision": round(hits / max(len(edges), 1), 3),
            "adj_recall": round(hits / len(true_adj), 3),
            "arrow_precision": round(arrow_hits / max(len(arcs), 1), 3),
            "arrow_recall": round(arrow_hits / len(truth_arcs), 3),
            "edges": len(edges), "arcs": len(arcs)}


def run(route: str, n_boot: int, jobs: int) -> dict:
    data, options, knowledge = route_data(route)
    truth_data, edge_truth, causal_truth, _ = sachs(observational=False)
    n = truth_data.n_vars
    target = pd.read_csv(SACHS_DIR / "cyto_full_target.csv")
    index = {name: k for k, name in enumerate(truth_data.names)}
    arcs = {(index[a], index[b]) for a, b in zip(target["Cause"], target["Effect"])}
    start = time.perf_counter()
    probs = bootstrap_edge_probabilities(data, n_boot=n_boot, seed=0, n_jobs=jobs,
                                         ancestral=True, progress=False, knowledge=knowledge,
                                         **options)
    return {"route": route, "n_boot": n_boot, **network_measures(probs, n, arcs),
            **protein_measures(probs, n, edge_truth, causal_truth),
            "seconds": round(time.perf_counter() - start, 1)}


def summary_table(records: list[dict]) -> list[str]:
    """A markdown table of the routes' records with FASK's mark as its last row."""
    keys = ("adj_precision", "adj_recall", "arrow_precision", "arrow_recall", "edges",
            "arcs", "adj_auroc", "causes_auroc")
    lines = ["| route | n_boot | " + " | ".join(keys) + " |", "|---|---|" + "---|" * len(keys)]
    lines += [f"| {r['route']} | {r['n_boot']} | " + " | ".join(str(r[k]) for k in keys)
              + " |" for r in records]
    lines.append("| FASK (Ramsey & Andrews 2018), one search | – | "
                 + " | ".join(str(FASK.get(k, "–")) for k in keys) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-boot", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--routes", nargs="+", default=list(ROUTES), choices=ROUTES)
    parser.add_argument("--out", default="results/continuous/sachs_unbinned.jsonl")
    parser.add_argument("--summary", metavar="JSONL",
                        help="print the table of these records and run nothing")
    args = parser.parse_args()
    if args.summary:
        lines = Path(args.summary).read_text(encoding="utf-8").splitlines()
        print("\n".join(summary_table([json.loads(line) for line in lines if line])))
        return
    records = []
    for route in args.routes:
        records.append(run(route, args.n_boot, args.jobs))
        print(json.dumps(records[-1]), flush=True)
    print(f"FASK (Ramsey & Andrews 2018), one search with the conditions: {json.dumps(FASK)}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(out, encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in records)


if __name__ == "__main__":
    main()
