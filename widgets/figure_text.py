"""The figures' text in the Chinese edition (issue 36): what matplotlib draws (titles, axis
labels, legends, in-figure notes) translated, in a CJK font, while the figure is made.

The experiments write their figures' text in English.  :func:`language` (a context manager)
translates every text a figure is given while it is active: it wraps
``matplotlib.text.Text.set_text`` (every title, label, legend entry and annotation passes
through it, at creation and later) with a table English -> Chinese (the figure strings of
``book/locale/zh_CN/code_strings.po``: ``tools/zh_strings.py figure_table``), and makes the font
family a fallback list, DejaVu Sans first (every Latin letter, digit, Greek letter and
mathematics glyph as in the English figures) then :data:`FAMILY`, the subset of Noto Sans CJK
SC in ``widgets/fonts/`` (made by ``tools/zh_font.py``; OFL, its licence beside it).  Outside
the context nothing changes: the English frames are the same bytes whether or not this module
was used.

Used by the Chinese build's frames (``tools/zh_frames.py``) and by live mode on a Chinese page
(``widgets/live.py``, the table from the page's ``sb-strings``).

A table's key may be a *pattern* with ``{name}`` places (as in ``tools/zh_strings.py``): the
places' text is taken from the English and translated in turn.  A text with no entry stays as
it is and is counted in :data:`MISSES` (the Chinese build fails on them: tools/zh_frames.py).
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from pathlib import Path

#: the committed subset of Noto Sans CJK SC (the glyphs of the figure strings' translations)
FONT = Path(__file__).resolve().parent / "fonts" / "NotoSansCJKsc-figures.otf"
FAMILY = "Noto Sans CJK SC"
#: texts a Chinese figure was given that have no translation (English left in the picture)
MISSES: Counter = Counter()

_PLACE = re.compile(r"\{(\w+)\}")
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
_MATH = re.compile(r"\$[^$]*\$")
_WORD = re.compile(r"[A-Za-z]{2,}")
#: Latin words of three letters or more that are units or mathematics, not English
SYMBOLS = {"deg", "rad", "max", "min", "sin", "cos", "tan", "exp", "log", "sqrt", "diag", "det",
           "omega", "theta", "alpha", "tau", "phi", "psi", "demo", "lin", "ang"}
#: two-letter English words (other two-letter tokens are symbols: vx, mD, dt); also read by
#: tools/zh_strings.py.  Without them E10's axis label "x of P on y = 0 (m)" counted as no
#: English and stayed untranslated in the Chinese figure (the third review found it)
ENGLISH_2 = {"of", "in", "at", "to", "on", "is", "by", "or", "no", "up", "as", "it", "be", "an",
             "if", "we", "do", "so"}


def is_english(text: str) -> bool:
    """Whether a figure text has English words outside its mathematics and no Chinese: a word of
    three letters or more that is not a symbol or unit (:data:`SYMBOLS`), or a two-letter
    English word (:data:`ENGLISH_2`); a figure's other symbols are shorter or in ``$``."""
    if _CJK.search(text):
        return False
    words = _WORD.findall(_MATH.sub(" ", re.sub(r"\w*_\w*", " ", text)))
    return any(w not in SYMBOLS and (len(w) > 2 or w.lower() in ENGLISH_2) for w in words)


_SCRIPT = {"I": "ℐ", "F": "ℱ", "H": "ℋ", "L": "ℒ", "M": "ℳ", "B": "ℬ", "E": "ℰ", "R": "ℛ"}
_SUPER = {"T": "ᵀ", "2": "²", "3": "³", "-1": "⁻¹", "*": "*"}


def plain_math(math: str) -> str:
    """A short ``$...$`` formula as plain text (``$\\mathcal{I}_c = R_{bc}^{T}$`` ->
    ``ℐ_c = R_bcᵀ``), the way the figures write their other symbols (``v_P``, ``τ_P``).
    matplotlib's mathematics has no fallback font: a Chinese text holding a formula is drawn
    as plain text, the formula in Unicode."""
    s = math.strip("$")
    s = re.sub(r"\\mathcal\{(\w)\}", lambda m: _SCRIPT.get(m.group(1), m.group(1)), s)
    s = re.sub(r"\^\{?([^{}]+?)\}?(?=\W|$)", lambda m: _SUPER.get(m.group(1), "^" + m.group(1)), s)
    s = re.sub(r"_\{([^{}]*)\}", r"_\1", s)
    s = s.replace("\\,", " ").replace("\\;", " ")
    return re.sub(r"\\(\w+)", r"\1", s).replace("{", "").replace("}", "")


