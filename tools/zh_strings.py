"""The Chinese edition's code-drawn text (issue 36): what the widgets and the build's own scripts
write on a page, translated by one catalogue, ``book/locale/zh_CN/code_strings.po``.

The prose is translated by Sphinx's gettext catalogues (``tools/i18n.py``).  The text that code
writes is not prose: the frame players' control labels, readouts and picture descriptions, the
answer boxes' questions, labels, button and messages (``widgets/static_html.py``), the Run live
bar (``tools/live_pages.py``), the JupyterLite bar (``tools/lite_pages.py``) and live mode's
controls, readouts and status texts (``book/_live/sb_live.js``, the worker's metadata from
``widgets/live.py``).  Those are stored in the notebooks' outputs or written by the build in
English; the Chinese edition shows them in Chinese by

* rewriting, in each Chinese page (Sphinx ``html-page-context``, after live mode's and the lite
  bars are in), the text nodes and attributes (``alt``, ``aria-label``, ``title``) of every
  code-drawn block, the readouts listed in a player's script, and the English messages of the
  inline scripts (:data:`JS_MESSAGES`): :func:`translate_body`;
* giving live mode, which builds its controls and readouts in the browser from Python's
  metadata, the catalogue's entries it may need as a JSON ``<script id="sb-strings">`` in the
  page; ``sb_live.js`` translates through it when the page's ``<html lang>`` is Chinese.

A message is a plain string, or a *pattern* with ``{name}`` places (``Your answer ({n} numbers,
{unit})``): the places' text is taken from the English and translated in turn (a unit or a
number has no entry and stays as it is).  Numbers, mathematics (``v_Q``, ``ω``) and units must
survive a translation: :func:`kept_problems`.

    .venv/bin/python tools/zh_strings.py update     # after make book: the English strings, merged
    .venv/bin/python tools/zh_strings.py import done.json   # {english: chinese}
    .venv/bin/python tools/zh_strings.py check      # every string translated, its symbols kept

The built pages' check (``tools/zh_edition.py check``) fails when a Chinese page shows a
code-drawn string without Chinese text (:func:`english_in_page`).
"""

from __future__ import annotations

import ast
import html as htmllib
import json
import re
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

from i18n import CJK as _CJK     # Chinese characters, full-width punctuation

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
LANG = "zh_CN"
CATALOGUE = BOOK / "locale" / LANG / "code_strings.po"

_WORD = re.compile(r"[A-Za-z]{2,}")
#: Latin "words" that are symbols, units or names, not English (a text made of them only and of
#: numbers and mathematics needs no translation)
SYMBOLS = {
    "kg", "rad", "deg", "Hz", "mm", "cm", "ms", "Nm", "MB", "px",
    "omega", "theta", "alpha", "tau", "phi", "psi", "dt", "lin", "ang", "demo", "max", "min",
    "sin", "cos", "tan", "exp", "log", "sqrt", "diag", "det", "tr", "mD", "km",
    "Pyodide", "JupyterLite", "JupyterLab", "Python", "MuJoCo", "Pinocchio", "Franka", "Panda",
    "numpy", "matplotlib", "http", "make", "serve", "lab", "mujoco", "pinocchio",
    "modern_robotics", "robotics", "modern", "ipynb", "chapters",
}



