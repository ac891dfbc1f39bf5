"""GFCI's PAGs on seeded data sets are those of the reference implementation: the edges in
``data/gfci_reference.json`` were written by :func:`cases` with the code before its speed-up
(issue 40: G² p-values through ``chdtrc``, counts in one pass; docs/design.md §11), so any
change of result, not only of speed, fails here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from causalcal.bootstrap import bootstrap_weights, gfci
from causalcal.knowledge import Knowledge
from causalcal.simulate import random_network
from causalcal.simulate.misspecified import hidden_benchmark

REFERENCE = Path(__file__).parent / "data" / "gfci_reference.json"


def _random_hidden(v: int, seed: int, n: int):
    net = random_network(v, 2 * v, arities=(2, 3), seed=seed)
    return hidden_benchmark(net, n, seed=seed, fraction=0.1).data


def cases():
    """(name, thunk giving the PAG): hidden nodes, weights, options, knowledge."""
    alarm = hidden_benchmark("alarm", 1500, seed=3, fraction=0.1).data
    r40 = _random_hidden(40, 1, 800)
    r60 = _random_hidden(60, 2, 1500)
    first, last = r40.names[0], r40.names[-1]
    return {
        "alarm-hidden": lambda: gfci(alarm),
        "alarm-hidden-boot": lambda: gfci(alarm, bootstrap_weights(alarm.n_samples, 7, 2)),
        "random40-alpha05": lambda: gfci(r40, alpha=0.05),
        "random40-pds-unbounded": lambda: gfci(r40, pds_depth=None, depth=3),
        "random40-knowledge": lambda: gfci(r40, knowledge=Knowledge(
            required=[(first, last)], forbidden=[(r40.names[1], r40.names[2])])),
        "random60-boot": lambda: gfci(r60, bootstrap_weights(r60.n_samples, 0, 5)),
    }


def _edges(pag) -> list[str]:
    return [" ".join(e) for e in pag.edges()]


_REF = json.loads(REFERENCE.read_text()) if REFERENCE.exists() else {}


@pytest.mark.parametrize("name", sorted(_REF))
def test_gfci_unchanged(name):
    assert _edges(cases()[name]()) == _REF[name]


def test_every_case_has_a_reference():
    assert sorted(_REF) == sorted(cases()) and all(len(v) > 10 for v in _REF.values())


if __name__ == "__main__":  # regenerate (only with the reference implementation)
    import time

    out = {}
    for name, run in cases().items():
        t = time.perf_counter()
        out[name] = _edges(run())
        print(name, len(out[name]), f"{time.perf_counter() - t:.2f} s", flush=True)
    REFERENCE.write_text(json.dumps(out, indent=0) + "\n")
