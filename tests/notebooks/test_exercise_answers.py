"""No exercise's answer box can be answered by copying a number the page already shows.

An answer box (``widgets.static_html.answer_box``) stores its expected value in the attribute
``data-expected`` of its ``<div class="sb-answer-box">`` (a number, or a JSON array for a vector)
and its tolerance in ``data-tolerance``.  A frame player (``widgets.static_html.frame_player``)
stores the readouts of *every* frame in its script (``var readouts = [...]``), so a reader can
reach any of them by moving its slider.  This check fails when an answer box's expected value
appears verbatim

- in the readouts of any stored frame player of the chapter, or
- in any output shown above the exercise: the text of the code cells' outputs before the box's
  cell (streams, text/plain and the visible text of text/html), and the stored results of the
  inline expressions ``{eval}`` of the markdown cells before it (the glued values the prose shows).

"Verbatim" means: some number shown reads as the expected value rounded to the decimals it
shows, and shows at least the box's precision less one decimal (``box_decimals``: a readout
"1.60" gives away 1.6031 even where the box asks for 1.603, since the reader who copies it is
left one digit to guess), with two significant digits at least.  So "-0.566" and "-0.57" both
give away -0.5657 at a tolerance of 0.01; "0.256" does not give away 0.2598, nor "0.3".  For a vector every component must match, as consecutive numbers of one text
(a readout "(-0.57, -0.57, 0.00)").  A one-number answer that is round (two significant digits
or fewer, such as 0.8, -0.6, 2.4 or 45) also turns up as unrelated readings (a probe's v_x, a
joint angle), and a match would mostly say nothing; so a round answer is checked only in a
predict-then-check exercise (its heading says "predict"), which sends the reader to the
readouts, and only against numbers shown with decimals.  For a vector the components must appear as consecutive numbers of one text (as a
readout "(-0.57, -0.57, 0.00)" shows them).  A predict-then-check exercise must therefore ask for
a value at a setting no stored frame shows, or for a derived quantity (a ratio, a sign, a
difference, a reading combined with a formula).

    .venv/bin/python -m pytest -q tests/notebooks/test_exercise_answers.py
"""

from __future__ import annotations

import html
import json
import math
import re

import nbformat
import pytest

from nbcheck import ROOT, chapter_notebooks

CHAPTERS = [p for p in chapter_notebooks() if p.exists()]

BOX = re.compile(r'<div class="sb-answer-box"[^>]*?data-expected="([^"]*)" '
                 r'data-tolerance="([^"]*)">\s*<p class="sb-question"[^>]*>([^<]*)</p>')
READOUTS = re.compile(r"var readouts = (\[.*?\]);\n", re.S)
# a shown number: an optional sign (ASCII or the minus sign U+2212), digits, decimals, exponent
NUMBER = re.compile(r"(?<![\w.])([-+\u2212]?)(\d+(?:\.\d*)?|\.\d+)(?:[eE]([-+]?\d+))?(?![\w])")
SCRIPT = re.compile(r"<script\b.*?</script>", re.S | re.I)
TAG = re.compile(r"<[^>]+>")


def _html_text(markup: str) -> str:
    """The visible text of an HTML output (scripts and tags removed, entities decoded)."""
    return html.unescape(TAG.sub(" ", SCRIPT.sub(" ", markup)))


def numbers(text: str) -> list[tuple[float, int]]:
    """(value, decimals shown) of every number in ``text``, in order.

    >>> numbers("v near (−0.57, 0.57, 0.00) m/s at 135°, 1.2e-3")
    [(-0.57, 2), (0.57, 2), (0.0, 2), (135.0, 0), (0.0012, 4)]
    """
    found = []
    for sign, body, exp in NUMBER.findall(text):
        value = float(body) * (-1.0 if sign in ("-", "\u2212") else 1.0)
        decimals = len(body.split(".")[1]) if "." in body else 0
        if exp:
            value *= 10.0 ** int(exp)
            decimals -= int(exp)
        found.append((value, decimals))
    return found


def box_decimals(tolerance: float) -> int:
    """The decimals a box's tolerance asks for: 0.01 and 0.005 -> 2, 0.002 -> 3, 0.05 -> 1."""
    if tolerance <= 0:
        return 12
    return max(0, math.ceil(-math.log10(tolerance) - 0.5))


def is_round(value: float) -> bool:
    """True for a value of at most two significant digits: 2.4, -0.6, 45, 0 (not 1.28, 0.2598)."""
    return value == 0.0 or float(f"{value:.2g}") == value


def _gives(value: float, dec: int, want: float, need: int, one: bool, round_answer: bool) -> bool:
    """Does the number ``value``, shown with ``dec`` decimals, give ``want`` away?"""
    if _at(value, dec) != _at(want, dec):
        return False
    if round_answer:                       # 0.120 gives 0.12 away; 45 (a joint angle) does not
        return dec >= max(need, 1)
    if dec >= need:                        # at the box's precision (one number: two digits)
        return not one or _digits(_at(value, dec)) >= 2
    # one decimal short: the reader has one digit to guess (one number: three digits shown)
    return dec == need - 1 and (not one or _digits(_at(value, dec)) >= 3)


