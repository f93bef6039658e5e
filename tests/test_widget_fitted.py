"""Axis fits made ahead of time (``widgets.limits.export_fitted``/``load_fitted``): the book's
build fits every experiment natively and live mode starts with those fits
(``widgets/live.py`` ``install_fitted``); what a process takes must be what it would fit."""

from __future__ import annotations

import json

from widgets import EXPERIMENTS, limits
from widgets.live import install_fitted


def test_fits_round_trip_and_equal_fresh_fits(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "_FITTED", {})
    for name in ("power_split", "bifold_door", "probes"):
        EXPERIMENTS[name]().close()
    made = dict(limits._FITTED)
    assert len(made) >= 3
    rows = limits.export_fitted()
    path = tmp_path / "fitted.json"
    path.write_text(json.dumps(rows))
    limits._FITTED.clear()
    assert install_fitted(str(path)) == len(made)
    assert limits._FITTED == made
    assert install_fitted(str(tmp_path / "missing.json")) == 0
    # taken fits are used: no scene is evaluated for them
    calls = []
    monkeypatch.setattr(limits, "fit_limit", lambda *a, **k: calls.append(a) or 1.0)
    EXPERIMENTS["bifold_door"]().close()
    assert calls == []


def test_unknown_classes_are_skipped(monkeypatch):
    monkeypatch.setattr(limits, "_FITTED", {})
    assert limits.load_fitted([["nowhere:Nothing", 0, [], 2.5],
                               ["widgets.bifold:BifoldDoor", ["curve", 1], [["x", "1"]], 4.0]]) == 1
    (key, lim), = limits._FITTED.items()
    assert key[1] == ("curve", 1) and key[2] == (("x", "1"),) and lim == 4.0
