"""Collisions in a drawn figure: text over text, text over drawn artists, text cut or leaving.

The check draws the figure once, the way the book and live mode draw it (for an experiment:
``BlitFigure.render`` with a full redraw: background, cached layer, moving artists, on-top
overlay), and records every leaf artist as it is drawn.  Each one is drawn a second time, alone,
into a blank Agg canvas of the figure's size: its **ink** (pixels with alpha >= ``INK``) is what
is compared, not its bounding box, so a line that passes beside a label is not a collision and
a line through its glyphs is.  Texts are drawn without their own background box and without
clipping (to see what a clip would cut).

Found (each a short sentence, the texts and the artist named):

- **text over text**: the ink of two visible texts (titles, axis labels, tick labels,
  annotations, legend texts, colour-bar labels and ticks, figure texts) closer than
  ``TEXT_GAP`` px (touching counts);
- **text over an artist**: more than ``ARTIST_PIXELS`` ink pixels of a line, arrow, patch or
  collection drawn in an axes inside the box of a text's ink (1 px in from each side): a line
  between two glyphs, or through the hole of a "C", crosses the text too;
- **legend over data**: more than ``ARTIST_PIXELS`` ink pixels of a data artist inside a
  legend's box (framed or not: a legend hides or crosses what lies under it);
- **text on an arrow**: an arrow (a quiver, a ``FancyArrowPatch``, a line whose gid is
  ``"arrow"``: :class:`widgets.parts.Arrow3D`, a triad's axes) within ``TEXT_GAP`` px of the
  box of a text's ink, whatever the order: a label on an opaque card (``boxed``) hides the
  arrowhead it is drawn over, and one drawn under it is crossed.  Other lines passing under a
  card are left out (the card is for them), and so is a field of arrows drawn as the figure's
  background (gid ``"background"``: E1's and E2's grey field arrows).  Markers are
  not arrows: a marker on a text is found as a text over an artist;
- **triad label hidden** (:func:`hidden_triad_labels`, for an experiment): a triad's axis
  label left out although its axis lies across the view;
- **text cut**: a text's ink running more than ``EDGE`` px past the figure's edge, or past the
  box that clips it; **text leaving its axes**: a text placed in an axes (``ax.texts``) whose ink
  runs more than ``EDGE`` px past the axes.

Not compared (on purpose): tick marks, grid lines, spines, the axes' and figure's backgrounds,
a legend's own frame and handles (its texts are texts), a text's own background box, an
annotation's own arrow with its text, and images and meshes (a heat map's numbers and block
labels sit on it by design, drawn in a contrasting colour).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.collections import Collection, QuadMesh
from matplotlib.axis import Axis
from matplotlib.image import _ImageBase
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, Patch
from matplotlib.spines import Spine
from matplotlib.text import Annotation, Text

#: alpha (0-255) from which a pixel counts as ink (a quarter: anti-aliased fringes left out)
INK = 64
#: two texts' inks must be at least this many px apart (1: not touching, one clear pixel)
TEXT_GAP = 1
#: pixels of a text's ink (or of a legend's box) allowed on another artist's ink
ARTIST_PIXELS = 3
#: px a text may run past the figure, its clip box or its axes (anti-aliasing)
EDGE = 1.5


@dataclass
class Ink:
    """One drawn artist: its ink as a boolean crop ``mask`` whose lower-left pixel is (x0, y0)
    in display coordinates (y up); ``kind`` "text", "data", "spine", "image" or "background";
    ``axes`` the axes it belongs to; ``order`` when it was drawn; ``boxed`` a text drawn on an
    opaque box of its own."""
    artist: object
    x0: int
    y0: int
    mask: np.ndarray
    owner: object = None                    # the legend or annotation it belongs to
    kind: str = "data"
    axes: object = None
    order: int = 0
    boxed: bool = False

    @property
    def box(self):
        h, w = self.mask.shape
        return self.x0, self.y0, self.x0 + w, self.y0 + h


@dataclass
class Drawing:
    texts: list = field(default_factory=list)
    others: list = field(default_factory=list)
    legends: list = field(default_factory=list)      # (legend, window extent)
    size: tuple = (0, 0)


def _ink(artist, renderer, owner=None, **info) -> Ink | None:
    """``artist`` drawn alone on the cleared ``renderer``: its ink, cropped."""
    renderer.clear()
    artist.draw(renderer)
    alpha = np.asarray(renderer.buffer_rgba())[::-1, :, 3]   # row 0 = bottom (display y)
    ink = alpha >= INK
    cols = np.flatnonzero(ink.any(0))
    if not len(cols):
        return None
    rows = np.flatnonzero(ink.any(1))
    x0, x1, y0, y1 = cols[0], cols[-1] + 1, rows[0], rows[-1] + 1
    return Ink(artist, int(x0), int(y0), ink[y0:y1, x0:x1].copy(), owner, **info)


_BLANKS: dict = {}


def _blank(w: int, h: int, dpi: float) -> RendererAgg:
    """A renderer of that size, kept for the process: its text metrics (cached by matplotlib
    per renderer) are measured once, not again for every figure drawn; each artist is drawn
    on it after a ``clear``, so what it held before does not matter."""
    key = (w, h, dpi)
    if key not in _BLANKS:
        _BLANKS[key] = RendererAgg(w, h, dpi)
    return _BLANKS[key]


@contextlib.contextmanager
def recording(fig):
    """Record, while the block draws ``fig``, every leaf artist drawn, with its ink
    (a :class:`Drawing`, yielded)."""
    drawing = Drawing()
    w, h = (int(round(v)) for v in fig.bbox.size)
    drawing.size = (w, h)
    blank = _blank(w, h, fig.dpi)               # each artist drawn alone here
    backgrounds = {id(fig.patch), *(id(ax.patch) for ax in fig.axes)}
    owners: list = []                 # the legend / annotation / axis being drawn
    busy = [0]                        # inside a recorded artist (a text's box, a quiver's parts)
    order = [0]
    originals = {}

    def wrap(cls, kind):
        original = cls.__dict__["draw"]

        def draw(self, renderer, *a, **k):
            if busy[0] or not self.get_visible():
                return original(self, renderer, *a, **k)
            busy[0] += 1
            order[0] += 1
            try:
                owner = owners[-1] if owners else None
                in_axis = isinstance(owner, Axis)
                axes = owner.axes if in_axis or isinstance(owner, Legend) else self.axes
                if kind == "text":
                    if self.get_text():
                        box, clip = self._bbox_patch, self.get_clip_on()
                        boxed = box is not None and box.get_fill() \
                            and box.get_facecolor()[3] >= 0.8        # alpha included
                        self._bbox_patch = None
                        self.set_clip_on(False)
                        try:
                            ink = _ink(self, blank, owner, kind="text", axes=axes,
                                       order=order[0], boxed=boxed)
                        finally:
                            self._bbox_patch = box
                            self.set_clip_on(clip)
                        if ink is not None:
                            drawing.texts.append(ink)
                elif not in_axis and id(self) not in backgrounds:     # ticks, grid lines: no
                    what = ("spine" if isinstance(self, Spine) else
                            "image" if isinstance(self, (QuadMesh, _ImageBase)) else "data")
                    ink = _ink(self, blank, owner, kind=what, axes=axes, order=order[0])
                    if ink is not None:
                        drawing.others.append(ink)
                return original(self, renderer, *a, **k)     # its own parts: not recorded
            finally:
                busy[0] -= 1

        originals[cls] = original
        cls.draw = draw

    def wrap_owner(cls):
        original = cls.__dict__["draw"]

        def draw(self, renderer, *a, **k):
            if not self.get_visible():
                return original(self, renderer, *a, **k)
            owners.append(self)
            try:
                out = original(self, renderer, *a, **k)
            finally:
                owners.pop()
            if isinstance(self, Legend):
                drawing.legends.append((self, self.get_window_extent(renderer)))
            return out

        originals[cls] = original
        cls.draw = draw

    try:
        wrap(Text, "text")
        for cls in (Line2D, Patch, FancyArrowPatch, Collection, _ImageBase):
            wrap(cls, "other")
        wrap_owner(Legend)
        wrap_owner(Annotation)
        wrap_owner(Axis)
        yield drawing
    finally:
        for cls, original in originals.items():
            cls.draw = original


def _name(artist) -> str:
    if isinstance(artist, Text):
        s = artist.get_text().replace("\n", " ")
        return repr(s if len(s) <= 40 else s[:37] + "...")
    label = artist.get_label() if hasattr(artist, "get_label") else ""
    kind = type(artist).__name__
    return f"{kind} {label!r}" if label and not label.startswith("_") else kind


def _overlap(a: Ink, b: Ink, grow: int = 0) -> int:
    """Pixels where ``a``'s ink (grown by ``grow`` px) meets ``b``'s."""
    ax0, ay0, ax1, ay1 = a.box
    bx0, by0, bx1, by1 = b.box
    x0, y0 = max(ax0 - grow, bx0), max(ay0 - grow, by0)
    x1, y1 = min(ax1 + grow, bx1), min(ay1 + grow, by1)
    if x0 >= x1 or y0 >= y1:
        return 0
    ma = a.mask
    if grow:
        ma = np.pad(ma, grow)
        grown = ma.copy()
        for dy in range(-grow, grow + 1):
            for dx in range(-grow, grow + 1):
                grown |= np.roll(np.roll(ma, dy, 0), dx, 1)
        ma, ox, oy = grown, ax0 - grow, ay0 - grow
    else:
        ox, oy = ax0, ay0
    pa = ma[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
    pb = b.mask[y0 - by0:y1 - by0, x0 - bx0:x1 - bx0]
    return int(np.count_nonzero(pa & pb))


def _block(t: Ink, inset: int = 0) -> Ink:
    """The box of a text's ink, ``inset`` px in from each side, as solid ink: a line between
    two glyphs, or through the hole of a "C", crosses the text as much as one through a stroke."""
    h, w = t.mask.shape
    return Ink(t.artist, t.x0 + inset, t.y0 + inset,
               np.ones((max(0, h - 2 * inset), max(0, w - 2 * inset)), bool), t.owner)


def _is_arrow(artist) -> bool:
    """An arrow: what a label must not touch or hide (:func:`collisions`)."""
    from matplotlib.quiver import Quiver

    gid = artist.get_gid()
    return gid == "arrow" or (gid != "background" and isinstance(artist, (Quiver, FancyArrowPatch)))


def _in_axes_texts(fig) -> dict:
    return {id(t): ax for ax in fig.axes for t in ax.texts}


def collisions(fig, draw, on_top=()) -> list[str]:
    """Draw ``fig`` by calling ``draw()`` (for an experiment: a full ``BlitFigure.render``) and
    return every collision found, one sentence each (empty: none).  ``on_top``: artists
    composited above everything else whenever they are drawn (``BlitFigure.on_top``)."""
    with recording(fig) as d:
        draw()
    top = {id(a) for a in on_top}
    for ink in (*d.texts, *d.others):
        if id(ink.artist) in top or id(ink.owner) in top:
            ink.order += 10 ** 6
    data = [o for o in d.others if not isinstance(o.owner, Legend)]
    found = []
    # text over text
    texts = d.texts
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if a.artist is b.artist:
                continue
            n = _overlap(a, b, grow=TEXT_GAP)
            if n:
                found.append(f"text over text: {_name(a.artist)} and {_name(b.artist)} "
                             f"({n} px closer than {TEXT_GAP} px)")
    # text over artists
    said = set()                                    # (text, artist) pairs found
    for t in texts:
        block = _block(t)
        for o in data:
            if o.owner is t.artist:                         # an annotation's own arrow
                continue
            if o.kind != "data" and o.axes is t.axes:       # its own axes' frame, heat map
                continue
            if t.boxed and o.order < t.order:               # hidden under the text's own box
                continue
            n = _overlap(block, o)
            if n > ARTIST_PIXELS:
                found.append(f"text over an artist: {_name(t.artist)} on {_name(o.artist)} ({n} px)")
                said.add((id(t), id(o)))
    # texts on arrows, drawn under or over them
    for t in texts:
        block = _block(t)
        for o in data:
            if (o.owner is t.artist or o.kind != "data" or (id(t), id(o)) in said
                    or not _is_arrow(o.artist)):
                continue
            n = _overlap(block, o, grow=TEXT_GAP)
            if n:
                found.append(f"text on an arrow: {_name(t.artist)} on {_name(o.artist)} "
                             f"({n} px closer than {TEXT_GAP} px)")
    # a legend's box over data
    for legend, box in d.legends:
        frame = Ink(legend, int(np.floor(box.x0)) + 1, int(np.floor(box.y0)) + 1,
                    np.ones((max(0, int(box.height) - 2), max(0, int(box.width) - 2)), bool))
        for o in data:
            if o.kind != "data":
                continue
            n = _overlap(frame, o)
            if n > ARTIST_PIXELS:
                title = legend.get_title().get_text() or ", ".join(
                    t.get_text() for t in legend.get_texts()[:2])
                found.append(f"legend over data: legend ({title[:30]!r}) on {_name(o.artist)} ({n} px)")
    # texts cut or leaving their axes
    w, h = d.size
    owners = _in_axes_texts(fig)
    for t in texts:
        x0, y0, x1, y1 = t.box
        if x0 <= 0 or y0 <= 0 or x1 >= w or y1 >= h:          # the ink reaches the canvas's edge:
            e = t.artist.get_window_extent()                    # its layout box tells how far
            if e.x0 < -EDGE or e.y0 < -EDGE or e.x1 > w + EDGE or e.y1 > h + EDGE:
                found.append(f"text cut by the figure's edge: {_name(t.artist)} at "
                             f"({e.x0:.0f}, {e.y0:.0f}, {e.x1:.0f}, {e.y1:.0f}) in {w} x {h}")
                continue
        clip = t.artist.get_clip_box() if t.artist.get_clip_on() else None
        if clip is not None and (x0 < clip.x0 - EDGE or y0 < clip.y0 - EDGE
                                 or x1 > clip.x1 + EDGE or y1 > clip.y1 + EDGE):
            found.append(f"text cut by its clip box: {_name(t.artist)}")
            continue
        ax = owners.get(id(t.artist))
        if ax is not None:
            b = ax.bbox
            if x0 < b.x0 - EDGE or y0 < b.y0 - EDGE or x1 > b.x1 + EDGE or y1 > b.y1 + EDGE:
                found.append(f"text leaving its axes: {_name(t.artist)} at ({x0}, {y0}, {x1}, {y1}), "
                             f"axes ({b.x0:.0f}, {b.y0:.0f}, {b.x1:.0f}, {b.y1:.0f})")
    return found


def hidden_triad_labels(exp) -> list[str]:
    """The axis labels of an experiment's triads (:class:`widgets.parts.Triad`, its attributes)
    left out although their axis lies more than 30° off the line of sight (the triad's own
    rule for hiding one, measured here on the drawn arrow): a hidden label is no collision
    the drawing shows, so :func:`collisions` cannot see it (E2's y label was hidden where it
    met the x arrow)."""
    from widgets.parts import Triad, view_direction

    found = []
    for attr, triad in vars(exp).items():
        if not isinstance(triad, Triad):
            continue
        ax = triad.labels[0].axes
        toward = view_direction(ax.elev, ax.azim)
        for text, arrow in zip(triad.labels, triad.arrows):
            shaft = arrow.points[1] - arrow.points[0]            # the arrow's start and tip
            end_on = abs(shaft @ toward) >= np.cos(np.radians(30.0)) * np.linalg.norm(shaft)
            if not text.get_visible() and not end_on:
                found.append(f"triad label hidden: {attr}'s {_name(text)} (its axis is across "
                             "the view)")
    return found


def experiment_collisions(exp) -> list[str]:
    """:func:`collisions` of an experiment's figure at its current controls, drawn as the book
    and live mode draw it (a full ``BlitFigure.render``, every text drawn anew), and its
    :func:`hidden_triad_labels`."""
    exp.invalidate()
    # every moving text drawn, none copied back from an earlier render (BlitFigure._text): a
    # copied text is not drawn, so it would not be recorded, and not checked
    reuse, exp.blit.reuse_text = exp.blit.reuse_text, False
    try:
        found = collisions(exp.figure, lambda: exp._render(full=True), on_top=exp.blit._top)
    finally:
        exp.blit.reuse_text = reuse
    return found + hidden_triad_labels(exp)
