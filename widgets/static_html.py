"""Kernel-free HTML for the static book: a frame player and an answer box.

Both functions return an ``IPython.display.HTML`` object whose markup is plain HTML plus a
small inline ``<script>`` (no require.js, no external file, no network).  The same markup works
in the Sphinx page of the built book and in a trusted JupyterLab output.

The markup is deterministic: the element id is derived from a hash of the content, never from
a random number, so re-executing a notebook gives byte-identical HTML for identical inputs.
Every id starts with ``sb-fp-`` or ``sb-ab-`` followed by 12 hex digits (the nbval sanitize
file replaces them, together with base64 images).

>>> html = frame_player([b"\\x89PNG-a", b"\\x89PNG-b"], [0.0, 1.0], "Pitch h (m/rad)")
>>> html.data == frame_player([b"\\x89PNG-a", b"\\x89PNG-b"], [0.0, 1.0], "Pitch h (m/rad)").data
True
>>> 'type="range"' in html.data and "http" not in html.data
True
>>> box = answer_box("Torque about the hinge?", 1.28, 0.01, "N m")
>>> 'data-expected="1.28"' in box.data
True
"""

from __future__ import annotations

import base64
import hashlib
import html as _html
import json
import math
from typing import Sequence

from IPython.display import HTML
from .prose import significant

__all__ = ["frame_player", "answer_box"]


def _stable_id(prefix: str, *parts: object) -> str:
    """A short id from a SHA-1 of the parts (bytes are hashed as they are, the rest via repr)."""
    h = hashlib.sha1()
    for part in parts:
        if isinstance(part, (bytes, bytearray)):
            h.update(bytes(part))
        else:
            h.update(repr(part).encode("utf-8"))
        h.update(b"\x00")
    return f"{prefix}-{h.hexdigest()[:12]}"


