"""The narrow (phone) layout of an experiment's figure: its side-by-side panels stacked.

Every experiment lays its figure out for a wide page (6.6 x 3.4 in, 660 x 340 px, the book's
column at a 1280-px desktop, panels side by side, text >= 9 pt = 12.5 px: :func:`enlarge_text`,
then :func:`fit_wide_layout` keeps its panels' labels inside and apart).  Shrunk to a phone's
text column (about 330 px of a 390-px screen) its 9-10 pt labels would be 6-7 px tall.
:func:`narrow_layout` re-lays out the *same* figure, with the same artists, for a column
``NARROW_WIDTH`` wide, shown at 1:1:

1. the axes are grouped into panels (:func:`figure_panels`): axes whose tight boxes overlap
   horizontally (a plot and its colour bar, two plots one above the other) stay together;
2. no text is smaller than ``NARROW_MIN_FONT`` points (10.5 pt = 14.6 px at 100 dpi, above the
   book's 14-px small print); a text wider than the column is broken at a space;
3. each panel becomes a row of the narrow figure, scaled uniformly (aspect ratios of axes,
   3-D views and equal-aspect top views kept) so that its axes *and* their labels fit the
   column; the margins taken by labels are measured and the scale refined a few times;
4. tick labels that would collide (bar names) are turned by 30 degrees.

When a control later rescales a bar axis to longer tick labels, :func:`keep_panels_inside`
narrows that panel before the background is redrawn, so nothing is cut by the figure's edge.

Nothing is drawn differently: the experiment's ``_draw`` and the declared parts move the same
artists, so the narrow figure shows exactly what the wide one shows.
"""

from __future__ import annotations

import contextlib
import hashlib
import textwrap

import numpy as np
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

import matplotlib

from .limits import freeze_tick_room


def checked_narrow(narrow) -> bool:
    """``narrow`` as a bool: True or False (numpy's too), else a ValueError naming it."""
    if not isinstance(narrow, (bool, np.bool_)):
        raise ValueError(f"narrow: expected True or False, got {narrow!r:.40}")
    return bool(narrow)

#: matplotlib before 3.11 (Pyodide's 3.8.4, live mode): see :func:`tight_box`
_OLD_MATPLOTLIB = tuple(int(x) for x in matplotlib.__version__.split(".")[:2]) < (3, 11)

#: the narrow figure's width (in) at the experiments' 100 dpi: 330 px, a 390-px phone's column
NARROW_WIDTH = 3.3
#: the smallest text of the narrow figure (pt): 10.5 pt is 14.6 px at 100 dpi
NARROW_MIN_FONT = 10.5
#: free pixels around each panel
NARROW_PAD = 6.0


# ------------------------------------------------------------------ measurements on tape
#
# Laying a figure out measures text: :func:`fit_wide_layout` and :func:`narrow_layout` take
# 20-70 ms natively and 70-490 ms in Pyodide (40-80 % of building an experiment there), and
# every measurement goes through :func:`_measured`.  The book's build records them (px boxes,
# in order) for every experiment at its defaults (:func:`recording_layouts`); live mode
# replays them (:func:`load_layouts`), so the same code makes the same decisions without
# measuring: the browser's figure gets the build's layout, which is also the one of the frames
# the book shows.  A tape is used only for a figure whose :func:`layout_signature` (sizes,
# axes' boxes and limits, texts and fonts before the layout) is the recorded one, and each
# measurement must be the recorded one's (what is measured, which axes or text); at the first
# difference :class:`LayoutTapeMismatch` is raised and the experiment measures its layout.


class LayoutTapeMismatch(Exception):
    """A replayed layout asked for a measurement other than the recorded one."""


#: recorded layouts: (experiment class "module:QualName", narrow, signature) -> [[tag, box]]
_LAYOUTS: dict[tuple, list] = {}
#: the tape running now: {"mode": "record" | "replay", "rows": [...], "at": next row}
_TAPE: dict = {"mode": None, "rows": [], "at": 0}
#: on inside :func:`recording_layouts`: each layout without a tape records one
_RECORDING = {"on": False}


