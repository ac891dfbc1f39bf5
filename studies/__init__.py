"""The project's studies that are not the library's own ``causalcal study`` command: run
from the repository root as ``python -m studies.<name>``. Not part of the installed
distribution; the records they write are data under ``results/``."""
