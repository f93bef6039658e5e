"""Every experiment's tick locations and labels follow one rule, the same on every drawing stack.

The book's frames are drawn with matplotlib 3.11 (the lock's) and live mode draws with Pyodide's 3.8.4; each version's ``AutoLocator`` and ``ScalarFormatter`` may
choose other ticks for the same axis (ch01's y ticks were 1.00, 0.75, ... in the book's frames
and 1.0, 0.5 in the browser), and the live figure then differs from the frame it replaces.  So
for every experiment of ``widgets.EXPERIMENTS``, wide and narrow, at its defaults, every drawn
tick of every axes (3-D axes and colour bars included) must be

* where the experiment put it (``set_xticks``: a ``FixedLocator``, the same numbers on every
  version), or else at the multiples of a nice step written out below (:func:`expected_ticks`,
  independent of matplotlib's locators): the smallest of 1, 2, 2.5, 5 x 10^k at least the view's
  span over the axis's room (1 interval per 3 label heights along x, 2 along y, 1 to 9), with at
  least two ticks inside;
* labelled by names the experiment gave (``set_xticks(xs, names)``), or else by the numbers with the
  decimals the most precise tick needs, a true minus sign and no offset or multiplier text.

The rule's input, the axis's room, is measured by the widgets themselves, so a second check
compares every drawn tick (locations and labels) with the book's frames' as stored in
``tests/widget_ticks.json`` (written with matplotlib 3.11).  The other-Pythons stage
(``tools/test_pythons.py``) runs this file on Pyodide's stack, so a stack whose ticks differ from
3.11's fails there.  An experiment whose axes change on purpose fails here
too: write the file again (with the lock's matplotlib) and commit it with the change.

    .venv/bin/python tests/test_widget_ticks.py --write   # store the ticks drawn now
    .venv/bin/python tests/test_widget_ticks.py > t.json  # every drawn tick, in full
"""

from __future__ import annotations

import json
import math
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from matplotlib import ticker

from widgets import EXPERIMENTS
from widget_helpers import shared

MINUS = "\N{MINUS SIGN}"
#: the ticks of the book's frames (matplotlib 3.11) per experiment and layout
STORED = Path(__file__).with_name("widget_ticks.json")


def drawn_ticks(exp) -> list[dict]:
    """Per axes and axis with drawn tick labels: its view, locations, labels, locator and
    formatter classes and the offset text, after a full redraw of ``exp``'s figure."""
    exp.canvas.draw()
    out = []
    for i, ax in enumerate(exp.figure.axes):
        if not ax.get_visible() or not ax.axison:
            continue
        for name in ("x", "y", "z"):
            axis = getattr(ax, f"{name}axis", None)
            if axis is None or not axis.get_visible():
                continue
            ticks = axis._update_ticks()            # the ticks inside the view: the drawn ones
            labels = [(t.label1 if t.label1.get_visible() else t.label2).get_text() for t in ticks
                      if t.label1.get_visible() or t.label2.get_visible()]
            if not any(s.strip() for s in labels):
                continue
            lo, hi = axis.get_view_interval()
            locator = axis.get_major_locator()
            # the room the locator measured (widgets.limits.freeze_tick_room: on the boxes the
            # code gives, before any layout fitted to text); else the axis as drawn
            box = ax.get_position()
            w, h = exp.figure.get_size_inches()
            drawn = 72 * (max(box.width * w, box.height * h) if ax.name == "3d"
                          else box.width * w if name == "x" else box.height * h)
            out.append({
                "axes": i, "axis": name, "3d": ax.name == "3d", "view": [float(lo), float(hi)],
                "length_pt": float(getattr(locator, "length_pt", None) or drawn),
                "label_pt": float(ticks[0].label1.get_fontsize()) if ticks else 0.0,
                "locs": [float(t.get_loc()) for t in ticks], "labels": labels,
                "locator": type(axis.get_major_locator()).__name__,
                "formatter": type(axis.get_major_formatter()).__name__,
                "fixed_locs": isinstance(axis.get_major_locator(), ticker.FixedLocator),
                # names the experiment gave (set_xticks(xs, names): a FixedFormatter before
                # matplotlib 3.10, a FuncFormatter after); any formatter of numbers is checked
                "named": isinstance(axis.get_major_formatter(), (ticker.FixedFormatter, ticker.FuncFormatter)),
                "offset": axis.get_offset_text().get_text() if axis.get_offset_text().get_visible() else "",
            })
    return out


# -------------------------------------------------------------- the rule, written out here


def expected_ticks(lo: float, hi: float, length_pt: float, label_pt: float, horizontal: bool) -> list[Decimal]:
    """The rule's ticks on [lo, hi], in exact decimals."""
    lo, hi = min(lo, hi), max(lo, hi)
    room = length_pt / (label_pt * (3 if horizontal else 2))
    bins = min(9, max(1, math.floor(room)))
    raw = (hi - lo) / bins
    steps = [Decimal(m) * Decimal(10) ** e for e in range(-8, 9) for m in ("1", "2", "2.5", "5")]
    eps = 1e-9
    first = next(i for i, s in enumerate(steps) if float(s) >= raw * (1 - eps))
    for s in reversed(steps[:first + 1]):
        k0, k1 = math.ceil(lo / float(s) - eps), math.floor(hi / float(s) + eps)
        if k1 >= k0 + 1:
            return [k * s for k in range(k0, k1 + 1)]
    raise AssertionError(f"no two ticks fit on [{lo}, {hi}]")


