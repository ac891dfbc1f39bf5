"""The tables and acceptance lines of the calibrated draws (issue 39; :mod:`.calibrated`).

Per family, n, relation kind and answer variant, the means over cases and draws of the
held-out Brier, ECE and AUROC, raw and calibrated, the oracle ECE, the share of draws
whose calibrated Brier is below the raw one, the k-class log-loss and micro ECE (4 edge
types or 3 causal classes; reported, no line), and the lines:

* where the raw ECE exceeds 0.01: calibrated Brier below raw in ≥ 80 % of draws, and
  calibrated ECE ≤ (raw ECE + oracle ECE) / 2 (half the gap to the best monotone map
  closed);
* everywhere: Brier ≤ raw + 0.002, ECE ≤ raw + 0.005, AUROC ≥ raw − 0.005.

:func:`rounds_text` sets the pairs asked in rounds beside those asked in one (issue 48:
20 + 20 no worse than 40, mean held-out Brier within 0.002, on the same cases and draws)
and gives the curve of the held-out Brier and ECE over the number of answers.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from studies.discover_known.records import read_records

from .cases import parse_name

COLUMNS = ("raw_brier", "cal_brier", "raw_ece", "cal_ece", "raw_oracle_ece", "raw_auroc",
           "cal_auroc", "raw_logloss_k", "cal_logloss_k", "raw_ece_k", "cal_ece_k")


def setting(record: dict) -> tuple[str, str, str, str]:
    """``(family, n, kind, variant)`` of a record (the variant with ``/N`` when other than
    40 pairs were suggested, and ``/eRATE`` when the calibration assumed the answers wrong
    at a rate other than 0)."""
    family, n, _ = parse_name(record["case"])
    asked, rounds = record.get("asked", 40), record.get("rounds", 1)
    error, guard = record.get("answer_error", 0.0), record.get("answer_guard", 0)
    return (family, "" if n is None else str(n), record["kind"],
            record["variant"] + ("" if asked == 40 else f"/{asked}")
            + ("" if rounds == 1 else f"/r{rounds}")
            + ("" if not error else f"/e{error:g}") + ("" if not guard else f"/g{guard}"))


def lines_of(rows: list[dict]) -> dict:
    """The means and the acceptance lines of one setting's draws."""
    mean = {c: float(np.nanmean([r.get(c, np.nan) for r in rows])) for c in COLUMNS}
    better = float(np.mean([r["cal_brier"] < r["raw_brier"] for r in rows]))
    written = float(np.mean([r["chosen"] != "identity" for r in rows]))
    checks = {"brier": mean["cal_brier"] <= mean["raw_brier"] + 0.002,
              "ece": mean["cal_ece"] <= mean["raw_ece"] + 0.005,
              "auroc": not mean["cal_auroc"] < mean["raw_auroc"] - 0.005}
    if mean["raw_ece"] > 0.01:
        checks["better80"] = better >= 0.8
        checks["half_gap"] = mean["cal_ece"] <= (mean["raw_ece"] + mean["raw_oracle_ece"]) / 2
    return {**mean, "better": better, "written": written, "draws": len(rows),
            "checks": checks}


