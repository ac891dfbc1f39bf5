"""The report of a run: one value, rendered to text, JSON and HTML that say the same
numbers (issue 51 item 1; docs/design.md §9.15)."""

from __future__ import annotations

import dataclasses
import json
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import causalcal
from causalcal.bootstrap import BootstrapSettings, bootstrap_edge_probabilities
from causalcal.edgecal import CalibrationSettings, suggest_pairs
from causalcal.edges import EdgeProbabilities, pair_index
from causalcal.report import (
    bootstrap_report,
    network_data,
    report_dict,
    report_html,
    summary_text,
)
from causalcal.simulate import random_network

SYMBOLS = ("none", "->", "<-", "--")


@pytest.fixture(scope="module")
def result():
    """A discover run on answers to suggested pairs (one made wrong) and the scientist's
    own known pairs: every section of the report has something to say."""
    net = random_network(14, 18, seed=4)
    data = net.sample(2000, seed=5)
    probs = bootstrap_edge_probabilities(data, n_boot=12, seed=0, progress=False)
    truth = net.truth_dense()
    ask = suggest_pairs(probs, 24, seed=1)
    index = {n: k for k, n in enumerate(data.names)}
    for k, row in enumerate(ask.itertuples(index=False)):
        i, j = index[row.a], index[row.b]
        t = int(truth[pair_index(min(i, j), max(i, j), len(index))])
        ask.loc[k, "relation"] = SYMBOLS[3 - t if i > j and t in (1, 2) else t]
    ask.loc[0, "relation"] = "none" if ask.loc[0, "relation"] != "none" else "->"
    return causalcal.discover(data, ask, probabilities=probs,
                              bootstrap=BootstrapSettings(seed=0, progress=False),
                              calibration=CalibrationSettings(answer_error=0.1))