def _mime(frame: bytes) -> str:
    if frame[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    if frame[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if frame.lstrip()[:4] in (b"<svg", b"<?xm"):
        return "image/svg+xml"
    return "image/png"


def _data_uri(frame: bytes) -> str:
    return f"data:{_mime(frame)};base64,{base64.b64encode(frame).decode('ascii')}"


def _fmt(value: float) -> str:
    text = f"{float(value):.4g}"
    return "0" if text == "-0" else text


def _js_string_list(items: Sequence[str]) -> str:
    # json.dumps gives a valid JS array literal; escape "</" so a value can never close the script.
    return json.dumps(list(items), ensure_ascii=True).replace("</", "<\\/")


# The 2x frames: files the book's build lists in the player (tools/live_frames.py); only a screen
# of devicePixelRatio >= 1.5 asks for them, through a srcset "2x" (the picture keeps its CSS
# size, and the browser fetches the srcset's picture instead of the src's; a 1x screen never
# fetches one).
_PLAYER_JS = """
(function () {
  var root = document.getElementById(%(id)s);
  var script = document.currentScript;
  if (script && script.parentNode && script.parentNode.classList &&
      script.parentNode.classList.contains("sb-frame-player")) { root = script.parentNode; }
  if (!root || root.getAttribute("data-ready") === "1") { return; }
  root.setAttribute("data-ready", "1");
  var frames = %(frames)s;
  var values = %(values)s;
  var readouts = %(readouts)s;
  var range = root.querySelector("input[type=range]");
  var img = root.querySelector("img.sb-frame");
  for (var k = 0; k < frames.length; k++) { if (!frames[k]) { frames[k] = img.src; } }
  var value = root.querySelector(".sb-value");
  var readout = root.querySelector(".sb-readout");
  // the same frames laid out for a phone's column, shown when the page is narrow
  var list = root.querySelector("script.sb-narrow-frames");
  var narrowFrames = list ? JSON.parse(list.textContent) : [];
  var wide = parseFloat(root.getAttribute("data-sb-wide-width")) || 0;
  var least = parseFloat(root.getAttribute("data-sb-min-scale")) || 1;
  // the phone frames once the wide ones would shrink their smallest text below 12 CSS px
  function narrow() {
    var style = getComputedStyle(root);
    var room = root.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return narrowFrames.length === frames.length && root.clientWidth > 0 && room < least * wide;
  }
  // 2x frames (listed by the book's build): only where devicePixelRatio >= 1.5
  var dense = root.querySelector("script.sb-2x-frames");
  dense = dense ? JSON.parse(dense.textContent) : null;
  function denseSrc(n, i) {
    var list = dense && (window.devicePixelRatio || 1) >= 1.5 ? dense[n ? "narrow" : "wide"] : null;
    return list && list.length === frames.length ? dense.base + list[i] + ".png 2x" : "";
  }
  function show(i) {
    i = Math.max(0, Math.min(frames.length - 1, parseInt(i, 10) || 0));
    var n = narrow();
    var src = n ? narrowFrames[i] : frames[i];
    var hi = denseSrc(n, i);
    if ((img.getAttribute("srcset") || "") !== hi) {
      if (hi) { img.setAttribute("srcset", hi); } else { img.removeAttribute("srcset"); }
    }
    if (img.getAttribute("src") !== src) { img.src = src; }
    img.setAttribute("data-frame", String(i));
    img.setAttribute("data-sb-layout", n ? "narrow" : "wide");
    value.textContent = values[i];
    range.setAttribute("aria-valuetext", values[i]);
    if (readout && readouts.length) { readout.innerHTML = readouts[i]; }
  }
  range.addEventListener("input", function () { show(range.value); });
  range.addEventListener("change", function () { show(range.value); });
  window.addEventListener("resize", function () { show(range.value); });
  show(range.value);
})();
"""


def _png_width(frame: bytes) -> int:
    """A PNG's width from its header (0 for other formats)."""
    if frame[:8] == b"\x89PNG\r\n\x1a\n" and len(frame) >= 24:
        return int.from_bytes(frame[16:20], "big")
    return 0


def frame_player(frames: list[bytes], values: list[float], label: str,
                 readouts: list[str] | None = None, alt: str = "",
                 narrow_frames: list[bytes] | None = None,
                 settings: dict | None = None, control: str = "",
                 min_scale: float = 1.0) -> HTML:
    """Precomputed frames under an ``<input type=range>``: a slider that works with no kernel.

    Parameters
    ----------
    frames : list of bytes
        Encoded images (PNG, JPEG or SVG), one per slider position.
    values : list of float
        The control value each frame shows (same length as ``frames``); shown beside the slider.
    label : str
        The control's name with its unit, e.g. ``"Pitch h (m/rad)"``; it is the slider's
        accessible label (``<label for>``).
    readouts : list of str, optional
        Short text or HTML shown under frame ``i`` (numbers the picture shows).
    alt : str
        Alternative text of the picture (defaults to a description built from ``label``).
    narrow_frames : list of bytes, optional
        The same frames laid out for a phone's column (PNG); shown instead of ``frames`` while
        the player's content box is narrower than ``min_scale`` times the wide frames' width
        (below that the wide frames would shrink their smallest text under 12 CSS px).  Kept
        in a JSON ``<script>`` that the book's build moves into files fetched only on such
        screens (tools/live_frames.py).  The build also draws both layouts again at twice the
        pixel density and lists those files in a ``<script class="sb-2x-frames">``
        (``{"base": folder, "wide": [names], "narrow": [names]}``): the player shows them
        (``srcset`` "2x", same CSS size) only where ``devicePixelRatio >= 1.5``.
    settings : dict, optional
        The values of every control of the experiment the frames were drawn with (JSON-able);
        live mode starts from them (``data-sb-settings``).
    control : str
        The name of the control the slider sweeps (``data-sb-control``).
    min_scale : float
        The smallest fraction of their width the wide frames may be shown at (their smallest
        text then is 12 CSS px; ``widgets.style.WIDE_MIN_SCALE``): ``data-sb-min-scale``.

    Returns
    -------
    IPython.display.HTML
        Deterministic markup: same inputs, same bytes.  The slider starts at the middle frame.
    """
    frames = [bytes(f) for f in frames]
    values = [float(v) for v in values]
    if not frames:
        raise ValueError("frame_player: frames must contain at least one image")
    if len(values) != len(frames):
        raise ValueError(f"frame_player: values has {len(values)} entries, frames has {len(frames)}")
    if readouts is not None:
        readouts = [str(r) for r in readouts]
        if len(readouts) != len(frames):
            raise ValueError(f"frame_player: readouts has {len(readouts)} entries, "
                             f"frames has {len(frames)}")
    narrow_frames = [bytes(f) for f in narrow_frames or ()]
    if narrow_frames and len(narrow_frames) != len(frames):
        raise ValueError(f"frame_player: narrow_frames has {len(narrow_frames)} entries, "
                         f"frames has {len(frames)}")
    if settings is not None and not isinstance(settings, dict):
        raise ValueError(f"frame_player: settings must be a dict of control values, got {settings!r}")
    settings_json = (json.dumps(significant(settings), sort_keys=True)
                     if settings is not None else "")
    uid = _stable_id("sb-fp", label, alt, values, readouts, control, settings_json,
                     *frames, *narrow_frames)
    start = (len(frames) - 1) // 2
    value_texts = [_fmt(v) for v in values]
    alt_text = alt or f"Precomputed picture of the experiment for {label}"
    uris = [_data_uri(f) for f in frames]
    esc = _html.escape
    readout_html = (f'<div class="sb-readout" id="{uid}-readout" aria-live="polite">'
                    f'{readouts[start]}</div>' if readouts else "")
    js = _PLAYER_JS % {
        "id": json.dumps(uid),
        # the starting frame is only in the <img> (not twice in the page): "" in the array
        "frames": _js_string_list(["" if i == start else u for i, u in enumerate(uris)]),
        "values": _js_string_list(value_texts),
        "readouts": _js_string_list(readouts or []),
    }
    attrs = ""
    if control:
        attrs += f' data-sb-control="{esc(control)}"'
    if settings_json:
        attrs += f' data-sb-settings="{esc(settings_json)}"'
    narrow_list = ""
    if narrow_frames:
        attrs += (f' data-sb-wide-width="{_png_width(frames[0])}"'
                  f' data-sb-min-scale="{float(min_scale):.4g}"')
        narrow_list = (f'<script type="application/json" class="sb-narrow-frames">'
                       f'{_js_string_list([_data_uri(f) for f in narrow_frames])}</script>\n')
    markup = (
        f'<div class="sb-frame-player" id="{uid}" role="group" aria-labelledby="{uid}-label"'
        f'{attrs}>\n'
        f'<div class="sb-controls">'
        f'<label id="{uid}-label" for="{uid}-range">{esc(label)}</label> '
        f'<input type="range" id="{uid}-range" min="0" max="{len(frames) - 1}" step="1" '
        f'value="{start}" aria-valuetext="{esc(value_texts[start])}"> '
        f'<output class="sb-value" id="{uid}-value" for="{uid}-range">'
        f'{esc(value_texts[start])}</output></div>\n'
        f'<img class="sb-frame" id="{uid}-img" src="{uris[start]}" alt="{esc(alt_text)}" '
        f'data-frame="{start}" style="max-width:100%;height:auto;">\n'
        f'{readout_html}\n'
        f'{narrow_list}'
        f'<script>{js}</script>\n'
        f'</div>'
    )
    return HTML(markup)


_ANSWER_JS = """
(function () {
  var root = document.getElementById(%(id)s);
  var script = document.currentScript;
  if (script && script.parentNode && script.parentNode.classList &&
      script.parentNode.classList.contains("sb-answer-box")) { root = script.parentNode; }
  if (!root || root.getAttribute("data-ready") === "1") { return; }
  root.setAttribute("data-ready", "1");
  var input = root.querySelector("input");
  var button = root.querySelector("button");
  var status = root.querySelector(".sb-status");
  var expected = parseFloat(root.getAttribute("data-expected"));
  var tol = parseFloat(root.getAttribute("data-tolerance"));
  function check() {
    var text = input.value.trim().replace(/\\u2212/g, "-").replace(",", ".");
    var x = Number(text);
    if (text === "" || !isFinite(x)) {
      status.textContent = "Please type a number.";
      root.setAttribute("data-result", "invalid");
    } else if (Math.abs(x - expected) <= tol) {
      status.textContent = "Right! " + text + " is within " + root.getAttribute("data-tolerance") + " of the answer.";
      root.setAttribute("data-result", "right");
    } else {
      status.textContent = "Not quite: " + text + " is off by more than " + root.getAttribute("data-tolerance") + ". Try again.";
      root.setAttribute("data-result", "wrong");
    }
  }
  button.addEventListener("click", check);
  input.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); check(); } });
})();
"""


# A vector answer has its own script, so that one-number boxes keep their markup byte for byte
# (stored notebook outputs stay valid).
_VECTOR_ANSWER_JS = """
(function () {
  var root = document.getElementById(%(id)s);
  var script = document.currentScript;
  if (script && script.parentNode && script.parentNode.classList &&
      script.parentNode.classList.contains("sb-answer-box")) { root = script.parentNode; }
  if (!root || root.getAttribute("data-ready") === "1") { return; }
  root.setAttribute("data-ready", "1");
  var input = root.querySelector("input");
  var button = root.querySelector("button");
  var status = root.querySelector(".sb-status");
  var expected = JSON.parse(root.getAttribute("data-expected"));
  var tolText = root.getAttribute("data-tolerance");
  var tol = parseFloat(tolText);
  function parse(text) {
    // numbers separated by commas and/or spaces, optionally inside brackets or parentheses
    text = text.trim().replace(/\\u2212/g, "-").replace(/^[\\[(]\\s*/, "").replace(/\\s*[\\])]$/, "");
    var parts = text.split(/\\s*,\\s*|\\s+/);
    var xs = [];
    for (var k = 0; k < parts.length; k++) {
      var v = Number(parts[k]);
      if (parts[k] === "" || !isFinite(v)) { return null; }
      xs.push(v);
    }
    return xs;
  }
  function check() {
    var xs = parse(input.value);
    if (xs === null || xs.length !== expected.length) {
      status.textContent = "Please type " + expected.length + " numbers separated by commas or spaces.";
      root.setAttribute("data-result", "invalid");
      return;
    }
    var off = [];
    for (var k = 0; k < expected.length; k++) {
      if (!(Math.abs(xs[k] - expected[k]) <= tol)) { off.push(k + 1); }
    }
    if (off.length === 0) {
      status.textContent = "Right! Every component of (" + xs.join(", ") + ") is within " + tolText + " of the answer.";
      root.setAttribute("data-result", "right");
    } else {
      status.textContent = "Not quite: component" + (off.length > 1 ? "s " : " ") + off.join(", ") +
        " off by more than " + tolText + ". Try again.";
      root.setAttribute("data-result", "wrong");
    }
  }
  button.addEventListener("click", check);
  input.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); check(); } });
})();
"""


def answer_box(question: str, expected: float | Sequence[float], tolerance: float,
               unit: str = "") -> HTML:
    """A question, an input and a Check button that says right or wrong, with no kernel.

    Parameters
    ----------
    question : str
        Plain text (HTML-escaped).
    expected : float or sequence of float
        One number, or a vector (a list, tuple or 1-D array of numbers).  For a vector the
        reader types the components separated by commas or spaces (brackets allowed), e.g.
        ``0.4, -1.2, 0``; the answer is right when it has as many components and each is
        within ``tolerance`` of the expected one.  For one number a decimal comma is allowed.
    tolerance : float
        Absolute tolerance, >= 0 (per component for a vector).
    unit : str
        Plain text shown after "Your answer".

    Returns
    -------
    IPython.display.HTML
        Deterministic markup, like :func:`frame_player`.  ``data-expected`` holds JSON: a
        number, or an array of numbers for a vector.

    Examples
    --------
    >>> 'data-expected="[0.4, -1.2, 0.0]"' in answer_box("v_Q?", [0.4, -1.2, 0], 0.01, "m/s").data
    True
    """
    try:
        tolerance = float(tolerance)
    except (TypeError, ValueError):
        raise ValueError(f"answer_box: tolerance must be a number, got {tolerance!r}") from None
    if not math.isfinite(tolerance) or tolerance < 0:
        raise ValueError(f"answer_box: tolerance must be finite and >= 0, got {tolerance!r}")
    if isinstance(expected, (str, bytes)):
        raise ValueError("answer_box: expected must be a number or a sequence of numbers, "
                         f"got {type(expected).__name__}")
    vector = None
    if hasattr(expected, "__len__") or hasattr(expected, "__iter__"):
        ndim = getattr(expected, "ndim", None)
        if ndim == 0:  # a 0-d numpy array or numpy scalar is one number
            expected = float(expected)
        else:
            try:
                vector = [float(x) for x in expected]
            except (TypeError, ValueError):
                raise ValueError("answer_box: expected must be a number or a flat sequence of "
                                 "numbers (a vector)") from None
            if not vector:
                raise ValueError("answer_box: expected must have at least one component")
            if not all(math.isfinite(x) for x in vector):
                raise ValueError(f"answer_box: every component of expected must be finite, "
                                 f"got {vector!r}")
    if vector is None:
        try:
            expected = float(expected)
        except (TypeError, ValueError):
            raise ValueError("answer_box: expected must be a number or a sequence of numbers, "
                             f"got {type(expected).__name__}") from None
        if not math.isfinite(expected):
            raise ValueError(f"answer_box: expected must be finite, got {expected!r}")
    # stored numbers carry only the digits that mean something (widgets/prose.py)
    tolerance = significant(tolerance)
    if vector is None:
        expected = significant(expected)
    else:
        vector = significant(vector)
    esc = _html.escape
    if vector is None:
        uid = _stable_id("sb-ab", question, expected, tolerance, unit)
        data_expected = repr(expected)
        unit_text = f" ({unit})" if unit else ""
        input_mode, placeholder = "decimal", ""
    else:
        uid = _stable_id("sb-ab", question, tuple(vector), tolerance, unit)
        data_expected = json.dumps(vector)
        n = len(vector)
        unit_text = f" ({n} numbers, {unit})" if unit else f" ({n} numbers)"
        input_mode = "text"
        placeholder = f' placeholder="{esc(", ".join(["x"] * n))}"'
    js = (_ANSWER_JS if vector is None else _VECTOR_ANSWER_JS) % {"id": json.dumps(uid)}
    markup = (
        f'<div class="sb-answer-box" id="{uid}" role="group" aria-labelledby="{uid}-q" '
        f'data-expected="{esc(data_expected)}" data-tolerance="{tolerance!r}">\n'
        f'<p class="sb-question" id="{uid}-q">{esc(question)}</p>\n'
        f'<label for="{uid}-in">Your answer{esc(unit_text)}</label> '
        f'<input type="text" inputmode="{input_mode}" id="{uid}-in" autocomplete="off"'
        f'{placeholder}> '
        f'<button type="button" id="{uid}-check">Check</button>\n'
        f'<p class="sb-status" id="{uid}-status" role="status" aria-live="polite"></p>\n'
        f'<script>{js}</script>\n'
        f'</div>'
    )
    return HTML(markup)


# ------------------------------------------------------------ a chapter's static figure

#: the page width (CSS px) up to which a static figure shows its phone layout: a 390-px phone's
#: 330-px column, with room for a tablet held upright's narrower column
PHONE_MEDIA = "(max-width: 600px)"


def _figure_png(fig) -> bytes:
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", facecolor="white")
    return buffer.getvalue()


def _chinese_figure_table() -> dict | None:
    """The figure strings' translations (``tools/zh_strings.py figure_table``) when the
    repository's tools are beside this package (a notebook run in the repository); None
    elsewhere (JupyterLite, an installed copy): the figure is then drawn in English only."""
    import sys
    from pathlib import Path

    tools = Path(__file__).resolve().parent.parent / "tools"
    if not (tools / "zh_strings.py").is_file():
        return None
    if str(tools) not in sys.path:
        sys.path.insert(0, str(tools))
    try:
        from zh_strings import figure_table
        return figure_table() or None
    except Exception:                # no catalogue, no babel: the English figure alone
        return None


def static_figure(draw, alt: str) -> HTML:
    """A chapter's static matplotlib figure for the book: ``draw(narrow)`` returns a new
    ``Figure``, wide (the 660-px column) or for a phone (330 px wide, read at 1:1, text of
    9 pt or more); both are embedded in a ``<picture>`` that picks the phone layout on a
    narrow page (:data:`PHONE_MEDIA`).  With the Chinese catalogue at hand, the figure is drawn
    again in the Chinese edition's figure language (``widgets/figure_text.py``; its strings in
    ``tools/zh_strings.py`` ``STATIC_FIGURES``) into a second picture, hidden inline and shown
    instead of the English one on a Chinese page (``:lang(zh)``, book/_static/spatialbook.css),
    with ``alt`` translated by the same table.  Outside the book (JupyterLab) only the English
    picture shows."""
    from .figure_text import language

    def picture(cls: str, style: str, text: str) -> str:
        wide, narrow = _figure_png(draw(False)), _figure_png(draw(True))
        return (f'<picture class="{cls}"{style}>'
                f'<source media="{PHONE_MEDIA}" srcset="{_data_uri(narrow)}">'
                f'<img src="{_data_uri(wide)}" alt="{_html.escape(text)}" '
                f'style="max-width:100%;height:auto"></picture>')

    out = picture("sb-figure-en", "", alt)
    table = _chinese_figure_table()
    if table:
        with language(table) as translate:      # the alt text too (its own catalogue entry)
            out += picture("sb-figure-zh", ' style="display:none"', translate(alt))
    return HTML(out)
