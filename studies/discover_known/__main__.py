"""``python -m studies.discover_known``: see :mod:`studies.discover_known.cli`."""

from .cli import main

main()
