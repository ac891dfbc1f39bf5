"""A real data set end to end: scikit-learn's bundled diabetes data (Efron et al. 2004).

442 patients, ten baseline variables (age, sex, body-mass index ``bmi``, mean blood
pressure ``bp`` and six blood serum measurements ``s1``–``s6``) and ``target``, a measure
of disease progression one year later. The data ship with scikit-learn
(``sklearn.datasets.load_diabetes``), so this runs offline.

What the example does, in order:

1. **Discretisation** — every continuous column into 3 equal-frequency bins
   (:func:`causalcal.data.discretize`); ``sex`` (two values) stays as it is.
2. **Background knowledge** (:class:`causalcal.Knowledge`) — tiers: ``age`` and ``sex``
   first (nothing measured here causes them), the baseline measurements second, the
   one-year ``target`` last; and neither of age and sex causes the other.
3. **discover** with known relations: ``s4`` is defined as total cholesterol / HDL
   (``s1 / s3``, scikit-learn's documentation of the data), so ``s1 → s4`` and ``s3 → s4``
   are arcs and ``s4`` is adjacent to nothing else we list (age, sex, bmi, bp, s6); age
   and sex are unrelated; ``age → bp`` and ``bmi → bp`` (blood pressure rises with age
   and with body weight) and ``bmi → s6`` (obesity raises fasting glucose) are taken from
   the medical literature as direct effects.
4. **The averaged network** of the calibrated probabilities, written as GML (Gephi,
   networkx), DOT (Graphviz) and JSON, and handed to causal-learn and pgmpy.
5. **Figures**: the network with edge width by probability, and the reliability of
   P(no edge) on the known pairs.

What it shows, honestly: the workflow on a real, continuous data set, and that the
knowledge is obeyed (no arc into age or sex, none out of target). It does **not**
validate the discovered relations: there is no ground truth for this data, the known
relations above are few and partly assumptions, a discretised 442-row sample carries
little information, ``s4`` is a deterministic function of ``s1`` and ``s3`` (which
strains the search's assumptions), and ``n_boot`` is small so the example runs in well
under a minute. With eleven known pairs the calibrator has little to learn from: the
printed cross-validated log-loss on the known pairs can be worse after calibration than
before (it is, at the defaults), and then the bootstrap frequencies (``boot_*``) are the
better guide. Treat the ranked pairs as hypotheses, not findings.

Run: ``python examples/diabetes_discovery.py --out diabetes-out [--n-boot 30]``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
from sklearn.datasets import load_diabetes

import causalcal
from causalcal.bootstrap import BootstrapSettings
from causalcal.data import DiscreteData, discretize
from causalcal.graph_io import to_causallearn, to_pgmpy, write_graph

TIERS = {"age": 0, "sex": 0, "bmi": 1, "bp": 1, "s1": 1, "s2": 1, "s3": 1, "s4": 1, "s5": 1,
         "s6": 1, "target": 2}
KNOWN = [("s1", "s4", "->"), ("s3", "s4", "->"), ("age", "bp", "->"), ("bmi", "bp", "->"),
         ("bmi", "s6", "->"), ("s4", "age", "none"), ("s4", "sex", "none"),
         ("s4", "bmi", "none"), ("s4", "bp", "none"), ("s4", "s6", "none"),
         ("age", "sex", "none")]


def main(out: Path, n_boot: int = 30, seed: int = 0):
    """Run the workflow, write its files to ``out``; return the DiscoveryResult."""
    out.mkdir(parents=True, exist_ok=True)
    frame = load_diabetes(as_frame=True, scaled=False).frame
    binned = discretize(frame, method="quantile", n_bins=3)
    for name, edges in binned.attrs["bin_edges"].items():
        print(f"{name}: bins at {', '.join(f'{e:.4g}' for e in edges[1:-1])}")
    data = DiscreteData.from_frame(binned)

    knowledge = causalcal.Knowledge(forbidden=[("age", "sex"), ("sex", "age")], tiers=TIERS)
    known = pd.DataFrame(KNOWN, columns=["a", "b", "relation"])
    settings = BootstrapSettings(n_boot=n_boot, seed=seed, knowledge=knowledge, progress=False)
    result = causalcal.discover(data, known, bootstrap=settings)
    print(result.summary(top=8))
    result.table.to_csv(out / "edges.csv", index=False, float_format="%.6g")

    network = result.averaged_network(0.5)
    strengths = result.network_probabilities(0.5).edge_strengths(network)
    for suffix in (".gml", ".dot", ".json"):
        write_graph(network, out / f"network{suffix}", edge_data=strengths)
    causallearn_graph = to_causallearn(network)  # causal-learn's GeneralGraph
    print(f"causal-learn graph with {len(causallearn_graph.get_graph_edges())} edges")
    try:
        pgmpy_graph = to_pgmpy(network)
        print(f"pgmpy PDAG: {len(pgmpy_graph.directed_edges)} directed, "
              f"{len(pgmpy_graph.undirected_edges)} undirected edges")
    except ImportError as err:  # the optional extra 'bif'
        print(err)

    try:
        from causalcal.figures.plots import plot_network, plot_reliability
    except ImportError:  # pragma: no cover - the plots module needs only numpy itself
        return result
    try:
        plot_network(result.network_probabilities(0.5), 0.5).savefig(out / "network.png")
        plot_reliability(*result.known_reliability(), labels=("bootstrap", "calibrated"),
                         title="known pairs (in-sample)").savefig(out / "reliability.png")
    except ImportError as err:  # matplotlib is the optional extra 'plot'
        print(err)
    print(f"wrote edges.csv, network.gml/.dot/.json and the figures to {out}")
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("diabetes-out"))
    parser.add_argument("--n-boot", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    main(args.out, args.n_boot, args.seed)
