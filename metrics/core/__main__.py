"""``python -m metrics.core``: see :mod:`metrics.core.cli`."""

import sys

from .cli import main

sys.exit(main())
