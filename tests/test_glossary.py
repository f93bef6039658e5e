"""book/glossary.md: kept in English alphabetical order by hand, each term with its Chinese name.

The glossary directive is not ``:sorted:``: Sphinx would sort the Chinese edition's translated
headings by code point, which is no order a reader knows.  The source itself is kept in the
order ``:sorted:`` gave the English page (case-folded, NFD), so both editions list the terms by
their English names.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

GLOSSARY = Path(__file__).resolve().parents[1] / "book" / "glossary.md"
CJK = re.compile(r"[\u4e00-\u9fff]")


def entries(text: str) -> list[tuple[str, list[str]]]:
    body = text.split("```{glossary}\n", 1)[1].split("\n```", 1)[0]
    out: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith(":"):
            out.append((line, []))          # a directive option: reported below
        elif line and not line.startswith(" "):
            out.append((line, []))
        elif line.strip():
            out[-1][1].append(line.strip())
    return out


def sort_key(term: str) -> str:
    return unicodedata.normalize("NFD", term.lower())


def test_glossary_is_in_english_alphabetical_order_without_the_sorted_option():
    items = entries(GLOSSARY.read_text(encoding="utf-8"))
    terms = [t for t, _ in items]
    assert not [t for t in terms if t.startswith(":")], "no directive options (:sorted: sorts " \
        "the Chinese edition by code point): keep the source in order instead"
    assert len(terms) > 50
    out_of_order = [(a, b) for a, b in zip(terms, terms[1:]) if sort_key(a) > sort_key(b)]
    assert not out_of_order, f"glossary terms out of alphabetical order: {out_of_order}"


def test_every_glossary_term_starts_with_its_chinese_name():
    missing = [t for t, lines in entries(GLOSSARY.read_text(encoding="utf-8"))
               if not lines or not CJK.match(lines[0])]
    assert not missing, f"terms whose definition does not start with the Chinese name: {missing}"


def test_the_order_check_fails_on_a_planted_swap():
    text = GLOSSARY.read_text(encoding="utf-8")
    terms = [t for t, _ in entries(text)]
    a, b = terms[0], terms[1]
    swapped = text.replace(f"\n{a}\n", "\n@@A@@\n").replace(f"\n{b}\n", f"\n{a}\n").replace("\n@@A@@\n", f"\n{b}\n")
    planted = [t for t, _ in entries(swapped)]
    assert planted[:2] == [b, a]
    assert any(sort_key(x) > sort_key(y) for x, y in zip(planted, planted[1:]))
