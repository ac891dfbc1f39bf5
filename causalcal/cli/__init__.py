"""The ``causalcal`` command line (docs/design.md §10).

Each subcommand lives in its own module ``causalcal.cli.<name>`` with
``add_arguments(parser)`` and ``run(args) -> int``; modules are imported only
when their command runs, so ``causalcal --help`` stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import shlex
import signal
import sys
import threading
import warnings
from collections.abc import Sequence

from causalcal._version import __version__
from causalcal.cli._options import parse_params as parse_params  # the commands' import
from causalcal.errors import InputError, WriteError

# name -> one-line help; the module causalcal.cli.<name> implements it.
COMMANDS: dict[str, str] = {
    "demo": "run the embedded end-to-end demo (simulate, bootstrap, calibrate, evaluate)",
    "bootstrap": "bootstrapped edge-type probabilities of every pair (n_boot structure searches)",
    "calibrate": "fit a calibrator on labelled pairs; write calibrated probabilities of all pairs",
    "discover": "calibrated causal-relation probabilities for real data + known relations",
    "fit": "a Bayesian network (DAG + CPTs) for the averaged network or a graph -> net.bif",
    "evaluate": "edge-type precision/recall/F1, MCE, ECE, Brier of probabilities vs truth.csv",
    "simulate": "random or benchmark Bayesian network -> network.json, data.csv, truth.csv",
    "study": "simulation study of thesis Tables 33/34 (cached, resumable): before/after tables",
    "suggest": "pairs to ask a scientist about, across the probability range (for discover)",
}


class CLIError(Exception):
    """A user error: printed as one line, exit code 2."""


#: Exit codes: bad input or arguments, and a run that failed (a write error, a crash).
EXIT_BAD_INPUT, EXIT_FAILED = 2, 1


def check_calibrator(name: str, params: dict) -> None:
    """Fail before any work on an unknown calibrator, parameter name or parameter value."""
    from causalcal.calibration import get

    model = get(name)  # InputError naming the choices for an unknown name
    target = getattr(model, "binary_calibrator", model)  # ovr-NAME: NAME takes the params
    accepted = sorted(target.get_params(deep=False))
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise CLIError(f"--param {unknown[0]}: calibrator {name!r} has no such parameter; "
                       f"it takes {', '.join(accepted)}")
    try:
        get(name, **params)
    except TypeError as err:
        raise CLIError(f"--param: calibrator {name!r}: {err}") from None


def check_output_file(path: str, option: str = "--out",
                      suffixes: tuple[str, ...] | None = None) -> None:
    """Before any work: ``path`` has one of ``suffixes`` and can be written."""
    from pathlib import Path

    from causalcal._io import check_output_file as check

    check(path, option)  # a folder, or no way to write there, first
    suffix = Path(path).suffix.lower()
    if suffixes and suffix not in suffixes:
        got = f"cannot write {suffix!r} files" if suffix else "needs a file name suffix"
        raise CLIError(f"{option} {path}: {got}; use a {' or '.join(suffixes)} file name")


def check_output_dir(path: str, option: str = "--out") -> None:
    """Before any work: folder ``path`` exists or can be created, and can be written in."""
    from causalcal._io import check_output_dir as check

    check(path, option)


def _one_line(text: str) -> str:
    return "; ".join(line.strip() for line in str(text).splitlines() if line.strip())


def describe_error(err: BaseException) -> tuple[int, str]:
    """Exit code and one-line message of an exception escaping a command."""
    notes = " ".join(getattr(err, "__notes__", ()))
    if isinstance(err, (CLIError, InputError)):
        code, message = EXIT_BAD_INPUT, str(err)
    elif isinstance(err, WriteError):
        code, message = EXIT_FAILED, str(err)
    elif isinstance(err, OSError):
        code, message = EXIT_FAILED, (f"{err.filename}: {err.strerror}"
                                      if err.filename and err.strerror else str(err))
    elif isinstance(err, MemoryError):
        code, message = EXIT_FAILED, "out of memory; try smaller inputs or fewer --jobs"
    elif isinstance(err, ImportError):
        code, message = EXIT_FAILED, str(err)
    else:
        code, message = EXIT_FAILED, (f"{type(err).__name__}: {err} (an internal error; "
                                      "--traceback shows where)")
    return code, _one_line(f"{message} {notes}".strip())


def _warning_printer():
    """``warnings.showwarning`` for one run: each message on one line, once (a warning
    about the data's names, say, comes with the data and again with the probabilities)."""
    shown: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        text = _one_line(message)
        if text not in shown:
            shown.add(text)
            print(f"causalcal: warning: {text}", file=file or sys.stderr)

    return show


def add_calibrator_arguments(parser: argparse.ArgumentParser) -> None:
    """``--calibrator NAME`` and repeatable ``--param NAME=VALUE`` (see :func:`parse_params`)."""
    parser.add_argument("--calibrator", default="snn",
                        help="calibrator registry name: snn (default), softmax, temperature, "
                             "dirichlet, ovr-<binary> (e.g. ovr-isotonic), ...")
    parser.add_argument("--param", action="append", metavar="NAME=VALUE",
                        help="calibrator hyper-parameter (repeatable), e.g. n_models=5")


def add_map_argument(parser: argparse.ArgumentParser, simulated: bool = False) -> None:
    """``--map auto|calibrated|identity`` (``|simulated`` where simulations can be run):
    what known relations may change."""
    maps = ("auto", "calibrated", "identity") + (("simulated",) if simulated else ())
    parser.add_argument(
        "--map", choices=maps, default="auto",
        help="with known relations: auto (default) writes a calibrated map only if it "
             "beats the bootstrap frequencies on held-out known pairs (cross-validated, "
             "by more than one standard error; the simulated map, and with --relations "
             "causal both maps, by two), else the "
             "bootstrap frequencies "
             "themselves; " + ("calibrated, simulated (needs --simulations) or identity "
                               if simulated else "calibrated or identity ") + "force one")


def add_selection_argument(parser: argparse.ArgumentParser) -> None:
    """``--selection design|none``: how the stratified calibration set is treated."""
    parser.add_argument("--selection", choices=("design", "none"), default="design",
                        help="design (default): correct for the stratified calibration "
                             "set's inclusion rates (logit offsets) and fit swap-equivariant; "
                             "none: fit as if the N pairs were a random sample, as the "
                             "thesis did (e.g. --calibrator snn-thesis --selection none)")


def add_features_argument(parser: argparse.ArgumentParser, where: str) -> None:
    """``--features [GROUP ...]``: pair features of the learned graphs for the calibrator."""
    from causalcal.edgecal.features import FEATURE_GROUPS

    parser.add_argument(
        "--features", nargs="*", metavar="GROUP",
        help="give the calibrator features of the learned graphs beside the probabilities "
             f"(thesis §6.2.6), read from {where} without new searches: "
             f"{', '.join(FEATURE_GROUPS)} (no GROUP: all)")


def feature_groups(groups: list[str] | None) -> tuple[str, ...]:
    """``--features`` as groups: absent -> none, given without names -> all (checked)."""
    from causalcal.edgecal.features import feature_groups as checked

    return checked(True if groups == [] else groups)


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


def _add_common_arguments(parser: argparse.ArgumentParser) -> None:
    common = parser.add_argument_group("common options")
    common.add_argument("--traceback", action="store_true",
                        help="on an error, show the Python traceback (for debugging)")
    common.add_argument("--force", action="store_true",
                        help="replace an existing output file that holds something else "
                             "(data, known relations, a sidecar, another result); an "
                             "output is never allowed to be one of the inputs")
    common.add_argument("--progress", action="store_true",
                        help="progress bars even when standard error is not a terminal "
                             "(otherwise a log gets plain progress lines)")


#: The commands whose long explanations are a page of their own on the documentation site
#: (docs/cli/NAME.md); the others' are in docs/design.md §10.
DOC_PAGES = ("bootstrap", "discover", "fit", "study", "suggest")


def _details(name: str) -> str:
    """The help's last line: where the long explanations are."""
    page = f"docs/cli/{name}.md" if name in DOC_PAGES else "docs/design.md §10"
    return (f"details and the files' columns: the documentation's page 'causalcal {name}' "
            f"({page}; make docs builds the site)")


def _short_usage(parser: argparse.ArgumentParser) -> str:
    """``PROG DATA --known KNOWN.csv … --out OUT [options]``: the positionals and the
    required options only (every option is listed, in groups, below)."""
    words = [parser.prog]
    for action in parser._actions:
        if not action.option_strings:
            words.append((action.metavar or action.dest).upper())
        elif action.required:
            metavar = action.metavar or action.dest.upper()
            more = " …" if action.nargs in ("+", "*") else ""
            words.append(f"{action.option_strings[0]} {metavar}{more}")
    return " ".join(words) + " [options]"


def _log_to_stderr() -> None:
    """The library's informational messages (logger ``causalcal``, level INFO and up) go
    to standard error as ``causalcal: <message>``; standard output keeps the results."""
    import logging

    logger = logging.getLogger("causalcal")
    ours = [h for h in logger.handlers if getattr(h, "_causalcal_cli", False)]
    if ours:  # a later command in the same process: today's standard error
        ours[0].stream = sys.stderr
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("causalcal: %(message)s"))
        handler._causalcal_cli = True
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is: workers stopped, no partial output."""


def _raise_terminated(signum, frame) -> None:
    raise Terminated()


def _release_workers() -> None:
    """Stop the worker processes joblib keeps for reuse (loky's reusable executor, if a
    command started one) and free their semaphores and memory-mapping folders now,
    rather than in the interpreter's exit handlers."""
    import gc

    loky = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(loky, "_executor", None)
    if executor is None:
        return
    stop = getattr(executor, "terminate", None) or executor.shutdown  # joblib's: folders too
    stop()
    with getattr(loky, "_executor_lock", contextlib.nullcontext()):
        if loky._executor is executor:
            loky._executor = None  # its semaphores are unregistered once it is collected
    del executor
    gc.collect()


