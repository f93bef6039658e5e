"""widgets/live.py (live mode's Python side) under CPython: the same numbers and the same pixels.

The browser test (tests/browser/test_live.py) runs it under Pyodide; here, with no browser, the
adapter's path (ipywidgets stand-in, ``Live.create``/``update``/``pixels``: render only, no
PNG) is compared with the experiment driven the JupyterLab way (real ipywidgets, ``set``), in
another process, for every registered experiment and a few settings of every control.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sampling import count, sampled
from widgets import EXPERIMENTS, Choice, Player, Slider
from widgets.live import control_specs

ROOT = Path(__file__).resolve().parents[1]

#: random settings per experiment (each sets every control at once); 1 in make test-fast
SETTINGS = count(3, 1)


from widget_helpers import settings as _settings, shared  # noqa: E402


def settings(cls, seed: int) -> list[dict]:
    return _settings(cls, seed, SETTINGS)


_ADAPTER = r"""
import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
import importlib.util
spec = importlib.util.spec_from_file_location("sb_live", sys.argv[1] + "/widgets/live.py")
m = importlib.util.module_from_spec(spec); sys.modules["sb_live"] = m; spec.loader.exec_module(m)
assert m.install_ipywidgets_stand_in(force=True)
import widgets, ipywidgets
assert getattr(ipywidgets, "sb_stand_in", False)
out = {}
for name, (cases, layouts) in json.loads(sys.argv[2]).items():
    for narrow in layouts:
        info = json.loads(m.LIVE.create(name, narrow))
        rows = []
        for values in cases:
            res = json.loads(m.LIVE.update(info["handle"], json.dumps(values)))
            px = bytes(m.LIVE.pixels(info["handle"]))
            rows.append({"state": res["state"], "readouts": res["readouts"],
                         "pixels": hashlib.sha1(px).hexdigest()})
        m.LIVE.close(info["handle"])
        # created at a setting: the same as created, then set
        started = json.loads(m.LIVE.create(name, narrow, json.dumps(cases[-1])))
        start = json.loads(m.LIVE.state(started["handle"]))
        started["pixels"] = hashlib.sha1(bytes(m.LIVE.pixels(started["handle"]))).hexdigest()
        m.LIVE.close(started["handle"])
        # and on a 2x screen: drawn once, at the setting, at twice the dpi
        twice = json.loads(m.LIVE.create(name, narrow, json.dumps(cases[-1]), 2.0))
        twice["pixels"] = hashlib.sha1(bytes(m.LIVE.pixels(twice["handle"]))).hexdigest()
        m.LIVE.close(twice["handle"])
        out[name + (":narrow" if narrow else "")] = {"info": info, "rows": rows,
                                                     "start": start, "started": started,
                                                     "twice": twice}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def adapter_results(request):
    """The adapter run once, in another process, for the experiments the session's selected
    cases of test_adapter_equals_the_widget need (all of them, unless ``-k`` selects fewer, as
    ``make test-experiment`` does)."""
    wanted: dict[str, list[bool]] = {}
    for item in request.session.items:
        if getattr(item, "originalname", "") == "test_adapter_equals_the_widget":
            params = item.callspec.params
            wanted.setdefault(params["name"], []).append(params["narrow"])
    cases = {name: settings(cls, i) for i, (name, cls) in enumerate(sorted(EXPERIMENTS.items()))
             if name in wanted}
    job = {name: (cases[name], sorted(wanted[name])) for name in cases}
    proc = subprocess.run([sys.executable, "-c", _ADAPTER, str(ROOT), json.dumps(job)],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return cases, json.loads(proc.stdout.strip().splitlines()[-1])


def _close(a, b) -> bool:
    """Equal, floats to rel 1e-9 / abs 1e-8 (E8's finite-difference terms vary at 1e-10 with the
    BLAS threads of the process)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return bool(np.isclose(a, b, rtol=1e-9, atol=1e-8))
    return a == b


def _layouts() -> list:
    """Every experiment in both layouts; in ``make test-fast`` each in one, the experiments
    alternating in their sorted order (the adapter builds each experiment twice per layout)."""
    return [pytest.param(name, narrow, id=f"{name}-{'narrow' if narrow else 'wide'}")
            for i, name in enumerate(sorted(EXPERIMENTS)) for narrow in (False, True)
            if not sampled() or narrow == bool(i % 2)]


@pytest.mark.parametrize("name, narrow", _layouts())
def test_adapter_equals_the_widget(adapter_results, name, narrow):
    """Same state, same readout table, same RGBA pixels as the ipywidgets experiment, in the
    wide and in the narrow (phone) layout (one of the two per experiment in make test-fast,
    :func:`_layouts`); created at a setting, it starts there, drawn as the widget draws it
    when set there (the same pixels, at 1x and at a 2x screen's scale)."""
    cases, results = adapter_results
    cls = EXPERIMENTS[name]
    got = results[name + (":narrow" if narrow else "")]
    assert got["info"]["controls"] == json.loads(json.dumps(control_specs(cls)))
    assert got["info"]["narrow"] is narrow and got["started"]["narrow"] is narrow
    assert _close(got["start"], got["rows"][-1]["state"])
    assert _close({k: got["started"]["values"][k] for k in cases[name][-1]},
                  json.loads(json.dumps(cases[name][-1])))
    w, h = got["info"]["width"], got["info"]["height"]
    exp = shared(name, narrow)
    assert exp.canvas.get_width_height() == (w, h)
    for values, row in zip(cases[name], got["rows"]):
        exp.set(**values)
        assert _close(row["state"], json.loads(json.dumps(exp.state()))), values
        assert row["readouts"] == exp.readout_table(), values
        px = hashlib.sha1(bytes(exp.canvas.buffer_rgba())).hexdigest()
        assert row["pixels"] == px, f"{name} {values}: the adapter's picture differs"
    assert got["started"]["pixels"] == got["rows"][-1]["pixels"], \
        f"{name}: created at a setting, the adapter's picture differs from the one set there"
    twice = cls(narrow=narrow)
    try:
        twice.set(**cases[name][-1])
        twice.set_scale(2.0)
        twice.update(live=False)
        assert got["twice"]["width"] == 2 * w
        assert got["twice"]["pixels"] == hashlib.sha1(bytes(twice.canvas.buffer_rgba())).hexdigest(), \
            f"{name}: created at 2x, the adapter's picture differs from the widget's at 2x"
    finally:
        twice.close()


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_specs(name):
    cls = EXPERIMENTS[name]
    specs = control_specs(cls)
    assert [s["name"] for s in specs] == [c.name for c in cls.CONTROLS]
    for s, c in zip(specs, cls.CONTROLS):
        kind = {Slider: "slider", Choice: "choice", Player: "player"}[type(c)]
        assert s["kind"] == kind
        if kind == "player":
            assert s["target"] in {x.name for x in cls.CONTROLS if isinstance(x, Slider)}


def test_stand_in_is_not_used_when_ipywidgets_exists():
    from widgets.live import install_ipywidgets_stand_in

    assert install_ipywidgets_stand_in() is False


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
def test_live_draws_sharp_frames_for_a_2x_screen(narrow):
    """scale=2 (the page's devicePixelRatio): the same figure at twice the dpi, twice the
    pixels each way, the same numbers; averaged 2x2, its pixels are close to the 1x figure's."""
    from widgets.live import Live

    live = Live()
    one = json.loads(live.create("power_split", narrow, '{"ref_x": 0.3}'))
    two = json.loads(live.create("power_split", narrow, '{"ref_x": 0.3}', 2.0))
    assert (two["width"], two["height"]) == (2 * one["width"], 2 * one["height"])
    assert one["scale"] == 1.0 and two["scale"] == 2.0
    assert _close(json.loads(live.state(one["handle"])), json.loads(live.state(two["handle"])))
    a = np.asarray(live.pixels(one["handle"]), float)[..., :3]
    b = np.asarray(live.pixels(two["handle"]), float)[..., :3]
    assert b.shape[:2] == (2 * a.shape[0], 2 * a.shape[1])
    h, w = a.shape[0] // 4 * 4, a.shape[1] // 4 * 4          # blocks of 4x4 CSS px
    a = a[:h, :w].reshape(h // 4, 4, w // 4, 4, 3).mean(axis=(1, 3))
    b = b[:2 * h, :2 * w].reshape(h // 4, 8, w // 4, 8, 3).mean(axis=(1, 3))
    assert np.mean(np.abs(a - b)) < 6.0     # same layout (text hinting differs a little)
    for bad in (0.5, "abc", "2", True, 10 ** 400, None):   # before: "abc" gave float()'s message
        with pytest.raises(ValueError, match="scale must be a number from 1 to 3"):
            live.create("power_split", narrow, "{}", bad)
    # before: a huge whole number in the JSON raised OverflowError in the slider's check
    with pytest.raises(ValueError, match=r"^omega: expected a number from -3 to 3"):
        live.update(one["handle"], '{"omega": 1' + "0" * 400 + "}")


def test_live_names_a_bad_handle_json_or_setting_before_building():
    """Before: create(values_json="[1]") raised AttributeError after the experiment was built
    and registered; scale="abc" gave float()'s own message; update(99, "{}") and state(5) raised
    KeyError; narrow="no" was taken as True."""
    from widgets.live import Live

    live = Live()
    for kwargs, message in (({"values_json": "[1]"}, r"^values_json: expected a JSON object"),
                            ({"values_json": "{not json"}, r"^values_json: expected a JSON object"),
                            ({"values_json": '{"omega": 99}'}, r"^omega: expected a number from -3 to 3"),
                            ({"values_json": '{"banana": 1}'}, r"has no control 'banana'"),
                            ({"scale": "abc"}, r"scale must be a number from 1 to 3"),
                            ({"narrow": "no"}, r"^narrow: expected True or False")):
        with pytest.raises(ValueError, match=message):
            live.create("power_split", **kwargs)
    for bad in ([], None, 3):                  # before: a list raised "unhashable type"
        with pytest.raises(ValueError, match=r"^sb_live: (name: expected|no experiment)"):
            live.create(bad)
    assert live._experiments == {} and live._next == 0         # nothing built, nothing registered
    for call in (lambda: live.update(99, "{}"), lambda: live.state(5), lambda: live.values(5),
                 lambda: live.pixels(5), lambda: live.update([], "{}")):
        with pytest.raises(ValueError, match=r"^handle: expected one of the open experiments' handles \[\]"):
            call()
    h = json.loads(live.create("power_split", values_json='{"omega": -1.0}'))["handle"]
    assert json.loads(live.values(h))["omega"] == -1.0
    for bad in ("[1]", "null", "3"):
        with pytest.raises(ValueError, match=r"^values_json: expected a JSON object"):
            live.update(h, bad)
    live.close(h)
    with pytest.raises(ValueError, match=rf"^handle: expected one of the open experiments' handles \[\], got {h}"):
        live.state(h)
