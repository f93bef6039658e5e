"""widgets/static_html.py: the kernel-free frame player and answer box (markup-level tests;
the real-browser behaviour is tested in tests/browser/test_static_site.py)."""

from __future__ import annotations

import doctest
import json
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


def test_answer_box_scalar_markup_is_unchanged_by_the_vector_form():
    # one-number boxes keep their script (stored notebook outputs stay valid)
    html = answer_box("q", 2.5, 0.1).data
    assert sh._ANSWER_JS.split("(function")[1][:40] in html
    assert "JSON.parse" not in html and 'inputmode="decimal"' in html


def test_answer_box_vector_markup():
    html = answer_box("Velocity of Q?", [0.4, -1.2, 0], 0.01, "m/s").data
    assert html == answer_box("Velocity of Q?", (0.4, -1.2, 0.0), 0.01, "m/s").data
    assert html != answer_box("Velocity of Q?", [0.4, -1.2, 0.1], 0.01, "m/s").data
    uid = re.search(r'id="(sb-ab-[0-9a-f]{12})"', html).group(1)
    expected = re.search(r'data-expected="([^"]*)"', html).group(1)
    assert json.loads(expected) == [0.4, -1.2, 0.0]
    assert f'<label for="{uid}-in">Your answer (3 numbers, m/s)</label>' in html
    assert "JSON.parse" in html and 'inputmode="text"' in html and "http" not in html
    np = pytest.importorskip("numpy")
    assert answer_box("q", np.array([1.0, 2.0]), 0.1).data == answer_box("q", [1, 2], 0.1).data
    assert answer_box("q", np.float64(1.5), 0.1).data == answer_box("q", 1.5, 0.1).data


@pytest.mark.parametrize("bad, match", [
    ([], "at least one"), ([1.0, float("inf")], "finite"), ([[1, 2], [3, 4]], "flat"),
    ("1.0", "number"), (None, "number")])
def test_answer_box_rejects_bad_expected(bad, match):
    with pytest.raises(ValueError, match=match):
        answer_box("q", bad, 0.1)


def _run_box_in_node(html: str, typed: str) -> tuple[str, str]:
    """Run the box's script in node against a minimal fake DOM; return (data-result, status)."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the browser test covers the script)")
    attrs = dict(re.findall(r'(data-expected|data-tolerance)="([^"]*)"', html))
    script = html[html.index("<script>") + len("<script>"):html.index("</script>")]
    harness = """
var attrs = %s; var handlers = {};
var status = {textContent: ""};
var input = {value: %s, addEventListener: function () {}};
var button = {addEventListener: function (ev, f) { handlers[ev] = f; }};
var root = {getAttribute: function (k) { return attrs[k] === undefined ? null : attrs[k]; },
            setAttribute: function (k, v) { attrs[k] = v; },
            querySelector: function (s) { return s === "input" ? input : s === "button" ? button : status; }};
var document = {getElementById: function () { return root; }, currentScript: null};
%s
handlers.click();
console.log(JSON.stringify([attrs["data-result"], status.textContent]));
""" % (json.dumps({k: v.replace("&quot;", '"') for k, v in attrs.items()}), json.dumps(typed), script)
    out = subprocess.run([node, "-e", harness], capture_output=True, text=True, check=True).stdout
    return tuple(json.loads(out))


@pytest.mark.parametrize("typed, result", [
    ("0.4, -1.2, 0", "right"), ("0.401 -1.2 0.0", "right"), ("[0.4, \u22121.2, 0]", "right"),
    ("(0.4,-1.2,0.005)", "right"), ("0.4, 1.2, 0", "wrong"), ("0.4, -1.2, 0.02", "wrong"),
    ("0.4, -1.2", "invalid"), ("0.4, -1.2, 0, 1", "invalid"), ("abc", "invalid"),
    ("0.4, x, 0", "invalid"), ("", "invalid")])
def test_answer_box_vector_script(typed, result):
    html = answer_box("Velocity of Q?", [0.4, -1.2, 0], 0.01, "m/s").data
    got, status = _run_box_in_node(html, typed)
    assert got == result, status


@pytest.mark.parametrize("typed, result", [
    ("1.28", "right"), ("1,28", "right"), ("1.3", "wrong"), ("abc", "invalid")])
def test_answer_box_scalar_script(typed, result):
    html = answer_box("Torque about the hinge?", 1.28, 0.005, "N m").data
    assert _run_box_in_node(html, typed)[0] == result


def test_static_figure_draws_english_and_chinese_with_each_its_alt_text():
    """static_figure: the English picture with ``alt`` as given and, with the Chinese
    catalogue at hand, the Chinese picture (hidden inline) with ``alt`` translated by the
    same table: ch13's timing plot's alt text was English on the Chinese page."""
    import re

    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from widgets.static_html import _chinese_figure_table, static_figure

    if not _chinese_figure_table():
        pytest.skip("no Chinese catalogue beside the package")

    def draw(narrow):
        fig = Figure(figsize=(3.3 if narrow else 6.6, 2.0), dpi=50)
        fig.add_subplot().set_ylabel("CPU time of forward dynamics (ms)")
        return fig

    alt = ("CPU time of sb.forward_dynamics against the number of bodies of a random chain, "
           "log-log axes: the ABA and the CRBA plus a solve, for one state per call and per "
           "state in batches of 7 states, chains of 3 to 90 bodies.")
    html = static_figure(draw, alt).data
    alts = dict(re.findall(r'<picture class="(sb-figure-\w+)".*?alt="([^"]*)"', html, re.S))
    assert set(alts) == {"sb-figure-en", "sb-figure-zh"}, alts
    assert alts["sb-figure-en"] == alt
    zh = alts["sb-figure-zh"]
    assert re.search(r"[\u4e00-\u9fff]", zh) and "sb.forward_dynamics" in zh, zh
    assert "7 个状态" in zh and "3 到 90" in zh, zh         # the numbers carried over
    assert "against the number" not in zh, zh
