"""``python -m ledgerlab.course``: the ``ledgerlab-course`` command."""

import sys

from .entry import main

sys.exit(main())
