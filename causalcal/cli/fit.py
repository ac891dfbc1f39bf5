"""Parameters for a structure (bnlearn's ``bn.fit``; docs/design.md §4): a Bayesian
network written as a BIF file.

The structure is the averaged network of bootstrap probabilities (--probabilities) or a
graph file (--structure); undirected edges are oriented into a DAG extension and each
CPT row is the BDeu posterior mean (--ess). The data are read as for `bootstrap`.

examples:
  causalcal bootstrap data.csv --n-boot 200 --out boot.csv
  causalcal fit data.csv --probabilities boot.csv --out net.bif
  causalcal fit data.csv --structure net.json --ess 10 --out net.bif
"""

from __future__ import annotations

import argparse

from causalcal.cli._real_data_options import add_data_arguments, load_data, threshold_value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="CSV file with a header row, as given to bootstrap")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--probabilities", metavar="P.csv|P.npz",
                        help="bootstrap probabilities of the data (causalcal bootstrap): "
                             "fit their averaged network")
    source.add_argument("--structure", metavar="NET.json|NET.gml|NET.graphml|NET.dot",
                        help="fit this graph (its names must be the data's columns)")
    parser.add_argument("--threshold", type=threshold_value, default=0.5, metavar="T",
                        help="with --probabilities: P(adjacent) an edge needs (0.5), or "
                             "'estimated' (bnlearn's threshold from all pairs' P(adjacent))")
    parser.add_argument("--ess", type=float, default=1.0,
                        help="equivalent sample size of the Dirichlet prior (1), split "
                             "evenly over each node's parent configurations and states")
    parser.add_argument("--out", "-o", required=True, help="the network: a .bif file")
    parser.add_argument("--quiet", action="store_true",
                        help="do not list the bins of binned columns (warnings still show)")
    parser.add_argument("--max-arity", type=int, default=20,
                        help="most categories a column may have (20), as for bootstrap")
    add_data_arguments(parser, column_kinds=False)


def _structure(args: argparse.Namespace, data):
    """The graph to fit, with a one-line description."""
    from causalcal.errors import InputError

    if args.structure is not None:
        from causalcal.graph_io import read_graph

        graph = read_graph(args.structure)
        extra = [f"only in {where}: {', '.join(map(repr, sorted(names)[:5]))}"
                 + (" …" if len(names) > 5 else "")
                 for where, names in (("the graph", set(graph.names) - set(data.names)),
                                      ("the data", set(data.names) - set(graph.names)))
                 if names]
        if extra:
            raise InputError(f"{args.structure}: its variables are not the data's columns "
                             f"({'; '.join(extra)})")
        return graph, f"the graph of {args.structure}"
    from causalcal.bootstrap import data_for
    from causalcal.cli._real_data_options import threshold_text
    from causalcal.edges import EdgeProbabilities
    from causalcal.pag_edges import PAGEdgeProbabilities

    probs = EdgeProbabilities.load(args.probabilities)
    if isinstance(probs, PAGEdgeProbabilities):
        raise InputError(f"{args.probabilities}: a PAG's edge types (a --search gfci "
                         "bootstrap): their marks are not arcs; fit needs the probabilities "
                         "of a CPDAG search (fges, boss, ges, pc) or --structure with a DAG "
                         "or CPDAG")
    data_for(probs, data, args.probabilities)  # the data they were computed from
    return (probs.averaged_network(args.threshold),
            f"the averaged network (P(adjacent) {threshold_text(probs, args.threshold)})")


def run(args: argparse.Namespace) -> int:
    import math

    from causalcal.cli import CLIError, check_output_file
    from causalcal.cli._paths import BIF, FilePlan

    check_output_file(args.out, "--out", (".bif",))
    if not (math.isfinite(args.ess) and args.ess > 0):
        raise CLIError(f"--ess must be a positive number, got {args.ess:g}")
    plan = FilePlan(args.force)
    plan.read("DATA", args.data)
    plan.read("--probabilities", args.probabilities, sidecar=True)
    plan.read("--structure", args.structure)
    plan.write("--out", args.out, BIF)
    plan.check()
    from causalcal.simulate import fit_network, write_bif

    data = load_data(args)
    graph, what = _structure(args, data)
    network = fit_network(data, graph, args.ess)
    write_bif(network, args.out, {"ess": f"{args.ess:g}"})
    print(f"wrote {args.out}: {what} as a DAG of {network.n_edges} arcs over "
          f"{network.n_vars} variables, {network.n_parameters} free parameters; CPTs the "
          f"posterior means under a BDeu prior of equivalent sample size {args.ess:g}")
    return 0
