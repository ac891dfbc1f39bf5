"""The ``causalcal`` command line (SPEC §10).

Each subcommand lives in its own module ``causalcal.cli.<name>`` with
``add_arguments(parser)`` and ``run(args) -> int``; modules are imported only
when their command runs, so ``causalcal --help`` stays fast.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import sys
from collections.abc import Sequence

from causalcal._version import __version__

# name -> one-line help; the module causalcal.cli.<name> implements it.
COMMANDS: dict[str, str] = {
    "demo": "run the embedded end-to-end demo (simulate, bootstrap, calibrate, evaluate)",
    "bootstrap": "bootstrapped edge-type probabilities of every pair (n_boot structure searches)",
    "calibrate": "fit a calibrator on labelled pairs; write calibrated probabilities of all pairs",
    "discover": "calibrated causal-relation probabilities for real data + known relations",
    "evaluate": "edge-type precision/recall/F1, MCE, ECE, Brier of probabilities vs truth.csv",
    "simulate": "random or benchmark Bayesian network -> network.json, data.csv, truth.csv",
    "study": "simulation study of thesis Tables 33/34 (cached, resumable): before/after tables",
}


class CLIError(Exception):
    """A user error: printed as one line, exit code 2."""


def add_calibrator_arguments(parser: argparse.ArgumentParser) -> None:
    """``--calibrator NAME`` and repeatable ``--param NAME=VALUE`` (see :func:`parse_params`)."""
    parser.add_argument("--calibrator", default="snn",
                        help="calibrator registry name: snn (default), softmax, temperature, "
                             "dirichlet, ovr-<binary> (e.g. ovr-isotonic), ...")
    parser.add_argument("--param", action="append", metavar="NAME=VALUE",
                        help="calibrator hyper-parameter (repeatable), e.g. n_models=5")


def parse_params(items: list[str] | None) -> dict:
    """``["k=v", …]`` → dict, values read as Python literals where possible."""
    params = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"--param {item!r}: expected NAME=VALUE")
        key, value = item.split("=", 1)
        try:
            params[key.strip()] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            params[key.strip()] = value
    return params


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="causalcal",
        description=(
            "Calibrated probabilities of causal relationships from bootstrapped "
            "structure search on discrete data."
        ),
    )
    parser.add_argument("--version", action="version", version=f"causalcal {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in COMMANDS.items():
        sub.add_parser(name, help=summary, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv or argv[0] not in COMMANDS:
        args = parser.parse_args(argv)
        parser.print_help()
        return 0 if args.command is None and not argv else 2
    name = argv[0]
    module = importlib.import_module(f"causalcal.cli.{name.replace('-', '_')}")
    sub = argparse.ArgumentParser(prog=f"causalcal {name}", description=module.__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    module.add_arguments(sub)
    args = sub.parse_args(argv[1:])
    try:
        return int(module.run(args) or 0)
    except (CLIError, ValueError, FileNotFoundError, KeyError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else err
        print(f"causalcal {name}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"causalcal {name}: interrupted", file=sys.stderr)
        return 130