def _measured(tag: tuple, measure):
    """``measure()`` (a px Bbox or None), recorded or replayed under ``tag`` (what is measured:
    ``("axes", index)``, ``("text", string)``, ``("legend", index)``) while a tape runs."""
    mode = _TAPE["mode"]
    if mode == "replay":
        rows, at = _TAPE["rows"], _TAPE["at"]
        if at >= len(rows) or tuple(rows[at][0]) != tag:
            raise LayoutTapeMismatch(f"measurement {at}: recorded "
                                     f"{rows[at][0] if at < len(rows) else 'nothing'}, asked {tag}")
        _TAPE["at"] = at + 1
        box = rows[at][1]
        return None if box is None else Bbox.from_extents(*box)
    box = measure()
    if mode == "record":
        _TAPE["rows"].append([list(tag), None if box is None else [float(v) for v in box.extents]])
    return box


def _text_box(text, renderer) -> Bbox:
    return _measured(("text", text.get_text()), lambda: text.get_window_extent(renderer))


def layout_signature(fig: Figure) -> str:
    """A digest of what a figure's layout depends on, before it is laid out: the figure's size
    and dpi, the font family, each axes' visibility, box and limits, and every title, axis
    label, legend entry and text of the axes and the figure (so a Chinese figure differs)."""
    parts: list = [_rounded(fig.get_size_inches()), fig.dpi, tuple(matplotlib.rcParams["font.family"])]
    for ax in fig.axes:
        texts = [ax.title, ax._left_title, ax._right_title, *ax.texts]
        texts += [getattr(ax, f"{n}axis").label for n in "xyz" if hasattr(ax, f"{n}axis")]
        legend = ax.get_legend()
        if legend is not None:
            texts += legend.get_texts()
        limits = [getattr(ax, f"get_{n}lim")() for n in "xyz" if hasattr(ax, f"get_{n}lim")]
        parts.append((ax.get_visible(), _rounded(ax.get_position(original=True).bounds),
                      [_rounded(lim) for lim in limits],
                      [(t.get_text(), t.get_fontsize(), t.get_visible()) for t in texts]))
    parts.append([(t.get_text(), t.get_fontsize(), _rounded(t.get_position())) for t in fig.texts])
    return hashlib.sha1(repr(parts).encode()).hexdigest()


def _rounded(numbers) -> tuple:
    """Numbers to 9 significant digits: limits computed by another numpy or matplotlib differ in
    their last bits (a colour bar's -3.9999999999999956 against -3.999999999999993)."""
    return tuple(float(f"{float(v):.9g}") for v in numbers)


@contextlib.contextmanager
def layout_tape(key: tuple, fig: Figure):
    """Run a figure's layout (the ``with`` block) replaying the tape recorded for ``key`` (an
    experiment's class and ``narrow``) and ``fig``'s :func:`layout_signature`, recording one
    while :func:`recording_layouts` is on, or measuring as usual.  Yields "replayed",
    "recorded" or "measured"; a replay that differs raises :class:`LayoutTapeMismatch`."""
    if _TAPE["mode"] is not None:                 # a layout inside a layout: its own measuring
        yield "measured"
        return
    full = (*key, layout_signature(fig)) if (_LAYOUTS or _RECORDING["on"]) else None
    rows = _LAYOUTS.get(full) if full else None
    if rows is not None:
        _TAPE.update(mode="replay", rows=rows, at=0)
        how = "replayed"
    elif _RECORDING["on"]:
        _TAPE.update(mode="record", rows=[], at=0)
        how = "recorded"
    else:
        yield "measured"
        return
    try:
        yield how
        if how == "replayed" and _TAPE["at"] != len(rows):
            raise LayoutTapeMismatch(f"{len(rows) - _TAPE['at']} recorded measurements left")
        if how == "recorded":
            _LAYOUTS[full] = _TAPE["rows"]
    finally:
        _TAPE.update(mode=None, rows=[], at=0)


@contextlib.contextmanager
def recording_layouts():
    """Record the layout of every experiment built in the ``with`` block (for
    :func:`export_layouts`)."""
    _RECORDING["on"] = True
    try:
        yield
    finally:
        _RECORDING["on"] = False


