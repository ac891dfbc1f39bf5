"""causalcal's marks on the files it writes (issue 49): a text output carries a comment
with the checksum of its lines, a CSV's JSON file records its checksum, a figure its
mark in the metadata; an edit shows."""

from __future__ import annotations

import hashlib
import json

import networkx as nx
import pytest

from causalcal._own import (
    FIGURE_MARK,
    figure_metadata,
    file_digest,
    is_own_figure,
    marked,
    sidecar_records,
    text_mark,
    write_digest_sidecar,
)


@pytest.mark.parametrize("suffix, first", [(".bif", "//"), (".dot", "//"), (".gml", "#")])
def test_a_marked_text_names_what_it_holds_and_shows_an_edit(tmp_path, suffix, first):
    text = "line one\nline two\n"
    path = tmp_path / f"f{suffix}"
    path.write_text(marked(text, suffix, "a thing"), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[0].startswith(f"{first} written by causalcal: a thing; sha256 ")
    assert hashlib.sha256(text.encode()).hexdigest() in lines[0]  # of the lines below
    mark = text_mark(path)
    assert mark.what == "a thing" and mark.intact
    path.write_text("".join(lines).replace("two", "2"), encoding="utf-8")
    assert not text_mark(path).intact
    path.write_text(text, encoding="utf-8")
    assert text_mark(path) is None


def test_graphml_keeps_its_xml_declaration_first_and_reads_back(tmp_path):
    graph = nx.DiGraph([("a", "b")])
    text = ('<?xml version="1.0" encoding="utf-8"?>\n'
            + "\n".join(nx.generate_graphml(graph)) + "\n")
    path = tmp_path / "g.graphml"
    path.write_text(marked(text, ".graphml", "a graph"), encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("<?xml") and lines[1].startswith("<!-- written by causalcal")
    assert text_mark(path).intact
    assert list(nx.read_graphml(path).edges) == [("a", "b")]


def test_a_csv_is_recognised_by_the_checksum_beside_it(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text("a,b,relation\nx,y,->\n", encoding="utf-8")
    assert sidecar_records(path, ("causalcal.test",)) is None  # no sidecar
    side = write_digest_sidecar(path, "causalcal.test", "test pairs")
    assert json.loads(side.read_text())["sha256"] == file_digest(path)
    assert sidecar_records(path, ("causalcal.test",)) is True
    assert sidecar_records(path, ("causalcal.other",)) is None  # another format
    path.write_text("a,b,relation\nx,y,none\n", encoding="utf-8")
    assert sidecar_records(path, ("causalcal.test",)) is False  # edited
    side.write_text(json.dumps({"format": "causalcal.test"}))  # an older causalcal's
    assert sidecar_records(path, ("causalcal.test",)) is True


@pytest.mark.parametrize("fmt", ["png", "pdf", "svg"])
def test_figures_carry_the_mark_in_their_metadata(tmp_path, fmt):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    fig = Figure()
    fig.subplots().plot([0, 1], [0, 1])
    ours, theirs = tmp_path / f"ours.{fmt}", tmp_path / f"theirs.{fmt}"
    fig.savefig(ours, format=fmt, metadata=figure_metadata(fmt))
    fig.savefig(theirs, format=fmt)
    assert is_own_figure(ours) and not is_own_figure(theirs)
    assert FIGURE_MARK.encode() in ours.read_bytes()
