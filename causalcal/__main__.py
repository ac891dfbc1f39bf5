import sys

from causalcal.cli import main

sys.exit(main())
