"""An experiment: declared controls -> pure scene -> declared parts and blitted figure -> views.

An experiment is a subclass of :class:`Experiment` that supplies

- ``CONTROLS``: a tuple of :class:`~widgets.controls.Slider` / ``Choice`` / ``Player`` specs
  (name, label, range, default);
- ``scene``: a pure function ``scene(**control_values) -> dict`` that returns every array the
  figure draws and, under the key ``"numbers"``, every number the readout panel shows.  All of
  it is computed by :mod:`spatialbook`; the widget code only draws;
- ``READOUTS``: rows ``(label, key, unit)`` of the readout panel;
- declared parts that are built, drawn and blitted for it (``widgets/parts.py``): ``TOP_VIEW``
  (the door from above, ``self.top``), ``TOP_PARTS`` (force arrows, lines, torque arcs,
  ``self.parts``), ``REFERENCE`` (the sliding point), ``BARS`` and ``CURVES`` (panels whose
  axis is fitted once over every control, ``widgets/limits.py``);
- optionally its own artists: ``_setup(fig)`` creates them (moving ones registered with
  :meth:`Experiment._moving`), ``_draw(scene)`` moves them and returns True only when something
  static changed.  An experiment made only of declarations needs neither (E9, E10).

The pieces, one file each: this class holds the declaration and the state (the control
widgets' values, the current scene) and runs one change; ``widgets/blit.py`` (``BlitFigure``)
draws the figure's static part once and blits the moving artists; ``widgets/jupyter.py``
(``JupyterView``) shows it in a notebook; ``widgets/players.py`` sweeps it into frame players;
``widgets/live.py`` drives it from the static book's page.  A change travels: control ->
:meth:`update` -> ``scene`` -> ``_draw`` and the declared parts -> ``BlitFigure.render`` ->
PNG -> ``JupyterView.show``.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from numbers import Integral
from typing import Any, Callable, Sequence

import ipywidgets as W
import numpy as np
from matplotlib.figure import Figure

from . import players
from ._narrow import (LayoutTapeMismatch, checked_narrow, fit_wide_layout, layout_tape,
                      narrow_layout)
from .blit import BlitFigure
from .controls import Player, _real, _shown, assign
from .jupyter import JupyterView
from .limits import fit_span, fitted_limit
from .parts import (Bars, Curve, ReferencePoint, TopView, build_parts, check_declared_keys,
                    draw_parts)
from .readouts import plain, readout_html, readout_table, readout_text
from .style import WIDE_WIDTH_PX


class Experiment:
    """Base of every experiment: declaration, state, one change at a time.

    Attributes a user touches: ``controls`` (dict of ipywidgets), ``widget`` (the displayable
    container), ``state()``, ``set(**values)``, ``main_control``, ``frames()``,
    ``static_player()``.  Constructing an experiment displays nothing.
    """

    name: str = ""
    title: str = ""
    alt: str = ""
    CONTROLS: tuple = ()
    READOUTS: tuple = ()                     # (label, key, unit)
    TOP_VIEW: TopView | None = None          # declared parts, built and drawn for the subclass
    BARS: tuple = ()                         # Bars panels
    REFERENCE: ReferencePoint | None = None  # on the top view
    TOP_PARTS: tuple = ()                    # ForceArrow, InfiniteLine, TorqueArc on the top view
    CURVES: tuple = ()                       # Curve panels
    main_control: str = ""
    #: controls that only turn a 3-D view (E2's and E11's azimuth and elevation): ``scene``
    #: computes no number from them and no 2-D panel moves with them, so a change of these
    #: alone keeps the scene it has, restores the 2-D panels' pixels (:meth:`BlitFigure.keep`)
    #: and only re-projects and blits the 3-D view (tests/test_widgets.py checks the scene)
    VIEW_CONTROLS: tuple = ()
    narrow: bool = False                     # phone layout (set per instance, see __init__)
    scene: Callable[..., dict]               # set by subclasses as staticmethod(module.scene)
    figsize = (WIDE_WIDTH_PX / 100, 3.4)     # 660 x 340 px: the book's column, 1:1
    dpi = 100
    live_compress_level = 1                  # fast PNG for live updates
    frame_compress_level = 6                 # full-quality PNG for frames

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's ``scene`` becomes a checked one: ``cls.scene(**values)`` refuses what
        ``set`` refuses (an unknown name, a value its control cannot take: ``ValueError``
        naming the control), so a number outside a slider's range never gives a picture or a
        number the experiment does not mean (a negative time index wraps round).  Range and
        type are checked, not the step grid: fits and curves evaluate the scene between the
        steps.  The function as written stays ``cls._scene_of``: the per-change path, whose
        values come from the checked controls, calls that, and pays nothing."""
        super().__init_subclass__(**kwargs)
        if "inactive" in cls.__dict__:          # the same for inactive: the per-change path skips it
            cls._inactive_of = cls.__dict__["inactive"]
            cls.inactive = Experiment.inactive
        own = cls.__dict__.get("scene")
        if own is None:
            return
        fn = own.__func__ if isinstance(own, (staticmethod, classmethod)) else own
        cls._scene_of = staticmethod(fn)
        names = tuple(p.name for p in inspect.signature(fn).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))

        def scene(*args: Any, **values: Any) -> dict:
            if len(args) > len(names):
                raise ValueError(f"{cls.__name__}.scene: expected at most {len(names)} values by "
                                 f"position ({', '.join(names)}), got {len(args)}")
            for k, v in zip(names, args):
                if k in values:
                    raise ValueError(f"{k}: expected one value, got it by position and by name")
                values[k] = v
            return fn(**cls._scene_values(values))

        functools.update_wrapper(scene, fn)
        cls.scene = staticmethod(scene)

    def __init__(self, *, narrow: bool = False, **values: Any) -> None:
        narrow = checked_narrow(narrow)
        #: laid out for a phone's column (panels stacked, see widgets/_narrow.py)
        self.narrow = narrow
        self._specs = {c.name: c for c in self.CONTROLS}
        self.controls: dict[str, W.Widget] = {c.name: c.make() for c in self.CONTROLS}
        self._players = {c.name: c for c in self.CONTROLS if isinstance(c, Player)}
        for k, v in self._checked(values).items():
            self.controls[k].value = v
        self._scene: dict = {}
        self._scene_serial = [0]                 # scenes computed so far (kept panels' key)
        self._suspended = False

        try:
            self._build_figure(narrow, tape=True)
        except LayoutTapeMismatch:                      # a recorded layout that does not fit
            self._build_figure(narrow, tape=False)

        self.view = JupyterView(self)
        self.widget, self.image, self.readout = self.view.widget, self.view.image, self.view.readout
        first = self.__dict__.pop("_first_draw", None)          # live mode: _for_live
        if first is None:
            self.update()
        else:
            values, scale = first
            if scale != 1.0 and narrow:      # drawn at 1x first, as the widget and the book's
                self._set(values, live=False)       # 2x frames are: keep_panels_inside's px
                self.set_scale(scale)
                self.update(live=False)
            else:
                if scale != 1.0:
                    self.set_scale(scale)
                self._set(values, live=False)

    @classmethod
    def _for_live(cls, narrow: bool, values: dict, scale: float = 1.0) -> "Experiment":
        """Built as ``cls(narrow=narrow)`` is, at its defaults (the layout and axis fits of the
        book's frames), but first drawn at ``values`` and ``scale`` (:meth:`set_scale`), and
        no PNG made: live mode's first picture (``widgets/live.py``), where a draw at the
        defaults and its PNG were wasted work, and so was a second full draw at a 2x screen's
        scale, except for a phone's layout: its panels are kept inside the figure
        (:func:`widgets._narrow.keep_panels_inside`) when drawn at 1x, before the 2x draw,
        as the widget's ``set_scale`` after a change and the book's 2x frames are."""
        exp = cls.__new__(cls)
        exp._first_draw = (dict(values), scale)
        exp.__init__(narrow=narrow)
        return exp

    def _build_figure(self, narrow: bool, tape: bool) -> None:
        """The figure, its parts and artists at the first scene, laid out: labels inside and
        panels apart (:func:`fit_wide_layout`), then stacked for a phone if ``narrow``.  With
        ``tape``, a layout the book's build recorded for this figure is replayed instead of
        measured (live mode, :func:`widgets._narrow.layout_tape`); ``self.layout`` says which."""
        self._scene = {}
        self.blit = BlitFigure(Figure(figsize=self.figsize, dpi=self.dpi, facecolor="white"))
        self.figure, self.canvas = self.blit.figure, self.blit.canvas
        build_parts(self, self.figure)
        if self.VIEW_CONTROLS:
            self._keep_flat_panels()
        self._move_artists()                            # lay out what the first scene shows
        cls = type(self)
        key = (f"{cls.__module__}:{cls.__qualname__}", narrow)
        with (layout_tape(key, self.figure) if tape else contextlib.nullcontext("measured")) as how:
            # a phone's legends go under their plots in narrow_layout
            fit_wide_layout(self.figure, self.canvas, legends_below=not narrow)
            if narrow:
                self.blit.narrow_panels = narrow_layout(self.figure, self.canvas)
        #: how the layout was made: "measured", "replayed" (live mode) or "recorded" (the build)
        self.layout = how

    # ------------------------------------------------------------------ subclass hooks
    def _setup(self, fig: Figure) -> None:
        """Create the experiment's own axes and artists (the declared parts are built around
        it by :func:`widgets.parts.build_parts`: ``TOP_VIEW`` before, ``BARS``, ``CURVES`` and
        ``REFERENCE`` after)."""

    def _draw(self, scene: dict) -> bool:
        """Move the experiment's own artists; return True if something static changed."""
        return False

    def inactive(self, values: dict) -> dict[str, str]:
        """Controls that change nothing at ``values`` (all controls' values), each with a
        one-line reason: shown disabled, the reason as its tooltip and under the readouts.
        The shared tests check that a control changes what is seen exactly when it is not here.

        >>> from widgets import Probes
        >>> Probes(path="fixed").inactive({"path": "fixed", "nu": 0.0, "omega": 2.0, "u": 0.5})
        {'u': 'moves only the line probe: choose probe path = line'}

        A subclass writes its own ``inactive``; it is called as ``_inactive_of`` behind this
        check of ``values`` (every control ``scene`` takes, each a value it can take: a
        ``ValueError`` naming it, never a silent answer for a value no reader can set).
        """
        if not isinstance(values, dict):
            raise ValueError(f"values: expected a dict of every control's value, got {values!r:.60}")
        missing = [c.name for c in self.CONTROLS if not isinstance(c, Player) and c.name not in values]
        if missing:
            raise ValueError(f"values: expected a value of every control, missing {missing}")
        return self._inactive_of(self._scene_values(values))

    def _inactive_of(self, values: dict) -> dict[str, str]:
        """:meth:`inactive` without its check (the per-change path: the controls' own values)."""
        return {}

    def _moving(self, artist, depends: Sequence[str] | None = None):
        """Register a moving artist (blitted on every change; ``depends``: drawn in a cached
        layer rebuilt only when those controls change); see :meth:`BlitFigure.moving`."""
        return self.blit.moving(artist, depends)

    def _keep_flat_panels(self) -> None:
        """With ``VIEW_CONTROLS``: each 2-D panel that has moving artists (and nothing layered
        or on top) changes only with the scene, so a turn of the view, which keeps the scene,
        restores its pixels instead of drawing it (:meth:`BlitFigure.keep`)."""
        blit = self.blit
        moving = {id(a.axes) for a in blit._moving}
        other = {id(a.axes) for a in (*blit._layer, *blit._top)}
        for ax in self.figure.axes:
            if ax.name != "3d" and id(ax) in moving and id(ax) not in other:
                blit.keep([ax], lambda serial=self._scene_serial: serial[0])

    def _on_top(self, artist):
        """Register a static artist drawn above the moving ones (:meth:`BlitFigure.on_top`)."""
        return self.blit.on_top(artist)

    # ------------------------------------------------------------------ one change
    def values(self) -> dict[str, Any]:
        """Current control values that ``scene`` takes (Play widgets excluded)."""
        return {k: c.value for k, c in self.controls.items() if k not in self._players}

    def set(self, **values: Any) -> None:
        """Set one or more controls; the figure and readouts update once."""
        self._set(values, live=True)

    def _set(self, values: dict, live: bool) -> None:
        values = self._checked(values)               # all or nothing: no control moves if one is bad
        self._suspended = True
        try:
            for k, v in values.items():
                assign(self.controls[k], v)
        finally:
            self._suspended = False
        self.update(live=live)

    def update(self, live: bool = True) -> None:
        """Recompute the scene from the controls, blit the figure, disable the controls that do
        nothing now; ``live`` (the default) also shows the frame and readouts in the widget."""
        full = self._move_artists()
        self.blit.render(self._drawn_values, full)
        self._inactive = self._inactive_of(self._drawn_values)
        self.view.show_inactive(self._inactive)
        if live:
            self.view.show(self._encode(self.live_compress_level), self.readout_html())

    def _move_artists(self) -> bool:
        """Scene of the current controls into the artists; True if something static changed."""
        values = self.values()
        changed = ({k for k, v in self._drawn_values.items() if values[k] != v}
                   if self.VIEW_CONTROLS and self._scene else None)
        self._drawn_values = values
        if not changed or not changed <= set(self.VIEW_CONTROLS):
            first = not self._scene
            self._scene = self._scene_of(**values)      # checked as the controls were set
            self._scene_serial[0] += 1
            if first:                   # a misspelt declared key: said here, not deep in a draw
                check_declared_keys(type(self), self._scene)
        # else a turn of the view alone: the same numbers, the scene kept
        full = self._draw(self._scene)
        return draw_parts(self, self._scene) or full

    def state(self) -> dict[str, Any]:
        """The numbers the experiment currently shows (controls + readouts), as plain floats/lists."""
        return plain({**self.values(), **self._scene["numbers"]})

    def notes(self) -> dict[str, str]:
        """Control name -> the one line shown under the readouts: why the control is disabled
        now (:meth:`inactive`), else its declared ``hint``.

        >>> from widgets import SpatialInertia
        >>> SpatialInertia().notes()["omega"].startswith("moves only the twist")
        True
        """
        off = getattr(self, "_inactive", {})
        return {name: off.get(name) or getattr(spec, "hint", "")
                for name, spec in self._specs.items()
                if off.get(name) or getattr(spec, "hint", "")}

    # ------------------------------------------------------------------ readouts
    def readout_html(self, scene: dict | None = None) -> str:
        """The readout panel as HTML: title, table, notes (colours inherited)."""
        notes = {self._specs[k].label: why for k, why in self.notes().items()}
        return readout_html(self.title, self.readout_table(scene), notes)

    def readout_table(self, scene: dict | None = None) -> str:
        """The readout rows as an HTML table (also shown under each static frame)."""
        return readout_table(self.READOUTS, self._scene_or(scene)["numbers"])

    def readout_text(self, scene: dict | None = None) -> str:
        """A short one-line version of the readouts (for static frames)."""
        return readout_text(self.READOUTS, self._scene_or(scene)["numbers"])

    def _scene_or(self, scene: dict | None, *keys: str) -> dict:
        """``scene``, or the current one when it is None (not when it is empty: ``{}`` used to
        show the current scene's readouts silently), checked to hold ``numbers`` with every
        readout's key and the top-level ``keys`` a subclass's table reads."""
        if scene is None:
            return self._scene
        numbers = scene.get("numbers") if isinstance(scene, dict) else None
        if not isinstance(numbers, dict):
            raise ValueError(f"scene: expected a scene of {type(self).__name__} (a dict with "
                             f"'numbers'), got {scene!r:.60}")
        lacking = [k for _, k, _ in self.READOUTS if k not in numbers] + \
            [k for k in keys if k not in scene]
        if lacking:
            raise ValueError(f"scene: expected a scene of {type(self).__name__}, it lacks {lacking}")
        return scene

    # ------------------------------------------------------------------ frame players
    def sweep_values(self, control: str | None = None, n: int = 17) -> list:
        """Default values of a sweep: ``n`` values over the control's whole range, ends
        included, on its step grid (a choice: all its options)."""
        control = self.main_control if control is None else control
        self._control(control)
        if isinstance(n, bool) or not isinstance(n, Integral) or n < 1:
            raise ValueError(f"n: expected a whole number of values, at least 1, got {n!r:.40}")
        return self._specs[control].sweep(int(n))

    def frames(self, control: str | None = None, values: Sequence | None = None,
               narrow: bool = False) -> list[bytes]:
        """Full-quality PNG bytes, one per value of ``control`` (default: the main control);
        the control is restored afterwards.  ``narrow=True``: the same frames in the phone
        layout (:func:`widgets.players.frames`)."""
        return players.frames(self, control, values, narrow)

    def static_player(self, control: str | None = None, values: Sequence | None = None):
        """Frames of a sweep under a plain-JS slider (no kernel needed), with per-frame
        readouts, wide and narrow (:func:`widgets.players.static_player`)."""
        return players.static_player(self, control, values)

    # ------------------------------------------------------------------ for tests and tools
    @property
    def redraws(self) -> int:
        """Full background redraws so far (the shared tests count them)."""
        return self.blit.redraws

    def invalidate(self) -> None:
        """Force a full redraw of the background at the next update."""
        self.blit.invalidate()

    def set_scale(self, scale: float) -> None:
        """Draw from the next update on at ``scale`` device pixels per CSS pixel: the same
        figure (inches, layout, points), laid out as it was at 1x, at ``scale`` times ``dpi``
        (live mode on a 2x screen; the book's 2x frames, :func:`widgets.players.dense_frames`).
        """
        # a number as the controls take one: no text, no bool, no float() of a huge int
        if not _real(scale) or not 1.0 <= scale <= 4.0:
            raise ValueError(f"{type(self).__name__}.set_scale: scale must be a number from 1 to "
                             f"4 (device pixels per CSS pixel), got {_shown(scale)}")
        self.figure.set_dpi(self.dpi * float(scale))
        self.invalidate()

    def _render(self, full: bool = False) -> None:
        self.blit.render(self._drawn_values, full)

    def _encode(self, level: int) -> bytes:
        # live images keep the opaque alpha (fastest); stored frames are RGB (smaller)
        return self.blit.png(level, alpha=level <= self.live_compress_level)

    def fit_span(self, p: Bars | Curve) -> tuple:
        """The controls a panel's axis is fitted over (:func:`widgets.limits.fit_span`)."""
        if not isinstance(p, (Bars, Curve)):
            raise ValueError(f"p: expected a Bars or Curve panel (one of BARS or CURVES), got {p!r:.60}")
        return fit_span(type(self), p)

    def _fitted_limit(self, panel, p: Bars | Curve) -> float:
        return fitted_limit(self, panel, p)

    def bar_heights(self, panel: int = 0) -> np.ndarray:
        """The drawn heights of a declared bar panel, shape (series, ticks) (for tests)."""
        return np.array([group.heights() for group in self._bar_panel(panel)[1]])

    def bar_total(self, panel: int = 0) -> np.ndarray | None:
        """The drawn total marks of a declared bar panel, or None."""
        total = self._bar_panel(panel)[2]
        return None if total is None else np.asarray(total.get_ydata(), float)

    def bar_axes(self, panel: int = 0):
        """The axes of a declared bar panel."""
        return self._bar_panel(panel)[0]

    def _bar_panel(self, panel: Any) -> tuple:
        """The drawn parts of bar panel ``panel``: an index into ``BARS`` (no negative one, which
        would silently read another panel from the end)."""
        if not isinstance(panel, Integral) or isinstance(panel, (bool, np.bool_)) \
                or not 0 <= panel < len(self._bar_parts):
            raise ValueError(f"panel: expected the index of one of {type(self).__name__}'s "
                             f"{len(self._bar_parts)} bar panels (0 to {len(self._bar_parts) - 1}), "
                             f"got {panel!r:.40}")
        return self._bar_parts[panel]

    @classmethod
    def draw_on(cls, fig: Figure, **values: Any) -> "Experiment":
        """Draw the scene for ``values`` once on a given figure, with no widgets and no
        blitting (used by the naive baseline of the benchmark and for one-off pictures)."""
        if not isinstance(fig, Figure):
            raise ValueError(f"fig: expected a matplotlib Figure, got {fig!r:.60}")
        values = cls._scene_values(values)
        drawer = cls.__new__(cls)
        drawer._specs = {c.name: c for c in cls.CONTROLS}
        drawer._players = {c.name: c for c in cls.CONTROLS if isinstance(c, Player)}
        drawer.blit = BlitFigure(fig, fig.canvas)
        build_parts(drawer, fig)
        defaults = {c.name: c.value for c in cls.CONTROLS if not isinstance(c, Player)}
        drawer._drawn_values = {**defaults, **values}
        drawer._scene = cls._scene_of(**drawer._drawn_values)
        cls._draw(drawer, drawer._scene)
        draw_parts(drawer, drawer._scene)
        drawer.blit.still()
        return drawer

    def _control(self, name: str) -> W.Widget:
        try:
            return self.controls[name]
        except (KeyError, TypeError):
            raise self._no_control(name, self.controls) from None

    @classmethod
    def _no_control(cls, name: Any, names) -> ValueError:
        return ValueError(f"{cls.__name__} has no control {name!r}: expected one of {sorted(names)}")

    @classmethod
    def _scene_values(cls, values: dict) -> dict:
        """``values`` for ``scene`` (no Play: it only drives its slider), each checked by its
        control's spec; an unknown name or a Play's: ``ValueError`` listing the names."""
        for player in cls.CONTROLS:
            if isinstance(player, Player) and player.name in values:
                raise ValueError(f"{player.name}: expected a value of {player.target} instead (the "
                                 f"Play only drives it; the scene does not take {player.name})")
        return cls._checked_values(values, {c.name: c for c in cls.CONTROLS}, {})

    def _checked(self, values: dict) -> dict:
        """``values`` with each checked by its control's spec (``ValueError`` naming the control)."""
        return self._checked_values(values, self._specs, self._players)   # the specs kept

    @classmethod
    def _checked_values(cls, values: dict, specs: dict | None = None,
                        players: dict | None = None) -> dict:
        """:meth:`_checked` of the class: what ``set`` and the constructor accept, said before
        anything is built (live mode's ``create``); ``specs`` and ``players``: the instance's."""
        if specs is None:
            specs = {c.name: c for c in cls.CONTROLS}
            players = {c.name: c for c in cls.CONTROLS if isinstance(c, Player)}
        for k in values:
            if k not in specs:                        # an unknown name: ValueError listing the controls
                raise cls._no_control(k, specs)
        checked = {k: specs[k].check(v) for k, v in values.items()}
        for name, player in players.items():         # a Play sets its slider: not both at once
            if name in values and player.target in values:
                raise ValueError(f"{name}, {player.target}: expected at most one of them ({name} drives "
                                 f"{player.target}), got both")
        return checked

    def _repr_mimebundle_(self, **kwargs):
        """Displaying the experiment itself displays its widget."""
        return self.widget._repr_mimebundle_(**kwargs)

    def close(self) -> None:
        """Close every widget of the experiment (frees the kernel-side objects)."""
        self.view.close()