def _figure_text():
    """widgets/figure_text.py loaded by itself (no matplotlib, not the whole widgets package,
    whose import takes seconds: this module is imported by the build's extensions and tests)."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "widgets" / "figure_text.py"
    spec = importlib.util.spec_from_file_location("sb_figure_text_words", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: two-letter English words (other two-letter tokens are symbols: vx, py, mD): one list, the
#: figures' (widgets/figure_text.py)
_FIGURE_TEXT = _figure_text()
ENGLISH_2 = _FIGURE_TEXT.ENGLISH_2

#: the classes of the blocks that code draws into a page
REGIONS = ("sb-frame-player", "sb-answer-box", "sb-live-bar", "sb-lite-bar", "sb-live-note")
_ATTRS = ("alt", "aria-label", "title")
_PLACE = re.compile(r"\{(\w+)\}")

# The English messages the pages' inline scripts assemble: (pattern, quote, JavaScript of each
# place).  The English script holds the pattern with its places filled by those expressions
# (``tests/book/test_zh_strings.py`` finds each in its source); the Chinese page gets the
# translation's.  ``{s}`` is English's plural ending, dropped by a translation.
JS_MESSAGES = (
    ("Please type a number.", '"', {}),
    ("Right! {answer} is within {tolerance} of the answer.", '"',
     {"answer": "text", "tolerance": 'root.getAttribute("data-tolerance")'}),
    ("Not quite: {answer} is off by more than {tolerance}. Try again.", '"',
     {"answer": "text", "tolerance": 'root.getAttribute("data-tolerance")'}),
    ("Please type {n} numbers separated by commas or spaces.", '"', {"n": "expected.length"}),
    ("Right! Every component of ({answer}) is within {tolerance} of the answer.", '"',
     {"answer": 'xs.join(", ")', "tolerance": "tolText"}),
    ("Not quite: component{s}{components} off by more than {tolerance}. Try again.", '"',
     {"s": '(off.length > 1 ? "s " : " ")', "components": 'off.join(", ")',
      "tolerance": "tolText"}),
    # the Run live button's click before the adapter has loaded (tools/live_pages.py)
    ("Starting…", "'", {}),
    ("loading the live adapter…", "'", {}),
    ("Live mode unavailable", "'", {}),
    # opened from a file (tools/live_pages.py, tools/lite_pages.py: JSON strings)
    ("Live mode needs the book served over http (make serve); opened from a file, the frames "
     "below work", '"', {}),
    ("Editing in the browser needs the book served over http (make serve)", '"', {}),
    ("Delete your edited copy of {path} kept in this browser, and open the book\\'s version "
     "next time?", "'", {"path": "path"}),
    ("Restored", "'", {}),
)


def js_parts(pattern: str, quote: str, places: dict[str, str]) -> list[str]:
    """The JavaScript pieces that build ``pattern``: its text as string literals, its places as
    the expressions ``places`` gives (joined by ``+`` in the script)."""
    parts, pos = [], 0
    for m in _PLACE.finditer(pattern):
        if m.start() > pos:
            parts.append(quote + pattern[pos:m.start()] + quote)
        parts.append(places[m.group(1)])
        pos = m.end()
    if pos < len(pattern):
        parts.append(quote + pattern[pos:] + quote)
    return parts


def js_regex(pattern: str, quote: str, places: dict[str, str]) -> re.Pattern:
    """The English message's JavaScript as it may be written: pieces joined by ``+`` with any
    white space (a line break too) around it."""
    return re.compile(r"\s*\+\s*".join(re.escape(p) for p in js_parts(pattern, quote, places)))


# ---------------------------------------------------------------- the catalogue


def needs_translation(text: str) -> bool:
    """Whether a code-drawn text has English words in it (and no Chinese)."""
    if _CJK.search(text):
        return False
    words = _WORD.findall(re.sub(r"\w*_\w*", " ", text))
    return any(w not in SYMBOLS and (len(w) > 2 or w.lower() in ENGLISH_2) for w in words)


class Catalogue:
    """English -> Chinese: plain messages and patterns with ``{name}`` places."""

    def __init__(self, entries: dict[str, str], tags: dict[str, set] | None = None):
        self.entries = {k: v for k, v in entries.items() if v}
        self.tags = tags or {}
        self.patterns = _FIGURE_TEXT.compile_patterns(self.entries)   # the figures' own rule
        self.misses: Counter = Counter()

    def translate(self, text: str) -> str:
        """``text`` in Chinese (its surrounding white space kept); unknown text as it is."""
        core = text.strip()
        if not core or not needs_translation(core):
            return text
        lead, trail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
        if core in self.entries:
            return lead + self.entries[core] + trail
        for rx, chinese, _ in self.patterns:
            m = rx.match(core)
            if m:
                values = {k: self.translate(v) for k, v in m.groupdict().items()}
                return lead + _PLACE.sub(lambda p: values.get(p.group(1), ""), chinese) + trail
        self.misses[core] += 1
        return text

    def for_pages(self, names: set[str]) -> dict:
        """The entries live mode may need on a page with the experiments ``names``: the live
        texts, the patterns and those experiments' own (``tags``)."""
        want = names | {"live"}
        return {k: v for k, v in self.entries.items()
                if _PLACE.search(k) or not self.tags.get(k) or self.tags[k] & want}


