"""A figure that draws its static part once and blits the moving artists on every change.

A :class:`BlitFigure` owns one :class:`matplotlib.figure.Figure` on a ``FigureCanvasAgg``
(never pyplot) and three groups of animated artists:

- **moving** (:meth:`BlitFigure.moving`): blitted on every change, in ``zorder``;
- **layered** (``moving(artist, depends=(...))``): drawn into a second cached layer that is
  rebuilt only when one of the controls they depend on changes (E1's field arrows during a
  play of the door angle);
- **on top** (:meth:`BlitFigure.on_top`): static artists that must appear above the moving ones
  (legends), rendered once into a transparent overlay and composited last;
- **kept panels** (:meth:`BlitFigure.keep`): axes whose moving artists change only with a key
  (E11's mass matrix and torque bars change with its scene, not with a turn of the view):
  drawn when the key changes, else their pixels are restored from a copy;
- **reused texts**: a moving plain ``Text`` that has not changed since it was last drawn (not
  stale, at the same place on the canvas) over the same pixels as then gets the pixels it
  drew then, copied back, instead of a text layout and draw (E11's x, y, z labels, which move
  only with the view: about a quarter of a change of a joint; see :meth:`BlitFigure._text`).

:meth:`BlitFigure.render` restores the cached background (redrawn only when ``full``, counted
in ``redraws``), the layer, draws the moving artists and the overlay; :meth:`BlitFigure.png`
encodes the canvas with :func:`encode_png`.  No widgets, no scene: an experiment tells it what
moved.
"""

from __future__ import annotations

import struct
import zlib
from typing import Callable, Sequence

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from ._narrow import keep_panels_inside


