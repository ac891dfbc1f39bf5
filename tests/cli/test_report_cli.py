"""``--report FILE.html`` of discover and bootstrap (issue 51 item 2): the page is
written, carries the command that reproduces the run, and replaces only a page causalcal
made."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from causalcal._report_page import MARKER
from causalcal.cli import main
from causalcal.edges import pair_from_index

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """A 12-variable simulation, 6 bootstrap replicates and a known.csv of 6 true
    adjacencies and 6 non-adjacent pairs."""
    root = tmp_path_factory.mktemp("report")
    assert main(["simulate", "--nodes", "12", "--edges", "15", "--samples", "500", "--seed",
                 "3", "--out", str(root), "--quiet"]) == 0
    assert main(["bootstrap", str(root / "data.csv"), "--n-boot", "6", "--out",
                 str(root / "probs.npz"), "--quiet", "--jobs", "1",
                 "--report", str(root / "boot.html")]) == 0
    truth = pd.read_csv(root / "truth.csv")
    truth = truth[truth.relation != "none"]
    names = list(pd.read_csv(root / "data.csv", nrows=0).columns)
    adjacent = set(zip(truth.a, truth.b)) | set(zip(truth.b, truth.a))
    i, j = pair_from_index(np.arange(len(names) * (len(names) - 1) // 2), len(names))
    none = [(names[a], names[b], "none") for a, b in zip(i, j)
            if (names[a], names[b]) not in adjacent][:6]
    known = pd.concat([truth.head(6), pd.DataFrame(none, columns=["a", "b", "relation"])])
    known.to_csv(root / "known.csv", index=False)
    return root


def _discover(sim, causalcal_main, *extra):
    return causalcal_main("discover", sim / "data.csv", "--known", sim / "known.csv",
                          "--probabilities", sim / "probs.npz", "--out", sim / "e.csv",
                          "--quiet", *extra)


def test_discover_writes_a_page_that_names_its_command(sim, causalcal_main):
    page = sim / "run.html"
    done = _discover(sim, causalcal_main, "--report", page)
    assert done.returncode == 0, done.stderr
    assert f"wrote the report to {page}" in done.stdout
    text = page.read_text(encoding="utf-8")
    assert MARKER in text[:4096]
    assert f"causalcal discover {sim / 'data.csv'}" in text  # the command line
    assert 'id="pairs-data"' in text and 'id="known-table"' in text
    report = json.loads((sim / "e.csv.json").read_text())
    assert report["run"]["command"].startswith("causalcal discover ")
    # the page causalcal made is replaced by the next run, without --force
    assert _discover(sim, causalcal_main, "--report", page).returncode == 0


def test_a_page_causalcal_did_not_make_is_kept(sim, causalcal_main):
    page = sim / "mine.html"
    page.write_text("<html><head><title>my notes</title></head></html>", encoding="utf-8")
    done = _discover(sim, causalcal_main, "--report", page)
    assert done.returncode == 2
    assert "--report" in done.stderr and "a web page" in done.stderr
    assert "my notes" in page.read_text()
    assert _discover(sim, causalcal_main, "--report", page, "--force").returncode == 0
    assert MARKER in page.read_text()


def test_a_report_that_is_not_html_is_refused(sim, causalcal_main):
    done = _discover(sim, causalcal_main, "--report", sim / "run.txt")
    assert done.returncode == 2 and ".html" in done.stderr


def test_bootstrap_writes_a_page_too(sim):
    text = (sim / "boot.html").read_text(encoding="utf-8")
    assert MARKER in text and "causalcal bootstrap" in text
    assert 'id="pairs-data"' in text and 'id="known-table"' not in text