def load(path: Path = CATALOGUE) -> tuple[dict[str, str], dict[str, set], dict[str, bool]]:
    """(English -> Chinese, English -> tags, English -> fuzzy) of the catalogue."""
    import i18n

    entries, tags, fuzzy = {}, {}, {}
    if not path.is_file():
        return entries, tags, fuzzy
    for m in i18n.load(path):
        if not m.id:
            continue
        entries[m.id] = m.string if not m.fuzzy else ""
        fuzzy[m.id] = m.fuzzy
        tags[m.id] = used_by(m.auto_comments)
    return entries, tags, fuzzy


def used_by(comments: list[str]) -> set[str]:
    """The tags of a message's "used by: a, b, ..." comment, written as one line and read back
    as the lines the .po writer wrapped it into (a long list continues on the next comments).

    >>> sorted(used_by(["used by: bifold_door, figure, newton_euler,", "power_split, probes"]))
    ['bifold_door', 'figure', 'newton_euler', 'power_split', 'probes']
    """
    text = " ".join(c.strip() for c in comments)
    if "used by: " not in text:
        return set()
    return {t for t in re.split(r"[,\s]+", text.split("used by: ", 1)[1]) if t}


def catalogue(path: Path = CATALOGUE) -> Catalogue:
    entries, tags, _ = load(path)
    return Catalogue(entries, tags)


# ---------------------------------------------------------------- a page's code-drawn blocks

_TOKEN = re.compile(r"(<!--.*?-->|<script\b[^>]*>.*?</script>|<style\b[^>]*>.*?</style>|<[^>]+>)",
                    re.S)
_OPEN_REGION = re.compile(r'<div\b[^>]*\bclass="(?:[^"]*\s)?(?:%s)(?:\s[^"]*)?"' %
                          "|".join(REGIONS))
_READOUTS = re.compile(r"(var readouts = )(\[.*?\]);\n")
_ATTR = re.compile(r'(\s(%s)=")([^"]*)(")' % "|".join(_ATTRS))


def _js_list(items: list[str]) -> str:
    # as widgets/static_html.py writes a player's lists
    return json.dumps(list(items), ensure_ascii=True).replace("</", "<\\/")


def js_replacements(cat: Catalogue) -> list[tuple[re.Pattern, str]]:
    """(English JavaScript, Chinese JavaScript) of each inline script message translated."""
    out = []
    for pattern, quote, places in JS_MESSAGES:
        chinese = cat.entries.get(pattern.replace("\\'", "'"))
        if not chinese:
            continue
        chinese = chinese.replace("'", "\\'") if quote == "'" else chinese.replace('"', '\\"')
        zh_places = {k: v for k, v in places.items() if "{" + k + "}" in chinese}
        out.append((js_regex(pattern, quote, places),
                    " + ".join(js_parts(chinese, quote, zh_places))))
    # the longest first: a message containing another is replaced whole
    return sorted(out, key=lambda p: -len(p[0].pattern))


def _walk(body: str, on_text, on_tag, on_script) -> str:
    """``body`` with the text nodes, tags and scripts *inside code-drawn blocks* passed through
    the three functions (the rest of the page as it is)."""
    out, depth = [], 0           # depth: open <div>s since the block's own <div>
    for piece in _TOKEN.split(body):
        if not piece:
            continue
        if piece.startswith("<"):
            if depth == 0 and _OPEN_REGION.match(piece):
                depth = 1
                out.append(on_tag(piece))
                continue
            if depth:
                if piece.startswith("<script"):
                    out.append(on_script(piece))
                    continue
                if re.match(r"<div\b", piece):
                    depth += 1
                elif piece.startswith("</div"):
                    depth -= 1
                out.append(on_tag(piece) if not piece.startswith("</") else piece)
            else:
                out.append(piece)
        else:
            out.append(on_text(piece) if depth else piece)
    return "".join(out)


def translate_html(fragment: str, cat: Catalogue) -> str:
    """A fragment of HTML (a readout table) with every text node translated."""
    return "".join(p if p.startswith("<") else _text(p, cat)
                   for p in _TOKEN.split(fragment) if p)


def _text(piece: str, cat: Catalogue) -> str:
    raw = htmllib.unescape(piece)
    new = cat.translate(raw)
    return piece if new == raw else htmllib.escape(new, quote=False)


