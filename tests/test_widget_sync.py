"""What the kernel sends the browser when Python moves a control (issue 19).

After Run All in JupyterLab the slider and the kernel disagreed with the last ``set`` of the
code: the slider view answers a kernel value by moving its noUiSlider handle, whose ``update``
event (fired for programmatic moves too) sends the handle's value back when it differs by a
rounding from the model's (-0.06 on the step grid is -0.060000000000000005); ipywidgets 8 then
drops the kernel's next value for that slider until the echo returns, and the stale value wins.
A jslink between a Play and its slider answered every kernel value the same way.  The fix
(``widgets.controls.assign``) sends a value with ``continuous_update`` off in the same message,
links Play and slider in Python, and holds a sweep's values back (the browser sees only the
restored ones).  These tests record the kernel's comm messages; the browser side is
tests/browser/test_jupyterlab_authoring.py.
"""

from __future__ import annotations

import pytest

from widgets import EXPERIMENTS


def _record(widget, log: list) -> None:
    """Record every state update the widget sends (instead of sending it)."""
    def send(msg, buffers=None):
        if msg.get("method") == "update":
            log.append(dict(msg["state"]))
    widget._send = send


@pytest.fixture()
def screw():
    exp = EXPERIMENTS["screw_axis"]()
    yield exp
    exp.close()


@pytest.fixture()
def door():
    exp = EXPERIMENTS["velocity_field"]()
    yield exp
    exp.close()


def test_a_set_value_travels_with_continuous_update_off(screw):
    slider, log = screw.controls["pitch"], []
    _record(slider, log)
    screw.set(pitch=-0.06)
    screw.set(pitch=0.0)
    values = [m for m in log if "value" in m]
    assert [m["value"] for m in values] == [-0.06, 0.0]
    # the view reads the flag while it moves the handle: both in ONE message, flag off
    assert all(m["continuous_update"] is False for m in values), log
    assert log[-1] == {"continuous_update": True}            # and on again afterwards
    assert slider.continuous_update is True and screw.values()["pitch"] == 0.0


def test_an_unchanged_value_sends_nothing(screw):
    log = []
    _record(screw.controls["pitch"], log)
    screw.set(pitch=screw.values()["pitch"])
    assert log == []


def test_a_sweep_sends_only_the_restored_values(screw):
    log = []
    for c in screw.controls.values():
        _record(c, log)
    screw.set(pitch=0.05)
    log.clear()
    screw.static_player()
    sent = [m["value"] for m in log if "value" in m]
    assert set(sent) <= {0.05}, sent                           # no swept value reaches the browser
    assert screw.values()["pitch"] == 0.05


def test_play_and_slider_linked_in_python(door):
    """No jslink (it answered the kernel's slider values with Play values of its own): the Play
    moves the slider in Python, a moved slider moves the Play (it resumes from there)."""
    from ipywidgets import widgets as ipw

    door_models = {c.model_id for c in door.controls.values()}
    links = [w for w in ipw.widget._instances.values()
             if isinstance(w, ipw.widget_link.Link)
             and {w.source[0].model_id, w.target[0].model_id} & door_models]
    assert links == []
    door.controls["play"].value = 45
    assert door.values()["angle"] == 45.0 and door.state()["angle"] == 45.0
    door.set(angle=90.0)
    assert door.controls["play"].value == 90 and door.values()["angle"] == 90.0
    door.set(angle=0.0)
    assert door.controls["play"].value == 0
