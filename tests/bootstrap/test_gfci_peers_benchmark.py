"""benchmarks/gfci_peers.py (issue 40): the PAG agreement it prints, and a clean skip
(exit 0, the reason said) without a Java that runs Tetrad 7.6.8."""

from __future__ import annotations

import pytest

from benchmarks import gfci_peers, peers
from causalcal.pag import PAG


def test_agreement_over_all_pairs_either_and_both():
    names = ["A", "B", "C", "D"]
    a = PAG.from_edges(4, [(0, "o->", 1), (1, "<->", 2), (2, "-->", 3)], names)
    b = PAG.from_edges(4, [(0, "o->", 1), (1, "o-o", 2), (0, "o-o", 3)], names)
    # 6 pairs: A-B, B-C alike adjacent, C-D and A-D differ, A-C and B-D alike absent;
    # 4 adjacent in either, 2 in both; of those A-B has the same marks, B-C not
    assert gfci_peers.agreement(a, b) == pytest.approx((4 / 6, 2 / 4, 1 / 2))
    assert gfci_peers.agreement(a, a) == (1.0, 1.0, 1.0)


def test_skips_cleanly_without_java_21(monkeypatch, capsys):
    monkeypatch.setattr(gfci_peers, "find_java", lambda: peers.Java("java", "/jdk", 17))
    assert gfci_peers.main(["--n-boot", "0"]) == 0
    assert "needs Java ≥ 21, found 17" in capsys.readouterr().out
    monkeypatch.setattr(gfci_peers, "find_java", lambda: None)
    monkeypatch.setattr(gfci_peers, "start_tetrad",
                        lambda threads, kind: (None, "Tetrad skipped: no Java found"))
    assert gfci_peers.main([]) == 0
    assert "Tetrad skipped" in capsys.readouterr().out