def summary_text(path: Path) -> str:
    """A Markdown table per relation kind and variant, and the failing lines."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    refused = 0
    for record in read_records(path):
        if "error" in record:
            refused += 1
            continue
        groups[setting(record)].append(record)
    out, failing, total = [], [], 0
    for kind in ("edges", "causal", "pag"):
        for variant in sorted({k[3] for k in groups}):
            keys = sorted(k for k in groups if k[2] == kind and k[3] == variant)
            if not keys:
                continue
            out += [f"\n### {kind}, answers {variant}\n",
                    "| family | n | draws | Brier raw → cal | ECE raw → cal (oracle) | "
                    "AUROC raw → cal | k-class log-loss | k-class ECE | cal Brier < raw | "
                    "map written | lines |",
                    "|---|---|---|---|---|---|---|---|---|---|---|"]
            for key in keys:
                s = lines_of(groups[key])
                bad = [name for name, ok in s["checks"].items() if not ok]
                total += len(s["checks"])
                failing += [f"{'/'.join(key)}: {name}" for name in bad]
                out.append(
                    f"| {key[0]} | {key[1]} | {s['draws']} | {s['raw_brier']:.4f} → "
                    f"{s['cal_brier']:.4f} | {s['raw_ece']:.4f} → {s['cal_ece']:.4f} "
                    f"({s['raw_oracle_ece']:.4f}) | {s['raw_auroc']:.3f} → "
                    f"{s['cal_auroc']:.3f} | {s['raw_logloss_k']:.3f} → "
                    f"{s['cal_logloss_k']:.3f} | {s['raw_ece_k']:.4f} → {s['cal_ece_k']:.4f} | "
                    f"{s['better']:.0%} | {s['written']:.0%} | "
                    f"{'ok' if not bad else ', '.join(bad)} |")
    out.append(f"\n{refused} draws refused (answers that cannot be calibrated on). "
               f"{len(failing)} of {total} lines fail" + (":" if failing else "."))
    out += [f"- {line}" for line in failing]
    return "\n".join(out)


#: how much worse (mean held-out Brier) pairs asked in rounds may be than in one round
ROUNDS_TOLERANCE = 0.002


def rounds_text(path: Path) -> str:
    """Per relation kind and answer variant with more than one number of answers or of
    rounds: for each number of answers and of rounds, the means over cases and draws of
    the held-out Brier, ECE and AUROC (raw → calibrated), and for rounds the difference
    of the mean calibrated Brier from one round's on the same cases and draws, with the
    line: at most :data:`ROUNDS_TOLERANCE` worse. Empty without such records."""
    by: dict[tuple, dict] = defaultdict(dict)
    for r in read_records(path):
        if "error" not in r:
            key = (r["kind"], r["variant"], r.get("asked", 40), r.get("rounds", 1))
            by[key][(r["case"], r["draw"])] = r
    out = []
    for kind, variant in sorted({k[:2] for k in by}):
        keys = sorted(k for k in by if k[:2] == (kind, variant))
        if len({k[2] for k in keys}) < 2 and all(k[3] == 1 for k in keys):
            continue
        out += [f"\n### {kind}, answers {variant}: rounds and the number of answers\n",
                "| answers | rounds | draws | Brier raw → cal | ECE raw → cal | AUROC raw → "
                "cal | cal Brier − one round's | its gain − one round's | line |",
                "|---|---|---|---|---|---|---|---|---|"]
        for key in keys:
            one = by.get((*key[:3], 1), {})
            shared = sorted(set(by[key]) & set(one)) if key[3] > 1 else sorted(by[key])
            rows = [by[key][d] for d in shared]
            if not rows:
                continue
            m = {c: float(np.nanmean([r[c] for r in rows])) for c in
                 ("raw_brier", "cal_brier", "raw_ece", "cal_ece", "raw_auroc", "cal_auroc")}
            diff, gain, line = "", "", ""
            if key[3] > 1:  # the gain, raw − calibrated, on each draw's own held-out pairs
                d = m["cal_brier"] - float(np.mean([one[c]["cal_brier"] for c in shared]))
                g = (m["raw_brier"] - m["cal_brier"]) - float(np.mean(
                    [one[c]["raw_brier"] - one[c]["cal_brier"] for c in shared]))
                diff, gain = f"{d:+.4f}", f"{g:+.4f}"
                line = "ok" if d <= ROUNDS_TOLERANCE else "worse"
            out.append(f"| {key[2]} | {key[3]} | {len(rows)} | {m['raw_brier']:.4f} → "
                       f"{m['cal_brier']:.4f} | {m['raw_ece']:.4f} → {m['cal_ece']:.4f} | "
                       f"{m['raw_auroc']:.3f} → {m['cal_auroc']:.3f} | {diff} | {gain} | "
                       f"{line} |")
    return "\n".join(out)
