"""Simulate a discrete Bayesian network and a data set from it (thesis §6.2.4 steps 1–2).

Either a random network like the thesis's (uniform random DAG with --edges edges over
--nodes variables, arities drawn from --arities, flat-Dirichlet CPT rows) or a standard
benchmark network (--network alarm; see --list-networks) or a BIF file (--bif FILE).

Continuous and mixed data (--kind): a random linear-Gaussian SEM, a nonlinear additive
SEM (arcs tanh, sin or square) or a mixed network (discrete nodes with multinomial
logistic links, continuous ones conditional Gaussian); search them with --score sem-bic
(continuous) or dg-bic (mixed).

Examples:
  causalcal simulate --nodes 1000 --edges 2000 --samples 1000 --seed 0 --out sim/
  causalcal simulate --network alarm --samples 5000 --seed 1 --out alarm/
  causalcal simulate --kind linear-gaussian --nodes 30 --edges 45 --samples 1000 --out lg/

Writes into --out:
  network.json  the network (DAG + CPTs), readable by causalcal.simulate.BayesianNetwork.load
                (with --kind: the structural model, causalcal.simulate.StructuralModel.load)
  data.csv      --samples rows, one column per variable, state labels as values
  truth.csv     a,b,relation for every adjacent pair of the true CPDAG (names, a before b
                in variable order); relation is '->' (a→b), '<-' (b→a) or '--' (undirected);
                a variable without any edge gets one 'none' row, so every variable appears
"""

from __future__ import annotations

import argparse
import os

from causalcal.cli import CLIError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_argument_group("network (choose one)")
    src.add_argument("--nodes", type=int, help="number of variables of a random network")
    src.add_argument("--edges", type=int, help="number of edges of a random network")
    src.add_argument("--network", metavar="NAME",
                     help="a shipped benchmark network by name, e.g. alarm (see "
                          "--list-networks), or a network.json file given as a path (one "
                          "with a '/' or ending in .json); the output says which was used")
    src.add_argument("--bif", metavar="FILE", help="a BIF file (needs the 'bif' extra: pgmpy)")
    src.add_argument("--load", metavar="FILE", help="a network.json written earlier")
    src.add_argument("--list-networks", action="store_true",
                     help="print the shipped benchmark network names and exit")
    rand = parser.add_argument_group("random network options")
    rand.add_argument("--arities", type=int, nargs="+", default=[2, 3], metavar="K",
                      help="allowed arities, each node draws one uniformly (default: 2 3)")
    rand.add_argument("--max-in-degree", type=int, default=None, metavar="K",
                      help="bound the number of parents of every node (default: none)")
    rand.add_argument("--kind", default="discrete",
                      choices=("discrete", "linear-gaussian", "nonlinear", "mixed"),
                      help="discrete (default: CPTs), or a random structural model of "
                           "continuous or mixed data: linear-gaussian, nonlinear (additive "
                           "tanh/sin/square arcs) or mixed (see above)")
    rand.add_argument("--discrete-fraction", type=float, default=0.5, metavar="P",
                      help="with --kind mixed: the share of discrete nodes (0.5); their "
                           "arities are drawn from --arities")
    parser.add_argument("--samples", type=int, default=1000, help="rows of data (default 1000)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed for the network and the data (default 0)")
    parser.add_argument("--out", metavar="DIR", help="output folder (created if missing)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    parser.add_argument("--no-progress", action="store_true",
                        help=argparse.SUPPRESS)  # the old spelling of --quiet, deprecated


def _plan_files(args: argparse.Namespace, out) -> None:
    """Inputs and outputs, checked; existing outputs are kept unless --force."""
    from causalcal.cli._paths import NEW, FilePlan

    plan = FilePlan(args.force)
    plan.read("--bif", args.bif)
    plan.read("--load", args.load)
    if args.network and _is_file_path(args.network):
        plan.read("--network", args.network)
    for name in ("network.json", "data.csv", "truth.csv"):
        plan.write(f"--out's {name}", out / name, NEW)
    plan.check()


def _is_file_path(network: str) -> bool:
    """``--network`` names a file (a path with a folder, or a .json file), not a shipped
    network."""
    return "/" in network or os.sep in network or network.lower().endswith(".json")


