"""Progress reports: a tqdm bar on a terminal, plain log lines anywhere else.

A bar redraws itself many times a second, which is right on a terminal and wrong in a
log file (nested bars wrote ~960 lines for one demo). :func:`progress` therefore returns
a tqdm bar only when standard error is a terminal (or bars were forced with
:func:`force_bars`, the command line's ``--progress``), and otherwise a
:class:`LineProgress` that writes one line per tenth of the work (and at least one a
minute while it runs).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["LineProgress", "force_bars", "progress"]

_FORCE_BARS = False


def force_bars(on: bool = True) -> None:
    """Show tqdm bars even when standard error is not a terminal."""
    global _FORCE_BARS
    _FORCE_BARS = bool(on)


def _stderr_is_terminal() -> bool:
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed stream
        return False


def progress(
    iterable: Iterable | None = None,
    *,
    total: int | None = None,
    desc: str = "",
    unit: str = "it",
    initial: int = 0,
    enabled: bool | None = True,
    leave: bool = True,
    min_total: int = 0,
) -> Any:
    """A progress reporter with tqdm's ``update``/``set_postfix_str``/``close`` and iteration.

    ``enabled=False`` reports nothing; ``enabled=None`` reports only when ``total`` is at
    least ``min_total`` (e.g. only for large networks).
    """
    if total is None and iterable is not None and hasattr(iterable, "__len__"):
        total = len(iterable)
    if enabled is None:
        enabled = (total or 0) >= min_total
    terminal = _FORCE_BARS or _stderr_is_terminal()
    if not enabled:
        return LineProgress(iterable, total=total, desc=desc, unit=unit, initial=initial,
                            silent=True)
    if terminal:
        from tqdm.auto import tqdm

        return tqdm(iterable, total=total, desc=desc, unit=unit, initial=initial,
                    leave=leave, file=sys.stderr, dynamic_ncols=True, smoothing=0.1)
    return LineProgress(iterable, total=total, desc=desc, unit=unit, initial=initial)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class LineProgress:
    """tqdm-like progress that logs ``desc: n/total unit (p %), elapsed, left`` lines."""

    STEPS = 10  # a line per tenth of the total
    INTERVAL = 60.0  # and at least one a minute

    def __init__(self, iterable: Iterable | None = None, *, total: int | None = None,
                 desc: str = "", unit: str = "it", initial: int = 0,
                 silent: bool = False) -> None:
        self.iterable = iterable
        self.total = total
        self.desc = desc
        self.unit = unit
        self.n = self._start = initial
        self.silent = silent
        self.postfix = ""
        self._t0 = self._last = time.monotonic()
        self._logged_step = self._step(initial)

    def __iter__(self) -> Iterator:
        for item in () if self.iterable is None else self.iterable:
            yield item
            self.update(1)
        self.close()

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        self.postfix = text

    def _step(self, n: int) -> int:
        """Which tenth of the total ``n`` has reached (0 … 10)."""
        return n * self.STEPS // self.total if self.total else 0

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if self._step(self.n) > self._logged_step or now - self._last >= self.INTERVAL:
            self._log(now)

    def _log(self, now: float) -> None:
        self._last = now
        self._logged_step = self._step(self.n)
        done = self.n - self._start
        elapsed = now - self._t0
        if self.total:
            line = f"{self.desc}: {self.n}/{self.total} {self.unit} ({self.n / self.total:.0%})"
        else:
            line = f"{self.desc}: {self.n} {self.unit}"
        line += f", {_duration(elapsed)}"
        if self.total and 0 < done and self.n < self.total:
            line += f", about {_duration(elapsed / done * (self.total - self.n))} left"
        if self.postfix:
            line += f" [{self.postfix}]"
        if not self.silent:
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        """Nothing to release (tqdm's interface)."""