def export_layouts() -> list:
    """The layouts recorded or loaded so far, as rows ``[class, narrow, signature, tape]`` for
    :func:`load_layouts` in another process (the book's build ships them to live mode)."""
    return [[*key, rows] for key, rows in sorted(_LAYOUTS.items(), key=lambda kv: kv[0])]


def load_layouts(rows: list) -> int:
    """Take layouts exported by :func:`export_layouts`; returns how many.  A row that is not
    ``[class, narrow, signature, tape]``: a ``ValueError`` naming it."""
    if not isinstance(rows, list):
        raise ValueError(f"rows: expected a list of [class, narrow, signature, tape], got {rows!r:.60}")
    for row in rows:
        if not (isinstance(row, list) and len(row) == 4 and isinstance(row[0], str)
                and isinstance(row[1], bool) and isinstance(row[2], str) and isinstance(row[3], list)):
            raise ValueError(f"rows: expected [class, narrow, signature, tape] rows, got {row!r:.80}")
        _LAYOUTS[(row[0], row[1], row[2])] = row[3]
    return len(rows)


def tight_box(ax, renderer) -> Bbox | None:
    """``ax.get_tightbbox(renderer)`` (the axes with its labels, px), measured the same way on
    every matplotlib the book runs on (3.8.4 in Pyodide's live mode, 3.11 elsewhere).
    Before 3.11, a 3-D axes measures its axes' labels "for layout only", and places them only
    when its axes are drawn: before the first draw E11's 3-D view measured 2000 px wide and the
    layout pushed every panel off the figure.  So a 3-D axes gets its projection first (what
    its ``draw`` computes), on old matplotlib its three axes are drawn once (placing their
    labels; nothing else of the figure is drawn), and it is measured as 3.11 measures it: the
    2-D box plus each axis's box.  Replayed from a tape (:func:`layout_tape`), the axes only
    get their aspect applied (the box as drawn, which the fit reads)."""
    if _TAPE["mode"] == "replay":
        ax.apply_aspect()
    return _measured(("axes", ax.figure.axes.index(ax)), lambda: _tight_box(ax, renderer))


def _tight_box(ax, renderer) -> Bbox | None:
    if not hasattr(ax, "zaxis"):
        return ax.get_tightbbox(renderer)
    if getattr(ax, "M", None) is None:
        ax.M = ax.get_proj()
        ax.invM = np.linalg.inv(ax.M)
        if _OLD_MATPLOTLIB:                 # its axes place their labels only when drawn
            for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
                axis.draw(renderer)
    boxes = [Axes.get_tightbbox(ax, renderer)]
    boxes += [axis.get_tightbbox(renderer) for axis in (ax.xaxis, ax.yaxis, ax.zaxis)
              if axis.get_visible()]
    return _union(boxes)


def figure_panels(fig: Figure, renderer, min_width: float = 120.0,
                  overlap: float = 4.0) -> list[list]:
    """The figure's axes grouped into side-by-side panels, left to right.

    Axes whose tight boxes (labels included) overlap horizontally by more than ``overlap`` px
    form one panel; a panel narrower than ``min_width`` px (a colour bar) joins its neighbour.
    """
    items = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        box = tight_box(ax, renderer)
        if box is None or box.width <= 0:
            continue
        items.append((box.x0, box.x1, ax))
    items.sort(key=lambda item: item[0])
    groups: list[list] = []                  # [axes, x0, x1]
    for x0, x1, ax in items:
        if groups and x0 < groups[-1][2] - overlap:
            groups[-1][0].append(ax)
            groups[-1][2] = max(groups[-1][2], x1)
        else:
            groups.append([[ax], x0, x1])
    return _join_thin(groups, min_width)


def _join_thin(groups: list[list], thin: float) -> list[list]:
    """Groups ``[axes, x0, x1]`` (left to right) with every group narrower than ``thin`` (a
    colour bar) joined to its left neighbour (the first to its right one): the axes lists."""
    joined: list[list] = []
    for g in groups:
        if joined and g[2] - g[1] < thin:
            joined[-1][0].extend(g[0])
            joined[-1][2] = max(joined[-1][2], g[2])
        else:
            joined.append(g)
    if len(joined) > 1 and joined[0][2] - joined[0][1] < thin:
        joined[1][0][:0] = joined[0][0]
        joined.pop(0)
    return [g[0] for g in joined]


