"""Sphinx extension: a notebook figure's text description becomes its ``alt`` text.

A chart output is a mime bundle: ``image/png`` beside a ``text/plain`` sentence that
says what the figure shows. The page shows the PNG only, so a screen reader would get
nothing (or the file name). myst-nb names each image file by the SHA-256 of its bytes,
which is what ties an ``img`` on the page back to the output it came from.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

from docutils import nodes

# A default repr such as ``<Figure size 640x480 with 1 Axes>`` describes nothing.
DEFAULT_REPR = re.compile(r"^<.*>$", re.S)


def descriptions(notebook: dict) -> dict[str, str]:
    """SHA-256 of each PNG output -> its ``text/plain`` description, if it has one."""
    found = {}
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            png, text = data.get("image/png"), data.get("text/plain")
            if not png or not text:
                continue
            text = "".join(text).strip() if isinstance(text, list) else text.strip()
            if text and not DEFAULT_REPR.match(text):
                png = "".join(png) if isinstance(png, list) else png
                found[hashlib.sha256(base64.b64decode(png)).hexdigest()] = text
    return found


def set_alt(doctree: nodes.document, found: dict[str, str]) -> int:
    """Give each image whose file is a described output that description; return how many."""
    count = 0
    for image in doctree.findall(nodes.image):
        text = found.get(Path(image.get("uri", "")).stem)
        if text is not None:
            image["alt"] = text
            count += 1
    return count


def on_doctree_read(app, doctree: nodes.document) -> None:
    source = Path(app.env.doc2path(app.env.docname))
    if source.suffix == ".ipynb":
        set_alt(doctree, descriptions(json.loads(source.read_text(encoding="utf-8"))))


def setup(app):
    app.connect("doctree-read", on_doctree_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
