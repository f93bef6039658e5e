"""Layouts on tape (``widgets/_narrow.py``: ``recording_layouts``, ``export_layouts``,
``load_layouts``, ``layout_tape``; live mode's ``install_layouts``).

The book's build records every measurement an experiment's layout takes at its defaults, and
live mode replays them instead of measuring text (70-490 ms of each first picture in Pyodide).
A replayed layout must be the measured one: the same pixels, for every experiment, wide and
narrow, English and Chinese, and it must really measure nothing.  A tape must never be used
for a figure other than the one recorded (another language, another experiment's figure, a
changed text), and a tape whose measurements do not match what the code asks for falls back
to measuring.  In ``make test-fast`` (tests/sampling.py) the Chinese cases take one layout
per experiment (``chinese_cases``).
"""

from __future__ import annotations

import hashlib
import json

import pytest
from matplotlib.text import Text

from widget_helpers import chinese_cases, chinese_table
from widgets import EXPERIMENTS, _narrow
from widgets.figure_text import language
from widgets.live import LIVE, install_layouts


@pytest.fixture
def no_layouts(monkeypatch):
    """An empty registry of layouts for the test (and none left behind)."""
    monkeypatch.setattr(_narrow, "_LAYOUTS", {})
    return _narrow._LAYOUTS


def _pixels(exp) -> str:
    return hashlib.sha1(bytes(exp.canvas.buffer_rgba())).hexdigest()


def _built(name: str, narrow: bool, table: dict | None = None):
    """(layout, pixels, size) of experiment ``name`` built at its defaults, then closed."""
    with language(table):
        exp = EXPERIMENTS[name](narrow=narrow)
        try:
            return exp.layout, _pixels(exp), exp.canvas.get_width_height()
        finally:
            exp.close()


@pytest.fixture
def measuring_forbidden(monkeypatch):
    """While on, any text or axes measurement raises: a replay must measure nothing."""
    state = {"on": False}

    def guard(original):
        def measure(*a, **k):
            if state["on"] and _narrow._TAPE["mode"] == "replay":
                raise AssertionError("a replayed layout measured text")
            return original(*a, **k)
        return measure

    monkeypatch.setattr(_narrow, "_tight_box", guard(_narrow._tight_box))
    monkeypatch.setattr(Text, "get_window_extent", guard(Text.get_window_extent))
    return state


def _round_trip(name, narrow, table, no_layouts, measuring_forbidden):
    with _narrow.recording_layouts():          # recording measures as usual
        measured = _built(name, narrow, table)
    assert measured[0] == "recorded"
    rows = json.loads(json.dumps(_narrow.export_layouts()))   # as shipped: plain JSON
    assert len(rows) == 1 and rows[0][:2] == [f"{EXPERIMENTS[name].__module__}:"
                                              f"{EXPERIMENTS[name].__qualname__}", narrow]
    assert len(rows[0][3]) >= 2            # the layout did measure: axes and texts
    no_layouts.clear()
    assert _narrow.load_layouts(rows) == 1
    measuring_forbidden["on"] = True
    replayed = _built(name, narrow, table)
    measuring_forbidden["on"] = False
    assert replayed[0] == "replayed"
    assert replayed[1:] == measured[1:], f"{name}: the replayed layout draws other pixels"


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_a_replayed_layout_is_the_measured_one_and_measures_nothing(name, narrow, no_layouts,
                                                                    measuring_forbidden):
    _round_trip(name, narrow, None, no_layouts, measuring_forbidden)


@pytest.mark.parametrize("name, narrow", chinese_cases())
def test_a_replayed_chinese_layout_is_the_measured_one(name, narrow, no_layouts,
                                                       measuring_forbidden):
    _round_trip(name, narrow, chinese_table(), no_layouts, measuring_forbidden)


def test_a_tape_is_used_only_for_the_figure_it_was_recorded_for(no_layouts):
    """English and Chinese differ in their texts, so each needs its own tape; a changed title
    (the experiment's code changed since the build) is not the recorded figure either."""
    name = "velocity_field"
    with _narrow.recording_layouts():
        _built(name, False)
    assert _built(name, False)[0] == "replayed"
    assert _built(name, False, chinese_table())[0] == "measured"
    assert _built(name, True)[0] == "measured"                 # the other layout
    cls = EXPERIMENTS[name]
    original = cls._setup

    def retitled(self, fig):
        original(self, fig)
        fig.axes[0].set_title("another title")

    try:
        cls._setup = retitled
        assert _built(name, False)[0] == "measured"
    finally:
        cls._setup = original


def test_a_tape_that_differs_from_the_code_falls_back_to_measuring(no_layouts):
    """A tape whose measurements are not the ones the code asks for (another axes, fewer or
    more of them) is abandoned and the layout measured: the same pixels as measuring."""
    name = "power_split"
    measured = _built(name, False)
    with _narrow.recording_layouts():
        _built(name, False)
    (key, rows), = no_layouts.items()
    for broken in (rows[:-1], rows + [rows[-1]],
                   [[["axes", 99], rows[0][1]]] + rows[1:]):
        no_layouts[key] = broken
        assert _built(name, False) == measured


def test_load_layouts_says_what_a_bad_row_is(no_layouts):
    for bad in ({"a": 1}, [["widgets.x:X", "no", "sig", []]], [["widgets.x:X", False, "sig"]],
                [[1, False, "sig", []]], ["text"]):
        with pytest.raises(ValueError, match="rows: expected"):
            _narrow.load_layouts(bad)
    assert no_layouts == {}


def test_live_mode_reads_each_module_s_layouts_when_it_first_builds_one(tmp_path, no_layouts,
                                                                        monkeypatch):
    """``install_layouts``: one file per module; eager without the lazy registry, else read
    when the module's first experiment is built (``Live.create`` says "replayed")."""
    import widgets.live as live

    name = "screw_axis"
    cls = EXPERIMENTS[name]
    with _narrow.recording_layouts():
        _built(name, False)
    folder = tmp_path / "layouts"
    folder.mkdir()
    (folder / f"{cls.__module__}.json").write_text(json.dumps(_narrow.export_layouts()))
    no_layouts.clear()
    assert install_layouts(str(tmp_path / "missing")) == 0
    for bad in (3, None, b"layouts", ["layouts"]):
        with pytest.raises(ValueError, match="folder: expected"):
            install_layouts(bad)
    assert install_layouts(folder) == 1 and len(no_layouts) == 1           # eager
    no_layouts.clear()
    monkeypatch.setattr(live, "_LAZY", {"classes": {name: f"{cls.__module__}:{cls.__qualname__}"},
                                        "data": {}, "fitted": {}, "layouts": {}, "done": set()})
    assert install_layouts(str(folder)) == 1 and no_layouts == {}          # lazy: not yet read
    info = json.loads(LIVE.create(name, False))
    LIVE.close(info["handle"])
    assert info["layout"] == "replayed" and len(no_layouts) == 1


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_the_chinese_tape_serves_every_page_that_shows_the_experiment(name, no_layouts):
    """The build records a Chinese layout with the experiment's own figure strings (a page
    showing it alone); a page with two experiments translates with both's strings.  Either way
    the figure must be the recorded one (the same ``layout_signature``), or live mode measures
    its layout again there: checked against the whole catalogue's table, which holds every page's."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    from zh_strings import figure_table

    signatures = []
    for table in (figure_table(experiment=name), chinese_table()):
        no_layouts.clear()
        with _narrow.recording_layouts():
            _built(name, False, table)
        (key, _), = no_layouts.items()
        signatures.append(key[2])
    assert signatures[0] == signatures[1]
