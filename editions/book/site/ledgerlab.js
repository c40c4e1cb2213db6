// The course site's repairs to what the theme and the widget manager render, on every page
// (editions/book/ledgerlab_site.py adds this file). Widgets render after load, from saved
// state, and the theme swaps its icons for SVGs after load: repair() runs again whenever the page
// changes, and each step skips what it has done already.
(() => {
  "use strict";

  const NOTE = "Static copy: the controls are off because nothing recomputes without a kernel. " +
    "Run this notebook in JupyterLab (make lab) or on Binder to move them.";

  function theme() {
    // Named "Search" while it shows "Search Ctrl+K": a name must contain the visible label
    // (WCAG 2.5.3). Without aria-label the button is named by what it shows.
    for (const button of document.querySelectorAll(".search-button-field[aria-label]")) {
      button.removeAttribute("aria-label");
    }
    // A hidden answer's toggle (MyST-NB's hide-output) is named "Toggle hidden content" while
    // it shows "Show code cell output": named by what it shows, for the same reason.
    for (const summary of document.querySelectorAll("details.hide > summary[aria-label]")) {
      summary.removeAttribute("aria-label");
    }
    // The colour-mode icons' titles ("Light", ...) count as the button's text, which its
    // name ("Color mode") does not contain: the button's name is enough, the icons are
    // decoration.
    for (const icon of document.querySelectorAll(".theme-switch-button svg[role=img]")) {
      icon.querySelector("title")?.remove();
      icon.removeAttribute("aria-labelledby");
      icon.setAttribute("role", "presentation");
    }
    // A header cell with no text (pandas' corner above the index, an empty column head in
    // a Markdown table) names nothing: a data cell is what it is.
    for (const th of document.querySelectorAll("th")) {
      if (!th.textContent.trim()) {
        const td = document.createElement("td");
        td.append(...th.childNodes);
        for (const {name, value} of th.attributes) td.setAttribute(name, value);
        th.replaceWith(td);
      }
    }
    // The site's title and contents sit in the primary sidebar, outside every landmark.
    const sidebar = document.getElementById("pst-primary-sidebar");
    if (sidebar && !sidebar.hasAttribute("role")) {
      sidebar.setAttribute("role", "complementary");
      sidebar.setAttribute("aria-label", "Course");
    }
  }

  function widgets() {
    // A slider's handle (role=slider) is not tied to its description label: name it by it.
    for (const handle of document.querySelectorAll(".widget-slider .noUi-handle:not([aria-label])")) {
      const label = handle.closest(".widget-slider").querySelector(".widget-label");
      if (label && label.textContent.trim()) handle.setAttribute("aria-label", label.textContent.trim());
    }
    for (const explorer of document.querySelectorAll(".ledgerlab-explorer:not(.ledgerlab-static)")) {
      explorer.classList.add("ledgerlab-static");
      const note = document.createElement("p");
      note.className = "ledgerlab-static-note";
      note.textContent = NOTE;
      explorer.prepend(note);
    }
    for (const chart of document.querySelectorAll(".ledgerlab-explorer img.ledgerlab-chart")) {
      // An Image widget has no alt: the chart's description, shown under it, is its text.
      const caption = chart.closest(".ledgerlab-explorer").querySelector(".ledgerlab-chart-description");
      if (!chart.hasAttribute("alt") && caption && caption.textContent.trim()) {
        chart.alt = caption.textContent.trim();
      }
      // The chart keeps a readable width and scrolls sideways on a narrow screen; the
      // scrolling box takes the keyboard focus, so it scrolls without a mouse too.
      if (!chart.parentElement.classList.contains("ledgerlab-chart-scroll")) {
        const scroll = document.createElement("div");
        scroll.className = "ledgerlab-chart-scroll";
        scroll.tabIndex = 0;
        scroll.setAttribute("role", "group");
        scroll.setAttribute("aria-label", "Chart (scrolls sideways)");
        chart.replaceWith(scroll);
        scroll.append(chart);
      }
    }
  }

  function repair() {
    theme();
    widgets();
  }

  document.addEventListener("DOMContentLoaded", () => {
    repair();
    new MutationObserver(repair).observe(document.body, {childList: true, subtree: true});
  });
})();
