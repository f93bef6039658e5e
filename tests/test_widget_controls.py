"""Shared guards of every registered experiment's controls and physics (issues 19 and 20).

- **Every control fast**: each declared bar panel is fitted over every control (its span), so no
  control refits the axis; the bars at random settings stay inside the fitted axis; a
  single-step change of any control from a random state only blits (no background redraw,
  counted by ``Experiment.redraws``).  Speed itself is measured by ``benchmarks/bench_controls.py``
  (not here: no timed tests).
- **Controls that do nothing are disabled**: at random states, a control changes the scene
  exactly when the experiment does not list it in ``inactive(values)``; a listed one is shown
  disabled, its reason as tooltip and under the readouts (live mode gets the reasons too).
- **The physics is guarded by each oracle**: for every experiment, at its defaults and at a
  random setting, each number of the scene in turn is corrupted (sign flipped, scaled by 1.01);
  whenever the corruption reaches what the reader sees (the state or the pixels), the
  experiment's own ``check`` (tests/test_widget_<module>.py) must fail.  An emptied ``check``
  fails this guard.

Each guard is a function returning what it found, so the tests can also show that it flags a
broken experiment (a control outside the span, a redraw on every change, a ``check`` that
checks nothing).
"""

from __future__ import annotations

import copy
import importlib
import json

import numpy as np
import pytest

from sampling import count, sampled, subset
from widgets import EXPERIMENTS, PowerSplit
from widgets.controls import Choice, Player, Slider
from widgets.parts import Bars, Curve
from widgets.limits import fit_limit
from matplotlib.figure import Figure
from widgets.readouts import plain
from widget_helpers import shared

NAMES = list(EXPERIMENTS)


def physics(name: str):
    return importlib.import_module("test_widget_" + EXPERIMENTS[name].__module__.rpartition(".")[2])


def _specs(cls) -> dict:
    return {c.name: c for c in cls.CONTROLS if not isinstance(c, Player)}


def _grid(spec) -> list:
    """Every value a reader can set: the slider's step grid, or a choice's options."""
    if isinstance(spec, Slider):
        return spec.sweep(int(round((spec.max - spec.min) / spec.step)) + 1)
    return spec.sweep()


def _random_state(cls, rng) -> dict:
    return {k: (g := _grid(s))[rng.integers(len(g))] for k, s in _specs(cls).items()}


def _draw(exp, **values) -> None:
    """``exp.set(**values)`` without the widget's PNG and readout HTML (``update(live=False)``):
    the same scene, blit, redraw count and disabled controls; these guards read the canvas's
    pixels, the readout table and the counts, so the encoding was wasted work."""
    exp._set(values, live=False)


def _neighbour(spec, value, rng):
    """One step of the control from ``value`` (a slider's step, the next or previous option)."""
    g = _grid(spec)
    i = int(np.argmin([abs(x - value) for x in g])) if isinstance(spec, Slider) else g.index(value)
    j = i + (1 if i == 0 else -1 if i == len(g) - 1 else int(rng.choice([-1, 1])))
    return g[j]


# ------------------------------------------------------------------ every control in the span


def controls_outside_span(cls) -> list[str]:
    """Controls a fitted bar panel or curve of ``cls`` is not fitted over (they would refit
    the axis)."""
    probe = cls.__new__(cls)
    out = []
    for p in (*cls.BARS, *cls.CURVES):
        if p.lim is None:
            out += [k for k in _specs(cls) if k not in probe.fit_span(p) and k not in out]
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_control_is_in_the_fitted_span(name):
    assert controls_outside_span(EXPERIMENTS[name]) == []


def test_the_span_guard_flags_a_control_outside():
    p = PowerSplit.BARS[0]
    narrow_span = type("NarrowSpan", (PowerSplit,), {"BARS": (Bars(**{**p.__dict__, "span": ("ref_x",)}),)})
    assert controls_outside_span(narrow_span) == ["push_angle", "omega"]


