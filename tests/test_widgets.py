"""Shared tests of every registered experiment, driven by ``widgets.EXPERIMENTS``: interface,
sweeps of every control end to end with the experiment's own oracle, degenerate settings, no
stale pixels after blitting, no leaks, distinct frames, the declared bars, and the recipe's
bookkeeping (README table, ``__all__``).

Each experiment's physics lives in its own file, ``tests/test_widget_<module>.py`` (for
``widgets/<module>.py``), which defines ``check(exp, state)``: an oracle that recomputes from
the control values what must be drawn and read out, and asserts what the experiment teaches;
and ``DEGENERATE``: settings where something vanishes.  A registered experiment without such a
file fails here.  Run headless (MPLBACKEND=Agg); no browser.
"""

from __future__ import annotations

import gc
import importlib
import inspect
import json
import re
from pathlib import Path

import ipywidgets
import numpy as np
import pytest

import widgets
from sampling import count, sampled
from widget_helpers import finite, shared
from widgets import EXPERIMENTS, Experiment
from widgets.style import COLORS
from widgets.controls import Choice, Player, Slider
from widgets.limits import nice_limit

NAMES = list(EXPERIMENTS)                  # the registry's order, never a hand-kept copy
ROOT = Path(__file__).resolve().parent.parent


def physics(name: str):
    """The experiment's own test module: tests/test_widget_<module>.py."""
    return importlib.import_module("test_widget_" + EXPERIMENTS[name].__module__.rpartition(".")[2])


@pytest.fixture(scope="module")
def exps():
    """The experiments of the test process (tests/widget_helpers.py's ``shared``)."""
    return None


def get(exps, name: str) -> Experiment:
    """One instance per experiment and test process, handed out at its defaults."""
    return shared(name)


def _sweep_values(spec, n=7):
    vals = spec.sweep(n)
    if isinstance(spec, (Slider, Player)):
        assert vals[0] == pytest.approx(spec.min) and vals[-1] == pytest.approx(spec.max)
    return vals


# ------------------------------------------------------------------------------ bookkeeping


@pytest.mark.parametrize("name", NAMES)
def test_every_experiment_has_its_physics_test_file(name):
    mod = physics(name)
    assert callable(getattr(mod, "check", None)), f"{mod.__file__} defines no check(exp, state)"
    assert isinstance(getattr(mod, "DEGENERATE", None), list), f"{mod.__file__} defines no DEGENERATE list"


def test_all_exports_every_registered_class():
    for cls in EXPERIMENTS.values():
        assert cls.__name__ in widgets.__all__ and getattr(widgets, cls.__name__) is cls
        assert EXPERIMENTS[cls.name] is cls            # registered under its own name


