"""The size of a chart's text, for the back of the room: one style every chart draws under.

Every text on a chart (ticks, axis labels, legends, labels on the bars) is 13 pt; at the
charts' 100 dpi that is 18 px of the PNG. A slide shows a chart about 1.35 times its own
width (a 9-inch chart, 900 px, is drawn up to 1200 px of the slide's 1280:
editions/slides/build.py), where 18 px is 24 px, the slide's body text; Voilà shows the
explorer's chart at its own size, beside 17 px body text. Titles are a point larger.
"""

from __future__ import annotations

import functools

from matplotlib import rc_context

TEXT_PT = 13
TITLE_PT = 14
STYLE = {"font.size": TEXT_PT, "axes.titlesize": TITLE_PT, "axes.labelsize": TEXT_PT,
         "xtick.labelsize": TEXT_PT, "ytick.labelsize": TEXT_PT, "legend.fontsize": TEXT_PT}


def chart_style():
    """A context in which matplotlib makes text at these sizes (it reads them as each text
    is made: tick labels as the figure is drawn)."""
    return rc_context(STYLE)


def styled(draw):
    """``draw`` run under the chart style."""
    @functools.wraps(draw)
    def drawn(*args, **kwargs):
        with chart_style():
            return draw(*args, **kwargs)
    return drawn