def test_the_span_guard_flags_a_curve_with_a_control_outside():
    from widgets import LeastTorque
    c = LeastTorque.CURVES[0]
    narrow_span = type("NarrowSpan", (LeastTorque,), {"CURVES": (Curve(**{**c.__dict__, "span": ("ref_x",)}),)})
    assert controls_outside_span(narrow_span) == ["push_angle", "couple", "twist"]


@pytest.mark.parametrize("name", [n for n in NAMES if EXPERIMENTS[n].CURVES])
def test_curves_stay_inside_the_fitted_axis(name):
    """At defaults and 60 random settings (15 in make test-fast) no point of a declared curve (or reference line on y)
    is beyond the axis the fit chose."""
    cls = EXPERIMENTS[name]
    e = shared(name)
    rng = np.random.default_rng(11)
    for i, c in enumerate(cls.CURVES):
        lo, lim = e.curves[i].axes.get_ylim()
        assert lo == (0.0 if c.positive else -lim)
        for values in [e.values()] + [_random_state(cls, rng) for _ in range(count(60, 15))]:
            assert c.largest(cls.scene(**values)) <= lim, (name, values, lim)
        if c.lim is None:
            assert lim == fit_limit(cls.scene, c, _specs(cls), {})


@pytest.mark.parametrize("name", [n for n in NAMES if EXPERIMENTS[n].BARS])
def test_bars_stay_inside_the_fitted_axis(name):
    """At defaults and 60 random settings (15 in make test-fast) no bar (or total) is beyond the axis the fit chose,
    and the largest bar of the fit fills more than half of it."""
    cls = EXPERIMENTS[name]
    e = shared(name)
    rng = np.random.default_rng(11)
    for i, p in enumerate(cls.BARS):
        lim = e.bar_axes(i).get_ylim()[1]
        assert e.bar_axes(i).get_ylim()[0] == -lim
        for values in [e.values()] + [_random_state(cls, rng) for _ in range(count(60, 15))]:
            n = cls.scene(**values)["numbers"]
            bars = np.r_[p.values(n).ravel(), np.asarray(n[p.total], float).ravel() if p.total else []]
            assert np.max(np.abs(bars)) <= lim, (name, values, lim)
        if p.lim is None:
            assert lim == fit_limit(cls.scene, p, _specs(cls), {})


# ------------------------------------------------------------------ an ordinary change blits


def redrawing_steps(exp, rng, states: int = 3) -> list[tuple]:
    """(control, from, to) of single-step changes, from random states, that redrew the
    background instead of only blitting."""
    out = []
    specs = _specs(type(exp))
    for _ in range(states):
        for name, spec in specs.items():
            _draw(exp, **_random_state(type(exp), rng))
            old = exp.values()[name]
            new = _neighbour(spec, old, rng)
            before = exp.redraws
            _draw(exp, **{name: new})
            if exp.redraws != before:
                out.append((name, old, new))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_a_single_step_of_any_control_only_blits(name):
    assert redrawing_steps(shared(name), np.random.default_rng(3)) == []


def test_the_blit_guard_flags_a_redraw():
    always = type("AlwaysRedraws", (PowerSplit,), {"_draw": lambda self, s: True})
    e = always()
    try:
        assert len(redrawing_steps(e, np.random.default_rng(3), states=1)) == len(_specs(always))
    finally:
        e.close()


# --------------------------------------------------------------- inactive controls, disabled


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return np.array_equal(np.asarray(a, float), np.asarray(b, float))


def _seen(exp):
    """What the reader sees: the readout table and the figure's pixels."""
    return exp.readout_table(), np.asarray(exp.canvas.buffer_rgba()).tobytes()


