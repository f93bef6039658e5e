"""Issue 20: the static book's frames at twice the pixel density, for 2x screens only.

``widgets.players.dense_frames`` draws a player's sweep again at 2x; the book's build
(``tools/live_frames.add_dense_frames``) writes those frames as files and lists them in the player.
A 2x frame must be the picture live mode draws on a 2x screen for the same values (an
independent path: ``widgets.live.Live``, the figure drawn at 1x, then at twice the dpi), pixel
for pixel, so a stale or mismatched frame fails here; the page of a 1x reader gains only the
file list.  The built site's own 2x frames are checked against a fresh drawing in
``tests/browser/test_static_site.py``.

    .venv/bin/python -m pytest -q tests/test_dense_frames.py
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import live_frames  # noqa: E402
from widgets import EXPERIMENTS  # noqa: E402
from widgets.live import Live  # noqa: E402
from widgets.players import dense_frames  # noqa: E402

#: E9's phone layout narrows a panel on its first (1x) picture; a figure first drawn at 2x
#: would narrow it less: the case where a careless 2x drawing differs from live mode's
NAME, SETTINGS, CONTROL, VALUES = "kinetic_energy", {"omega": -1.5, "ref_x": 0.0}, "ref_x", [0.0, 0.4]
_LIST = re.compile(r'<script type="application/json" class="sb-2x-frames">(.*?)</script>', re.S)


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@functools.lru_cache(maxsize=None)
def dense(narrow: bool) -> tuple[bytes, ...]:
    return tuple(dense_frames(EXPERIMENTS[NAME], SETTINGS, CONTROL, VALUES, narrow))


@pytest.fixture(scope="module")
def player_page() -> str:
    exp = EXPERIMENTS[NAME](**SETTINGS)
    try:
        return exp.static_player(values=VALUES).data
    finally:
        exp.close()


def live_2x(narrow: bool, values) -> list[np.ndarray]:
    """Live mode's pictures on a 2x screen (RGB), one per value of CONTROL."""
    live = Live()
    info = json.loads(live.create(NAME, narrow, json.dumps(SETTINGS), 2.0))
    try:
        out = []
        for v in values:
            live.update(info["handle"], json.dumps({CONTROL: v}))
            out.append(np.asarray(live.pixels(info["handle"]))[..., :3].copy())
        return out
    finally:
        live.close(info["handle"])


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
def test_a_2x_frame_is_live_modes_2x_picture(narrow):
    cls = EXPERIMENTS[NAME]
    pngs = dense(narrow)
    exp = cls(**SETTINGS)
    try:
        ones = exp.frames(CONTROL, VALUES, narrow=narrow)
    finally:
        exp.close()
    for v, png, one, live in zip(VALUES, pngs, ones, live_2x(narrow, VALUES)):
        got, small = pixels(png), pixels(one)
        assert got.shape == (2 * small.shape[0], 2 * small.shape[1], 3), (v, got.shape, small.shape)
        assert np.array_equal(got, live), f"{NAME} {CONTROL}={v} narrow={narrow}: the 2x frame " \
            f"differs from live mode's 2x picture in {int((got != live).any(axis=2).sum())} pixels"
    assert len({hashlib.sha1(p).digest() for p in pngs}) == len(VALUES)      # frames differ


def test_dense_frames_rejects_bad_arguments():
    cls = EXPERIMENTS[NAME]
    with pytest.raises(ValueError, match="control"):
        dense_frames(cls, SETTINGS, "nope", VALUES)
    with pytest.raises(ValueError, match="settings"):
        dense_frames(cls, [0.0], CONTROL, VALUES)
    with pytest.raises(ValueError, match="scale"):
        dense_frames(cls, SETTINGS, CONTROL, VALUES, scale=0.5)


def test_player_values_recovers_the_drawn_values():
    from widgets.static_html import _fmt

    arm = EXPERIMENTS["arm_explorer"]
    sweep = next(c for c in arm.CONTROLS if c.name == "q2").sweep(17)
    texts = [_fmt(v) for v in sweep]
    assert live_frames.player_values(arm, "q2", texts) == sweep       # not the 4-digit texts
    probes = EXPERIMENTS["probes"]
    options = next(c for c in probes.CONTROLS if c.name == "path").options
    assert live_frames.player_values(probes, "path", ["0", "1", "2"]) == list(options)
    assert live_frames.player_values(EXPERIMENTS[NAME], CONTROL, ["0", "0.4"]) == [0.0, 0.4]
    with pytest.raises(ValueError, match="no control"):
        live_frames.player_values(probes, "nope", ["0"])


def test_the_build_lists_2x_frames_and_adds_nothing_else(tmp_path, player_page):
    cls, page = EXPERIMENTS[NAME], player_page
    uid = re.search(r'class="sb-frame-player" id="(sb-fp-[0-9a-f]{12})"', page).group(1)

    def pathto(name, _resource):
        return "../" + name

    stats: dict = {}
    cache = tmp_path / "cache"
    built = live_frames.add_dense_frames(page, tmp_path / "html", pathto, {uid: cls}, stats, cache)
    lists = _LIST.findall(built)
    assert len(lists) == 1
    assert _LIST.sub("", built) == page                    # the 1x page: only the list added
    assert len(lists[0]) < 60 * 2 * len(VALUES)            # a few bytes a frame
    listed = json.loads(lists[0])
    assert listed["base"] == "../_sb_frames/" and set(listed) == {"base", "wide", "narrow"}
    for layout in ("wide", "narrow"):
        files = [tmp_path / "html" / "_sb_frames" / f"{n}.png" for n in listed[layout]]
        pngs = [f.read_bytes() for f in files]
        assert [hashlib.sha1(p).hexdigest()[:20] for p in pngs] == listed[layout]   # by content
        fresh = dense(layout == "narrow")
        assert [pixels(p).tobytes() for p in pngs] == [pixels(p).tobytes() for p in fresh]
    assert stats["drawn"] == 2 * len(VALUES) and not stats.get("linked")

    # the next build takes them from the cache: same list, nothing drawn
    again: dict = {}
    rebuilt = live_frames.add_dense_frames(page, tmp_path / "html2", pathto, {uid: cls}, again, cache)
    assert rebuilt == built and again["linked"] == 2 * len(VALUES) and not again.get("drawn")
    # other settings are other frames (the cache is keyed by them)
    other = page.replace("&quot;omega&quot;: -1.5", "&quot;omega&quot;: 1.0")
    assert other != page
    third: dict = {}
    live_frames.add_dense_frames(other, tmp_path / "html3", pathto, {uid: cls}, third, cache)
    assert third["drawn"] == 2 * len(VALUES)
    # only what a build used stays in the cache
    removed = live_frames.prune_dense_cache(cache, third["used"])
    assert removed > 0 and {p.name for p in cache.iterdir()} == third["used"]


def test_a_player_the_build_does_not_know_is_left_alone(tmp_path, player_page):
    assert live_frames.add_dense_frames(player_page, tmp_path, lambda n, r: n, {}) == player_page
    assert not (tmp_path / "_sb_frames").exists()


@pytest.mark.parametrize("bad", [0.5, 5, "two", None, float("nan")])
def test_set_scale_rejects_bad_scales(bad):
    exp = EXPERIMENTS[NAME]()
    try:
        with pytest.raises(ValueError, match="scale must be a number from 1 to 4"):
            exp.set_scale(bad)
    finally:
        exp.close()