def plain_math_beside_chinese(text: str) -> str:
    """``text`` with the formulas of each line that also holds Chinese made plain
    (:func:`plain_math`); a line of formulas, units and punctuation only keeps them, and
    matplotlib typesets it (it parses each line of a text for ``$`` by itself).  A translation
    that puts its formula on a line of its own (``"惯量矩阵的元素\\n$\\mathcal{I}_c = ...$"``) gets
    the subscripts and script letters of the English figure, not ``ℐ_c = R_bcᵀ``."""
    return "\n".join(_MATH.sub(lambda m: plain_math(m.group(0)), line) if _CJK.search(line)
                     else line for line in text.split("\n"))


def compile_patterns(entries: dict[str, str]) -> list:
    """The entries with ``{name}`` places as (regex, Chinese, length of the fixed text), the
    most specific first ("{label}: {why}" only when no longer pattern fits); mathematics'
    braces (``$\\mathcal{I}_{xx}$``) are no places.  Also used by tools/zh_strings.py."""
    patterns = []
    for english, chinese in entries.items():
        names = _PLACE.findall(english)
        if names and "$" not in english and len(set(names)) == len(names):
            rx = re.escape(english)
            for name in names:
                rx = rx.replace(re.escape("{" + name + "}"), f"(?P<{name}>.+?)", 1)
            patterns.append((re.compile(rx + r"\Z", re.S), chinese, len(_PLACE.sub("", english))))
    patterns.sort(key=lambda p: -p[2])
    return patterns


class Translator:
    """English -> Chinese: plain texts and patterns with ``{name}`` places."""

    def __init__(self, table: dict[str, str]):
        self.entries = {k: v for k, v in table.items() if v}
        self.patterns = compile_patterns(self.entries)
        self.hits = 0                    # texts translated (0: the figure has no English text)

    def __call__(self, text: str) -> str:
        core = text.strip()
        if not core or not is_english(core):
            return text
        lead, trail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
        self.hits += 1
        if core in self.entries:
            chinese = self.entries[core]
            if "$" in chinese:
                chinese = plain_math_beside_chinese(chinese)
            return lead + chinese + trail
        for rx, chinese, _ in self.patterns:
            m = rx.match(core)
            if m:
                values = {k: self(v) for k, v in m.groupdict().items()}
                self.hits += 1
                return lead + _PLACE.sub(lambda p: values.get(p.group(1), ""), chinese) + trail
        self.hits -= 1
        MISSES[core] += 1
        return text


def register_font() -> bool:
    """Add :data:`FONT` to matplotlib's fonts (once); False when the file is missing."""
    from matplotlib import font_manager

    if not FONT.is_file():
        return False
    if not any(Path(f.fname) == FONT for f in font_manager.fontManager.ttflist):
        font_manager.fontManager.addfont(str(FONT))
    return True


@contextlib.contextmanager
def language(table: dict[str, str] | None):
    """While active, every figure made or changed draws its text through ``table`` (English ->
    Chinese) in DejaVu Sans with :data:`FAMILY` as the fallback for the glyphs DejaVu lacks.
    ``None`` or an empty table: nothing changes."""
    if not table:
        yield
        return
    import matplotlib
    from matplotlib.text import Text

    if not register_font():
        raise FileNotFoundError(f"figure_text: the CJK font {FONT} is missing "
                                "(make it with tools/zh_font.py build)")
    translate = Translator(table)
    original = Text.set_text

    def set_text(self, s):
        original(self, translate("" if s is None else str(s)))

    set_text.__doc__ = original.__doc__
    with matplotlib.rc_context({"font.family": ["DejaVu Sans", FAMILY]}):
        Text.set_text = set_text
        try:
            yield translate
        finally:
            Text.set_text = original


def english_texts(fig) -> list[str]:
    """The visible texts of a drawn figure still in English (a figure string not translated)."""
    from matplotlib.text import Text

    return [t.get_text() for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and is_english(t.get_text())]
