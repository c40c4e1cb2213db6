"""Sphinx extension: the course site's own script and style, and sphinx-thebe's removal.

* ``site/ledgerlab.js`` and ``site/ledgerlab.css`` (from editions/book/site, copied by build.py)
  on every page: accessible names, the explorers' static note, layout at phone widths.
* sphinx-thebe's scripts are dropped: Thebe is off (``launch_buttons.thebe: false``),
  yet its inline configuration is added twice, so every page logged
  ``Identifier 'THEBE_JS_URL' has already been declared``.
"""

from __future__ import annotations


def is_thebe(asset) -> bool:
    return "thebe" in (asset.filename or "") or "THEBE_JS_URL" in asset.attributes.get("body", "")


def on_html_page_context(app, pagename, templatename, context, doctree) -> None:
    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [asset for asset in context[key] if not is_thebe(asset)]


def setup(app):
    app.add_js_file("site/ledgerlab.js")
    app.add_css_file("site/ledgerlab.css")
    app.connect("html-page-context", on_html_page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