def translate_body(body: str, cat: Catalogue) -> str:
    """A Chinese page's body with its code-drawn text in Chinese."""
    replacements = js_replacements(cat)

    def tag(piece: str) -> str:
        piece = _ATTR.sub(lambda m: m.group(1) + htmllib.escape(
            cat.translate(htmllib.unescape(m.group(3)))) + m.group(4), piece)
        if " onclick=" in piece:          # the Run live button's click
            for en, zh in replacements:
                piece = en.sub(lambda m: zh, piece)
        return piece

    def script(piece: str) -> str:
        if piece.startswith('<script type="application/json"'):
            return piece
        piece = _READOUTS.sub(lambda m: m.group(1) + _js_list(
            [translate_html(r, cat) for r in json.loads(m.group(2))]) + ";\n", piece)
        for en, zh in replacements:
            piece = en.sub(lambda m: zh, piece)
        return piece

    return _walk(body, lambda t: _text(t, cat), tag, script)


def live_strings(body: str, cat: Catalogue) -> str:
    """The JSON script live mode translates through (a page with Run live buttons), or ""."""
    names = set(re.findall(r'data-sb-experiment="([\w-]+)"', body))
    if not names:
        return ""
    table = {"lang": "zh-CN", "strings": cat.for_pages(names),
             # what the page's figures draw: live mode's Python draws it in Chinese
             # (widgets/figure_text.py; book/_live/sb_live.js passes it with "create")
             "figures": {k: v for k, v in cat.entries.items()
                         if FIGURE in cat.tags.get(k, ()) and cat.tags[k] & names}}
    text = json.dumps(table, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    return f'<script type="application/json" id="sb-strings">{text}</script>\n'


# ---------------------------------------------------------------- what a page shows


def _js_literals(script: str) -> list[str]:
    return [a or b for a, b in re.findall(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'', script)]


#: English strings of the inline scripts that a reader never sees (an error for the console, a
#: browser database's name)
NOT_SHOWN = {"the worker failed", "JupyterLite Storage"}


def _message_like(literal: str) -> bool:
    """A JavaScript string that reads as an English message (two words or more, spaces)."""
    return (literal not in NOT_SHOWN and not _CJK.search(literal) and len(re.findall(r"\b[A-Za-z]{2,}\b", literal)) >= 2
            and " " in literal.strip() and not re.search(r"[=(){};<>\[\]]|\.\w+\(|^\s*$", literal)
            and needs_translation(literal))


def shown_strings(body: str) -> list[tuple[str, str]]:
    """(where, text) of every code-drawn string of a page: text nodes, the attributes read
    aloud or shown, the readouts listed in players' scripts, the messages of inline scripts."""
    found: list[tuple[str, str]] = []

    def text(t: str) -> str:
        t = htmllib.unescape(t).strip()
        if t:
            found.append(("text", t))
        return t

    def tag(piece: str) -> str:
        for m in _ATTR.finditer(piece):
            found.append((m.group(2), htmllib.unescape(m.group(3))))
        for m in re.finditer(r'\sonclick="([^"]*)"', piece):
            click = htmllib.unescape(m.group(1))
            found.extend(("script", s) for s in _js_literals(click) if _message_like(s))
            found.extend(("script", p) for p, q, places in JS_MESSAGES
                         if js_regex(p, q, places).search(click))
        return piece

    def script(piece: str) -> str:
        if piece.startswith('<script type="application/json"'):
            return piece
        for m in _READOUTS.finditer(piece):
            for r in json.loads(m.group(2)):
                found.extend(("readout", htmllib.unescape(p).strip()) for p in _TOKEN.split(r)
                             if p.strip() and not p.startswith("<"))
        rest = _READOUTS.sub("", piece)
        found.extend(("script", s) for s in _js_literals(rest) if _message_like(s))
        found.extend(("script", p.replace("\\'", "'")) for p, q, places in JS_MESSAGES
                     if js_regex(p, q, places).search(rest))      # one-word ones too
        return piece

    _walk(body, text, tag, script)
    return found


def english_run(text: str) -> bool:
    """Whether ``text`` has two English words in a row (a translation's place filled with
    untranslated English: "实验在不同 a planted label 下的...")."""
    for run in re.finditer(r"[A-Za-z']+(?:[ ,]+[A-Za-z']+)+", text):
        words = [w for w in re.findall(r"[A-Za-z']+", run.group(0)) if needs_translation(w)]
        if len(words) >= 2:
            return True
    return False


def english_in_page(page: str, body: str) -> list[str]:
    """The check of a Chinese page: each code-drawn string with English words and no Chinese,
    or with two English words in a row beside its Chinese."""
    out, seen = [], set()
    for where, t in shown_strings(body):
        if (needs_translation(t) or english_run(t)) and (where, t) not in seen:
            seen.add((where, t))
            out.append(f"{page}: code-drawn {where} in English: {t[:80]!r}")
    return out


# ---------------------------------------------------------------- the strings' sources


def _experiment_strings() -> dict[str, set]:
    """Each registered experiment's own texts (title, alt text, control labels, hints, choice
    options, readout labels, the reasons a control is off), from its class: live mode shows
    them at any setting, not only at the frames' ones."""
    sys.path.insert(0, str(ROOT))
    from widgets import EXPERIMENTS

    out: dict[str, set] = {}

    def add(text, name):
        if isinstance(text, str) and needs_translation(text):
            out.setdefault(text.strip(), set()).add(name)

    for name, cls in EXPERIMENTS.items():
        add(cls.title, name)
        add(getattr(cls, "alt", ""), name)
        for c in cls.CONTROLS:
            add(getattr(c, "label", ""), name)
            add(getattr(c, "hint", ""), name)
            for o in getattr(c, "options", ()) or ():
                add(o, name)
        for row in getattr(cls, "READOUTS", ()):
            add(row[0], name)
        # the experiment's own ``inactive`` (kept as ``_inactive_of`` behind the checked
        # ``inactive`` that widgets.experiment.Experiment.__init_subclass__ puts in its place)
        own = cls.__dict__.get("_inactive_of")
        if own is not None:
            import inspect
            import textwrap

            tree = ast.parse(textwrap.dedent(inspect.getsource(own)))
            for node in ast.walk(tree):
                if isinstance(node, ast.Dict):
                    for v in node.values:
                        if isinstance(v, ast.Constant):
                            add(v.value, name)
    return out


#: live mode's own texts (book/_live/sb_live.js: the ``tr(...)`` calls), patterns included
LIVE = (
    "Run live", "Starting…", "● Live", "Live: {title}", "▶ Play {label}", "❚❚ Pause {label}",
    "Live: every control runs the book's Python in your browser",
    "every control runs the book's Python in your browser",
    "Live mode failed to start (the frames still work)",
    "Live mode needs the book served over http (make serve); opened from a file, the frames "
    "below work",
    "downloading {loaded} of {total} MB", "downloading {loaded} MB", "downloaded {loaded} MB",
    "{step}…", "{step}: {detail}…", "starting Python", "unpacking numpy and matplotlib",
    "importing the experiments", "drawing",
    "Stop starting Python on the book's pages by itself", "don't start by itself",
    "Python will start only when you click Run live",
    "Python is starting in the background (you ran live mode before in this browser)",
    "Python is ready: Run live starts at once",
    "{label}: {why}", "{title} readouts",
)

#: the answer boxes', players' and the live and lite bars' fixed texts, patterns included
STATIC = (
    "Your answer", "Your answer ({unit})", "Your answer ({n} numbers, {unit})",
    "Your answer ({n} numbers)", "Check", "Precomputed picture of the experiment for {label}",
    "every control runs the book's Python in your browser; the first start downloads {mb} MB, "
    "later pages start from the browser's cache",
    "This chapter's code imports {packages}, which does not run in the browser: edit and run "
    "it in JupyterLab (",
    "This chapter's code imports {packages}, which do not run in the browser: edit and run it "
    "in JupyterLab (",
    "); the experiments on this page still run live.",
    # a build whose live mode could not be staged (tools/live_pages.py _NOTE)
    "Live mode is not available in this build (the Pyodide distribution could not be fetched "
    "when the book was built); the precomputed frames below work without it.",
    # players whose readout is one line of text (ch02's probe sweep, E5's readout_text)
    "reference point P = {P} m: V_P = [ω; v_P] = {omega} rad/s; {v} m/s",
    "{path} probe: dv_P/dt = {a}, ω×u = {b}, (A_P)_lin = {c}, d(v_P^c)/dt = {d} m/s²",
    # E11's line under its H table (widgets/arm.py)
    "entries to 0.01; least diagonal entry {entry} = {d}, least eigenvalue {lam} (kg m²)",
)


#: the chapters' static figures' texts (``widgets.static_html.static_figure``: drawn by a
#: notebook's cell, wide and for a phone, and again in Chinese), patterns included: a figure
#: string of its chapter's page
STATIC_FIGURES = {
    "ch05_central_axis": (
        "general wrench,\np = {p} m\nmin |τ| = {least} N m",
        "same f and axis, p = 0\n(a single force)\nmin |τ| = {least} N m",
        "u along e_x (m)", "w along f̂ × e_x (m)",
        "Two colour maps of the size of the torque over the plane through P perpendicular to the "
        "force. First, the general wrench: circular contours around the point where the central "
        "axis crosses the plane, with a non-zero minimum there. Second, the same force along the "
        "same axis without the parallel torque: the same circles, with minimum zero on the axis.",
    ),
    "ch11_chain_dynamics": (
        "q1 (wall hinge)", "q2 (middle hinge)", "joint angle (deg)",
        "released from rest,\nhinge line {beta} deg out of plumb",
        "energy error of the integrator",
        "The two joint angles of the bifold door, hinge line {beta} degrees out of plumb, over "
        "{duration} seconds after release from rest; and the change of its total energy for RK4 "
        "steps of 10 and 5 ms, at most {e10} and {e5} joules.",
    ),
    "ch14_robot_moves": (
        "lines: library + Euler;\ncircles: MuJoCo mj_step", "largest |q - q_MuJoCo| (rad)",
        "difference from MuJoCo (round-off)",
        "The Panda's seven joint angles over {duration} s of limp fall from the ready pose, the "
        "library's semi-implicit Euler as lines and MuJoCo's mj_step as circles on them; and the "
        "largest difference between the two, on a logarithmic axis, growing from round-off to "
        "about {gap} rad.",
        "Euler, h = {h} ms", "energy error of each integrator", "RK4 alone, h = {h} ms",
        "The change of the falling Panda's energy T + U over {duration} s for semi-implicit "
        "Euler with steps of {h} and {h4} ms and for RK4 with {hr} ms steps: at most {eu}, {eu4} "
        "and {rk} joules; and the RK4 curve alone, in microjoules.",
        "left hip pitch", "torso tilt", "angle (deg)", "the kick (shaded) and the torso",
        "centre of mass", "torso origin", "in space: side view,\ndots every 0.25 s",
        "Euler: l_G", "Euler: M v_G", "departure\n(kg m^2/s; kg m/s)",
        "falling: what the integrator breaks",
        "The biped's left hip-pitch angle and its torso's tilt from the vertical over {duration} "
        "s: the hips kick during the first {kick} s and the torso tilts the other way. With no "
        "gravity, a side view of the path of the centre of mass, a straight line travelled at "
        "constant speed, and of the torso origin, which bends away from it. On a logarithmic "
        "axis, how far the angular momentum about the centre of mass and the linear momentum "
        "depart from the conservation law, for semi-implicit Euler and for RK4 with {step} ms "
        "steps.",
    ),
    "ch13_articulated_body": (
        "sb.forward_dynamics: method='aba' against method='crba'",
        "sb.forward_dynamics:\nmethod='aba' against method='crba'",
        "number of bodies n (unbranched chain of hinges)",
        "number of bodies n\n(unbranched chain of hinges)",
        "CPU time of forward dynamics (ms)",
        "ABA, one state per call", "CRBA + solve, one state per call",
        "ABA, per state in batches of {n}", "CRBA + solve, per state in batches of {n}",
        # the figure's alt text (static_html.static_figure translates it with the figure)
        "CPU time of sb.forward_dynamics against the number of bodies of a random chain, "
        "log-log axes: the ABA and the CRBA plus a solve, for one state per call and per state "
        "in batches of {batch} states, chains of {first} to {last} bodies.",
    ),
}

#: the tag of the figure strings (what matplotlib draws: ``widgets/figure_text.py``) in the
#: catalogue's "used by" comments, beside the experiments that draw them
FIGURE = "figure"


def figure_strings() -> dict[str, set]:
    """Every English text the experiments' figures are given (titles, axis labels, legends,
    notes) -> the experiments: each drawn wide and narrow, each control swept (a few values;
    every other control at its default), recording what ``Text.set_text`` receives.  The phone
    layout's line breaks of an English text are left out (a Chinese figure is translated
    before it is broken)."""
    sys.path.insert(0, str(ROOT))
    import matplotlib.text as mtext

    from widgets import EXPERIMENTS
    from widgets.figure_text import is_english

    out: dict[str, set] = {}
    current = [""]
    original = mtext.Text.set_text

    def record(self, s):
        text = "" if s is None else str(s)
        if is_english(text.strip()) and sys._getframe(1).f_code.co_name != "_wrap_wide_text":
            out.setdefault(text.strip(), set()).update({current[0], FIGURE})
        return original(self, s)

    mtext.Text.set_text = record
    try:
        for name, cls in EXPERIMENTS.items():
            current[0] = name
            for narrow in (False, True):
                exp = cls(narrow=narrow)
                try:
                    for c in cls.CONTROLS:
                        values = list(exp.sweep_values(c.name))
                        for v in values[::max(1, len(values) // 4)]:
                            exp._set({c.name: v}, live=False)
                finally:
                    exp.close()
    finally:
        mtext.Text.set_text = original
    return out


def figure_table(path: Path = CATALOGUE, experiment: str | None = None) -> dict[str, str]:
    """The figure strings' translations (English -> Chinese), for ``widgets.figure_text``;
    ``experiment``: only those its figures use (the Chinese frames' cache key)."""
    entries, tags, _ = load(path)
    return {k: v for k, v in entries.items() if v and FIGURE in tags.get(k, ())
            and (experiment is None or experiment in tags[k])}


def sources(html_dir: Path) -> dict[str, set]:
    """Every English code-drawn string -> where it is used (chapter pages, experiments, live)."""
    out: dict[str, set] = {}
    for text in STATIC:
        out.setdefault(text, set()).add("static")
    for text in LIVE:
        out.setdefault(text, set()).add("live")
    for pattern, _, _ in JS_MESSAGES:
        out.setdefault(pattern.replace("\\'", "'"), set()).add("static")
    for text, names in _experiment_strings().items():
        out.setdefault(text, set()).update(names)
    for text, names in figure_strings().items():
        out.setdefault(text, set()).update(names)
    for page, texts in STATIC_FIGURES.items():
        for text in texts:
            out.setdefault(text, set()).update({page, FIGURE})
    probe = Catalogue({k: "x" for k in STATIC if _PLACE.search(k)})
    for page in sorted(html_dir.glob("**/*.html")):
        rel = page.relative_to(html_dir)
        if rel.parts[0] in ("zh", "lite", "_static", "_live", "mathjax"):
            continue
        for where, text in shown_strings(page.read_text(encoding="utf-8")):
            if not needs_translation(text) or where == "script":
                continue
            if text in out or probe.translate(text) != text:
                continue      # a pattern's instance: its places are looked up in turn
            out.setdefault(text, set()).add(rel.stem)
    return out


def update(html_dir: Path) -> int:
    """Merge the English build's strings into the catalogue: new ones empty, gone ones dropped,
    kept ones keep their translation."""
    import i18n
    from babel.messages.catalog import Catalog

    if not (html_dir / "index.html").is_file() or not any(html_dir.glob("chapters/*.html")):
        # the strings are read off the built pages: without them every page-only string (an
        # answer box's question, a player's label) would be dropped with its translation
        print(f"zh_strings: no built book in {html_dir}: run `make book` first (update reads "
              f"the strings off the built pages; the catalogue is left as it is)", file=sys.stderr)
        return 2
    entries, _, fuzzy = load()
    found = sources(html_dir)
    cat = Catalog(locale=LANG, project="spatialbook code strings", fuzzy=False)
    if CATALOGUE.is_file():                       # no churn in the header of an unchanged file
        cat.creation_date = i18n.load(CATALOGUE).creation_date
    for text in sorted(found, key=lambda t: (sorted(found[t])[0], t)):
        cat.add(text, entries.get(text, ""),
                auto_comments=["used by: " + ", ".join(sorted(found[text]))],
                flags=("fuzzy",) if fuzzy.get(text) else ())
    i18n.save(cat, CATALOGUE)
    todo = sum(1 for t in found if not entries.get(t))
    print(f"zh_strings: {len(found)} code strings, {todo} to translate, "
          f"{len(set(entries) - set(found))} dropped")
    return 0


def import_(src: Path) -> int:
    """Store translations (a JSON object ``{english: chinese}``) that keep their source's
    numbers, symbols and places; refuse the others."""
    import i18n

    data = json.loads(src.read_text(encoding="utf-8"))
    cat = i18n.load(CATALOGUE)
    done, bad = 0, []
    for english, chinese in data.items():
        m = cat.get(english)
        if m is None:
            continue
        problems = kept_problems(english, chinese)
        if problems:
            bad.append(f"{english[:60]!r}: {'; '.join(problems)}")
            continue
        m.string, done = chinese, done + 1
        m.flags.discard("fuzzy")
    i18n.save(cat, CATALOGUE)
    print(f"zh_strings: {done} translations stored")
    for b in bad:
        print(f"  refused: {b}", file=sys.stderr)
    return 1 if bad else 0


# ---------------------------------------------------------------- the catalogue's check

_KEPT = re.compile(
    r"\{\w+\}"                                   # a pattern's place
    r"|-?\d+(?:\.\d+)?"                          # a number
    r"|[A-Za-z]\w*_\w+"                          # a subscripted symbol: v_Q, tau_P
    r"|[\u0370-\u03ff\u1f00-\u1fff]"                # Greek: ω, θ
    r"|(?<![A-Za-z'’])(?![aAI](?![A-Za-z]))[A-Za-z](?![A-Za-z])"  # one-letter symbols (not a, A, I, 's)
    r"|[A-Za-z²³]+(?:/[A-Za-z²³]+)+"             # units: m/s, rad/s²
)


def kept_parts(text: str) -> Counter:
    """What a translation must keep of an English code string: places, numbers, symbols."""
    kept = Counter(_KEPT.findall(text))
    kept.pop("{s}", None)                         # English's plural ending
    return kept


def kept_problems(english: str, chinese: str) -> list[str]:
    want, got = kept_parts(english), kept_parts(chinese)
    return [f"lost {k!r}" for k in want - got] + [f"added {k!r}" for k in got - want
                                                   if k.startswith("{")]


def check(path: Path = CATALOGUE) -> list[str]:
    entries, _, fuzzy = load(path)
    problems = []
    if not entries:
        problems.append(f"{path}: no code strings (run tools/zh_strings.py update)")
    for english, chinese in entries.items():
        if not chinese:
            why = "changed since translated" if fuzzy.get(english) else "not translated"
            problems.append(f"code string {why}: {english[:70]!r}")
            continue
        if not _CJK.search(chinese) and needs_translation(_PLACE.sub(" ", english)):
            problems.append(f"code string without Chinese: {english[:50]!r} -> {chinese[:50]!r}")
        for p in kept_problems(english, chinese):
            problems.append(f"code string {english[:50]!r}: {p} in {chinese[:50]!r}")
    if path == CATALOGUE:              # the figures' font has every glyph they need
        from zh_font import problems as font_problems

        problems += font_problems()
    return problems


# ---------------------------------------------------------------- Sphinx: the Chinese pages


def _page_context(app, pagename, templatename, context, doctree) -> None:
    from sb_editions import edition

    body = context.get("body")
    if edition(app.config) != "zh" or not body or not _OPEN_REGION.search(body):
        return
    cat = app.sb_code_strings
    context["body"] = translate_body(body, cat) + live_strings(body, cat)


def _config_inited(app, config) -> None:
    app.sb_code_strings = catalogue(Path(app.srcdir) / "locale" / LANG / "code_strings.po")


def _quiet_jieba() -> None:
    """jieba (Sphinx's Chinese search splitter) logs its dictionary's loading on stderr at DEBUG
    level: a build's output is for problems."""
    try:
        import logging

        import jieba
    except ImportError:            # the search check (tools/zh_edition.py) says what is missing
        return
    jieba.setLogLevel(logging.WARNING)


def setup(app):
    _quiet_jieba()
    app.connect("config-inited", _config_inited)
    # after live mode's bars (tools/live_stage.py) and the lite bars (tools/lite_pages.py)
    app.connect("html-page-context", _page_context, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


def main(argv: list[str]) -> int:
    html_dir = BOOK / "_build" / "html"
    if argv[:1] == ["update"]:
        return update(html_dir)
    if argv[:1] == ["import"] and len(argv) == 2:
        return import_(Path(argv[1]))
    if argv[:1] == ["check"]:
        problems = check()
        for p in problems:
            print(p, file=sys.stderr)
        entries, _, _ = load()
        print(f"zh_strings: {len(entries)} code strings, {sum(1 for v in entries.values() if v)} "
              f"translated, {len(problems)} problems")
        return 1 if problems else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tools"))
    raise SystemExit(main(sys.argv[1:]))