@pytest.mark.parametrize("name", NAMES)
def test_a_control_changes_what_is_seen_exactly_when_active(name):
    """At random states (6; 2 in make test-fast), moving a control changes the readouts or
    the figure unless the experiment lists it in ``inactive``; a listed one changes neither and
    is disabled."""
    cls = EXPERIMENTS[name]
    e = shared(name)
    rng = np.random.default_rng(5)
    for _ in range(count(6, 2)):
        values = _random_state(cls, rng)
        _draw(e, **values)
        base = _seen(e)
        off = e.inactive(e.values())
        assert set(off) <= set(_specs(cls)) and all(isinstance(r, str) and r and "\n" not in r
                                                   for r in off.values()), off
        for k, spec in _specs(cls).items():
            assert e.controls[k].disabled == (k in off), (name, k)
            others = [v for v in _grid(spec) if v != values[k]]
            changed = []
            for j in rng.choice(len(others), min(4, len(others)), replace=False):
                _draw(e, **{k: others[j]})
                changed.append(_seen(e) != base)
                _draw(e, **{k: values[k]})
            if k in off:
                assert not any(changed), (name, k, values, "listed inactive but changes what is seen")
            else:
                assert any(changed), (name, k, values, "changes nothing seen: list it in inactive()")


def test_probe_speed_is_disabled_with_its_reason_unless_the_path_is_a_line():
    from widgets.live import Live
    e = EXPERIMENTS["probes"](path="material")
    try:
        u = e.controls["u"]
        assert u.disabled and "path = line" in u.tooltip
        assert "path = line" in e.readout.value
        assert not any(c.disabled for k, c in e.controls.items() if k != "u")
        e.set(path="line")
        assert not u.disabled and not u.tooltip and "path = line" not in e.readout.value
        e.set(path="fixed")
        assert u.disabled
    finally:
        e.close()
    live = Live()
    h = json.loads(live.create("probes"))["handle"]
    assert "u" in json.loads(live.update(h, json.dumps({"path": "fixed"})))["inactive"]
    assert json.loads(live.update(h, json.dumps({"path": "line"})))["inactive"] == {}
    live.close(h)


# ---------------------------------------------------------- a corrupted scene fails the oracle


def _leaves(tree, path=()):
    """(path, array) of every float leaf of a scene (dicts walked; strings and integer
    leaves, which index or count, skipped)."""
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from _leaves(v, path + (k,))
    elif not isinstance(tree, (str, bool)) and tree is not None:
        a = np.asarray(tree)
        if a.dtype.kind == "f":
            yield path, a.astype(float)


def _replaced(tree, path, value):
    out = copy.copy(tree)
    if len(path) == 1:
        out[path[0]] = value
    else:
        out[path[0]] = _replaced(tree[path[0]], path[1:], value)
    return out


def corruptions_missed(exp, check, values: dict) -> tuple[list[str], int]:
    """Corrupt each nonzero number of the scene at ``values`` in turn (sign flipped, then
    scaled by 1.01; 12 numbers of a long array, 3 in make test-fast) and draw it; return the corruptions the reader would see (state or pixels
    changed) that ``check`` let through, and how many were seen."""
    exp.set(**values)
    cls = type(exp)
    clean = cls.scene(**exp.values())
    state = exp.state()
    pixels = np.asarray(exp.canvas.buffer_rgba()).copy()
    missed, seen = [], 0
    rng = np.random.default_rng(23)
    try:
        for path, a in _leaves(clean):
            # round-off zeros (|x| < 1e-9) stay round-off zeros when corrupted: skipped
            indices = list(zip(*np.nonzero(np.abs(a) >= 1e-9))) if a.ndim else [()] if abs(a) >= 1e-9 else []
            most = count(12, 3)                        # a long polyline: 12 of its numbers
            if len(indices) > most:
                indices = [indices[i] for i in rng.choice(len(indices), most, replace=False)]
            for index in indices:
                for factor in (-1.0, 1.01):
                    bad = a.copy()
                    bad[index] *= factor
                    corrupted = _replaced(clean, path, bad if a.ndim else float(bad))
                    exp._scene_of = lambda **v: corrupted    # the per-change path's scene
                    exp.update(live=False)
                    st = exp.state()
                    if _same(st, state) and np.array_equal(np.asarray(exp.canvas.buffer_rgba()), pixels):
                        continue                       # nothing the reader sees changed
                    seen += 1
                    try:
                        check(exp, st)
                    except AssertionError:
                        continue
                    missed.append(f"{'/'.join(map(str, path))}{list(index)} x {factor}")
    finally:
        del exp._scene_of
        exp.update(live=False)
    return missed, seen


