"""A report page as a file (docs/design.md §9.15): how a page causalcal wrote is
recognised, before any heavy import, so that ``--report`` replaces only such a page."""

from __future__ import annotations

import os

__all__ = ["MARKER", "is_report_page"]

#: What every page causalcal writes carries in its head.
MARKER = '<meta name="generator" content="causalcal report">'


def is_report_page(path: str | os.PathLike) -> bool:
    """Whether the file at ``path`` is a report page causalcal wrote (its head carries
    :data:`MARKER`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from causalcal._report_page import MARKER, is_report_page
    >>> page = pathlib.Path(tempfile.mkdtemp()) / "run.html"
    >>> _ = page.write_text(f"<!DOCTYPE html><html><head>{MARKER}</head></html>")
    >>> is_report_page(page)
    True
    """
    with open(path, "rb") as handle:
        head = handle.read(4096)
    return MARKER.encode() in head
