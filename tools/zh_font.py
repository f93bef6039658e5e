"""The Chinese figures' font (issue 36): Noto Sans CJK SC subset to the glyphs the figure
strings' translations use that DejaVu Sans (matplotlib's font, drawn first) lacks.

The subset is committed, ``widgets/fonts/NotoSansCJKsc-figures.otf`` with its licence
(``widgets/fonts/LICENSE-OFL.txt``, the SIL Open Font License 1.1), so a machine without the font
builds both editions; live mode carries it in the ``widgets`` archive.  Made from Noto Sans
CJK SC Regular (https://github.com/notofonts/noto-cjk, ``Sans/OTC/NotoSansCJK-Regular.ttc``;
Debian and Ubuntu: the package ``fonts-noto-cjk``) with fontTools (a matplotlib dependency):

    .venv/bin/python tools/zh_font.py build     # after translating figure strings (tools/zh_strings.py)
    .venv/bin/python tools/zh_font.py check     # every glyph a Chinese figure needs is in the subset

``check`` (run by ``tools/zh_strings.py check`` too) fails when a translated figure string has a
character neither DejaVu Sans nor the subset has: the figure would show an empty box.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from widgets.figure_text import FAMILY, FONT  # noqa: E402

#: where the full font is looked for (the Debian/Ubuntu package fonts-noto-cjk, then a copy
#: named by the environment variable SB_NOTO_CJK)
SOURCES = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
           "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
           "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc")


def _dejavu_chars() -> set[int]:
    from fontTools.ttLib import TTFont
    from matplotlib import get_data_path

    with TTFont(Path(get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf") as f:
        return set(f.getBestCmap())


def needed(table: dict[str, str] | None = None) -> set[str]:
    """The characters of the figure strings' translations that DejaVu Sans lacks."""
    from zh_strings import figure_table

    table = figure_table() if table is None else table
    have = _dejavu_chars()
    return {c for text in table.values() for c in text if ord(c) not in have and not c.isspace()}


def source() -> Path:
    import os

    for p in (os.environ.get("SB_NOTO_CJK", ""), *SOURCES):
        if p and Path(p).is_file():
            return Path(p)
    raise SystemExit("zh_font: Noto Sans CJK SC not found (install fonts-noto-cjk, or set "
                     "SB_NOTO_CJK to NotoSansCJK-Regular.ttc from github.com/notofonts/noto-cjk)")


def build() -> int:
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    chars = needed()
    src = source()
    collection = TTCollection(str(src))
    font = next(f for f in collection.fonts if f["name"].getDebugName(1) == FAMILY)
    options = subset.Options()
    options.layout_features = []          # matplotlib shapes no CJK text: no GSUB/GPOS needed
    options.hinting = False
    options.desubroutinize = True
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 7, 13, 14]    # copyright, names, licence
    options.notdef_outline = True
    sub = subset.Subsetter(options)
    sub.populate(unicodes=sorted(ord(c) for c in chars))
    sub.subset(font)
    FONT.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(FONT))
    print(f"zh_font: {len(chars)} characters from {src} -> {FONT.relative_to(ROOT)} "
          f"({FONT.stat().st_size} bytes)")
    return 0


def problems() -> list[str]:
    """Characters a Chinese figure needs that the committed subset lacks."""
    from fontTools.ttLib import TTFont

    if not FONT.is_file():
        return [f"{FONT.relative_to(ROOT)} is missing: run tools/zh_font.py build"]
    with TTFont(str(FONT)) as f:
        have = set(f.getBestCmap())
    lost = sorted(c for c in needed() if ord(c) not in have)
    return ([f"the figure font lacks {len(lost)} character(s) of the figure strings "
             f"({''.join(lost[:20])}): run tools/zh_font.py build"] if lost else [])


def main(argv: list[str]) -> int:
    if argv[:1] == ["build"]:
        return build()
    if argv[:1] == ["check"]:
        found = problems()
        for p in found:
            print(p, file=sys.stderr)
        print(f"zh_font: {FONT.relative_to(ROOT)}, {FONT.stat().st_size if FONT.is_file() else 0} "
              f"bytes, {len(found)} problems")
        return 1 if found else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
