"""``python -m studies.misspec``: see :mod:`studies.misspec.cli`."""

from .cli import main

main()
