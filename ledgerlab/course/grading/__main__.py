"""``python -m ledgerlab.course.grading``: see ``cli``."""

import sys

from .cli import main

sys.exit(main())
