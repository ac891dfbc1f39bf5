"""Cases of :mod:`experiments.reliability_audit` on inputs: what were internal errors,
vague messages, edited answer files, and careless inputs of earlier passes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from experiments.reliability_audit import Case, Run, causalcal
from experiments.reliability_cases import QUIET, cmd, discover, edited, then


def internal_cases() -> list[Case]:
    """What were tracebacks behind "an internal error" (item 9)."""
    answer = "answered.csv"
    return [
        Case("plugin-returns-none", "reliab", "internal errors",
             cmd("bootstrap", "sim/data.csv", "--n-boot", "2", *QUIET, "--out", "x.npz",
                 "--search", "noneplug:search"), words=("returned None", "PDAG")),
        *[Case(f"gfci-alpha-{value}", "reliab", "internal errors",
               cmd("bootstrap", "sim/data.csv", "--n-boot", "2", *QUIET, "--out", "x.npz",
                   "--search", "gfci", "--option", f"alpha={value}"),
               words=("alpha", value)) for value in ("nan", "x")],
        Case("npz-0d-probs", "reliab", "internal errors",
             cmd("evaluate", "zero_d.npz", "--truth", "sim/truth.csv"),
             words=("zero_d.npz", "'probs'")),
        Case("answers-header-A,B,Relation", "loop", "internal errors",
             edited(answer, "x.csv", lambda t: t.rename(columns={"a": "A", "b": "B",
                                                                 "relation": "Relation"}),
                    *discover("x.csv")), words=("x.csv",)),
        *[Case(f"answers-stratum_pairs-{value}", "loop", "internal errors",
               edited(answer, "x.csv", lambda t, v=value: t.assign(stratum_pairs=v),
                      *discover("x.csv")), words=("x.csv", "stratum_pairs"))
          for value in ("0", "1e23")],
        Case("answers-stratum-7", "loop", "internal errors",
             edited(answer, "x.csv", lambda t: t.assign(stratum="7"), *discover("x.csv")),
             words=("x.csv", "stratum")),
    ]


def vague_cases() -> list[Case]:
    """What was vague (items 10–14)."""
    boot = ("bootstrap", "sim/data.csv", "--n-boot", "2", *QUIET, "--out", "x.npz")
    answer = "answered.csv"
    return [
        *[Case(f"answers-relation-{label}", "loop", "vague",
               edited(answer, "x.csv", lambda t, v=label: t.assign(
                   relation=[v] + list(t["relation"][1:])), *discover("x.csv")),
               words=("x.csv", "unknown")) for label in ("?", "UNK")],
        Case("answers-all-unknown", "loop", "vague",
             edited(answer, "x.csv", lambda t: t.assign(relation="unknown"),
                    *discover("x.csv")), words=("x.csv", "unknown")),
        Case("suggest-known-with-unknown-rows", "loop", "vague",
             edited(answer, "x.csv", lambda t: t.assign(
                 relation=["unknown"] + list(t["relation"][1:])),
                 "suggest", "sim/data.csv", "--probabilities", "p.npz", "--known", "x.csv",
                 "--n", "6", "--out", "o.csv"), expect="accept"),
        Case("suggest-search-module-function", "reliab", "vague",
             cmd("suggest", "sim/data.csv", "--search", "causalcal.bootstrap.search.fges:fges",
                 "--n-boot", "2", *QUIET, "--n", "6", "--out", "o.csv"), expect="accept"),
        Case("discover-search-module-function", "reliab", "vague",
             cmd("discover", "sim/data.csv", "--search", "slowsearch:search", "--n-boot", "2",
                 *QUIET, "--known", "known.csv", "--out", "o.csv"), expect="accept"),
        Case("bootstrap-gfci-alpha", "reliab", "vague",
             cmd(*boot, "--search", "gfci", "--alpha", "0.05"), expect="accept"),
        Case("no-edge-in-any-replicate", "reliab", "vague",
             cmd("discover", "sim/data.csv", "--search", "emptysearch:search", "--n-boot",
                 "2", *QUIET, "--known", "known.csv", "--out", "o.csv"),
             words=("no pair is adjacent",)),
        Case("context-500-values", "reliab", "vague",
             cmd("bootstrap", "ctx_cont.csv", "--context", "cond", "--n-boot", "2", *QUIET,
                 "--out", "x.npz"), words=("'cond'", "never binned")),
        Case("context-targets-unknown", "reliab", "vague",
             cmd(*boot, "--context", "X0", "--context-targets", "X0:NOPE"),
             words=("--context-targets", "NOPE")),
        Case("context-with-pc", "reliab", "vague", cmd(*boot, "--context", "X0", "--search",
                                                       "pc"),
             words=("pc", "background knowledge")),
        Case("zip-bomb-npz", "reliab", "limits",
             cmd("evaluate", "bomb.npz", "--truth", "sim/truth.csv", measure=True),
             words=("bomb.npz", "'probs'"), check=_small_memory(600)),
        Case("context-1e5-text-levels", "reliab", "limits",
             cmd("bootstrap", "ctx_text.csv", "--context", "cond", "--max-arity", "100000",
                 "--n-boot", "1", *QUIET, "--out", "x.npz", measure=True),
             words=("'cond'", "memory"), check=_small_memory(2000)),
        Case("penalty-discount-1e308", "reliab", "limits",
             cmd(*boot, "--score", "bic", "--penalty-discount", "1e308"),
             words=("penalty_discount",), check=_no_warning),
        Case("fit-ess-inf", "reliab", "limits",
             cmd("fit", "sim/data.csv", "--probabilities", "p.npz", "--ess", "inf", "--out",
                 "n.bif"), words=("--ess",), check=_no_warning),
        Case("sample-prior-1e308", "reliab", "limits", cmd(*boot, "--sample-prior", "1e308"),
             words=("sample_prior",), check=_no_warning),
    ]


def _small_memory(mib: float):
    def check(folder: Path, run: Run) -> str | None:
        return None if run.rss_mb < mib else f"took {run.rss_mb:.0f} MiB before refusing"
    return check


def _no_warning(folder: Path, run: Run) -> str | None:
    return "numpy's warnings printed" if "warning" in run.err else None


def answer_file_cases() -> list[Case]:
    """Answer files whose design was edited (item 4; the other helper's)."""
    answer = "answered.csv"

    def second_round(t: pd.DataFrame) -> pd.DataFrame:
        again = t.copy()
        again["stratum_pairs"] = (again["stratum_pairs"].astype(int) + 1).astype(str)
        return pd.concat([t, again.iloc[:3].assign(a=t["b"].iloc[:3], b=t["a"].iloc[:3])])

    def one_row(t: pd.DataFrame, value: str) -> pd.DataFrame:
        t = t.copy()
        t.loc[t.index[0], "stratum_pairs"] = value
        return t

    def foreign(t: pd.DataFrame) -> pd.DataFrame:
        t = t.copy()
        asked = {frozenset(p) for p in zip(t["a"], t["b"])}
        names = [f"X{k}" for k in range(10)]
        a, b = next((a, b) for i, a in enumerate(names) for b in names[i + 1:]
                    if frozenset((a, b)) not in asked)
        t.loc[t.index[0], ["a", "b"]] = [a, b]
        return t

    changes = {
        "deleted-p_related": lambda t: t.drop(columns="p_related"),
        "renamed-stratum_drawn": lambda t: t.rename(columns={"stratum_drawn": "drawn"}),
        "capitalised-headers": lambda t: t.rename(columns=str.capitalize),
        "pairs-below-drawn": lambda t: t.assign(stratum_pairs="1"),
        "one-row-5000": lambda t: one_row(t, "5000"),
        "foreign-pair": foreign,
        "two-rounds": second_round,
    }
    cases = [Case(f"answers-{name}", "loop", "answer file",
                  edited(answer, "x.csv", change, *discover("x.csv")), expect="flag",
                  words=("x.csv",)) for name, change in changes.items()]
    cases.append(Case(
        "answers-with-dropped-variables", "loop", "answer file",
        lambda f: causalcal(f, "discover", "sim/data.csv", "--known", answer, "--quiet",
                            "--drop-columns", "X8,X9", "--n-boot", "2", *QUIET[1:],
                            "--out", "o.csv"), expect="flag", words=(answer,)))
    return cases


def input_cases() -> list[Case]:
    """Careless inputs of earlier passes, kept as a check."""
    boot = ("bootstrap", "--n-boot", "2", *QUIET, "--out", "x.npz")
    rows = [
        ("missing-data-file", (*boot[:1], "nope.csv", *boot[1:]), ("nope.csv",), None),
        ("empty-data-file", (*boot[:1], "empty.csv", *boot[1:]), ("empty.csv",),
         lambda f: (f / "empty.csv").write_text("")),
        ("duplicate-columns", (*boot[:1], "dup.csv", *boot[1:]), ("dup.csv",),
         lambda f: (f / "dup.csv").write_text("a,a\n0,1\n1,0\n")),
        ("semicolon-data", (*boot[:1], "semi.csv", *boot[1:]), ("semi.csv", ";"),
         lambda f: (f / "semi.csv").write_text("a;b\n0;1\n1;0\n0;0\n")),
        ("folder-as-data", (*boot[:1], "sim", *boot[1:]), ("sim", "folder"), None),
        ("control-char-in-name", (*boot[:1], "ctl.csv", *boot[1:]), ("ctl.csv", "control"),
         lambda f: (f / "ctl.csv").write_text("a\tb,c\n0,1\n1,0\n0,0\n")),
        ("known-unknown-variable", discover("bad.csv"), ("bad.csv", "NOPE"),
         lambda f: (f / "bad.csv").write_text((f / "known.csv").read_text() + "X0,NOPE,->\n")),
        ("known-relation-typo", discover("bad.csv"), ("bad.csv", "maybe"),
         lambda f: (f / "bad.csv").write_text((f / "known.csv").read_text() + "X0,X9,maybe\n")),
        ("n-boot-zero", ("bootstrap", "sim/data.csv", "--n-boot", "0", "--out", "x.npz"),
         ("--n-boot",), None),
        ("jobs-zero", ("bootstrap", "sim/data.csv", "--jobs", "0", "--out", "x.npz"),
         ("--jobs",), None),
        ("discover-top-zero", discover("known.csv", "--top", "0"), ("--top",), None),
        ("discover-out-png", discover("known.csv", out="x.png"), ("--out", ".png"), None),
        ("graph-txt-for-fges", (*boot[:1], "sim/data.csv", *boot[1:], "--graph", "g.txt"),
         ("--graph", ".txt"), None),
        ("discretize-bad-spec", (*boot[:1], "sim/data.csv", *boot[1:], "--discretize",
                                 "fancy:3"), ("--discretize",), None),
        ("calibrate-n-cal-odd", ("calibrate", "p.npz", "--truth", "sim/truth.csv", "--n-cal",
                                 "7", "--out", "c.npz"), ("n-cal",), None),
        ("evaluate-truth-of-other-variables", ("evaluate", "p.npz", "--truth", "t.csv"),
         ("t.csv",), lambda f: (f / "t.csv").write_text("a,b,relation\nQ,R,->\n")),
        ("simulate-unknown-network", ("simulate", "--network", "nosuchnet", "--out", "s2"),
         ("nosuchnet",), None),
        ("deep-json-sidecar", (*boot[:1], "sim/data.csv", "--n-boot", "2", *QUIET, "--out",
                               "p.csv"), ("p.csv.json",),
         lambda f: (f / "p.csv.json").write_text("[" * 100000 + "]" * 100000)),
        ("huge-declared-npz", ("evaluate", "huge.npz", "--truth", "sim/truth.csv"),
         ("huge.npz",), _huge_npz),
    ]
    cases = []
    for name, argv, words, setup in rows:
        kwargs = {"run": cmd(*argv)} if setup is None else then(setup, argv)
        cases.append(Case(name, "earlier", "inputs", **kwargs, words=words))
    cases.append(Case("edited-probabilities-csv", "earlier", "inputs",
                      **then(_edit_probabilities, ("evaluate", "p.csv", "--truth",
                                                 "sim/truth.csv")),
                      expect="warn", words=("p.csv.json", "does not belong")))
    cases.append(Case("formula-like-names", "earlier", "inputs",
                      **then(lambda f: (f / "f.csv").write_text("=SUM(A1),b\n0,1\n1,0\n0,0\n1,1\n"),
                           (*boot[:1], "f.csv", *boot[1:])),
                      expect="warn", words=("formula",)))
    return cases


def _edit_probabilities(folder: Path) -> None:
    """Swap p_none and p_forward of the first pair: the rows still sum to 1."""
    text = (folder / "p.csv").read_text().splitlines()
    a, b, none, forward, *rest = text[1].split(",")
    text[1] = ",".join([a, b, forward, none, *rest])
    (folder / "p.csv").write_text("\n".join(text) + "\n")


def _huge_npz(folder: Path) -> None:
    import zipfile

    from numpy.lib import format as npy

    with zipfile.ZipFile(folder / "p.npz") as src, \
            zipfile.ZipFile(folder / "huge.npz", "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "probs.npy":
                import io

                header = io.BytesIO()
                npy.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                    "shape": (10**11, 4)})
                data = header.getvalue() + bytes(64)
            out.writestr(info.filename, data)
