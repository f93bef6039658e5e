"""The readout panel fits a phone: every table of every experiment's readouts (the rows, E4's I_P,
E7's I_c, E11's H) is at most ``PHONE_BOX`` px wide at its narrowest, and no vector needs more
than two lines.

A table's narrowest width is what a browser's automatic table layout can squeeze it to: each
column as wide as its widest unbreakable piece (a word of a label, a unit, half of a vector,
a matrix entry) plus the cells' padding; the rows' table (class ``sb-rows``) is laid out on a
phone as rows whose cells wrap (book/_static/spatialbook.css), so its narrowest width is its
widest unbreakable piece.  Text widths are measured
with matplotlib's metrics of DejaVu Sans and DejaVu Sans Mono (wider than the usual phone fonts:
an upper estimate) at ``FONT_PX`` (the page's 16-px text; the static player shows it at 0.95 of
that, a matrix at "smaller", 0.833).  Issue 33 measured 351 px for E4's 6 x 6 table and 377 px
for E11's H in Chromium's 330-px phone box; this estimate gives 365 and 393 px for those
tables as they were (3 decimals, 3-4-px padding), 237 and 321 px for today's (2 decimals, 2 px).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

from widgets import EXPERIMENTS
from widgets.readouts import value_cell
from widget_helpers import shared

#: the readout box of a 390-px phone (the figure's narrow layout is as wide)
PHONE_BOX = 330.0
FONT_PX = 16.0
MONO_FONT = "DejaVu Sans Mono"
TEXT_FONT = "DejaVu Sans"
_TO_PATH = TextToPath()
SMALLER = 0.833                    # CSS "smaller": one step of the font-size scale


class _Tables(HTMLParser):
    """Each table's columns' narrowest widths (px), nested tables measured on their own."""

    def __init__(self):
        super().__init__()
        self.tables: list[dict] = []       # open tables: {"cols": {i: px}, "scale", "row"}
        self.done: list[float] = []
        self.cell = None                   # {"pad", "mono", "scale", "pieces": [[text, nowrap]]}
        self.nowrap = 0

    def handle_starttag(self, tag, attrs):
        style = dict(attrs).get("style") or ""
        if tag == "table":
            scale = (self.tables[-1]["scale"] if self.tables else 1.0) * \
                (SMALLER if "font-size:smaller" in style else 1.0)
            self.tables.append({"cols": {}, "scale": scale, "col": 0,
                                "rows": "sb-rows" in (dict(attrs).get("class") or "")})
        elif tag == "tr" and self.tables:
            self.tables[-1]["col"] = 0
        elif tag in ("td", "th") and self.tables:
            rows = self.tables[-1]["rows"]           # a phone: its cells wrap, unpadded
            self.cell = {"pad": 0.0 if rows else _padding(style), "mono": "monospace" in style,
                         "scale": self.tables[-1]["scale"], "pieces": [["", False]]}
        elif tag == "span" and "nowrap" in style:
            self.nowrap += 1
            if self.cell is not None:
                self.cell["pieces"].append(["", True])

    def handle_endtag(self, tag):
        if tag == "span" and self.nowrap:
            self.nowrap -= 1
            if self.cell is not None:
                self.cell["pieces"].append(["", False])
        elif tag in ("td", "th") and self.cell is not None:
            t = self.tables[-1]
            i = t["col"]
            t["cols"][i] = max(t["cols"].get(i, 0.0), _narrowest(self.cell))
            t["col"] += 1
            self.cell = None
        elif tag == "table" and self.tables:
            t = self.tables.pop()
            cols = t["cols"].values()
            self.done.append(max(cols, default=0.0) if t["rows"] else sum(cols))

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["pieces"][-1][0] += data


def _padding(style: str) -> float:
    """Left plus right padding (px) of an inline style."""
    m = re.search(r"padding:\s*([^;']+)", style)
    total = 0.0
    if m:
        v = [float(x.rstrip("px") or 0) for x in m.group(1).split()]
        v = v * 4 if len(v) == 1 else v * 2 if len(v) == 2 else v + [v[1]] if len(v) == 3 else v
        total += v[1] + v[3]
    m = re.search(r"padding-left:\s*([\d.]+)px", style)
    if m:
        total += float(m.group(1))
    return total


def _width(text: str, mono: bool, px: float) -> float:
    """The advance of ``text`` in DejaVu Sans (Mono) at ``px`` (matplotlib's own metrics)."""
    if not text:
        return 0.0
    prop = FontProperties(family=MONO_FONT if mono else TEXT_FONT, size=px)
    return _TO_PATH.get_text_width_height_descent(text, prop, ismath=False)[0]


def _narrowest(cell) -> float:
    px = FONT_PX * cell["scale"]
    widest = 0.0
    for text, nowrap in cell["pieces"]:
        words = [text.strip()] if nowrap else text.split()
        widest = max([widest, *(_width(w, cell["mono"], px) for w in words)])
    return widest + cell["pad"]


def table_widths(html: str) -> list[float]:
    """The narrowest width (px) of each table in ``html``."""
    p = _Tables()
    p.feed(html)
    return p.done


def _settings(exp) -> list[dict]:
    spec = exp._specs[exp.main_control]
    return [{}] + [{exp.main_control: v} for v in exp.sweep_values(n=5)] if spec else [{}]


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_readouts_fit_a_phone(name):
    exp = shared(name)
    for values in _settings(exp):
        if values:
            exp.set(**values)
        html = exp.readout_html()
        widths = table_widths(html)
        assert widths, f"{name}: no readout table"
        wide = [round(w) for w in widths if w > PHONE_BOX]
        assert not wide, (f"{name} {values}: readout tables {wide} px at their narrowest, "
                          f"wider than the phone's {PHONE_BOX:.0f}-px box")
        for label, key, _ in exp.READOUTS:
            cell = value_cell(exp._scene["numbers"][key])
            assert cell.count("nowrap") <= 2, f"{name}: {label} may break into {cell}"


def test_the_estimate_measures_what_issue_33_measured():
    """The old 6 x 6 table of E4 (3 decimals, 4-px padding) is estimated wider than the box,
    the same numbers in today's matrix table narrower: the estimate can fail."""
    import numpy as np

    from widgets.readouts import matrix_table

    M = np.full((6, 6), -0.8)
    cols = ["ωx", "ωy", "ωz", "vx", "vy", "vz"]
    old = ("<table style='border-collapse:collapse'><tr><th></th>"
           + "".join(f"<th style='padding:0 4px'>{c}</th>" for c in cols) + "</tr>"
           + "".join("<tr><th style='padding:0 4px'>px</th>"
                     + "<td style='font-family:monospace;text-align:right;padding:0 4px'>-0.800</td>" * 6
                     + "</tr>" for _ in range(6)) + "</table>")
    assert table_widths(old)[0] > PHONE_BOX
    assert table_widths(matrix_table(M, cols, cols, "I_P", "kg"))[0] <= PHONE_BOX
    assert value_cell([0.0, 0.0, 2.0, 0.0, 0.8, 0.0]).count("nowrap") == 2