def _texts_but_tick_labels(fig: Figure) -> list:
    """Every text of ``fig`` (``fig.findobj(Text)``) but its tick labels, without making the
    ticks: ``findobj`` asks each axis for its children, which makes a tick for every tick
    location (about 5 ms a tick under Pyodide, made again when drawn after the axes changed)."""
    out, todo = [], [fig]
    while todo:
        artist = todo.pop()
        if isinstance(artist, Text):
            out.append(artist)
        if isinstance(artist, Axis):
            todo += [artist.label, artist.offsetText]
        else:
            todo += artist.get_children()
    return out


def enlarge_text(fig: Figure, min_font: float) -> None:
    """Every text of ``fig`` at least ``min_font`` points: tick labels through ``tick_params``
    (the ticks made later too), judged by an axis's first tick label."""
    for text in _texts_but_tick_labels(fig):
        if text.get_fontsize() < min_font:
            text.set_fontsize(min_font)
    for ax in fig.axes:
        for name in ("x", "y", "z"):
            axis = getattr(ax, f"{name}axis", None)
            if axis is None:
                continue
            # an axis with no tick now: its labels set for the ticks it may get later
            if (not len(axis.get_majorticklocs())
                    or axis.majorTicks[0].label1.get_fontsize() < min_font):
                ax.tick_params(axis=name, which="both", labelsize=min_font)


#: a space that a line may not break at (textwrap breaks only at ASCII white space)
_GLUE = "\u00a0"
#: signs that bind the words on either side: a formula is never broken next to one
_OPERATORS = set("=+−-×·↦/*∝≈<>≤≥")


def _glue_formulas(line: str) -> str:
    """``line`` with every space inside a formula glued (:data:`_GLUE`), so that wrapping
    breaks only between words: not next to an operator ("v_O + ω × x"), not on the right of an
    "=" up to a ":" or ";" ("τ = H q̈ + C_v"), not inside brackets ("(1 m/s ↦ 0.15 m)",
    "[−m D, m E]"), except after a matrix's row ("[[a, b], [c, d]]" may break after "],").

    >>> _glue_formulas("door from above: v = v_O + ω × x").replace(_GLUE, "_")
    'door from above: v_=_v_O_+_ω_×_x'
    >>> _glue_formulas("|v| = |ω| r: double r").replace(_GLUE, "_")
    '|v|_=_|ω|_r: double r'
    >>> _glue_formulas("I = [[a b, c], [d, e]]").replace(_GLUE, "_")
    'I_=_[[a_b,_c], [d,_e]]'
    """
    out, depth, equation = [], 0, False
    for i, ch in enumerate(line):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and ch in "=:;":
            equation = ch == "="           # an equation's right side runs to ":" or ";"
        if ch != " ":
            out.append(ch)
            continue
        before, after = line[:i].rstrip(), line[i + 1:].lstrip()
        prev, nxt = (before[-1:] or " "), (after[:1] or " ")
        row_end = depth == 1 and before.endswith("],")
        glued = ((depth > 0 or equation) and not row_end) or prev in _OPERATORS \
            or nxt in _OPERATORS
        out.append(_GLUE if glued else " ")
    return "".join(out)


def _wrap_wide_text(fig: Figure, renderer, Wn: float, pad: float, originals: dict) -> None:
    """Break every text that runs past the column's edges at spaces.

    The room is what the text's alignment leaves it: a centred title over an off-centre
    plot has twice the distance from its centre to the nearer edge.  ``originals`` keeps each
    text as the experiment wrote it, so that a later round re-breaks that, not the pieces."""
    for text in fig.findobj(Text):
        s = text.get_text()
        if not text.get_visible() or " " not in s or "$" in s:     # never break mathtext
            continue
        box = _text_box(text, renderer)
        if box.x0 >= 0 and box.x1 <= Wn:
            continue
        ha = text.get_horizontalalignment()
        if ha == "left":
            room = Wn - pad - box.x0
        elif ha == "right":
            room = box.x1 - pad
        else:
            centre = (box.x0 + box.x1) / 2
            room = 2 * min(centre, Wn - centre) - 2 * pad
        room = max(room, 0.3 * Wn)
        longest = max(len(line) for line in s.split("\n"))
        chars = max(8, int(longest * room / box.width) - 1)
        original = originals.setdefault(text, s)
        wrapped = "\n".join(textwrap.fill(_glue_formulas(line), chars, break_long_words=False)
                            .replace(_GLUE, " ") for line in original.split("\n"))
        if wrapped != s:
            text.set_text(wrapped)