def expected_labels(locs: list[Decimal]) -> list[str]:
    """The rule's labels: the same decimals for every tick, as many as the most precise needs."""
    exact = [Decimal(repr(float(x))).quantize(Decimal("1e-6")).normalize() for x in locs]
    digits = max((max(0, -x.as_tuple().exponent) for x in exact), default=0)
    out = []
    for x in exact:
        s = f"{abs(x):.{digits}f}"
        out.append(MINUS + s if x < 0 and x.quantize(Decimal(1).scaleb(-digits)) != 0 else s)
    return out


CASES = [(name, narrow) for name in EXPERIMENTS for narrow in (False, True)]


def key(name: str, narrow: bool) -> str:
    return f"{name}-{'narrow' if narrow else 'wide'}"


def summary(axes: list[dict]) -> list[list]:
    """What a reader sees of the ticks: per axis, [axes, axis, locations (9 digits), labels]."""
    return [[a["axes"], a["axis"], [round(x, 9) + 0.0 for x in a["locs"]], a["labels"]] for a in axes]


_DRAWN: dict = {}


def drawn(name: str, narrow: bool) -> list[dict]:
    if (name, narrow) not in _DRAWN:
        _DRAWN[name, narrow] = drawn_ticks(shared(name, narrow))   # at its defaults
    return _DRAWN[name, narrow]


@pytest.mark.parametrize("name,narrow", CASES, ids=[key(n, w) for n, w in CASES])
def test_ticks_are_the_book_frames(name, narrow):
    """The same ticks and labels as the stored frames' (matplotlib 3.11), on this stack."""
    stored = json.loads(STORED.read_text(encoding="utf-8"))
    assert key(name, narrow) in stored, f"{key(name, narrow)} not in {STORED.name}: " \
        f"run tests/test_widget_ticks.py --write on Python >= 3.11"
    want = {(a, x): (locs, labels) for a, x, locs, labels in stored[key(name, narrow)]}
    got = {(a, x): (locs, labels) for a, x, locs, labels in summary(drawn(name, narrow))}
    bad = [f"axes {a} {x}: drawn {got.get((a, x))}, the book's frames {want.get((a, x))}"
           for a, x in sorted(set(want) | set(got)) if got.get((a, x)) != want.get((a, x))]
    assert not bad, f"{key(name, narrow)}:\n" + "\n".join(bad)


@pytest.mark.parametrize("name,narrow", CASES, ids=[key(n, w) for n, w in CASES])
def test_ticks_follow_the_rule(name, narrow):
    axes = drawn(name, narrow)
    bad = []
    for a in axes:
        where = f"{name} {'narrow' if narrow else 'wide'}: axes {a['axes']} {a['axis']}"
        if not a["fixed_locs"]:
            want = expected_ticks(*a["view"], a["length_pt"], a["label_pt"], a["axis"] == "x" or a["3d"])
            got = [Decimal(repr(x)) for x in a["locs"]]
            if len(want) != len(got) or any(abs(float(g - w)) > 1e-9 * max(1.0, abs(float(w)))
                                            for g, w in zip(got, want)):
                bad.append(f"{where} ({a['locator']}) ticks {a['locs']}, the rule gives "
                           f"{[float(w) for w in want]} on {a['view']}")
        if not a["named"]:
            want = expected_labels([Decimal(repr(x)) for x in a["locs"]])
            if a["labels"] != want:
                bad.append(f"{where} ({a['formatter']}) labels {a['labels']}, the rule gives {want}")
            if a["offset"].strip():
                bad.append(f"{where}: offset text {a['offset']!r}")
    assert not bad, "\n".join(bad)


def test_the_rule_by_hand():
    """The rule on axes worked by hand (the other test trusts it)."""
    assert expected_ticks(0.0, 1.0, 80, 10, False) == [Decimal(x) for x in ("0", "0.25", "0.50", "0.75", "1.00")]
    assert expected_ticks(-1.2, 1.2, 90, 10, True) == [Decimal(x) for x in ("-1", "0", "1")]
    assert expected_ticks(0.0, 15.0, 40, 10, False) == [Decimal(x) for x in ("0", "10")]
    assert expected_labels([Decimal("-1.5"), Decimal("0"), Decimal("0.75")]) == [MINUS + "1.50", "0.00", "0.75"]
    assert expected_labels([Decimal("0"), Decimal("45"), Decimal("90")]) == ["0", "45", "90"]


if __name__ == "__main__":
    table = {key(n, w): drawn(n, w) for n, w in CASES}
    if sys.argv[1:] == ["--write"]:
        rows = {k: summary(v) for k, v in table.items()}
        before = json.loads(STORED.read_text(encoding="utf-8")) if STORED.exists() else {}
        STORED.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}"
                                              for k, v in rows.items()) + "\n}\n", encoding="utf-8")
        added = sorted(set(rows) - set(before))
        changed = sorted(k for k in set(rows) & set(before) if rows[k] != before[k])
        gone = sorted(set(before) - set(rows))
        print(f"{STORED.name}: {len(rows)} entries written; added {added or 'none'}, "
              f"changed {changed or 'none'}, removed {gone or 'none'}")
    else:
        json.dump(table, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