@pytest.mark.parametrize("name", NAMES)
def test_a_corrupted_scene_fails_the_oracle(name):
    cls = EXPERIMENTS[name]
    e = shared(name)
    check = physics(name).check
    # at the defaults and a random state; make test-fast: the random state only, where every
    # number of the scene is still corrupted in turn
    random = _random_state(cls, np.random.default_rng(19))
    for values in ([random] if sampled() else [e.values(), random]):
        missed, seen = corruptions_missed(e, check, values)
        assert seen > 0 and missed == [], (name, values, missed)


@pytest.mark.parametrize("name", NAMES)
def test_the_corruption_guard_flags_an_emptied_check(name):
    e = shared(name)
    missed, seen = corruptions_missed(e, lambda exp, st: None, e.values())
    assert seen > 0 and len(missed) == seen


# --- bad input: ValueError naming the control, and nothing moves ----------------------------------

def _built(name: str):
    """The process's shared instance (a refused value changes nothing)."""
    return shared(name)


def _bad_control_values(spec) -> dict:
    """Values the control ``spec`` cannot take, by kind."""
    bad = {"None": None, "string": "abc", "dict": {"a": 1}, "list": [1.0], "complex": 1 + 1j,
           "array": np.array([0.1, 0.2]), "object": object()}
    if isinstance(spec, Slider):
        span = spec.max - spec.min
        bad.update({"above_max": spec.max + 0.5 * span, "below_min": spec.min - 0.5 * span, "nan": float("nan"),
                    "inf": float("inf"), "huge": 1e308, "bool": True, "numbers_as_text": str(spec.value),
                    "huge_int": 10 ** 400})             # float() of it: OverflowError
    elif isinstance(spec, Player):
        bad.update({"above_max": spec.max + spec.step, "below_min": spec.min - spec.step, "float": 0.5, "bool": True})
    else:                                            # a Choice
        bad.update({"not_an_option": "not-an-option", "number": 12345, "bool": True})
    return bad


def _bad_control_cases():
    """Every experiment, control and bad kind; in make test-fast every experiment and control
    with a seeded 3 of its bad kinds (tests/sampling.py)."""
    return [pytest.param(name, spec.name, kind, id=f"{name}-{spec.name}-{kind}")
            for name in NAMES for spec in EXPERIMENTS[name].CONTROLS
            for kind in subset(list(_bad_control_values(spec)), 3, f"{name}-{spec.name}")]


@pytest.mark.parametrize("name, control, kind", _bad_control_cases())
def test_set_refuses_a_bad_value_naming_the_control(name, control, kind):
    """Before: out-of-range and bool values were clipped or taken silently by ipywidgets, text
    like "0.5" was read as a number, anything else raised traitlets' TraitError."""
    exp = _built(name)
    spec = {c.name: c for c in EXPERIMENTS[name].CONTROLS}[control]
    bad = _bad_control_values(spec)[kind]
    before = exp.values()
    others = {k: v for k, v in before.items() if k != control}
    with pytest.raises(ValueError, match=rf"^{control}: expected "):
        exp.set(**others, **{control: bad})          # the good values with it do not move either
    assert exp.values() == before
    with pytest.raises(ValueError, match=rf"^{control}: expected "):
        EXPERIMENTS[name](**{control: bad})          # the constructor's keyword values too
    if not isinstance(spec, Player):                 # the public scene and draw_on: the same checks
        with pytest.raises(ValueError, match=rf"^{control}: expected "):
            EXPERIMENTS[name].scene(**others, **{control: bad})
        with pytest.raises(ValueError, match=rf"^{control}: expected "):
            EXPERIMENTS[name].draw_on(Figure(), **{control: bad})