def _digits(numeral: str) -> int:
    """Significant digits a numeral shows: '1.60' -> 3, '-0.57' -> 2, '0.3' -> 1."""
    return len(numeral.lstrip("+-").replace(".", "").lstrip("0"))


def _at(value: float, decimals: int) -> str:
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


def reveals(text: str, expected: list[float], tolerance: float,
            predict: bool = False) -> str | None:
    """The shown numbers of ``text`` that give ``expected`` away, or None.

    ``predict``: the box belongs to a predict-then-check exercise (round answers are checked).
    """
    need = box_decimals(tolerance)
    n = len(expected)
    round_answer = n == 1 and is_round(expected[0])
    if round_answer and not predict:
        return None
    shown = numbers(text)
    for start in range(len(shown) - n + 1):
        window = shown[start:start + n]
        if all(_gives(value, dec, want, need, n == 1, round_answer)
               for (value, dec), want in zip(window, expected)):
            return ", ".join(f"{value:.{dec}f}" for value, dec in window)
    return None


EXERCISE = re.compile(r"\*\*Exercise [^\n]*")


def exercise_heading(nb, index: int) -> str:
    """The first line of the exercise a box at cell ``index`` belongs to ("" if none)."""
    for cell in reversed(nb.cells[:index + 1]):
        if cell.cell_type == "markdown":
            found = EXERCISE.findall(cell.source)
            if found:
                return found[-1]
    return ""


def answer_boxes(nb) -> list[tuple[int, str, list[float], float]]:
    """(cell index, question, expected components, tolerance) of every answer box."""
    boxes = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            markup = out.get("data", {}).get("text/html", "")
            markup = "".join(markup) if isinstance(markup, list) else markup
            for raw, tol, question in BOX.findall(markup):
                value = json.loads(html.unescape(raw))
                expected = [float(x) for x in value] if isinstance(value, list) else [float(value)]
                boxes.append((i, html.unescape(question), expected, float(tol)))
    return boxes


def player_readouts(nb) -> list[tuple[int, str]]:
    """(cell index, visible text) of every frame of every stored frame player."""
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            markup = out.get("data", {}).get("text/html", "")
            markup = "".join(markup) if isinstance(markup, list) else markup
            if "sb-frame-player" not in markup:
                continue
            for match in READOUTS.finditer(markup):
                for readout in json.loads(match.group(1).replace("<\\/", "</")):
                    found.append((i, _html_text(readout)))
    return found


def shown_texts(cell) -> list[str]:
    """The texts a cell shows the reader: its outputs' text, or its stored {eval} results."""
    if cell.cell_type == "markdown":
        return ["".join(e.get("result", {}).get("data", {}).get("text/plain", ""))
                for e in cell.metadata.get("user_expressions", [])]
    texts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            texts.append("".join(out.get("text", "")))
            continue
        data = out.get("data", {})
        if "text/html" in data:
            markup = data["text/html"]
            texts.append(_html_text("".join(markup) if isinstance(markup, list) else markup))
        elif "text/plain" in data:       # glue records (display=False) have no plain text/plain
            plain = data["text/plain"]
            texts.append("".join(plain) if isinstance(plain, list) else plain)
    return texts


# Boxes whose match is read and judged not to give the answer away, each with the reason.  Keyed
# by (chapter file stem, question); a box whose question changes leaves this list by itself.
NOT_A_LEAK = {
    ("ch02_motion_transform", "x coordinate of the reference point P"):
        "find-the-setting: the answer is the slider position where V_P takes the asked value; "
        "finding it by stepping the player is the check",
    ("ch05_central_axis", "Where does the central axis cross the door's line (x)?"):
        "coincidence: the player's 1.00 is v_P at the default push; the exercise sets three "
        "controls the static player does not move",
    ("ch06_spatial_inertia", "Exercise 6.6 (b): the kinetic energy T"):
        "coincidence: the player's 0.480 is a |m D| entry; the exercise's omega is not the "
        "player's",
    ("ch07_spatial_acceleration", "Exercise 7.5: frame rate nu at which the reported rate doubles"):
        "find-the-setting: the answer is the frame rate whose reading is twice the nu = 0 reading",
}


def leaks(nb, stem: str = "") -> list[str]:
    """Every answer box whose expected value the chapter shows before the reader computes it."""
    problems = []
    readouts = player_readouts(nb)
    for i, question, expected, tol in answer_boxes(nb):
        if (stem, question) in NOT_A_LEAK:
            continue
        predict = "predict" in exercise_heading(nb, i).lower()
        for j, text in readouts:
            hit = reveals(text, expected, tol, predict)
            if hit:
                problems.append(f"cell {i} box {question!r}: expected {expected} is the readout "
                                f"({hit}) of the frame player in cell {j}")
                break
        for j, cell in enumerate(nb.cells[:i]):
            hit = next((h for t in shown_texts(cell) if (h := reveals(t, expected, tol, predict))),
                       None)
            if hit:
                problems.append(f"cell {i} box {question!r}: expected {expected} is shown "
                                f"({hit}) by cell {j} above the exercise")
                break
    return problems


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_no_answer_box_is_shown_above_it(path):
    nb = nbformat.read(path, as_version=4)
    assert answer_boxes(nb), (
        f"{path.name}: no answer box found: every chapter needs at least one exercise with an "
        f"answer box (see an existing chapter's exercises), or the box's markup has changed")
    problems = leaks(nb, path.stem)
    assert not problems, f"{path.relative_to(ROOT)}:\n  " + "\n  ".join(problems)


