"""Count products on a torch device (issue 29; docs/design.md §5).

With ``BDeuScore(device=…)`` the one-hot count products run with torch on that device
(``"cuda"`` for a GPU; ``"cpu"`` runs the same code on CPU tensors, which is how the
tests check it): the all-pairs product of :mod:`.pair_gains` and the family products
``Xᵀ Z`` of :func:`.family_gains.family_gains`.  The counts come back as numpy arrays and
the lnΓ sums are the numpy ones, so with integer weights (exact float32 counts, any
summation order) the device changes no score and no CPDAG.
"""

from __future__ import annotations

import numpy as np

from causalcal.errors import InputError

__all__ = ["DeviceCounts", "check_device"]


def check_device(device: str | None) -> str | None:
    """``device`` as given, or ``InputError`` if torch cannot use it (``None``: numpy)."""
    if device is None:
        return None
    import torch

    if not isinstance(device, str):
        raise InputError(f"device must be a string such as 'cuda' or 'cpu', got {device!r}")
    try:
        kind = torch.device(device).type
    except (RuntimeError, ValueError):
        raise InputError(f"device {device!r} is not a torch device ('cuda', 'cpu', …)") from None
    if kind == "cuda" and not torch.cuda.is_available():
        raise InputError(f"device {device!r} was asked for but torch sees no CUDA device")
    if kind not in ("cpu", "cuda"):
        raise InputError(f"device must be a CUDA or CPU torch device, got {device!r}")
    return device


class DeviceCounts:
    """The reduced one-hot matrix of a :class:`.family_gains._Layout` on ``device``, as
    (columns × samples), and the family count products over it."""

    def __init__(self, lay, device: str) -> None:
        import torch

        self.torch = torch
        self.device = torch.device(device)
        self.transposed = torch.from_numpy(np.ascontiguousarray(lay.onehot.T)).to(self.device)
        self.weights = torch.from_numpy(lay.weights).to(self.device)
        self.samples = torch.arange(len(lay.weights), device=self.device)

    def count(self, cols: np.ndarray | None, rows: np.ndarray, k: int, n_rows: int) -> np.ndarray:
        """``X[:, cols]ᵀ Z`` (all columns if ``cols`` is None) for the weighted indicator
        ``Z`` (samples × ``n_rows``) of ``k`` stacked requests: sample ``s`` of request
        ``i`` is in row ``rows[s·k + i]``."""
        torch, dev = self.torch, self.device
        zt = torch.zeros((len(self.samples), n_rows), dtype=self.transposed.dtype, device=dev)
        at = torch.from_numpy(np.ascontiguousarray(rows, dtype=np.int64)).to(dev)
        if k == 1:
            zt[self.samples, at] = self.weights
        else:
            zt[self.samples.repeat_interleave(k), at] = self.weights.repeat_interleave(k)
        if cols is None:
            g = self.transposed
        else:
            g = self.transposed.index_select(0, torch.from_numpy(cols.astype(np.int64)).to(dev))
        return (g @ zt).cpu().numpy()