def _network(name: str):
    """``--network``: the network and what it is, in words (a shipped one, one of
    pgmpy's, or a file)."""
    from causalcal.simulate import BayesianNetwork, available_networks, load_network

    if _is_file_path(name):
        return BayesianNetwork.load(name), f"network file {name}"
    shipped = name.strip().lower() in available_networks()
    net = load_network(name)
    return net, f"{'shipped' if shipped else 'pgmpy bnlearn'} network {name.strip().lower()}"


def _model(args: argparse.Namespace, random_given: bool, seed, progress):
    """The network (or structural model) to sample, and where it came from in words."""
    from causalcal.simulate import BayesianNetwork, from_bif, random_network, random_sem

    if args.kind != "discrete":
        if not random_given or args.nodes is None or args.edges is None:
            raise CLIError(f"--kind {args.kind} draws a random model: give --nodes and --edges")
        if not 0 <= args.discrete_fraction <= 1:
            raise CLIError(f"--discrete-fraction must be in [0, 1], got {args.discrete_fraction}")
        net = random_sem(args.nodes, args.edges, args.kind, seed=seed,
                         discrete_fraction=args.discrete_fraction, arities=tuple(args.arities),
                         max_in_degree=args.max_in_degree)
        net.meta["seed"] = args.seed
        return net, f"{args.kind} model"
    if random_given:
        if args.nodes is None or args.edges is None:
            raise CLIError("a random network needs both --nodes and --edges")
        net = random_network(args.nodes, args.edges, arities=args.arities, seed=seed,
                             max_in_degree=args.max_in_degree, progress=progress)
        net.meta["seed"] = args.seed
        return net, ""
    if args.network:
        return _network(args.network)
    if args.bif:
        try:
            return from_bif(args.bif), ""
        except ImportError as err:
            raise CLIError(str(err)) from None
    return BayesianNetwork.load(args.load), ""


def run(args: argparse.Namespace) -> int:

    import numpy as np

    from causalcal._io import atomic_write, check_output_dir
    from causalcal.edges import pair_index
    from causalcal.relations_io import truth_frame
    from causalcal.simulate import available_networks

    if args.list_networks:
        print("\n".join(available_networks()))
        return 0
    if args.no_progress:
        import warnings

        warnings.warn("--no-progress is deprecated; use --quiet", FutureWarning, stacklevel=1)
    progress = False if args.quiet or args.no_progress else None
    sources = [s for s in ("network", "bif", "load") if getattr(args, s)]
    random_given = args.nodes is not None or args.edges is not None
    if len(sources) + random_given != 1:
        raise CLIError("give exactly one network: --nodes/--edges, --network, --bif or --load")
    if args.out is None:
        raise CLIError("--out DIR is required")
    if args.seed < 0:
        raise CLIError(f"--seed must be non-negative, got {args.seed}")
    if args.samples < 1:
        raise CLIError(f"--samples must be >= 1, got {args.samples}")
    out = check_output_dir(args.out, "--out")
    _plan_files(args, out)

    seed_seq = np.random.SeedSequence(args.seed)
    net_seed, data_seed = seed_seq.spawn(2)
    net, source = _model(args, random_given, net_seed, progress)
    if net.n_vars == 0:
        raise CLIError("the network has no variables")
    data = (net.sample(args.samples, seed=data_seed) if args.kind != "discrete"
            else net.sample(args.samples, seed=data_seed, progress=progress))
    cpdag = net.cpdag()
    pairs, labels = cpdag.pair_labels()
    truth = truth_frame(pair_index(pairs[:, 0], pairs[:, 1], net.n_vars), labels, net.names)

    out.mkdir(parents=True, exist_ok=True)
    net.save(out / "network.json")
    data.to_csv(out / "data.csv")
    with atomic_write(out / "truth.csv", newline="", encoding="utf-8") as handle:
        truth.to_csv(handle, index=False)
    print(
        f"{source + ': ' if source else ''}{net.n_vars} variables, {net.n_edges} edges "
        f"(CPDAG: {cpdag.n_directed} directed, "
        f"{cpdag.n_undirected} undirected), {args.samples} samples -> "
        f"{out / 'network.json'}, {out / 'data.csv'}, {out / 'truth.csv'}"
    )
    return 0
