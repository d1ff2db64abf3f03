"""``report.html``: the report model rendered with a Jinja2 template (``templates/report.html.j2``); figures are
embedded as base64 PNG and the table's sorting/filtering is plain JavaScript in the page (no network access)."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from .model import OUTCOME_COLOURS, ReportModel, own_file

__all__ = ["render_html"]

_TEMPLATES = Path(__file__).parent / "templates"


def _environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_TEMPLATES)),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    return env


def render_html(m: ReportModel, out_dir: str | os.PathLike[str]) -> str:
    out_dir = Path(out_dir)

    def img(name: str) -> str:
        if not own_file(out_dir, name):  # only the report folder's own figures (see model.own_file)
            return ""
        return "data:image/png;base64," + base64.b64encode((out_dir / name).read_bytes()).decode()

    files = [f for f in m.files if f != "report.html"]
    return _environment().get_template("report.html.j2").render(m=m, img=img, colours=OUTCOME_COLOURS, files=files)