def test_scene_and_draw_on_check_their_values_as_set_does():
    """Before: scene and draw_on took anything: the biped at t_ms=-10 read out t = -0.01 s and
    showed the pose of t = 1 s (a negative index wraps round), draw_on(omega=1e9) drew far
    outside the slider's range, and a misspelt name, a text or a missing figure gave Python's
    TypeError, numpy's ufunc error, a KeyError or an AttributeError from inside."""
    from widgets import FloatingBiped
    for call, message in (
            (lambda: FloatingBiped.scene(t_ms=-10), r"^t_ms: expected a number from 0 to 1000"),
            (lambda: FloatingBiped.draw_on(Figure(), t_ms=-10), r"^t_ms: expected a number"),
            (lambda: PowerSplit.draw_on(Figure(), omega=1e9), r"^omega: expected a number from -3 to 3"),
            (lambda: PowerSplit.scene(push_angle="x"), r"^push_angle: expected a number"),
            (lambda: FloatingBiped.scene(pattern="zzz"), r"^pattern: expected one of \["),
            (lambda: PowerSplit.draw_on(Figure(), banana=1), r"has no control 'banana': expected one of \["),
            (lambda: PowerSplit.scene(banana=1), r"has no control 'banana': expected one of \["),
            (lambda: FloatingBiped.scene(play=3), r"^play: expected a value of t_ms instead"),
            (lambda: PowerSplit.draw_on(None), r"^fig: expected a matplotlib Figure"),
            (lambda: PowerSplit.scene(0.1, 20.0, 1.0, 2.0), r"expected at most 3 values by position"),
            (lambda: PowerSplit.scene(0.1, ref_x=0.2), r"^ref_x: expected one value")):
        with pytest.raises(ValueError, match=message):
            call()
    # between the steps is fine (fits and curves sample there), and by position as by name
    off_grid = plain(PowerSplit.scene(ref_x=0.1234, omega=-2.777)["numbers"])
    assert off_grid == plain(PowerSplit.scene(0.1234, omega=-2.777)["numbers"])
    assert off_grid == plain(PowerSplit._scene_of(ref_x=0.1234, omega=-2.777)["numbers"])


def test_a_huge_whole_number_is_refused_by_every_slider_and_by_set_scale():
    """Before: Slider.check took float(value), so 10**400 raised OverflowError from every
    slider of every experiment (set, the constructor, live mode's JSON); set_scale did too, and
    took the text "2" and True (which the controls refuse) as numbers."""
    for cls in EXPERIMENTS.values():
        for spec in cls.CONTROLS:
            if isinstance(spec, Slider):
                with pytest.raises(ValueError, match=rf"^{spec.name}: expected a number from"):
                    spec.check(10 ** 400)
                with pytest.raises(ValueError, match=rf"^{spec.name}: expected a number from"):
                    spec.check(-10 ** 400)
    exp = _built("power_split")
    before = exp.figure.dpi
    for bad in (10 ** 400, "2", True, np.bool_(True), None, float("nan")):
        with pytest.raises(ValueError, match=r"set_scale: scale must be a number from 1 to 4"):
            exp.set_scale(bad)
    assert exp.figure.dpi == before
    with pytest.raises(ValueError, match=r"^omega: expected a number from -3 to 3"):
        exp.set(omega=10 ** 400)


