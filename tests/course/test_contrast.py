"""Colour and size that a reader can read: the feedback words against the backgrounds they
are shown on (WCAG 2.x contrast, 4.5:1 for normal text), the chart's description at 14 px
or more, and the slider handles' accessible names in Voila (issue 29, item 17)."""

import json
import re
from pathlib import Path

import pytest

from ledgerlab.course.feedback import Feedback
from ledgerlab.course.widgets import (CAPTION_STYLE, SLIDER_HANDLE_NAMES_JS, BudgetExplorer,
                                      SliceExplorer, slider_handle_names)

ROOT = Path(__file__).resolve().parents[2]
SITE_CSS = ROOT / "editions" / "book" / "site" / "ledgerlab.css"
VOILA_APP = ROOT / "editions" / "voila" / "budget-explorer.ipynb"

# Where the feedback box is shown: JupyterLab's and the site's light page (white); JupyterLab
# dark (--jp-layout-color0 #111111, --jp-layout-color1 #212121) and the site's dark theme
# (pydata-sphinx-theme's --pst-color-background #14181E).
LIGHT_BACKGROUNDS = ("#FFFFFF",)
DARK_BACKGROUNDS = ("#111111", "#212121", "#14181E")
NORMAL_TEXT = 4.5


def luminance(colour: str) -> float:
    """WCAG 2.x relative luminance of an sRGB #RRGGBB colour."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_the_formula_gives_the_known_ratios():
    assert contrast("#000000", "#FFFFFF") == pytest.approx(21)
    assert contrast("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)
    # The colours issue 29 reported: under 4.5:1.
    assert contrast("#D55E00", "#FFFFFF") == pytest.approx(3.87, abs=0.01)
    assert contrast("#0072B2", "#111111") < NORMAL_TEXT


@pytest.mark.parametrize("status", sorted(Feedback.LABELS))
@pytest.mark.parametrize("background", LIGHT_BACKGROUNDS)
def test_light_theme_feedback_colours_reach_4_5_to_1(status, background):
    ratio = contrast(Feedback.COLOURS[status], background)
    assert ratio >= NORMAL_TEXT, f"{status} {Feedback.COLOURS[status]} on {background}: {ratio:.2f}"


@pytest.mark.parametrize("status", sorted(Feedback.LABELS))
@pytest.mark.parametrize("background", DARK_BACKGROUNDS)
def test_dark_theme_feedback_colours_reach_4_5_to_1(status, background):
    colour = Feedback.DARK_COLOURS[status]
    ratio = contrast(colour, background)
    assert ratio >= NORMAL_TEXT, f"{status} {colour} on {background}: {ratio:.2f}"


def test_the_colours_stay_apart():
    for shades in (Feedback.COLOURS, Feedback.DARK_COLOURS):
        assert len(set(shades.values())) == len(Feedback.LABELS)


@pytest.mark.parametrize("status", sorted(Feedback.LABELS))
def test_the_html_carries_the_light_shade_and_switches_to_the_dark_one(status):
    page = Feedback(status, "message")._repr_html_()
    light, dark = Feedback.COLOURS[status], Feedback.DARK_COLOURS[status]
    # The light shade is a plain declaration: kept where var() or <style> is stripped.
    assert f'<strong style="color: {light}; ' in page
    assert f"var(--ledgerlab-feedback-colour, {light})" in page
    rule = re.search(r"([^}]*\.ledgerlab-feedback-%s) \{ --ledgerlab-feedback-colour: (#\w+); \}"
                     % status, page)
    assert rule and rule.group(2) == dark
    for theme in ('[data-jp-theme-light="false"]', 'html[data-theme="dark"]'):
        assert theme in rule.group(1)


def rem_or_px(size: str) -> float:
    """A CSS size in px, a rem taken as the usual 16 px."""
    number, unit = re.fullmatch(r"([\d.]+)(rem|px)", size).groups()
    return float(number) * (16 if unit == "rem" else 1)


def test_the_chart_description_is_at_least_14_px():
    assert rem_or_px(CAPTION_STYLE["font_size"]) >= 14
    explorer = SliceExplorer()
    assert explorer.caption.style.font_size == CAPTION_STYLE["font_size"]
    assert "<small" not in explorer.caption.value  # 0.83 of 13 px was 10.8 px
    assert "ledgerlab-chart-description" in explorer.caption._dom_classes
    # And on the site, whatever the saved widget state says.
    rule = re.search(r"\.ledgerlab-chart-description[^{]*\{\s*font-size: max\(([^,]+), ([^)]+)\)",
                     SITE_CSS.read_text(encoding="utf-8"))
    assert rule and min(rem_or_px(rule.group(1)), rem_or_px(rule.group(2))) >= 14


def test_the_site_wraps_text_outputs_such_as_a_quiz():
    css = SITE_CSS.read_text(encoding="utf-8")
    rule = re.search(r"div\.cell_output \.output\.text_plain pre,[^{]*\{([^}]*)\}", css)
    assert rule and "white-space: pre-wrap" in rule.group(1)
    assert "overflow-wrap: anywhere" in rule.group(1)


def test_the_voila_page_names_each_slider_handle_by_its_description():
    explorer = BudgetExplorer()
    assert explorer.slider.description == "budget"  # what the handle is named by
    script = slider_handle_names()
    assert script.data == SLIDER_HANDLE_NAMES_JS
    assert ".noUi-handle:not([aria-label])" in SLIDER_HANDLE_NAMES_JS
    assert 'setAttribute("aria-label"' in SLIDER_HANDLE_NAMES_JS
    assert "MutationObserver" in SLIDER_HANDLE_NAMES_JS  # Voila draws widgets after it runs
    cells = json.loads(VOILA_APP.read_text(encoding="utf-8"))["cells"]
    code = "".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
    assert "display(slider_handle_names())" in code


def test_each_explorer_carries_the_naming_script_hidden():
    # JupyterLab runs a script that an Output widget holds: that names the handle and the chart
    # there, where the widget library gives neither a name.
    explorer = BudgetExplorer()
    assert explorer.names in explorer.widget.children
    assert explorer.names.layout.display == "none"
    (output,) = explorer.names.outputs
    assert output["data"]["application/javascript"] == SLIDER_HANDLE_NAMES_JS
    assert "img.ledgerlab-chart" in SLIDER_HANDLE_NAMES_JS and "chart.alt" in SLIDER_HANDLE_NAMES_JS