class BlitFigure:
    """One figure, its cached background and its animated artists (see the module docstring).

    >>> from matplotlib.figure import Figure
    >>> fig = BlitFigure(Figure(figsize=(2, 1), dpi=100))
    >>> ax = fig.figure.add_axes((0.1, 0.1, 0.8, 0.8))
    >>> dot = fig.moving(ax.plot([0.5], [0.5], "o")[0])
    >>> fig.render({}); fig.render({}); fig.redraws       # the background is drawn once
    1
    >>> fig.png(1)[:4]
    b'\\x89PNG'
    """

    def __init__(self, figure: Figure, canvas: FigureCanvasAgg | None = None) -> None:
        self.figure = figure
        self.canvas = canvas if canvas is not None else FigureCanvasAgg(figure)
        self.redraws = 0                  # full background redraws so far
        self.texts_reused = 0             # moving texts copied back, not drawn (_text)
        #: panels kept inside the figure after a rescale (the phone layout, widgets/_narrow.py)
        self.narrow_panels = None
        self._moving: list = []
        self._layer: list = []            # moving, but only when their controls change
        self._layer_deps: set[str] = set()
        self._top: list = []              # static, above everything: cached RGBA overlay
        self._top_image = None
        self._background = None
        self._layer_background = None
        self._layer_key = None
        self._kept: list[dict] = []       # keep(): {axes, key_of, artists, key, pixels, bbox}
        self._texts: dict = {}            # id(text) -> [key, box, beneath, drawn]: _text()

    #: copy back an unchanged moving text's pixels instead of drawing it (tests switch it off
    #: to compare the two pictures)
    reuse_text = True

    def moving(self, artist, depends: Sequence[str] | None = None):
        """Register a moving artist: excluded from the cached background, blitted each render.

        ``depends``: the controls the artist's data depends on.  Such an artist is drawn into
        a second cached layer that is rebuilt only when one of those controls changes, so a
        sweep of another control does not pay for it (e.g. E1's field arrows during a play).
        """
        artist.set_animated(True)
        if depends is None:
            self._moving.append(artist)
        else:
            self._layer.append(artist)
            self._layer_deps.update(depends)
        return artist

    def on_top(self, artist):
        """Register a STATIC artist that must appear above the moving ones (legends, labels
        over a heat map): rendered once into a transparent RGBA overlay, composited last
        (~0.1 ms instead of ~0.6 ms per text)."""
        artist.set_animated(True)
        self._top.append(artist)
        return artist

    def keep(self, axes: Sequence, key: Callable[[], object]) -> None:
        """The moving artists of ``axes`` (one or more axes holding nothing else that moves)
        change only when ``key()`` changes (E11: a serial number of the experiment's scene):
        while it does not, a render restores their pixels (the axes' boxes) instead of drawing
        them.  Used only where
        those boxes meet no other axes (checked at each background redraw; where they meet,
        the artists are drawn every time), so the picture is the one drawn in full."""
        axes = list(axes)
        artists = [a for a in self._moving if a.axes in axes]
        others = [a for a in (*self._layer, *self._top) if a.axes in axes]
        if others or not artists:
            raise ValueError("BlitFigure.keep: axes must hold moving artists and no layered or "
                             f"on-top ones, got {len(artists)} moving, {len(others)} others")
        self._kept.append({"axes": axes, "key_of": key, "artists": artists,
                           "key": None, "pixels": None, "bbox": None})

    def _kept_boxes(self) -> None:
        """After a background redraw: each kept panel's pixel box, or None where it meets
        another axes (then its artists are drawn every time)."""
        from matplotlib.transforms import Bbox
        for g in self._kept:
            g["key"] = g["pixels"] = None
            box = Bbox.union([ax.bbox for ax in g["axes"]]).padded(2)
            apart = all(not box.overlaps(ax.bbox) for ax in self.figure.axes
                        if ax not in g["axes"] and ax.get_visible())
            g["bbox"] = box if apart else None

    def still(self) -> None:
        """Draw every registered artist as an ordinary one (a one-off picture, no blitting)."""
        for a in (*self._moving, *self._layer, *self._top):
            a.set_animated(False)

    def invalidate(self) -> None:
        """Force a full redraw of the background at the next render."""
        self._background = None

    def render(self, values: dict, full: bool = False) -> None:
        """Blit the current artists onto the canvas; ``values`` (the controls) decide whether the
        cached layer is still valid; ``full`` redraws the background first."""
        canvas = self.canvas
        renderer = None
        if full or self._background is None:
            if self.narrow_panels is not None:          # longer tick labels after a rescale
                keep_panels_inside(self.figure, canvas.get_renderer(), self.narrow_panels)
            canvas.draw()                               # static artists only (moving are animated)
            self.redraws += 1
            self._background = canvas.copy_from_bbox(self.figure.bbox)
            self._layer_key = None
            fresh = True
            self._kept_boxes()
            if self._top:                               # transparent overlay of on-top artists
                r = canvas.get_renderer()
                r.clear()
                _draw_sorted(self._top, r)
                self._top_image = _overlay_pieces(np.asarray(canvas.buffer_rgba()))
                canvas.restore_region(self._background)
        else:
            fresh = False
        if self._layer:
            key = tuple(repr(values[k]) for k in sorted(self._layer_deps))
            if key != self._layer_key:
                if not fresh:
                    canvas.restore_region(self._background)
                renderer = canvas.get_renderer()
                _draw_sorted(self._layer, renderer)
                self._layer_background = canvas.copy_from_bbox(self.figure.bbox)
                self._layer_key = key
            else:
                canvas.restore_region(self._layer_background)
        elif not fresh:
            canvas.restore_region(self._background)
        renderer = renderer or canvas.get_renderer()
        if self._kept:
            done = set()
            for g in self._kept:
                key = g["key_of"]()
                if g["bbox"] is None:
                    continue
                if g["pixels"] is not None and key == g["key"]:
                    canvas.restore_region(g["pixels"])
                else:
                    _draw_sorted(g["artists"], renderer)
                    g["pixels"] = canvas.copy_from_bbox(g["bbox"])
                    g["key"] = key
                done.update(map(id, g["artists"]))
            self._draw_moving([a for a in self._moving if id(a) not in done], renderer)
        else:
            self._draw_moving(self._moving, renderer)
        if self._top_image is not None:
            gc = renderer.new_gc()
            for x, y, piece in self._top_image:
                renderer.draw_image(gc, x, y, piece)
            gc.restore()

    def _draw_moving(self, artists, renderer) -> None:
        for a in sorted(artists, key=lambda a: a.get_zorder()):
            if not a.get_visible():
                continue
            if type(a) is Text and self.reuse_text:
                self._text(a, renderer)
            else:
                a.draw(renderer)

    def _text(self, text: Text, renderer) -> None:
        """Draw a moving plain text, or copy back the pixels it drew before where that gives
        the same picture: its pixels are a function of the text's own state and of the pixels
        beneath it in its box.  So the key is the text unchanged since its last draw (matplotlib
        marks an artist stale on any change of a property, and its draw clears the mark; its
        card's too), at the same place on the canvas (its transform may move it without a
        change of the text: a new layout, another dpi), with the same clip box; and the pixels
        of its box (the text's and its card's extent, padded) must equal those it was drawn
        over.  The first draw at a new key only notes the key (a turn of E11's view changes
        it every time), the second measures the box and keeps the pixels beneath and drawn,
        each later one compares and copies back (tens of microseconds
        against 1-3 ms of layout and drawing in the browser)."""
        patch = text.get_bbox_patch()
        key = None
        if not text.stale and (patch is None or not patch.stale):
            key = _text_key(text, renderer)
        rec = self._texts.get(id(text))
        if key is not None and rec is not None and rec[0] == key:
            if rec[1] is None:             # the second draw at this key: measure its box
                rec[1] = _text_box(text, renderer)
            r0, r1, c0, c1 = rec[1]
            here = np.asarray(renderer.buffer_rgba())[r0:r1, c0:c1]
            if rec[2] is not None and np.array_equal(here, rec[2]):
                here[...] = rec[3]
                self.texts_reused += 1
                return
            beneath = here.copy()
            text.draw(renderer)
            rec[2], rec[3] = beneath, here.copy()
            return
        text.draw(renderer)
        if key is None:                    # it was stale: its key is known after this draw
            key = _text_key(text, renderer)
        self._texts[id(text)] = [key, None, None, None]     # no box yet: a turn pays nothing

    def png(self, level: int, alpha: bool = True) -> bytes:
        """The canvas as PNG bytes (:func:`encode_png`)."""
        return encode_png(self.canvas.buffer_rgba(), level, alpha=alpha)


