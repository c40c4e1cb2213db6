"""``python -m ledgerlab.course``: the ``ledgerlab-course`` command."""

import sys

from .cli import main

sys.exit(main())