def _legends_below_top_views(fig: Figure, renderer) -> None:
    """Move the legend of an equal-aspect plot (a top view, small in the column) under it."""
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or hasattr(ax, "zaxis") or ax.get_aspect() != 1.0:
            continue
        legend.set_visible(False)
        below = tight_box(ax, renderer)
        legend.set_visible(True)
        y = (below.y0 - 4 - ax.bbox.y0) / ax.bbox.height
        legend.set_bbox_to_anchor((0.5, y), transform=ax.transAxes)
        legend.set_loc("upper center")                    # of that anchor
        legend.set_ncols(2)


#: px between an axes' labels and a legend placed under them
LEGEND_GAP = 4.0


def _legends_below(fig: Figure) -> list:
    """The legends made with ``where="below"`` (:func:`widgets.parts.axes_legend`)."""
    return [ax.get_legend() for ax in fig.axes
            if getattr(ax.get_legend(), "sb_below", False)]


def place_legends_below(fig: Figure, renderer, gap: float = LEGEND_GAP) -> None:
    """Put every legend made with ``where="below"`` (:func:`widgets.parts.axes_legend`) under
    its axes' labels, ``gap`` px below the axes' tight box measured without it: measured on the
    drawing stack in use (the x label's place differs by a few px between matplotlib 3.8 and
    3.11), in the wide layout and again in the narrow one.  It is centred on the axes, or, if
    it is wider than that allows, starts at the left edge of their labels (the y label)."""
    for legend in _legends_below(fig):
        ax = legend.axes
        legend.set_visible(False)
        below = tight_box(ax, renderer)
        legend.set_visible(True)
        width = _measured(("legend", fig.axes.index(ax)),
                          lambda: legend.get_window_extent(renderer)).width
        centre = max((ax.bbox.x0 + ax.bbox.x1) / 2, below.x0 + width / 2)
        x = (centre - ax.bbox.x0) / ax.bbox.width
        y = (below.y0 - gap - ax.bbox.y0) / ax.bbox.height
        legend.set_bbox_to_anchor((x, y), transform=ax.transAxes)
        legend.set_loc("upper center")


def _turn_colliding_ticks(fig: Figure, renderer) -> None:
    """Turn the x tick labels of 2-D axes whose labels overlap by 30 degrees."""
    for ax in fig.axes:
        if hasattr(ax, "zaxis"):
            continue
        labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        boxes = sorted((_text_box(t, renderer) for t in labels), key=lambda b: b.x0)
        if any(a.x1 + 2 > b.x0 for a, b in zip(boxes, boxes[1:])) and labels[0].get_rotation() == 0:
            for t in labels:
                t.set_rotation(30)
                t.set_horizontalalignment("right")
                t.set_rotation_mode("anchor")
            ax.tick_params(axis="x", labelrotation=30)


def keep_panels_inside(fig: Figure, renderer, panels: list[list], pad: float = NARROW_PAD) -> None:
    """Narrow a panel's axes where its labels now run past the figure's side edges (a bar
    axis rescaled to longer tick labels).  Called before each full redraw of a narrow figure,
    so the figure keeps its size."""
    W = fig.bbox.width
    for p in panels:
        tight = _union([tight_box(ax, renderer) for ax in p])
        left, right = max(0.0, pad - tight.x0), max(0.0, tight.x1 - (W - pad))
        if left <= 0.5 and right <= 0.5:
            continue
        boxes = {ax: ax.get_position(original=True) for ax in p}
        u = Bbox.union(list(boxes.values()))
        k = max(0.2, (u.width * W - left - right) / (u.width * W))
        for ax, b in boxes.items():
            x0 = u.x0 + left / W + (b.x0 - u.x0) * k
            ax.set_position([x0, b.y0, b.width * k, b.height])