def _text_key(text: Text, renderer) -> tuple:
    """Where a text lands on this canvas: its anchor in display pixels, its clip box, the
    renderer's dpi and size (:meth:`BlitFigure._text`)."""
    clip = text.get_clip_box() if text.get_clip_on() else None
    return (tuple(text.get_transform().transform(text.get_unitless_position())),
            None if clip is None else tuple(clip.bounds), renderer.dpi,
            renderer.width, renderer.height)


def _text_box(text: Text, renderer) -> tuple[int, int, int, int]:
    """(row0, row1, col0, col1): the canvas pixels a text drawn now may touch, its glyphs' and
    its card's extent padded by 2 px (antialiased edges), within the canvas."""
    from matplotlib.transforms import Bbox
    boxes = [text.get_window_extent(renderer)]
    if text.get_bbox_patch() is not None:
        boxes.append(text.get_bbox_patch().get_window_extent(renderer))
    x0, y0, x1, y1 = Bbox.union(boxes).padded(2.0).extents
    w, h = renderer.width, renderer.height
    c0, c1 = max(0, int(np.floor(x0))), min(int(w), int(np.ceil(x1)) + 1)
    r0, r1 = max(0, int(np.floor(h - y1))), min(int(h), int(np.ceil(h - y0)) + 1)
    return r0, max(r0, r1), c0, max(c0, c1)


def _overlay_pieces(rgba, band: int = 16) -> list:
    """The on-top overlay (an (h, w, 4) canvas, rows top to bottom, transparent where nothing
    is drawn) as the pieces that hold its drawn pixels: for each band of ``band`` rows, the
    columns from its first to its last pixel with alpha > 0, as ``(x, y, pixels)`` for
    ``renderer.draw_image`` (y from the canvas's bottom, rows bottom to top).  Agg leaves a
    pixel alone where the image's alpha is 0, so compositing the pieces gives the picture the
    whole overlay gives; a legend covers a tenth of the figure or less (bifold door: 0.10), so
    a change composites that, not the whole canvas (3 of 60 ms of a change, CPython)."""
    h = rgba.shape[0]
    drawn = rgba[..., 3] > 0
    pieces = []
    for r0 in range(0, h, band):
        cols = np.flatnonzero(drawn[r0:r0 + band].any(axis=0))
        if cols.size == 0:
            continue
        r1 = min(h, r0 + band)
        rows = np.flatnonzero(drawn[r0:r1].any(axis=1))
        r0, r1 = r0 + rows[0], r0 + rows[-1] + 1
        c0, c1 = cols[0], cols[-1] + 1
        pieces.append((int(c0), int(h - r1), rgba[r0:r1, c0:c1][::-1].copy()))
    return pieces


def _draw_sorted(artists, renderer) -> None:
    for a in sorted(artists, key=lambda a: a.get_zorder()):
        if a.get_visible():
            a.draw(renderer)



def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def encode_png(rgba, level: int = 1, alpha: bool = True) -> bytes:
    """Lossless PNG of an (h, w, 4) uint8 buffer (the Agg canvas).

    Rows use PNG filter 0 and zlib at ``level``.  ``alpha=True`` keeps the (opaque) alpha
    channel, which avoids a strided copy: at level 1 this is about twice as fast as PIL's
    encoder for plot images.  ``alpha=False`` writes RGB (smaller files, for stored frames).
    """
    a = np.asarray(rgba)
    h, w = a.shape[:2]
    if alpha:
        rows = np.empty((h, 1 + 4 * w), np.uint8)
        rows[:, 1:] = a.reshape(h, 4 * w)
        colour_type = 6
    else:
        rows = np.empty((h, 1 + 3 * w), np.uint8)
        rows[:, 1:].reshape(h, w, 3)[...] = a[..., :3]
        colour_type = 2
    rows[:, 0] = 0                                   # filter type "None" for every row
    header = struct.pack(">IIBBBBB", w, h, 8, colour_type, 0, 0, 0)   # 8-bit, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(rows, level)) + _png_chunk(b"IEND", b""))
