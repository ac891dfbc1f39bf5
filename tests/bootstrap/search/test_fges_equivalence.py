"""The search's CPDAGs pinned on seeded cases (issue 29; docs/design.md §5).

Fingerprints of the CPDAGs the default search gave before the issue-29 counting changes
(36 seeded random cases: all candidates or bounded ones, bootstrap weights or none; the
seven benchmark networks, with and without a bootstrap replicate; three larger bounded
cases).  A change to the counting or the lnΓ sums that alters a rounding enough to flip
a choice between operators shows up here.  The torch path (``device="cpu"``) must give
the same CPDAGs, so CI checks the GPU code without a GPU.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from causalcal.bootstrap import bootstrap_weights, fges
from causalcal.simulate import load_network, random_network

NETWORKS = ["asia", "sachs", "child", "insurance", "alarm", "hepar2", "win95pts"]


def _random_cases() -> list[tuple]:
    cases = []
    for seed in range(36):
        rng = np.random.default_rng(1000 + seed)
        v = int(rng.integers(8, 41))
        e, n = int(rng.integers(v, 2 * v + 1)), int(rng.integers(200, 1500))
        cases.append((f"r{seed}", v, e, n, seed, ["auto", None, 6, 10][seed % 4], seed % 3 != 0))
    for v, limit in ((150, 20), (300, 30), (400, "auto")):
        cases.append((f"v{v}", v, 2 * v, 800, v, limit, True))
    return cases


CASES = [c[0] for c in _random_cases()] + NETWORKS + [f"{n}-boot" for n in NETWORKS]

# sha256 (first 16 hex digits) of the sorted directed and undirected edge lists
EXPECTED = {
    "r0": "0a924df898a2bfd3",
    "r1": "b9a13e706217bafb",
    "r2": "5029fafa469b914c",
    "r3": "068b2e2b59fa4cee",
    "r4": "d99dc1ef24d7cc13",
    "r5": "034820e4748ef30a",
    "r6": "b50a61d6fb591767",
    "r7": "cdec6596d34f521e",
    "r8": "0e9fd85720e7857a",
    "r9": "b1bc0c08283f077b",
    "r10": "628492d9b5da8f42",
    "r11": "94b203ea27b265c4",
    "r12": "4d3e6addcb8cbd6f",
    "r13": "5831ed3c7d96124f",
    "r14": "cbcd9df533b7a043",
    "r15": "37d65f8b1b1fc9ba",
    "r16": "1702c0b4c635f58b",
    "r17": "067f74e4d491b645",
    "r18": "e63d12dd8669d5ee",
    "r19": "f4f8f8aff7ba1294",
    "r20": "2bd53a9d4bc861f7",
    "r21": "a741dff663c25a7d",
    "r22": "4c5b31d15e11733b",
    "r23": "efaa45948413fb90",
    "r24": "4143d293dd76ea16",
    "r25": "f3cc1e5e3b2f2f55",
    "r26": "d789e2049152983e",
    "r27": "8f3d0cca7fc77f84",
    "r28": "2e10d17539304f9a",
    "r29": "d4d371f912918585",
    "r30": "d2466af7711080de",
    "r31": "27f4cf7db6ecdaa3",
    "r32": "b9997545a72da9dc",
    "r33": "c203a8ede86575c6",
    "r34": "0aced7acb403785f",
    "r35": "9af9609b10dc5539",
    "v150": "ab15ae8e3bd5ea7c",
    "v300": "e5285b5758267d53",
    "v400": "2d5ed267846dd6c3",
    "asia": "0aba66f2ef5f0888",
    "sachs": "5c3c9d91cca06ed6",
    "child": "b08e8acb947ead26",
    "insurance": "e9ea1f1d8182c717",
    "alarm": "385eaeb9b782a7bc",
    "hepar2": "7e5ffec1a96e6112",
    "win95pts": "f64835eade15790f",
    "asia-boot": "0aba66f2ef5f0888",
    "sachs-boot": "085232c5f2d33b95",
    "child-boot": "22d84d781e66241e",
    "insurance-boot": "6dd7ff2a32e1fc81",
    "alarm-boot": "24dfceba1fc909a9",
    "hepar2-boot": "2fed37cdb4f0917d",
    "win95pts-boot": "f99873aad9eb71c8",
}


def fingerprint(graph) -> str:
    edges = [sorted(map(tuple, e.tolist())) for e in (graph.directed_edges(),
                                                      graph.undirected_edges())]
    return hashlib.sha256(json.dumps(edges).encode()).hexdigest()[:16]


def run_case(name: str, device: str | None = None):
    """The CPDAG of case ``name``."""
    for case, v, e, n, seed, limit, boot in _random_cases():
        if case == name:
            d = random_network(v, e, seed=seed).sample(n, seed=seed)
            w = bootstrap_weights(n, seed, 0) if boot else None
            return fges(d, w, max_candidates=limit, device=device)
    net, boot = name.removesuffix("-boot"), name.endswith("-boot")
    d = load_network(net).sample(1000, seed=1)
    if boot:
        return fges(d, bootstrap_weights(1000, 0, 1), max_candidates=8, device=device)
    return fges(d, device=device)


@pytest.mark.parametrize("name", CASES)
def test_cpdag_as_before(name):
    assert fingerprint(run_case(name)) == EXPECTED[name]


@pytest.mark.parametrize("name", CASES)
def test_torch_path_on_cpu_tensors_gives_the_same_cpdag(name):
    """``device="cpu"``: the count products of the GPU path, run on CPU tensors."""
    assert fingerprint(run_case(name, device="cpu")) == EXPECTED[name]


def test_torch_path_with_real_weights_matches_numpy():
    d = random_network(30, 60, seed=5).sample(700, seed=5)
    w = np.random.default_rng(5).gamma(2.0, 0.5, 700)  # float64 counts, any summation order
    for limit in ("auto", 8):
        assert fges(d, w, max_candidates=limit, device="cpu") == fges(d, w, max_candidates=limit)


@pytest.mark.parametrize("device", ["tpu", "cuda:x", 3])
def test_bad_device_is_an_input_error(device):
    from causalcal.errors import InputError

    d = random_network(5, 5, seed=0).sample(50, seed=0)
    with pytest.raises(InputError, match="device"):
        fges(d, device=device)


def test_cuda_without_a_gpu_is_an_input_error():
    import torch

    from causalcal.errors import InputError

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(InputError, match="no CUDA device"):
        fges(random_network(5, 5, seed=0).sample(50, seed=0), device="cuda")
