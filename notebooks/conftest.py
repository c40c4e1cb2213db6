"""What strict nbval needs of the notebooks it runs here.

The learner's progress (``ledgerlab/course/progress.py``) is switched off for every kernel
nbval starts (they inherit this process's environment): a check records nothing, and 00's
table shows nothing answered, what a fresh learner sees and what is saved, whatever ran
before it in this folder.
"""

import os

os.environ["LEDGERLAB_PROGRESS"] = "off"