class _Page(HTMLParser):
    """The page's tables (by id: rows of cell texts), its pre blocks and its scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.pre: dict[str, str] = {}
        self.scripts: dict[str, str] = {}
        self.ids: set[str] = set()
        self._table = self._pre = self._script = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "table":
            self._table = attrs.get("id")
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "pre":
            self._pre = attrs.get("id")
            self.pre[self._pre] = ""
        elif tag == "script":
            self._script = attrs.get("id")
            self.scripts[self._script] = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "pre":
            self._pre = None
        elif tag == "script":
            self._script = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._pre is not None:
            self.pre[self._pre] += data
        if self._script is not None:
            self.scripts[self._script] += data


def _page(report) -> _Page:
    page = _Page()
    page.feed(report_html(report, figures=False))
    return page


@pytest.mark.slow
def test_text_json_and_page_say_the_same_numbers(result):
    report = result.run_report(command="causalcal discover data.csv --known ask.csv")
    text = summary_text(report)
    assert text == result.summary()  # the library's summary is the report's
    doc = json.loads(json.dumps(report_dict(report), default=float))
    library = json.loads(result.report_json())
    assert library.pop("run")["command"] is None  # the library records no command
    assert library == {k: v for k, v in doc.items() if k != "run"}
    page = _page(report)
    assert page.pre["summary-text"] == text
    assert page.pre["command"] == "causalcal discover data.csv --known ask.csv"
    # the map's candidates: the JSON's Brier scores are the text's and the page's
    candidates = page.tables["candidates-table"][1:]
    for (name, c), row in zip(doc["map"]["candidates"].items(), candidates, strict=True):
        short = f"{c['brier']['mean']:.4f}"
        assert short in text and row[1] == short, name
    assert doc["map"]["chosen"] in page.tables["candidates-table"][0] or any(
        r[-1] == "written" for r in candidates)
    # the answers' estimate of related pairs
    est, se = doc["answers"]["related_pairs"], doc["answers"]["related_pairs_se"]
    assert f"{est:.1f} ± {se:.1f}" in text
    # the answers to recheck: P(wrong) of each shown in the text, the JSON, the page
    recheck = page.tables["recheck-table"][1:]
    assert len(recheck) == len(doc["recheck"]) == len(result.recheck) > 0
    shown = [r for r in doc["recheck"] if "if_wrong" in r]
    assert len(shown) == min(5, len(result.recheck))
    for record, row in zip(doc["recheck"], recheck, strict=True):
        assert row[:3] == [record["a"], record["b"], record["stated"]]
        assert float(row[3]) == pytest.approx(record["p_wrong"], abs=5e-4)
        if "if_wrong" in record:
            assert f"P(wrong) {record['p_wrong']:.2f}" in text
    # the known relations: every one in the JSON and on the page, in the same order
    known = page.tables["known-table"][1:]
    assert [r[2] for r in known] == [r["stated"] for r in doc["known_relations"]]
    # the ranked pairs: the page's data are the table's head, rounded
    data = json.loads(page.scripts["pairs-data"])
    head = result.table.head(len(data["rows"]))
    assert data["columns"] == list(result.table.columns)
    assert [r[:2] for r in data["rows"]] == head[["a", "b"]].to_numpy().tolist()
    assert np.allclose([r[2] for r in data["rows"]], head["p_adjacent"], atol=5e-5)
    counted = re.search(r"> 0\.5: (\d+), > 0\.9: (\d+)", text).groups()
    assert tuple(map(int, counted)) == (report.pairs.above_half, report.pairs.above_09)
    # the network: its edges in the JSON and on the page, known and discovered apart
    net = doc["figures"]["network"]
    edges = page.tables["network-table"][1:]
    assert len(edges) == len(net["edges"]) == net["total_edges"]
    assert [e[4] == "known" for e in edges] == [e["known"] for e in net["edges"]]


@pytest.mark.slow
def test_the_report_is_one_frozen_value(result):
    report = result.run_report()
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.fit = None
    assert report.settings.relations == "edges" and report.settings.n_boot == 12
    assert report.settings.seed == 0 and report.settings.search == "fges"
    assert dict(report.settings.versions)["causalcal"] == causalcal.__version__


@pytest.mark.slow
def test_the_page_draws_known_and_discovered_edges_apart(result):
    pytest.importorskip("matplotlib")
    page = report_html(result.run_report())
    svg = page[page.index('id="fig-network"'):]
    assert re.search(r'<g id="edge-known-\d+"', svg)
    assert re.search(r'<g id="edge-discovered-\d+"', svg)
    assert '<figure id="fig-reliability"><svg' in page
    for fetched in ("<link", " src=", "@import", "<iframe"):  # nothing to fetch
        assert fetched not in page, fetched
    assert not re.search(r"url\((?!#)", page)  # only the page's own clip paths


def _probabilities(n: int = 9, seed: int = 0) -> EdgeProbabilities:
    rng = np.random.default_rng(seed)
    names = [f"v{k}" for k in range(n)]
    i, j = np.triu_indices(n, 1)
    keep = rng.random(len(i)) < 0.6
    probs = rng.dirichlet(np.ones(4) * 0.5, keep.sum())
    return EdgeProbabilities(names, np.column_stack([i[keep], j[keep]]), probs, n_boot=20)


def test_the_strongest_edges_are_drawn_as_in_the_whole_network():
    probs = _probabilities()
    whole = network_data(probs, 0.3, known=[("v0", "v1")])
    assert len(whole.edges) > 6
    top = whole.strongest(6)
    assert top.total_edges == whole.total_edges
    found = [e for e in whole.edges if not e.known][:6]
    assert [e for e in top.edges if not e.known] == found
    ends = {v for e in found for v in (e.a, e.b)}
    assert [e for e in top.edges if e.known] == [
        e for e in whole.edges if e.known and {e.a, e.b} & ends]
    # the restricted probabilities give the same six edges, oriented the same way
    again = network_data(top.probabilities, 0.3, known=list(top.known))
    assert {(e.a, e.b, e.directed, e.known) for e in again.edges} == \
        {(e.a, e.b, e.directed, e.known) for e in top.edges}
    ps = [e.p_adjacent for e in whole.edges]
    assert ps == sorted(ps, reverse=True)


def test_a_bootstrap_report_ranks_every_pair_with_an_edge():
    probs = _probabilities(seed=1)
    report = bootstrap_report(probs, command="causalcal bootstrap d.csv --out p.npz",
                              head=5)
    assert report.pairs.total == len(probs) and len(report.pairs.table) == 5
    p = report.pairs.table["p_adjacent"].to_numpy()
    assert np.all(np.diff(p) <= 0) and p[0] == pytest.approx(1 - probs.probs[:, 0].min())
    assert report.pairs.above_half == int(((1 - probs.probs[:, 0]) > 0.5).sum())
    page = _page(report)
    assert "known" not in page.ids and "recheck" not in page.ids
    assert "replicates over 9 variables" in summary_text(report)
    with pytest.raises(causalcal.errors.InputError):
        report_dict(report)


def test_names_are_escaped_everywhere():
    probs = _probabilities(4)
    probs = EdgeProbabilities(["<b>x</b>", "</script><i>", "a&b", "plain"], probs.pairs,
                              probs.probs, n_boot=20)
    page = report_html(bootstrap_report(probs, threshold=0.1), figures=False)
    assert "<b>x</b>" not in page and "</script><i>" not in page
    data = _page(bootstrap_report(probs, threshold=0.1)).scripts["pairs-data"]
    names = {n for row in json.loads(data)["rows"] for n in row[:2]}
    assert names <= set(probs.names) and len(names) > 1


def test_every_column_of_every_kind_is_explained():
    from causalcal.edgecal import CausalRelations, EdgeTypes, PAGEdges
    from causalcal.report import column_words

    for kind in (EdgeTypes(), CausalRelations(), PAGEdges()):
        for column in kind.columns:
            for name in (column, column.replace("p_", "boot_", 1)):
                assert column_words(name), name
    for column in ("p_adjacent", "p_directed", "stated", "p_stated", "boot_stated",
                   "association_p", "p_wrong"):
        assert column_words(column), column


@pytest.mark.slow
def test_known_results_frame_keeps_its_columns(result):
    frame = result.run_report().known
    assert isinstance(frame, pd.DataFrame)
    assert {"stated", "source", "p_stated", "boot_stated", "association_p"} <= set(frame)
