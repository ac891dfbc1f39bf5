"""The cases of :mod:`experiments.reliability_audit`: the shared files (:func:`prepare`) and
every case (:func:`all_cases`), by what they probe. Paths in a case are relative to its
folder, a fresh copy of the shared files."""

from __future__ import annotations

import json
import resource
import signal
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.reliability_audit import Case, Run, causalcal

QUIET = ("--quiet", "--jobs", "1")
PLUGINS = {
    "noneplug.py": "def search(data, weights=None):\n    return None\n",
    "emptysearch.py": ("from causalcal.graph import PDAG\n\n\ndef search(data, weights=None):\n"
                       "    return PDAG(data.n_vars, data.names)\n"),
    "slowsearch.py": ("import time\n\nfrom causalcal.bootstrap import fges\n\n\n"
                      "def search(data, weights=None):\n    time.sleep(0.7)\n"
                      "    return fges(data, weights)\n"),
}


# ----------------------------------------------------------------------- shared files
def _main(*argv) -> None:
    import contextlib
    import io

    from causalcal.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main([str(a) for a in argv])
    if code != 0:
        raise RuntimeError(f"preparing the audit: causalcal {' '.join(map(str, argv))} "
                           f"exited {code}")


def _answered(ask: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    arcs = {(r.a, r.b): r.relation for r in truth.itertuples() if r.relation != "none"}
    back = {"->": "<-", "<-": "->", "--": "--"}
    return ask.assign(relation=[arcs.get((a, b)) or back.get(arcs.get((b, a)), "none")
                                for a, b in zip(ask["a"], ask["b"], strict=True)])


def _own_pairs(names, truth, asked, k=6) -> pd.DataFrame:
    arcs = [(r.a, r.b, r.relation) for r in truth.itertuples()
            if r.relation != "none" and frozenset((r.a, r.b)) not in asked]
    adjacent = {frozenset((r.a, r.b)) for r in truth.itertuples() if r.relation != "none"}
    nones = [(a, b, "none") for i, a in enumerate(names) for b in names[i + 1:]
             if frozenset((a, b)) not in adjacent | asked]
    return pd.DataFrame(arcs[:k] + nones[:k], columns=["a", "b", "relation"])


def prepare(root: Path) -> None:
    """The files every case starts from (see the module docstring of each case)."""
    from causalcal.pag import PAG
    from causalcal.pag_io import write_pag

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _prepare_runs(root)
    names = [f"X{k}" for k in range(10)]
    pag = PAG.from_edges(10, [(0, "-->", 1), (3, "<->", 8), (5, "<-o", 6)], names)
    for suffix in (".dot", ".gml", ".json"):
        write_pag(pag, root / f"pag{suffix}")
    for name, text in PLUGINS.items():
        (root / name).write_text(text, encoding="utf-8")
    _prepare_crafted(root)


def _prepare_runs(root: Path) -> None:
    _main("simulate", "--nodes", "10", "--edges", "14", "--samples", "400", "--seed", "1",
          "--out", root / "sim", "--quiet")
    _main("simulate", "--nodes", "10", "--edges", "14", "--samples", "400", "--seed", "2",
          "--out", root / "other", "--quiet")
    data = pd.read_csv(root / "sim" / "data.csv")
    data[data.columns[::-1]].to_csv(root / "reversed.csv", index=False)
    for out in ("p.csv", "p.npz"):
        _main("bootstrap", root / "sim" / "data.csv", "--n-boot", "6", "--out", root / out,
              *QUIET)
    _main("bootstrap", root / "sim" / "data.csv", "--n-boot", "2", "--search", "gfci",
          "--out", root / "gfci.npz", *QUIET)
    truth = pd.read_csv(root / "sim" / "truth.csv")
    names = list(data.columns)
    _own_pairs(names, truth, set(), 8).to_csv(root / "known.csv", index=False)
    _main("suggest", root / "sim" / "data.csv", "--n", "20", "--probabilities",
          root / "p.npz", "--out", root / "ask.csv")
    ask = pd.read_csv(root / "ask.csv")
    answered = _answered(ask, truth)
    answered.to_csv(root / "answered.csv", index=False)
    asked = {frozenset(p) for p in zip(ask["a"], ask["b"])}
    pd.concat([answered, _own_pairs(names, truth, asked)]).to_csv(
        root / "answered_own.csv", index=False)
    _main("fit", root / "sim" / "data.csv", "--probabilities", root / "p.npz", "--out",
          root / "net.bif")
    _main("bootstrap", root / "sim" / "data.csv", "--n-boot", "2", "--out", root / "q.npz",
          "--graph", root / "net.dot", *QUIET)
    _main("discover", root / "sim" / "data.csv", "--known", root / "known.csv",
          "--probabilities", root / "p.npz", "--out", root / "edges.csv", "--quiet")
    old = pd.read_csv(root / "p.csv")
    old.to_csv(root / "handmade.csv", index=False)  # a,b,p_none… without a sidecar


def _prepare_crafted(root: Path) -> None:
    import io
    import zipfile

    from numpy.lib import format as npy

    rng = np.random.default_rng(0)
    names = pd.DataFrame({'dose "mg"': rng.choice(['lo "1"', "hi;2"], 200),
                          "a;b": rng.choice(["x\ny", "z"], 200),
                          "back\\slash": rng.choice(["p", "q"], 200)})
    names.to_csv(root / "names.csv", index=False)
    pd.DataFrame({"x": rng.integers(0, 2, 500), "y": rng.integers(0, 3, 500),
                  "cond": np.arange(500) * 1.5}).to_csv(root / "ctx_cont.csv", index=False)
    n = 100_000
    pd.DataFrame({"x": rng.integers(0, 2, n), "y": rng.integers(0, 2, n),
                  "cond": [f"c{i}" for i in rng.integers(0, n, n)]}).to_csv(
        root / "ctx_text.csv", index=False)
    with zipfile.ZipFile(root / "bomb.npz", "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in (("names_json", np.asarray(json.dumps(["X0", "X1", "X2"]))),
                            ("pairs", np.zeros((2, 2), np.int64)), ("n_boot", np.int64(4))):
            buffer = io.BytesIO()
            np.save(buffer, array)
            archive.writestr(f"{name}.npy", buffer.getvalue())
        with archive.open("probs.npy", "w", force_zip64=True) as member:
            rows = 1 << 25  # 4 GiB of zeros in a few MB
            npy.write_array_header_1_0(member, {"descr": "<f8", "fortran_order": False,
                                                "shape": (rows, 4)})
            block = bytes(1 << 22)
            for _ in range(rows * 32 // len(block)):
                member.write(block)
    np.savez(root / "zero_d.npz", names=np.asarray(["X0", "X1", "X2"]),
             pairs=np.asarray([[0, 1]]), probs=np.int64(3), n_boot=np.int64(3))
    edges = "".join(f"  n{i} -> n{i + 1};\n" for i in range(15000))
    (root / "big.dot").write_text("digraph g {\n" + edges + "}\n", encoding="utf-8")
    (root / "hand.bif").write_text("network hand {\n}\nvariable X0 {\n  type discrete [ 2 ] "
                                   "{ a, b };\n}\nprobability ( X0 ) {\n  table 0.5, 0.5;\n}\n")
    (root / "notes.bif").write_text("my notes on the network, not a network\n")
    (root / "hand.dot").write_text("digraph { X0 -> X1; X2 -> X3; }\n")


# ----------------------------------------------------------------------------- helpers
def cmd(*argv, **kwargs):
    """A case's ``run``: one command."""
    return lambda folder: causalcal(folder, *argv, **kwargs)


def edited(source: str, target: str, change, *argv):
    """A case's ``run``: write ``target`` as ``change(frame of source)`` (a CSV read as
    text), then run ``argv``."""
    def run(folder: Path) -> Run:
        frame = pd.read_csv(folder / source, dtype=str, keep_default_na=False)
        change(frame).to_csv(folder / target, index=False)
        return causalcal(folder, *argv)
    return run


def then(first, second) -> dict:
    """A case's ``setup`` (``first``, a function of the folder) and ``run`` (the command
    ``second``), as keyword arguments of :class:`Case`."""
    return {"setup": first, "run": cmd(*second)}


def reads_back(path: str):
    """A check: the probabilities at ``path`` read without a warning."""
    def check(folder: Path, run: Run) -> str | None:
        from causalcal.edges import EdgeProbabilities

        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                EdgeProbabilities.load(folder / path)
            except (Warning, ValueError) as err:
                return f"{path} does not read back cleanly: {err}"
        return None
    return check


def same_files(a: str, b: str):
    def check(folder: Path, run: Run) -> str | None:
        return None if (folder / a).read_bytes() == (folder / b).read_bytes() else \
            f"{a} and {b} differ"
    return check


def discover(known: str, *extra, out: str = "d.csv", probs: str = "p.npz"):
    return ("discover", "sim/data.csv", "--known", known, "--probabilities", probs,
            "--out", out, "--quiet", *extra)


# ------------------------------------------------------------------------------ cases
def output_cases() -> list[Case]:
    """Outputs over files the command did not make (issue 49 items 1–3, and the other
    commands' outputs)."""
    fit = ("fit", "sim/data.csv", "--probabilities", "p.npz", "--out")
    boot = ("bootstrap", "sim/data.csv", "--n-boot", "2", *QUIET, "--out")
    cases = [
        Case("fit-over-hand-bif", "reliab", "data loss", cmd(*fit, "hand.bif"),
             words=("--out", "hand.bif", "--force"), protect=("hand.bif",)),
        Case("fit-over-notes-bif", "reliab", "data loss", cmd(*fit, "notes.bif"),
             words=("notes.bif", "--force"), protect=("notes.bif",)),
        Case("fit-over-renamed-csv", "reliab", "data loss",
             **then(lambda f: (f / "data.bif").write_bytes((f / "sim/data.csv").read_bytes()),
                  (*fit, "data.bif")), words=("data.bif", "--force"), protect=("data.bif",)),
        Case("fit-over-its-own-bif", "reliab", "outputs", cmd(*fit, "net.bif", "--ess", "2"),
             expect="accept"),
        Case("fit-over-edited-bif", "reliab", "data loss",
             **then(lambda f: (f / "net.bif").write_text(
                 (f / "net.bif").read_text().replace("ess = 1", "ess = 1 // mine")),
                 (*fit, "net.bif")), words=("net.bif", "edited"), protect=("net.bif",)),
        Case("graph-over-hand-dot", "reliab", "data loss", cmd(*boot, "q2.npz", "--graph",
                                                               "hand.dot"),
             words=("--graph", "hand.dot"), protect=("hand.dot",)),
        Case("graph-over-its-own-dot", "reliab", "outputs", cmd(*boot, "q2.npz", "--graph",
                                                                "net.dot"), expect="accept"),
        Case("calibrate-pairs-over-known", "reliab", "data loss",
             **then(lambda f: (f / "cal.calibration.csv").write_bytes(
                 (f / "known.csv").read_bytes()),
                 ("calibrate", "p.npz", "--known", "known.csv", "--out", "cal.npz")),
             words=("calibration pairs", "cal.calibration.csv"),
             protect=("cal.calibration.csv",)),
        Case("evaluate-plot-over-user-png", "reliab", "data loss",
             **then(_user_png, ("evaluate", "p.npz", "--truth", "sim/truth.csv", "--plot",
                              "fig.png")), words=("--plot", "fig.png"), protect=("fig.png",)),
        Case("evaluate-json-over-user-json", "reliab", "data loss",
             **then(lambda f: (f / "m.json").write_text('{"n_pairs": 3, "bin_size": 10, '
                                                      '"mine": 1}'),
                  ("evaluate", "p.npz", "--truth", "sim/truth.csv", "--json", "m.json")),
             words=("--json", "m.json"), protect=("m.json",)),
        Case("bootstrap-over-handmade-probabilities", "reliab", "data loss",
             cmd(*boot, "handmade.csv"), words=("handmade.csv", "--force"),
             protect=("handmade.csv",)),
        Case("discover-over-edited-ranking", "reliab", "data loss",
             **then(lambda f: (f / "edges.csv").write_text(
                 (f / "edges.csv").read_text() + "my,notes,1,1,0,0,0,0,0,0,0,0\n"),
                 discover("known.csv", out="edges.csv")),
             words=("edges.csv", "edited"), protect=("edges.csv",)),
        Case("discover-over-its-own-ranking", "reliab", "outputs",
             cmd(*discover("known.csv", out="edges.csv")), expect="accept"),
        Case("study-into-a-foreign-folder", "reliab", "data loss",
             **then(_foreign_folder, ("study", "--preset", "quick", "--out", "mine",
                                    "--repeats", "1", "--n-boot", "2", "--quiet")),
             words=("--out", "mine"), protect=("mine/study.json", "mine/notes.txt")),
        Case("bootstrap-out-is-the-data", "earlier", "outputs", cmd(*boot, "sim/data.csv"),
             words=("--out", "DATA"), protect=("sim/data.csv",)),
        Case("simulate-over-existing-data", "earlier", "outputs",
             cmd("simulate", "--nodes", "5", "--edges", "4", "--out", "sim", "--quiet"),
             words=("--out", "--force"), protect=("sim/data.csv", "sim/truth.csv")),
        Case("suggest-over-answered-file", "loop", "data loss",
             cmd("suggest", "sim/data.csv", "--n", "10", "--probabilities", "p.npz",
                 "--out", "answered.csv"), words=("answered.csv",),
             protect=("answered.csv",)),
        Case("suggest-over-known-csv", "loop", "data loss",
             cmd("suggest", "sim/data.csv", "--n", "10", "--probabilities", "p.npz",
                 "--out", "known.csv"), words=("known.csv",), protect=("known.csv",)),
        Case("out-in-a-read-only-place", "earlier", "outputs",
             cmd(*boot, "/proc/audit-out.npz"), words=("--out", "/proc")),
        Case("out-is-a-symlink-loop", "earlier", "outputs",
             **then(lambda f: (f / "loop.npz").symlink_to(f / "loop.npz"), (*boot, "loop.npz")),
             words=("loop.npz", "loop")),
        Case("disk-full-while-writing", "earlier", "outputs",
             lambda f: causalcal(f, "bootstrap", "sim/data.csv", "--n-boot", "2", *QUIET,
                                 "--out", "p.csv", preexec=_small_files),
             words=("p.csv",), protect=("p.csv", "p.csv.json")),
    ]
    return cases


def _user_png(folder: Path) -> None:
    from matplotlib.figure import Figure

    Figure().savefig(folder / "fig.png")


def _foreign_folder(folder: Path) -> None:
    (folder / "mine").mkdir()
    (folder / "mine" / "study.json").write_text('{"my": "settings"}')
    (folder / "mine" / "notes.txt").write_text("my notes\n")


def _small_files() -> None:
    """In the child: files larger than 500 bytes cannot be written (a full disk, as
    EFBIG)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (500, 500))


def fingerprint_cases() -> list[Case]:
    """Probabilities meeting data (item 5)."""
    return [
        Case(f"{command}-probabilities-of-other-data", "reliab", "fingerprints",
             cmd(*argv), words=("p.npz", "other data"))
        for command, argv in (
            ("fit", ("fit", "other/data.csv", "--probabilities", "p.npz", "--out", "o.bif")),
            ("suggest", ("suggest", "other/data.csv", "--probabilities", "p.npz", "--n", "6",
                         "--out", "o.csv")),
            ("discover", ("discover", "other/data.csv", "--probabilities", "p.npz", "--known",
                          "known.csv", "--out", "o.csv", "--quiet")))
    ] + [
        Case("fit-reordered-columns", "reliab", "fingerprints",
             cmd("fit", "reversed.csv", "--probabilities", "p.npz", "--out", "r.bif"),
             expect="accept"),
        Case("suggest-reordered-columns", "reliab", "fingerprints",
             lambda f: (causalcal(f, "suggest", "sim/data.csv", "--probabilities", "p.npz",
                                  "--n", "6", "--out", "a.csv"),
                        causalcal(f, "suggest", "reversed.csv", "--probabilities", "p.npz",
                                  "--n", "6", "--out", "b.csv"))[1],
             expect="accept", check=same_files("a.csv", "b.csv")),
        Case("discover-reordered-columns", "reliab", "fingerprints",
             lambda f: (causalcal(f, *discover("known.csv", out="a.csv")),
                        causalcal(f, "discover", "reversed.csv", "--known", "known.csv",
                                  "--probabilities", "p.npz", "--out", "b.csv",
                                  "--quiet"))[1],
             expect="accept", check=same_files("a.csv", "b.csv")),
        Case("probabilities-without-fingerprint", "reliab", "fingerprints",
             **then(_without_provenance, ("suggest", "sim/data.csv", "--probabilities",
                                        "old.npz", "--n", "6", "--out", "o.csv")),
             expect="warn", words=("old.npz", "fingerprint")),
    ]


def _without_provenance(folder: Path) -> None:
    from causalcal.edges import EdgeProbabilities

    probs = EdgeProbabilities.load(folder / "p.npz")
    probs.provenance = None
    probs.save(folder / "old.npz")


def option_cases() -> list[Case]:
    """Options beside an answered file (item 6)."""
    cases = [Case(f"answers-with-{flag[2:]}", "reliab", "options",
                  cmd(*discover("answered.csv", flag, value)), words=(flag, "answered.csv"))
             for flag, value in (("--calibrator", "dirichlet"), ("--expected-edges", "30"),
                                 ("--evidence-strength", "1"), ("--param", "n_models=3"))]

    def differs(folder: Path, run: Run) -> str | None:
        if (folder / "a.csv").read_bytes() == (folder / "b.csv").read_bytes():
            return "--calibrator dirichlet gave the same bytes as snn"
        if "dirichlet on your own known pairs" not in run.out:
            return "the summary does not say what the calibrator fitted"
        return None

    cases.append(Case(
        "answers-and-own-pairs-with-dirichlet", "reliab", "options",
        lambda f: (causalcal(f, *discover("answered_own.csv", "--map", "calibrated",
                                          out="a.csv")),
                   causalcal(f, *discover("answered_own.csv", "--map", "calibrated",
                                          "--calibrator", "dirichlet", out="b.csv")))[1],
        expect="accept", check=differs))
    return cases


def graph_cases() -> list[Case]:
    """fit and PAGs (item 7), BIF names (item 8), large or odd graph files (item 14)."""
    def round_trip(folder: Path, run: Run) -> str | None:
        from causalcal.simulate import from_bif

        text = (folder / "n.bif").read_text(encoding="utf-8")
        if any(line.count('"') % 2 for line in text.split("\n")):
            return "a property line holds an unbalanced quote or a raw line break"
        back = from_bif(folder / "n.bif")
        want = list(pd.read_csv(folder / "names.csv", nrows=1).columns)
        return None if back.names == want else f"names read back as {back.names}"

    return [
        *[Case(f"fit-pag{suffix}", "reliab", "PAGs",
               cmd("fit", "sim/data.csv", "--structure", f"pag{suffix}", "--out", "n.bif"),
               words=(f"pag{suffix}", "PAG")) for suffix in (".dot", ".gml", ".json")],
        Case("fit-gfci-probabilities", "reliab", "PAGs",
             cmd("fit", "sim/data.csv", "--probabilities", "gfci.npz", "--out", "n.bif"),
             words=("gfci.npz", "PAG")),
        Case("bif-names-round-trip", "reliab", "BIF",
             **then(lambda f: _main("bootstrap", f / "names.csv", "--n-boot", "2", "--out",
                                  f / "np.npz", *QUIET),
                  ("fit", "names.csv", "--probabilities", "np.npz", "--out", "n.bif")),
             expect="accept", check=round_trip),
        Case("big-dot-structure", "reliab", "limits",
             cmd("fit", "sim/data.csv", "--structure", "big.dot", "--out", "n.bif",
                 timeout=120), words=("big.dot", "n0", "X0")),
    ]


def all_cases() -> list[Case]:
    """Every case, by what it probes."""
    from experiments.reliability_inputs import (
        answer_file_cases,
        input_cases,
        internal_cases,
        vague_cases,
    )
    from experiments.reliability_runs import process_cases

    return (output_cases() + fingerprint_cases() + option_cases() + graph_cases()
            + internal_cases() + vague_cases() + answer_file_cases() + input_cases()
            + process_cases())