def _release_workers_noting_sigterm() -> bool:
    """After a command has finished: :func:`_release_workers` with SIGTERM noted instead
    of raised (the caller's context restores the handler); whether one came."""
    received: list[int] = []
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda signum, frame: received.append(signum))
    _release_workers()
    return bool(received)


@contextlib.contextmanager
def _terminate_as_interrupt():
    """While a command runs in the main thread, SIGTERM raises :class:`Terminated`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; errors are one line ``causalcal <command>: error: <message>``,
    exit code 2 for bad input or arguments, 1 for a failed run. SIGTERM is handled as
    Ctrl-C while the command runs (exit 143, partial files left as they were); once it has
    finished, its worker processes are stopped before returning, and a SIGTERM meanwhile
    is one line saying the output is complete, exit 143 (docs/design.md §10)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv or argv[0] not in COMMANDS:
        args = parser.parse_args(argv)
        parser.print_help()
        return 0 if args.command is None and not argv else 2
    name = argv[0]
    module = importlib.import_module(f"causalcal.cli.{name.replace('-', '_')}")
    sub = argparse.ArgumentParser(prog=f"causalcal {name}", description=module.__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter,
                                  epilog=_details(name))
    module.add_arguments(sub)
    _add_common_arguments(sub)
    sub.usage = _short_usage(sub)
    args = sub.parse_args(argv[1:])
    args.command_line = shlex.join(["causalcal", *argv])  # what reproduces the run
    from causalcal._progress import force_bars

    force_bars(args.progress)
    _log_to_stderr()
    with warnings.catch_warnings(), _terminate_as_interrupt():
        warnings.showwarning = _warning_printer()
        try:
            code = int(module.run(args) or 0)
            if _release_workers_noting_sigterm():  # its output is complete: say so, exit 143
                print(f"causalcal {name}: terminated (SIGTERM) after it had finished; the "
                      "files it wrote are complete", file=sys.stderr)
                return 143
            return code
        except KeyboardInterrupt as err:
            how = "terminated (SIGTERM)" if isinstance(err, Terminated) else "interrupted"
            print(f"causalcal {name}: {how}; files being written were left as they were",
                  file=sys.stderr)
            return 143 if isinstance(err, Terminated) else 130
        except Exception as err:
            if args.traceback:
                raise
            code, message = describe_error(err)
            print(f"causalcal {name}: error: {message}", file=sys.stderr)
            return code
        finally:
            force_bars(False)