def test_readme_table_lists_the_registry():
    """The table in widgets/README.md: one row per registered experiment, in the registry's
    order, with its main control and module."""
    text = (ROOT / "widgets" / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (E\d+)[^|]*\| `(\w+)` \| `(\w+)\.py` \|", text, re.M)
    assert [r[0] for r in rows] == NAMES, "widgets/README.md's table does not match EXPERIMENTS"
    for name, label, main, module in rows:
        cls = EXPERIMENTS[name]
        assert cls.title.startswith(label + " "), (name, label, cls.title)
        assert main == cls.main_control and module == cls.__module__.rpartition(".")[2], name


# ------------------------------------------------------------------------ interface, sweeps


@pytest.mark.parametrize("name", NAMES)
def test_interface(exps, name):
    e = get(exps, name)
    assert isinstance(e, Experiment) and e.name == name
    assert e.controls and all(isinstance(c, ipywidgets.Widget) for c in e.controls.values())
    assert isinstance(e.widget, ipywidgets.Widget)
    assert e.main_control in e.controls
    st = e.state()
    json.dumps(st)
    assert finite(st), name
    assert set(e.values()) <= set(st)
    assert e.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<table" in e.readout.value
    numbers = e._scene["numbers"]
    for key in set(numbers) & set(e.controls):         # only an echo of the control
        assert numbers[key] == e.controls[key].value, (name, key)
    assert all(key in numbers for _, key, _ in e.READOUTS)
    # state is the scene's numbers at the controls' values, nothing else
    again = type(e).scene(**e.values())["numbers"]
    for key, value in again.items():
        if not isinstance(value, str):
            np.testing.assert_allclose(st[key], np.asarray(value, float), atol=0, err_msg=key)


@pytest.mark.parametrize("name", NAMES)
def test_scene_defaults_match_controls(name):
    cls = EXPERIMENTS[name]
    sig = inspect.signature(cls.scene)
    for spec in cls.CONTROLS:
        if not isinstance(spec, Player):
            assert sig.parameters[spec.name].default == spec.value, (name, spec.name)


@pytest.mark.parametrize("name", NAMES)
def test_sweep_every_control(exps, name):
    """Every control across its whole range, ends included: no exception, drawn = oracle."""
    e = get(exps, name)
    check = physics(name).check
    defaults = e.values()
    for spec in e.CONTROLS:
        for v in _sweep_values(spec):
            e.set(**{spec.name: v})
            st = e.state()
            assert finite(st), (name, spec.name, v)
            if isinstance(spec, Player):
                assert st[spec.target] == pytest.approx(v)
            check(e, st)
        e.set(**defaults)
    check(e, e.state())


@pytest.mark.parametrize("name", NAMES)
def test_degenerate_settings_draw_sensibly(exps, name):
    e = get(exps, name)
    mod = physics(name)
    before = e.values()
    # each setting starts from the controls' defaults, not from what the one before left: a
    # partial setting ({"omega": 0.0}) means "the defaults, with omega = 0", so no setting hides
    # behind another (issue 34)
    defaults = {s.name: s.value for s in e.CONTROLS if not isinstance(s, Player)}
    for values in mod.DEGENERATE:
        e.set(**{**defaults, **values})
        assert e.values() == {**defaults, **values}, (name, values)
        st = e.state()
        assert finite(st), (name, values)
        assert "nan" not in e.readout.value.lower()
        mod.check(e, st)
    e.set(**before)


# --------------------------------------------------------------------------- declared bars


@pytest.mark.parametrize("name", [n for n in NAMES if EXPERIMENTS[n].BARS])
def test_declared_bars_draw_the_scene_and_fill_their_axis(exps, name):
    e = get(exps, name)
    defaults = e.values()
    initial = [e.bar_axes(i).get_ylim()[1] for i in range(len(e.BARS))]
    for spec in e.CONTROLS:
        if isinstance(spec, Player):
            continue
        for v in spec.sweep(3):
            e.set(**{spec.name: v})
            numbers = e._scene["numbers"]
            for i, panel in enumerate(e.BARS):
                heights = e.bar_heights(i)
                np.testing.assert_array_equal(heights, panel.values(numbers))
                lim = e.bar_axes(i).get_ylim()
                assert lim[0] == -lim[1] and np.all(np.abs(heights) <= lim[1]), (name, spec.name, v)
                if panel.total:
                    np.testing.assert_array_equal(e.bar_total(i), np.asarray(numbers[panel.total], float))
                if panel.lim is None:                   # fitted once over every control
                    assert lim[1] == e._fitted_limit(i, panel) == initial[i], (name, spec.name, v)
        e.set(**defaults)
    for i, panel in enumerate(e.BARS):
        for row in panel.readouts():
            assert row[1] in e._scene["numbers"]


@pytest.mark.parametrize("name", [n for n in NAMES if EXPERIMENTS[n].CURVES])
def test_declared_curves_draw_the_scene_and_hold_their_axis(exps, name):
    """Every control across its range: each declared curve's line, marker and reference lines
    are the scene's values, and its axis is the one fitted once over every control."""
    from widgets.parts import lookup
    e = get(exps, name)
    defaults = e.values()
    initial = [c.axes.get_ylim() for c in e.curves]
    for spec in e.CONTROLS:
        if isinstance(spec, Player):
            continue
        for v in spec.sweep(3):
            e.set(**{spec.name: v})
            s = e._scene
            for j, (c, d) in enumerate(zip(e.CURVES, e.curves)):
                assert d.axes.get_ylim() == initial[j], (name, spec.name, v)
                assert len(d.lines) == len(d.markers) == len(c.keys)
                if c.x not in e.controls:
                    for k, line in zip(c.keys, d.lines):
                        np.testing.assert_array_equal(line.get_xdata(), lookup(s, c.x))
                        np.testing.assert_array_equal(line.get_ydata(), lookup(s, k))
                    np.testing.assert_array_equal(d.marker.get_xydata(),
                                                  [[lookup(s, c.at), lookup(s, c.value)]])
                else:
                    for k, marker in zip(c.keys, d.markers):
                        assert marker.get_xydata()[0, 0] == e.values()[c.x]
                        assert marker.get_xydata()[0, 1] == lookup(s, k)
                for r, line in zip(c.refs, d.refs):
                    if r.axis == "line":
                        np.testing.assert_array_equal(np.column_stack(r.ends(s, d.axes.get_xlim())),
                                                      line.get_xydata())
                        continue
                    drawn = line.get_xdata() if r.axis == "x" else line.get_ydata()
                    np.testing.assert_array_equal(drawn, [lookup(s, r.key)] * 2)
                if c.lim is None:
                    assert initial[j][1] == e._fitted_limit(("curve", j), c)
        e.set(**defaults)


def test_curve_over_a_control_samples_the_scene():
    """A Curve whose x is a control runs over the control's range, the others held; it is
    redrawn when another control changes, and its axis is fitted over every control."""
    from widgets import Curve, PowerSplit
    cls = type("PowerCurve", (PowerSplit,), {"CURVES": (Curve("total power over P", "x_P (m)", "W",
                                                              "rotational_power", "ref_x",
                                                              rect=(0.7, 0.6, 0.25, 0.3)),)})
    e = cls(push_angle=30.0)
    try:
        d = e.curves[0]
        xs = np.asarray(PowerSplit.CONTROLS[0].sweep(61))
        expect = [PowerSplit.scene(ref_x=x, push_angle=30.0)["numbers"]["rotational_power"] for x in xs]
        np.testing.assert_allclose(d.line.get_xdata(), xs)
        np.testing.assert_allclose(d.line.get_ydata(), expect, atol=1e-12)
        e.set(omega=-1.0)
        expect = [PowerSplit.scene(ref_x=x, push_angle=30.0, omega=-1.0)["numbers"]["rotational_power"]
                  for x in xs]
        np.testing.assert_allclose(d.line.get_ydata(), expect, atol=1e-12)
        assert d.axes.get_xlim() == (0.0, 0.8)
        lim = d.axes.get_ylim()
        assert lim[0] == -lim[1] and np.max(np.abs(expect)) <= lim[1]
        before = e.redraws
        e.set(ref_x=0.5)
        assert e.redraws == before and d.marker.get_xydata()[0, 0] == 0.5
    finally:
        e.close()


def test_declared_parts_reject_bad_declarations():
    from widgets import Curve, ForceArrow, KineticEnergy, PowerSplit, Ref
    with pytest.raises(ValueError, match="axis"):
        Ref("least_torque", axis="z")
    no_top = type("NoTop", (KineticEnergy,), {"TOP_VIEW": None, "REFERENCE": None,
                                              "TOP_PARTS": (ForceArrow("v_P", "x_P"),)})
    with pytest.raises(ValueError, match="TOP_VIEW"):
        no_top()
    twice = type("Twice", (PowerSplit,), {"TOP_PARTS": (ForceArrow("f", (0, 0)), ForceArrow("f", (1, 0)))})
    with pytest.raises(ValueError, match="name="):
        twice()
    no_marker = type("NoMarker", (PowerSplit,), {"CURVES": (Curve("t", "x", "y", "F_P", "V_P"),)})
    with pytest.raises(ValueError, match="at= and value="):
        no_marker()


def test_clip_line_ends_on_the_box():
    from widgets.parts import clip_line
    np.testing.assert_allclose(clip_line([0.5, 0.0, 0.0], [0.0, 2.0, 0.0], (0, 1), (-1, 2)), [[0.5, -1], [0.5, 2]])
    np.testing.assert_allclose(clip_line([0, 0], [1, 1], (-1, 2), (-0.5, 0.5)), [[-0.5, -0.5], [0.5, 0.5]])
    assert clip_line([5, 5], [1, 0], (0, 1), (0, 1)).shape == (0, 2)        # misses the box
    assert clip_line([0.5, 0.5], [0, 0], (0, 1), (0, 1)).shape == (0, 2)    # no direction


def test_nice_limit():
    assert [nice_limit(x) for x in (0.0, 0.9, 1.0, 2.0, 3.2, 7.5, 8.0, 12.0, 0.013)] == \
        [1.0, 1.0, 1.5, 2.5, 4.0, 10.0, 10.0, 15.0, 0.015]
    for x in np.geomspace(1e-3, 1e3, 97):
        lim = nice_limit(x)
        assert 1.08 * x <= lim * (1 + 1e-12) and x > 0.55 * lim


# ------------------------------------------------------------------ pixels, leaks, frames


#: states of the random walk per experiment, each compared with a fresh build, and the steps
#: before each: 4 of 3 steps; in make test-fast one of 6 steps (the fresh build is the cost;
#: every control is swept by test_sweep_every_control either way)
RANDOM_STATES = count(4, 1)
WALK_STEPS = 6 if sampled() else 3


@pytest.mark.parametrize("name", NAMES)
def test_blitting_leaves_no_stale_pixels(exps, name):
    """After a random walk over the controls, the blitted picture equals a fresh full draw."""
    rng = np.random.default_rng(7)
    e = get(exps, name)
    defaults = e.values()
    specs = [s for s in e.CONTROLS if not isinstance(s, Player)]
    for _ in range(RANDOM_STATES):
        for _ in range(WALK_STEPS):
            spec = specs[rng.integers(len(specs))]
            vals = spec.sweep(9)
            e.set(**{spec.name: vals[rng.integers(len(vals))]})
        fresh = EXPERIMENTS[name](**e.values())
        assert fresh.image.value == e.image.value, (name, e.values())
        fresh.close()
        blitted = e.image.value
        e.invalidate()                             # a full redraw gives the same pixels
        e.update()
        assert e.image.value == blitted, name
    e.set(**defaults)


@pytest.mark.parametrize("name", NAMES)
def test_reused_texts_give_the_pixels_drawn(exps, name):
    """A moving text copied back (BlitFigure._text: unchanged, over the same pixels) gives the
    picture that drawing every text gives, after each step of a random walk over the controls
    (a box too small, or a change its key misses, would leave other pixels)."""
    rng = np.random.default_rng(11)
    e = get(exps, name)
    defaults = e.values()
    specs = [s for s in e.CONTROLS if not isinstance(s, Player)]
    reused = e.blit.texts_reused
    try:
        for _ in range(2 * WALK_STEPS):
            spec = specs[rng.integers(len(specs))]
            vals = spec.sweep(9)
            e.set(**{spec.name: vals[rng.integers(len(vals))]})
            e.update(live=False)                   # the same values again: texts unchanged
            copied = np.asarray(e.canvas.buffer_rgba()).copy()
            e.blit.reuse_text = False
            e.blit.render(e._drawn_values)
            assert np.array_equal(np.asarray(e.canvas.buffer_rgba()), copied), (name, e.values())
            e.blit.reuse_text = True
    finally:
        e.blit.reuse_text = True
        e.set(**defaults)
    if name == "arm_explorer":         # its x, y, z labels move only with the view
        assert e.blit.texts_reused > reused


@pytest.mark.parametrize("name", NAMES)
def test_no_pyplot_figure_and_no_leaks(exps, name):
    """A hundred updates (48 in make test-fast) create no widget, no artist, no figure and no
    lasting objects."""
    import matplotlib.pyplot as plt

    def n_widgets():
        return len(ipywidgets.widgets.widget._instances)

    e = get(exps, name)
    n = count(100, 48)
    spec = e._specs[e.main_control]
    vals = spec.sweep(25)
    for v in vals[:3]:                             # warm caches first
        e.set(**{e.main_control: v})
    n_art = len(e.figure.findobj())
    n_w = n_widgets()
    # what exists now is frozen (gc.freeze): counted (get_freeze_count: it falls as frozen
    # objects are freed) but not walked, so the collection below walks only what the updates
    # made, not the whole heap of the test process
    gc.freeze()
    try:
        n_obj = len(gc.get_objects()) + gc.get_freeze_count()
        for i in range(n):
            e.set(**{e.main_control: vals[i % len(vals)]})
        gc.collect()
        grown = len(gc.get_objects()) + gc.get_freeze_count() - n_obj
    finally:
        gc.unfreeze()
    assert grown < n // 4, (name, grown)           # a leak of one object per update would show
    assert len(e.figure.findobj()) == n_art
    assert n_widgets() == n_w
    e.set(**{e.main_control: spec.value})
    assert plt.get_fignums() == []


@pytest.mark.parametrize("name", NAMES)
def test_frames_distinct_and_control_restored(exps, name):
    e = get(exps, name)
    spec = e._specs[e.main_control]
    before = e.controls[e.main_control].value
    vals = spec.sweep(5)[:3]                      # not both ends: 0 and 360 deg look alike
    frames = e.frames(values=vals)
    assert len(frames) == len(vals)
    assert all(f[:8] == b"\x89PNG\r\n\x1a\n" for f in frames)
    assert len(set(frames)) == len(frames), name
    assert e.controls[e.main_control].value == before
    sweep = e.sweep_values()
    assert sweep[0] == pytest.approx(spec.sweep(2)[0]) and sweep[-1] == pytest.approx(spec.sweep(2)[-1])
    assert len(sweep) >= 11 or isinstance(spec, Choice)


@pytest.mark.parametrize("name", NAMES)
def test_draw_on_a_given_figure(name):
    """The widget-free path (benchmark baseline, one-off pictures) draws the same scene."""
    from matplotlib.figure import Figure
    cls = EXPERIMENTS[name]
    drawer = cls.draw_on(Figure(figsize=cls.figsize, dpi=cls.dpi))
    assert drawer._scene["numbers"].keys() == cls.scene()["numbers"].keys()


def test_construction_displays_nothing(capsys):
    e = EXPERIMENTS[NAMES[0]]()
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    e.close()


def test_door_top_view_helper():
    """The shared "door from above" axes: equal aspect, limits, x/y in m, title, door bar, hinge."""
    from matplotlib.figure import Figure
    from widgets.style import DOOR_WIDTH
    from widgets.parts import door_top_view
    import spatialbook as sb
    fig = Figure()
    ax, door = door_top_view(fig, (0.1, 0.1, 0.8, 0.8), (-0.5, 1.0), (-0.4, 0.6), "t",
                             hinge_label=(0.05, -0.1), door_lw=3, door_alpha=0.4, door_zorder=2)
    assert ax.get_aspect() == 1.0 and ax.get_title() == "t"
    assert ax.get_xlim() == (-0.5, 1.0) and ax.get_ylim() == (-0.4, 0.6)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x (m)", "y (m)")
    np.testing.assert_allclose(door.get_xydata(), [[0, 0], [DOOR_WIDTH, 0]])
    assert DOOR_WIDTH == sb.DOOR["width"]
    assert door.get_color() == COLORS["door"] and door.get_linewidth() == 3
    assert door.get_alpha() == 0.4 and door.get_zorder() == 2
    hinge = [l for l in ax.lines if l is not door]
    assert len(hinge) == 1 and list(hinge[0].get_xydata()[0]) == [0, 0]
    assert [t.get_text() for t in ax.texts] == ["hinge O"]


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_slider_default_is_on_its_step_grid(name):
    """A slider's value snaps to min + k step (ipywidgets, and live mode's first frame, which
    starts from the player's settings on that grid): a default off the grid would draw one
    picture in the book's frames and another in the browser (E2's elevation 18 on a 5-degree grid)."""
    from widgets.controls import Slider
    for c in EXPERIMENTS[name].CONTROLS:
        if isinstance(c, Slider):
            k = (c.value - c.min) / c.step
            assert abs(k - round(k)) < 1e-9, f"{name}.{c.name}: default {c.value} is not min {c.min} + k * step {c.step}"


def _same_tree(a, b, where: str) -> None:
    """Two scene values equal exactly (dicts, sequences, arrays, numbers, named tuples)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), where
        for k in a:
            _same_tree(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (str, bool)) or a is None:
        assert a == b, where
    elif isinstance(a, (list, tuple)) and not hasattr(a, "_fields"):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same_tree(x, y, f"{where}[{i}]")
    elif hasattr(a, "_fields"):                   # a named tuple of arrays (sb.screw_axis)
        _same_tree(a._asdict(), b._asdict(), where)
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=where)


@pytest.mark.parametrize("name", [n for n in NAMES if EXPERIMENTS[n].VIEW_CONTROLS])
def test_view_controls_change_no_number(exps, name):
    """A change of ``VIEW_CONTROLS`` alone keeps the scene (no recomputation): so the scene must
    not depend on them at all, at random settings of the other controls; and the experiment
    really keeps it (the same object) while its picture follows the view."""
    cls = EXPERIMENTS[name]
    specs = {c.name: c for c in cls.CONTROLS if not isinstance(c, Player)}
    assert set(cls.VIEW_CONTROLS) <= set(specs), name
    rng = np.random.default_rng(3)
    for _ in range(count(4, 2)):
        values = {k: (lambda g: g[rng.integers(len(g))])(s.sweep(9)) for k, s in specs.items()}
        base = cls.scene(**values)
        for k in cls.VIEW_CONTROLS:
            for v in (specs[k].min, specs[k].max):
                _same_tree(base, cls.scene(**{**values, k: v}), f"{name} {k}={v}")
    e = get(exps, name)
    defaults = e.values()
    kept, image = e._scene, e.image.value
    view = cls.VIEW_CONTROLS[0]
    e.set(**{view: specs[view].min if e.values()[view] != specs[view].min else specs[view].max})
    assert e._scene is kept and e.image.value != image, name
    fresh = cls(**e.values())                  # kept panels restored = the picture drawn whole
    assert fresh.image.value == e.image.value, (name, e.values())
    fresh.close()
    other = next(k for k in specs if k not in cls.VIEW_CONTROLS)
    e.set(**{other: specs[other].min if e.values()[other] != specs[other].min else specs[other].max})
    assert e._scene is not kept, name
    e.set(**{view: specs[view].min if e.values()[view] != specs[view].min else specs[view].max})
    fresh = cls(**e.values())
    assert fresh.image.value == e.image.value, (name, e.values())
    fresh.close()
    e.set(**defaults)


@pytest.mark.parametrize("name", NAMES)
def test_overlay_pieces_give_the_whole_overlay(exps, name):
    """The on-top overlay composited as its drawn pieces (widgets/blit.py _overlay_pieces) gives
    the pixels the whole canvas-sized overlay gives (a piece cut too small would drop a legend's
    edge; a wrong row or column offset would move it)."""
    from widgets.blit import _draw_sorted, _overlay_pieces

    e = get(exps, name)
    if not e.blit._top:
        pytest.skip(f"{name} has no on-top artists")
    e.invalidate()
    e.update(live=False)
    by_pieces = np.asarray(e.canvas.buffer_rgba()).copy()
    renderer = e.canvas.get_renderer()
    renderer.clear()
    _draw_sorted(e.blit._top, renderer)
    whole = np.asarray(e.canvas.buffer_rgba())[::-1].copy()     # rows bottom to top
    assert _overlay_pieces(whole[::-1]), name
    e.blit.render(e._drawn_values, full=True)
    kept, e.blit._top_image = e.blit._top_image, None
    e.blit.render(e._drawn_values)                 # the figure without its overlay
    context = renderer.new_gc()
    renderer.draw_image(context, 0, 0, whole)
    context.restore()
    e.blit._top_image = kept
    assert np.array_equal(np.asarray(e.canvas.buffer_rgba()), by_pieces), name


@pytest.mark.parametrize("color", ["#E69F00", ["#E69F00", "#56B4E9", "#009E73"]])
def test_a_bar_series_draws_what_axes_bar_draws(color):
    """``widgets.parts.BarSeries`` (one collection per series, for speed) against matplotlib's
    own ``Axes.bar``: the same pixels, bars up, down and flat, with their legend entry."""
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from widgets.parts import BarSeries

    x, heights = np.arange(3.0), np.array([1.3, -0.7, 0.0])

    def drawn(use_series: bool) -> np.ndarray:
        fig = Figure(figsize=(3, 2), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0.15, 0.15, 0.8, 0.8))
        if use_series:
            bars = BarSeries(x, 0.6, color, "G")
            ax.add_collection(bars)
            ax.autoscale_view()
            bars.set_heights(heights)
            np.testing.assert_array_equal(bars.heights(), heights)
        else:
            bars = ax.bar(x, heights, 0.6, color=color, label="G")
        ax.set_ylim(-2, 2)
        ax.legend(handles=[bars], loc="upper right")
        fig.canvas.draw()
        return np.asarray(fig.canvas.buffer_rgba()).copy()

    np.testing.assert_array_equal(drawn(True), drawn(False))


def test_a_misspelt_declared_key_is_refused_by_name():
    """A declaration that names a key the scene lacks, or a bar series of the wrong length, is
    a ValueError at construction naming the declaration and the key (not a KeyError, nor
    numpy's reshape error, from the first draw)."""
    import dataclasses

    from widgets import Probes, SpatialInertia

    bars = Probes.BARS[0]
    cases = [
        (type("T1", (SpatialInertia,), {"READOUTS": (("E", "energy", "J"),)}),
         r"T1\.READOUTS, row 'E': 'energy' is not a key"),
        (type("T2", (Probes,), {"BARS": (dataclasses.replace(
            bars, series=(dataclasses.replace(bars.series[0], values="nope"),)),)}),
         r"T2\.BARS .*: 'nope' is not a key"),
        (type("T3", (Probes,), {"BARS": (dataclasses.replace(bars, ticks=bars.ticks[:-1]),)}),
         r"T3\.BARS .*values for"),
    ]
    for cls, message in cases:
        with pytest.raises(ValueError, match=message):
            cls()