def test_a_control_spec_refuses_its_own_bad_fields():
    """Before: a spec was never checked: a step of 0 gave ZeroDivisionError at the first sweep,
    min above max and sweep(-3) numpy's "Number of samples, -9, must be non-negative",
    sweep(2.5) a TypeError, a Choice's default outside its options traitlets' TraitError at
    make(), and a step that does not divide the range a sweep that never reached max (0 to 1
    by 0.3: [0, 0.3, 0.6, 0.9]) although its docstring says the ends are included."""
    for make, field in (
            (lambda: Slider("a", "a", 0.0, 1.0, 0.0, 0.5), "step"),
            (lambda: Slider("a", "a", 0.0, 1.0, -0.1, 0.5), "step"),
            (lambda: Slider("a", "a", 0.0, 1.0, 0.3, 0.5), "step"),
            (lambda: Slider("a", "a", 1.0, 0.0, 0.1, 0.5), "max"),
            (lambda: Slider("a", "a", 0.0, 0.0, 0.1, 0.0), "max"),
            (lambda: Slider("a", "a", 0.0, float("nan"), 0.1, 0.5), "max"),
            (lambda: Slider("a", "a", 0.0, 10 ** 400, 0.1, 0.5), "max"),
            (lambda: Slider("a", "a", "0", 1.0, 0.1, 0.5), "min"),
            (lambda: Slider("a", "a", 0.0, 1.0, 0.1, 2.0), "value"),
            (lambda: Slider("a", "a", 0.0, 1.0, 0.1, True), "value"),
            (lambda: Slider("a", "a", 0.0, 1.0, 0.1, 0.5, fmt="zz"), "fmt"),
            (lambda: Slider("a b", "a", 0.0, 1.0, 0.1, 0.5), "name"),
            (lambda: Slider("a", None, 0.0, 1.0, 0.1, 0.5), "label"),
            (lambda: Player("p", "a", 0, 10, 0), "step"),
            (lambda: Player("p", "a", 0, 10, 3), "step"),
            (lambda: Player("p", "a", 0.0, 10, 1), "min"),
            (lambda: Player("p", "a", 10, 0, 1), "max"),
            (lambda: Player("p", "a", 0, 10, 1, interval=0), "interval"),
            (lambda: Choice("c", "c", ("x", "y"), "z"), "value"),
            (lambda: Choice("c", "c", (), None), "options"),
            (lambda: Choice("c", "c", ["x", "y"], "x"), "options")):
        with pytest.raises(ValueError, match=rf" '?[a-z ]*'?: {field}: expected "):
            make()
    for spec in (Slider("a", "a", 0.0, 1.0, 0.1, 0.5), Player("p", "a", 0, 10, 1)):
        for n in (0, -3, 2.5, True, None, "5"):
            with pytest.raises(ValueError, match=r"^n: expected a whole number of values, at least 1"):
                spec.sweep(n)
        assert spec.sweep(1) == [spec.min] and spec.sweep(3)[-1] == spec.max


def test_the_helpers_name_a_bad_panel_scene_or_values():
    """Before: bar_heights(5) raised IndexError, bar_heights("a") TypeError and bar_total(-1)
    read the last panel; readout_table({}) showed the current scene's readouts and
    readout_table({"x": 1}) raised KeyError 'numbers'; fit_span(None) an AttributeError;
    Probes.inactive({"path": 3}) answered for a path no reader can choose; dense_frames took
    narrow="no" as True."""
    from widgets import PrincipalAxes, Probes, players
    exp = _built("power_split")
    for call in (exp.bar_heights, exp.bar_total, exp.bar_axes):
        for bad in (5, 1, -1, "a", True, None, 0.0):
            with pytest.raises(ValueError, match=r"^panel: expected the index of one of PowerSplit's 1 bar panels"):
                call(bad)
    assert exp.bar_heights(0).shape == (1, 3) and exp.bar_axes(0) is exp.bar_axes()
    for call in (exp.readout_table, exp.readout_text, exp.readout_html):
        for bad in ({}, {"x": 1}, {"numbers": 3}, [], "scene"):
            with pytest.raises(ValueError, match=r"^scene: expected a scene of PowerSplit \(a dict with 'numbers'\)"):
                call(bad)
        with pytest.raises(ValueError, match=r"^scene: expected a scene of PowerSplit, it lacks \['rotational_power'"):
            call({"numbers": {}})
        assert call(PowerSplit.scene(omega=-1.0)) != call() == call(None) == call(exp._scene)
    axes = _built("principal_axes")              # its own table reads I_c beside the numbers
    with pytest.raises(ValueError, match=r"it lacks \['I_c'\]"):
        axes.readout_table({"numbers": axes._scene["numbers"]})
    probes = _built("probes")
    with pytest.raises(ValueError, match=r"^scene: expected a scene of Probes"):
        probes.readout_text({})
    for bad in (None, 3, "line", Bars):
        with pytest.raises(ValueError, match=r"^p: expected a Bars or Curve panel"):
            exp.fit_span(bad)
    everything = {**probes.values(), "path": "line"}
    for bad, message in (({**everything, "path": 3}, r"^path: expected one of \["),
                         ({**everything, "nu": 1e9}, r"^nu: expected a number"),
                         ({"path": "line"}, r"^values: expected a value of every control, missing \['nu'"),
                         ({**everything, "banana": 1}, r"has no control 'banana'"),
                         ([1], r"^values: expected a dict")):
        with pytest.raises(ValueError, match=message):
            probes.inactive(bad)                   # an experiment's own inactive
    for bad, message in (({**exp.values(), "omega": 1e9}, r"^omega: expected a number"),
                         ({**exp.values(), "banana": 1}, r"has no control 'banana'")):
        with pytest.raises(ValueError, match=message):
            exp.inactive(bad)                      # the base's (nothing inactive)
    assert probes.inactive(everything) == {} and "u" in probes.inactive({**everything, "path": "fixed"})
    with pytest.raises(ValueError, match=r"^narrow: expected True or False, got 'no'"):
        players.dense_frames(PowerSplit, {}, "omega", [1.0], narrow="no")
    with pytest.raises(ValueError, match=r"^values: expected a sequence of values of 'omega'"):
        players.dense_frames(PowerSplit, {}, "omega", 5)        # before: TypeError, not iterable
    with pytest.raises(ValueError, match=r"^dense_frames: control must be one of PowerSplit's"):
        players.dense_frames(PowerSplit, {}, ["omega"], [1.0])  # before: unhashable type


