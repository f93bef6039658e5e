"""widgets/static_html.py: the kernel-free frame player and answer box (markup-level tests;
the real-browser behaviour is tested in tests/browser/test_static_site.py)."""

from __future__ import annotations

import doctest
import re

import pytest

import widgets.static_html as sh
from widgets.static_html import answer_box, frame_player

PNG = b"\x89PNG\r\n\x1a\n"
FRAMES = [PNG + b"frame-a", PNG + b"frame-b", PNG + b"frame-c"]


def test_doctests():
    assert doctest.testmod(sh).failed == 0


def test_frame_player_is_deterministic_and_content_addressed():
    a = frame_player(FRAMES, [0.0, 0.5, 1.0], "Pitch h (m/rad)", readouts=["x", "y", "z"]).data
    b = frame_player(FRAMES, [0.0, 0.5, 1.0], "Pitch h (m/rad)", readouts=["x", "y", "z"]).data
    c = frame_player(FRAMES, [0.0, 0.5, 2.0], "Pitch h (m/rad)", readouts=["x", "y", "z"]).data
    assert a == b
    ids_a = set(re.findall(r"sb-fp-[0-9a-f]{12}", a))
    assert len(ids_a) == 1 and ids_a != set(re.findall(r"sb-fp-[0-9a-f]{12}", c))


def test_frame_player_markup_is_self_contained_and_accessible():
    html = frame_player(FRAMES, [0.0, 0.5, 1.0], "Pitch h (m/rad)", readouts=["r0", "r1", "r2"],
                        alt="Screw axis").data
    uid = re.search(r'id="(sb-fp-[0-9a-f]{12})"', html).group(1)
    assert f'<label id="{uid}-label" for="{uid}-range">Pitch h (m/rad)</label>' in html
    assert f'<input type="range" id="{uid}-range" min="0" max="2" step="1" value="1"' in html
    assert 'alt="Screw axis"' in html and 'aria-live="polite"' in html and ">r1<" in html
    assert html.count("data:image/png;base64,") == 3  # each frame once (the shown one in <img>)
    for forbidden in ("http://", "https://", "require(", "<script src", "Math.random", "uuid"):
        assert forbidden not in html


def test_frame_player_escapes_and_cannot_close_its_script():
    html = frame_player([PNG], [1.0], "a <b> & c", readouts=["</script><i>x</i>"]).data
    assert "a &lt;b&gt; &amp; c" in html
    script = html[html.index("<script>"):]
    assert script.count("</script>") == 1


def test_frame_player_checks_lengths():
    with pytest.raises(ValueError, match="values"):
        frame_player(FRAMES, [0.0, 1.0], "h")
    with pytest.raises(ValueError, match="readouts"):
        frame_player(FRAMES, [0.0, 0.5, 1.0], "h", readouts=["a"])
    with pytest.raises(ValueError, match="at least one"):
        frame_player([], [], "h")


def test_answer_box_markup():
    html = answer_box("Torque about the hinge?", 1.28, 0.005, "N m").data
    assert html == answer_box("Torque about the hinge?", 1.28, 0.005, "N m").data
    uid = re.search(r'id="(sb-ab-[0-9a-f]{12})"', html).group(1)
    assert 'data-expected="1.28"' in html and 'data-tolerance="0.005"' in html
    assert f'<label for="{uid}-in">Your answer (N m)</label>' in html
    assert '<button type="button"' in html and 'role="status"' in html
    assert "http" not in html
    with pytest.raises(ValueError):
        answer_box("q", float("nan"), 0.1)
    with pytest.raises(ValueError):
        answer_box("q", 1.0, -0.1)