def test_every_exemption_names_a_box_that_exists():
    questions = {(p.stem, q) for p in CHAPTERS
                 for _, q, _, _ in answer_boxes(nbformat.read(p, as_version=4))}
    stale = [key for key in NOT_A_LEAK if key not in questions]
    assert not stale, f"NOT_A_LEAK lists boxes that no chapter has: {stale}"


# --- the check itself has teeth ---------------------------------------------------------------

def _notebook(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


def _output_cell(obj):
    from IPython.display import HTML  # noqa: F401  (the markup is what the widgets store)
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": obj.data,
                                                                 "text/plain": "<HTML>"})]
    return cell


def test_a_readout_that_shows_the_answer_fails_and_another_setting_passes():
    from widgets.static_html import answer_box, frame_player
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 8 + (10).to_bytes(4, "big") + b"\0" * 20
    player = frame_player([png, png], [0.0, 135.0], "angle (deg)",
                          readouts=["v near (0.00, 0.80, 0.00) m/s",
                                    "v near (\u22120.57, \u22120.57, 0.00) m/s"])
    leaked = answer_box("v near at 135 deg", [-0.5657, -0.5657, 0.0], 0.01, "m/s")
    fine = answer_box("v near at 60 deg", [-0.6928, 0.4, 0.0], 0.01, "m/s")
    ratio = answer_box("|v near| over v near's x at 135 deg", -1.4142, 0.01)
    assert leaks(_notebook(_output_cell(player), _output_cell(leaked)))
    assert not leaks(_notebook(_output_cell(player), _output_cell(fine)))
    assert not leaks(_notebook(_output_cell(player), _output_cell(ratio)))
    # a box placed before the player still fails: every frame is a slider move away
    assert leaks(_notebook(_output_cell(leaked), _output_cell(player)))


def test_a_printed_or_glued_value_above_fails_and_a_coarser_one_passes():
    from widgets.static_html import answer_box
    box = answer_box("speed?", 1.6031, 0.0005, "m/s")
    printed = nbformat.v4.new_code_cell("print(v)")
    printed.outputs = [nbformat.v4.new_output("stream", name="stdout", text="speed 1.603 m/s\n")]
    assert leaks(_notebook(printed, _output_cell(box)))
    prose = nbformat.v4.new_markdown_cell("The speed is {eval}`N('v', '.3f')` m/s.")
    prose.metadata["user_expressions"] = [{"expression": "N('v', '.3f')", "result": {
        "status": "ok", "data": {"text/plain": "1.603"}, "metadata": {}}}]
    assert leaks(_notebook(prose, _output_cell(box)))
    prose.metadata["user_expressions"][0]["result"]["data"]["text/plain"] = "1.6"
    prose.metadata["user_expressions"][0]["result"]["data"]["text/plain"] = "1.60"
    assert leaks(_notebook(prose, _output_cell(box)))           # one digit short still gives it
    prose.metadata["user_expressions"][0]["result"]["data"]["text/plain"] = "1.6"
    assert not leaks(_notebook(prose, _output_cell(box)))       # two digits short does not
    prose.metadata["user_expressions"][0]["result"]["data"]["text/plain"] = "1.6040"
    assert not leaks(_notebook(prose, _output_cell(box)))       # another number
    assert not leaks(_notebook(_output_cell(box), printed))     # shown below the box: fine


def test_a_round_one_number_answer_is_not_checked_but_a_round_vector_is():
    assert reveals("v probe (-0.60, 1.20, 0.00) m/s", [-0.6], 0.01) is None
    assert reveals("its speed 0.120 m/s", [0.12], 0.005, predict=True) == "0.120"
    assert reveals("joint angles -45, 45 deg", [45.0], 0.4, predict=True) is None
    assert reveals("v probe (-0.60, 1.20, 0.00) m/s", [-0.6, 1.2, 0.0], 0.01) == "-0.60, 1.20, 0.00"
    assert reveals("its speed 1.603 m/s", [1.60312], 0.0005) == "1.603"
    assert is_round(2.4) and is_round(45.0) and is_round(-0.6) and is_round(0.0)
    assert not is_round(-1.28) and not is_round(0.2598076211)


@pytest.mark.parametrize("tol, decimals", [(0.01, 2), (0.005, 2), (0.002, 3), (0.0005, 3),
                                           (0.05, 1), (0.4, 0)])
def test_box_decimals(tol, decimals):
    assert box_decimals(tol) == decimals