@pytest.mark.parametrize("name", NAMES)
def test_unknown_control_names_raise_value_error(name):
    exp = _built(name)
    for call in (lambda: exp.set(not_a_control=1.0), lambda: EXPERIMENTS[name](not_a_control=1.0),
                 lambda: exp.frames("not_a_control"), lambda: exp.static_player("not_a_control")):
        with pytest.raises(ValueError, match=r"has no control 'not_a_control': expected one of \["):
            call()


def test_a_sweep_names_a_bad_count_or_bad_values():
    """Before: n=0 gave [] and n=-1 numpy's message; control "" swept the main control; values
    [] gave the frame player's own message and values 5 Python's TypeError."""
    exp = _built("power_split")
    for n in (0, -1, 1.5, True, None):
        with pytest.raises(ValueError, match=r"^n: expected a whole number"):
            exp.sweep_values("omega", n)
    for control in ("", []):
        with pytest.raises(ValueError, match=r"has no control"):
            exp.sweep_values(control)
    for values, what in (([], "at least one value"), (5, "a sequence of values"), ("0.5", "a sequence of values")):
        for call in (exp.static_player, exp.frames):
            with pytest.raises(ValueError, match=rf"^values: expected {what} of 'omega'"):
                call("omega", values)
    assert exp.sweep_values("omega", 3) == [-3.0, 0.0, 3.0]


@pytest.mark.parametrize("name", [n for n in NAMES if any(isinstance(c, Player) for c in EXPERIMENTS[n].CONTROLS)])
def test_a_play_and_its_slider_are_not_set_together(name):
    """A Play drives its slider: given both, the one set last used to win, so that
    set(angle=7, play=200) left angle 200 and set(play=300, angle=7) left 7."""
    player = next(c for c in EXPERIMENTS[name].CONTROLS if isinstance(c, Player))
    exp = _built(name)
    before = exp.values()
    with pytest.raises(ValueError, match=rf"^{player.name}, {player.target}: expected at most one"):
        exp.set(**{player.target: before[player.target], player.name: player.min})
    with pytest.raises(ValueError, match=rf"^{player.name}, {player.target}: expected at most one"):
        EXPERIMENTS[name](**{player.name: player.min, player.target: before[player.target]})
    assert exp.values() == before


@pytest.mark.parametrize("name", NAMES)
def test_every_sweep_value_passes_the_check(name):
    """The checks refuse nothing the book itself sets: each control's sweep, ends included."""
    for spec in EXPERIMENTS[name].CONTROLS:
        for v in spec.sweep(21):
            assert spec.check(v) == v