def fit_wide_layout(fig: Figure, canvas, pad: float = 3.0, gap: float = 8.0,
                    rounds: int = 4, legends_below: bool = True) -> None:
    """Fit the wide figure's side-by-side panels (:func:`figure_panels`) and their labels inside
    the figure and apart from each other: a panel whose labels (tight box) run past the
    figure's edges, or into the next panel's (the border between them is the middle of the
    space or overlap between their tight boxes), has its axes shrunk by as much, keeping the
    panel's own arrangement; colliding bar names are turned 30 degrees.  The experiments lay
    their axes out in figure fractions and their texts in points, so this is what keeps a
    layout designed for one size readable at another (and every text >= ``WIDE_MIN_FONT``).
    ``legends_below=False`` (a figure about to be laid out for a phone): legends made to go
    under their axes are left out of the fit (the phone layout places them), so the panels
    the phone layout starts from are the ones the experiment declared."""
    W, H = fig.bbox.width, fig.bbox.height
    renderer = canvas.get_renderer()
    if not legends_below:
        below = _legends_below(fig)
        for legend in below:
            legend.set_in_layout(False)
        try:
            fit_wide_layout(fig, canvas, pad, gap, rounds)
        finally:
            for legend in below:
                legend.set_in_layout(True)
        return
    _turn_colliding_ticks(fig, renderer)
    panels = _panels_by_position(fig)
    for _ in range(rounds):
        place_legends_below(fig, renderer)
        tights = [_union([tight_box(ax, renderer) for ax in p]) for p in panels]
        cuts = [pad] + [(a.x1 + b.x0) / 2 for a, b in zip(tights, tights[1:])] + [W - pad]
        moved = False
        for i, (p, t) in enumerate(zip(panels, tights)):
            lo = cuts[i] + (gap / 2 if i > 0 else 0.0)
            hi = cuts[i + 1] - (gap / 2 if i < len(panels) - 1 else 0.0)
            over = (max(0.0, lo - t.x0), max(0.0, t.x1 - hi),
                    max(0.0, pad - t.y0), max(0.0, t.y1 - (H - pad)))
            if max(over) <= 0.5:
                continue
            moved = True
            boxes = {ax: ax.get_position() for ax in p}        # as drawn (aspect applied)
            u = Bbox.union(list(boxes.values()))
            x0, x1 = u.x0 + over[0] / W, u.x1 - over[1] / W
            y0, y1 = u.y0 + over[2] / H, u.y1 - over[3] / H
            kx = max(0.2, (x1 - x0) / u.width)
            ky = max(0.2, (y1 - y0) / u.height)
            for ax, b in boxes.items():
                ax.set_position([x0 + (b.x0 - u.x0) * kx, y0 + (b.y0 - u.y0) * ky,
                                 b.width * kx, b.height * ky])
        if not moved:
            break
        renderer = canvas.get_renderer()
    place_legends_below(fig, renderer)          # under the axes as they now are


def _panels_by_position(fig: Figure, share: float = 0.1, thin: float = 0.05) -> list[list]:
    """The figure's visible axes grouped left to right by their own boxes (not their labels):
    axes whose boxes overlap horizontally by more than ``share`` of the narrower one's width
    are one panel, and a group narrower than ``thin`` (of the figure's width: a colour bar in
    axes of its own) joins its neighbour, so it is moved and scaled with the plot it keys."""
    items = sorted(((ax.get_position(), ax) for ax in fig.axes if ax.get_visible()),
                   key=lambda item: item[0].x0)
    groups: list[list] = []                  # [axes, x0, x1]
    for b, ax in items:
        if groups:
            g = groups[-1]
            if min(g[2], b.x1) - max(g[1], b.x0) > share * min(g[2] - g[1], b.width):
                g[0].append(ax)
                g[2] = max(g[2], b.x1)
                continue
        groups.append([[ax], b.x0, b.x1])
    return _join_thin(groups, thin)         # a colour bar's own thin axes join their neighbour


