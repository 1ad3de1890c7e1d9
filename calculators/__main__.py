"""``python -m calculators``: the same command line as ``mlhw``."""

from __future__ import annotations

import sys

from calculators.cli import main

if __name__ == "__main__":
    sys.exit(main())
