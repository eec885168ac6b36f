"""An experiment's figures with their captions beside them: one self-contained HTML page per
experiment (``{root}/report/{experiment}_gallery.html``, :meth:`dpbench.foundation.paths.RunPaths.gallery_html`),
shown in the report under the experiment, so a reader sees every caption next to its figure
instead of behind the report's caption icon.

Each figure is its PNG (embedded as a ``data:`` URI: the page needs no other file) in the left
column and its caption, as written (the report's ``.rst`` caption file with the escapes
removed, :func:`rst_text`), in the right one.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

GALLERY_STYLE = """
body{font-family:system-ui,sans-serif;font-size:12px;margin:8px;color:#222}
h3{font-size:14px;margin:4px 0 8px}
figure.dpbench{display:flex;gap:14px;align-items:flex-start;margin:0 0 18px;padding-bottom:12px;border-bottom:1px solid #e3e3e3}
figure.dpbench img{flex:0 0 62%;max-width:62%;height:auto}
figure.dpbench figcaption{flex:1 1 auto;line-height:1.45}
figure.dpbench figcaption b{display:block;margin-bottom:4px}
"""

_RST_ESCAPE = re.compile(r"\\(.)")


def rst_text(rst: str) -> str:
    """The text of a caption written by :func:`dpbench.reporting.pipeline.rst_literal` (every
    punctuation character escaped with a backslash): the escapes removed."""
    return _RST_ESCAPE.sub(r"\1", rst.strip())


def figure_html(name: str, png: str | Path, caption_rst: str | Path) -> str:
    """One ``<figure>``: the PNG (a ``data:`` URI) and its caption beside it."""
    data = base64.b64encode(Path(png).read_bytes()).decode("ascii")
    caption = rst_text(Path(caption_rst).read_text(encoding="utf-8"))
    return (f"<figure class='dpbench' id='{html.escape(name)}'><img alt='{html.escape(name)}' src='data:image/png;base64,{data}'>"
            f"<figcaption><b>{html.escape(name)}</b>{html.escape(caption)}</figcaption></figure>")


def gallery_html(experiment: str, figures) -> str:
    """The whole page: ``figures`` is a list of ``(name, png, caption_rst)``."""
    body = "".join(figure_html(*f) for f in figures)
    title = f"{experiment}: every figure with its caption"
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><meta name='viewport' content='width=device-width'>"
            f"<title>{html.escape(title)}</title><style>{GALLERY_STYLE}</style></head><body>"
            f"<h3>{html.escape(title)}</h3>{body}</body></html>")


def write_gallery(experiment: str, figures, out: str | Path) -> None:
    """Write :func:`gallery_html` to ``out`` (atomically)."""
    from dpbench.foundation.results import write_text  # deferred: imports pandas

    write_text(Path(out), gallery_html(experiment, figures) + "\n")