def _union(boxes) -> Bbox:
    return Bbox.union([b for b in boxes if b is not None and b.width > 0])


def narrow_layout(fig: Figure, canvas, width: float = NARROW_WIDTH,
                  min_font: float = NARROW_MIN_FONT, pad: float = NARROW_PAD,
                  rounds: int = 4) -> list[list]:
    """Re-lay out ``fig`` (drawn on ``canvas``) as its panels stacked in a column ``width`` in
    wide; returns the panels (lists of axes, top to bottom) for :func:`keep_panels_inside`.
    See the module's docstring."""
    dpi = fig.dpi
    renderer = canvas.get_renderer()
    W0, H0 = fig.bbox.width, fig.bbox.height
    panels = figure_panels(fig, renderer)
    if not panels:
        raise ValueError("narrow_layout: the figure has no visible axes")
    enlarge_text(fig, min_font)
    # positions in the wide figure (px), as laid out by the experiment
    base = {ax: Bbox.from_extents(*(ax.get_position(original=True).extents
                                    * [W0, H0, W0, H0])) for p in panels for ax in p}
    # figure texts (a caption over a 3-D view) travel with the panel under them
    owner = {}
    for text in fig.texts:
        x = text.get_position()[0] * W0
        spans = [_union(base[ax] for ax in p) for p in panels]
        owner[text] = min(range(len(panels)),
                          key=lambda i: 0 if spans[i].x0 <= x <= spans[i].x1
                          else min(abs(x - spans[i].x0), abs(x - spans[i].x1)))
    text_base = {t: (t.get_position()[0] * W0, t.get_position()[1] * H0) for t in owner}
    unions = [_union(base[ax] for ax in p) for p in panels]
    Wn = width * dpi
    margins = [[0.0, 0.0, 0.0, 0.0] for _ in panels]       # left, right, bottom, top (px)
    originals: dict = {}
    for round_ in range(rounds):
        scales = [min(1.0, max(0.2, (Wn - 2 * pad - m[0] - m[1]) / u.width))
                  for u, m in zip(unions, margins)]
        heights = [s * u.height + m[2] + m[3] + 2 * pad for s, u, m in zip(scales, unions, margins)]
        Hn = float(round(sum(heights)))
        fig.set_size_inches(Wn / dpi, Hn / dpi)
        top = Hn
        placed = []
        for i, (p, u, s, m, h) in enumerate(zip(panels, unions, scales, margins, heights)):
            x_off = pad + m[0] + max(0.0, (Wn - 2 * pad - m[0] - m[1] - s * u.width) / 2)
            y_off = top - h + pad + m[2]

            def to_new(x, y, u=u, s=s, x_off=x_off, y_off=y_off):
                return x_off + s * (x - u.x0), y_off + s * (y - u.y0)

            for ax in p:
                b = base[ax]
                x0, y0 = to_new(b.x0, b.y0)
                ax.set_position([x0 / Wn, y0 / Hn, s * b.width / Wn, s * b.height / Hn])
            for text, j in owner.items():
                if j == i:
                    x, y = to_new(*text_base[text])
                    text.set_position((x / Wn, y / Hn))
            placed.append(Bbox.from_bounds(x_off, y_off, s * u.width, s * u.height))
            top -= h
        if round_ == 0:                  # boxes from the code alone: the ticks' room, kept
            freeze_tick_room(fig)
        renderer = canvas.get_renderer()
        _wrap_wide_text(fig, renderer, Wn, pad, originals)
        _turn_colliding_ticks(fig, renderer)
        _legends_below_top_views(fig, renderer)
        place_legends_below(fig, renderer)
        for i, (p, new) in enumerate(zip(panels, placed)):
            tight = _union([tight_box(ax, renderer) for ax in p]
                           + [_text_box(t, renderer) for t, j in owner.items() if j == i])
            margins[i] = [max(0.0, new.x0 - tight.x0), max(0.0, tight.x1 - new.x1),
                          max(0.0, new.y0 - tight.y0), max(0.0, tight.y1 - new.y1)]
    return panels
