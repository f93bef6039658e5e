"""The look shared by every experiment: figure width and text size, colours, the door.

Where these numbers come from: the book's text column measured in the built book (660 CSS px on
a 1280-px desktop page) and the smallest readable text (12 CSS px).
"""

from __future__ import annotations

import spatialbook as sb

#: the book's text column on a 1280-px desktop page (CSS px, measured in the built book with
#: headless Chromium): the wide figure is drawn this wide, so it is shown 1:1
WIDE_WIDTH_PX = 660
#: the smallest text of the wide figure (pt): 9 pt is 12.5 px at 100 dpi, >= 12 CSS px 1:1
WIDE_MIN_FONT = 9.0
#: the smallest text on a page (CSS px): the wide figure may shrink to this fraction of its
#: width (JupyterLab's image, the static player) before its smallest text falls below it
MIN_TEXT_PX = 12.0
WIDE_MIN_SCALE = MIN_TEXT_PX / (WIDE_MIN_FONT * 100 / 72)      # 0.96

# Okabe–Ito colours: distinguishable with colour-blindness, legible on the white figure card,
# which stays opaque so the plot reads the same in light and dark notebook themes.
COLORS = {
    "door": "#555555",
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "grey": "#999999",
    "field": "#8FA7BF",
}

#: the box under a label of a point in a top view ("hinge O", "C", "P"): an arrow or line that
#: passes the point runs under the label, never through its letters (tests/test_widget_overlaps.py)
LABEL_BOX = {"boxstyle": "round,pad=0.12", "facecolor": (1.0, 1.0, 1.0, 0.85), "edgecolor": "none"}
#: the zorder of those labels: above the door, arrows and markers of the top view
LABEL_Z = 8

#: the door's width (m): the top views draw it from the hinge O (the origin) to here
DOOR_WIDTH = float(sb.DOOR["width"])

__all__ = ["LABEL_BOX", "LABEL_Z", "WIDE_WIDTH_PX", "WIDE_MIN_FONT", "MIN_TEXT_PX", "WIDE_MIN_SCALE", "COLORS", "DOOR_WIDTH"]
