"""The Chinese edition's translation catalogues (issue 36): make, fill and check them.

The English notebooks and pages are the only source.  Sphinx's gettext builder cuts every page
into messages (a paragraph, a heading, a list item, an admonition's title...) in the MyST source
form, ``{eval}`` roles, math and cross-references included; each page's Chinese text is a
catalogue ``book/locale/zh_CN/LC_MESSAGES/<page>.po`` of those messages, which the Chinese build
(``language = "zh_CN"``) puts in place of the English.  Code cells, stored outputs and glued
numbers are never copied: a translated paragraph keeps the same ``{eval}`` expressions, which
render the same stored result in both editions.

    .venv/bin/python tools/i18n.py update          # English changed: re-cut the messages, merge
    .venv/bin/python tools/i18n.py export chapters/ch01_velocity_field todo.json
    .venv/bin/python tools/i18n.py import chapters/ch01_velocity_field done.json
    .venv/bin/python tools/i18n.py check [--allow-missing] [page ...]

``update`` marks a message whose English changed *fuzzy* (the old English kept as ``#| msgid``
for the translator) and drops messages that no longer exist: a fuzzy or empty message is a
missing translation to ``check``.  ``export`` writes the page's missing and fuzzy messages as a
JSON list of ``{"id", "str", "previous"}``; ``import`` reads a JSON object ``{english: chinese}``
(or such a list with "str" filled in) and stores them as finished translations.  ``check``
fails when a message has no translation (unless ``--allow-missing``), when a translation
loses or changes a part of its source that must survive translation (:func:`kept_parts`), and
when a message quotes a label the page shows in Chinese (a control's, a readout's, a button's,
from ``code_strings.po``) while its translation does not name that Chinese label
(:func:`quoted_labels_missing`).

The text that code draws on a page (answer boxes, frame players, live mode, the live and lite
bars) is not in these catalogues: ``tools/zh_strings.py`` and ``book/locale/zh_CN/code_strings.po``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
LANG = "zh_CN"
LOCALE = BOOK / "locale" / LANG / "LC_MESSAGES"

# What a translation must keep, as it is in the English message.
_ROLE = re.compile(r"\{(\w[\w:-]*)\}`([^`]*)`")
_MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+?)\$", re.S)
_CODE = re.compile(r"(?<![`}])``?([^`]+?)``?(?!`)")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
#: a ``\text{...}`` group inside math (no nested braces)
_TEXT = re.compile(r"\\text\{([^{}]*)\}")
#: Chinese characters and full-width punctuation (also tools/zh_strings.py's and zh_edition.py's)
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
#: one-word ``\text`` groups that are prose, not a symbol's name
PROSE_WORDS = {"and", "or", "unchanged", "coupling", "quaternion", "subtree", "angular", "linear",
               "locked", "limp"}


def _prose_text(body: str) -> bool:
    """A ``\text{}`` body a translation may put in Chinese: words of a sentence inside a formula
    (``that is``, ``for every``, ``rotation about``, ``motion:``), not a symbol's name
    (``old``, ``lin``, ``ext``, ``body COM``: one word, or a name with digits like ``(MR 8.22)``),
    or a body already in Chinese."""
    if CJK.search(body):
        return True
    b = body.strip()
    return (bool(re.search(r"[A-Za-z]{2,}", b)) and not re.search(r"\d", b)
            and (" " in b or b.endswith(":") or b.strip("()") in PROSE_WORDS)
            and b not in ("body COM", "subtree com"))


def math_key(math: str) -> str:
    """A formula as a translation must keep it: with its prose ``\text{}`` groups left out
    (:func:`_prose_text`), so that a translation may put those words in Chinese, add or merge
    such groups, while every symbol, subscript name (``\text{old}``) and operator stays."""
    out = _TEXT.sub(lambda m: "" if _prose_text(m.group(1)) else m.group(0), math)
    return re.sub(r"\s+", "", out)
_LABEL = re.compile(r"^\(([\w:-]+)\)=", re.M)
_TARGET = re.compile(r"<([^<>]+)>\s*$")


def kept_parts(message: str) -> Counter:
    """The parts of a message a translation must keep unchanged, counted.

    * ``{eval}`expr``` whole (the same stored number in both editions);
    * a cross-reference role's target (``{eq}``, ``{ref}``, ``{numref}``, ``{doc}``,
      ``{term}``...): for ``{term}`angular velocity <Angular velocity>``` the target
      ``Angular velocity``, so its shown text may be translated;
    * inline and display math (:func:`math_key`: the words of a ``\text{}`` may be translated),
      inline code, link targets and ``(label)=`` labels.
    """
    parts: Counter = Counter()
    rest = message
    for m in _ROLE.finditer(message):
        role, body = m.group(1), m.group(2)
        if role == "eval":
            parts[f"{{eval}}`{body}`"] += 1
        else:
            t = _TARGET.search(body)
            parts[f"{{{role}}} -> {(t.group(1) if t else body).strip()}"] += 1
    rest = _ROLE.sub(" ", message)
    for m in _MATH.finditer(rest):
        parts[f"math: {math_key(m.group(1) or m.group(2))}"] += 1
    rest = _MATH.sub(" ", rest)
    for m in _CODE.finditer(rest):
        parts[f"code: {m.group(1)}"] += 1
    for m in _LINK.finditer(rest):
        parts[f"link: {m.group(1)}"] += 1
    for m in _LABEL.finditer(rest):
        parts[f"label: {m.group(1)}"] += 1
    return parts


def lost_or_changed(source: str, translation: str) -> list[str]:
    """What ``translation`` lost or added among ``source``'s kept parts (empty: none)."""
    want, got = kept_parts(source), kept_parts(translation)
    out = [f"lost {k!r}" + (f" (x{n})" if n > 1 else "") for k, n in (want - got).items()]
    out += [f"added {k!r}" + (f" (x{n})" if n > 1 else "") for k, n in (got - want).items()]
    return out


def rest_markup_problems(text: str) -> list[str]:
    """What docutils says of a translated message of a reST page (api.rst's docstrings).

    reST ends inline markup only before a space or certain punctuation: ````angle````（rad）
    is an unclosed literal (a full-width opening bracket may not follow it), written
    ````angle````\\ （rad）.  The Chinese build would fail on it under -W.
    """
    import io

    from docutils.core import publish_doctree

    err = io.StringIO()
    publish_doctree(text, settings_overrides={"warning_stream": err, "report_level": 2,
                                              "halt_level": 5})
    return [line.split(") ", 1)[-1] for line in err.getvalue().splitlines()
            if "Inline" in line]     # roles and literal blocks need Sphinx and the page


def rest_literals(text: str) -> Counter:
    """The inline literals docutils reads in ``text``, counted."""
    import io

    from docutils import nodes
    from docutils.core import publish_doctree

    tree = publish_doctree(text, settings_overrides={"warning_stream": io.StringIO(),
                                                     "report_level": 5, "halt_level": 5})
    return Counter(n.astext() for n in tree.findall(nodes.literal))


def rest_literals_changed(source: str, translation: str) -> list[str]:
    """A literal closed too late (````a````（ ... ````b````: one literal running over the prose
    between them) parses without a warning; compare what docutils reads in both."""
    want, got = rest_literals(source), rest_literals(translation)
    if want == got:
        return []
    return [f"reST reads other literals: {sorted(got - want)[:2]} for {sorted(want - got)[:2]}"]


#: a label quoted in prose: **bold**, "straight" or “curly” quotes
_QUOTED = re.compile(r'\*\*([^*\n]+?)\*\*|"([^"\n]+?)"|\u201c([^\u201d\n]+?)\u201d')


def code_labels() -> dict[str, str]:
    """The text code shows on a page (``code_strings.po``): English -> Chinese, where they differ
    (patterns with ``{name}`` places left out)."""
    path = LOCALE.parent / "code_strings.po"
    if not path.exists():
        return {}
    return {m.id: m.string for m in load(path)
            if m.id and m.string and not m.fuzzy and "{" not in m.id and m.string != m.id}


def quoted_labels_missing(source: str, translation: str, labels: dict[str, str]) -> list[str]:
    """Labels that ``source`` quotes (``**Run live**``, ``"v near"``) whose Chinese form, the one
    the Chinese page shows, ``translation`` does not contain: a reader told to press **Run live**
    finds a button reading 实时运行 (found by the bilingual review; issue 36)."""
    out = []
    for m in _QUOTED.finditer(source):
        label = next(g for g in m.groups() if g is not None).strip()
        shown = labels.get(label)
        if shown and shown not in translation:
            out.append(f"quotes the label {label!r}, shown on the Chinese page as {shown!r}, "
                       "which the translation does not name")
    return out


def po_path(page: str) -> Path:
    return LOCALE / f"{page}.po"


def pages() -> list[str]:
    return sorted(str(p.relative_to(LOCALE).with_suffix("")) for p in LOCALE.rglob("*.po"))


def load(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=LANG)


def save(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=0, include_previous=True, omit_header=False,
                 sort_output=False, ignore_obsolete=True)


def make_templates(out: Path) -> list[Path]:
    """The English messages of every page, by Sphinx's gettext builder, into ``out``."""
    exe = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(exe), "build", str(BOOK), "--config", str(ROOT / "jupyter_book.yml"),
           "--builder", "custom", "--custom-builder", "gettext", "--path-output", str(out)]
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return sorted((out / "_build" / "gettext").rglob("*.pot"))


def update() -> None:
    with tempfile.TemporaryDirectory(prefix="sb-gettext-") as tmp:
        base = Path(tmp) / "_build" / "gettext"
        for pot in make_templates(Path(tmp)):
            page = str(pot.relative_to(base).with_suffix(""))
            with pot.open("rb") as f:
                template = read_po(f)
            path = po_path(page)
            if path.exists():
                catalog = load(path)
                catalog.update(template, no_fuzzy_matching=False, update_header_comment=False,
                               update_creation_date=False)   # no churn in unchanged pages
            else:
                catalog = Catalog(locale=LANG, project="spatialbook", fuzzy=False)
                for m in template:
                    if m.id:
                        catalog.add(m.id, "", flags=())
            save(catalog, path)
            todo = sum(1 for m in catalog if m.id and (not m.string or m.fuzzy))
            print(f"{page}: {sum(1 for m in catalog if m.id)} messages, {todo} to translate")


def export(page: str, out: Path) -> None:
    catalog = load(po_path(page))
    rows = [{"id": m.id, "str": m.string or "",
             "previous": (m.previous_id[0] if m.previous_id else "")}
            for m in catalog if m.id and (not m.string or m.fuzzy)]
    out.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"{page}: {len(rows)} messages to translate written to {out}")


def import_(page: str, src: Path) -> None:
    data = json.loads(src.read_text(encoding="utf-8"))
    if isinstance(data, list):
        data = {row["id"]: row["str"] for row in data if row.get("str")}
    path = po_path(page)
    catalog = load(path)
    done, unknown, bad = 0, [], []
    for english, chinese in data.items():
        m = catalog.get(english)
        if m is None:
            unknown.append(english[:60])
            continue
        problems = lost_or_changed(english, chinese)
        if problems:
            bad.append(f"{english[:60]!r}: {'; '.join(problems)}")
            continue
        m.string = chinese
        m.flags.discard("fuzzy")
        m.previous_id = []
        done += 1
    save(catalog, path)
    print(f"{page}: {done} translations stored")
    for u in unknown:
        print(f"  not a message of {page}: {u!r}", file=sys.stderr)
    for b in bad:
        print(f"  refused: {b}", file=sys.stderr)
    if unknown or bad:
        raise SystemExit(1)


def check(selected: list[str], allow_missing: bool) -> int:
    failures, missing, total = [], 0, 0
    labels = code_labels()
    for page in selected or pages():
        for m in load(po_path(page)):
            if not m.id:
                continue
            total += 1
            if not m.string or m.fuzzy:
                missing += 1
                if not allow_missing:
                    why = "changed in English since translated" if m.fuzzy else "not translated"
                    failures.append(f"{page}: {why}: {m.id[:70]!r}")
                continue
            rest = (BOOK / f"{page}.rst").exists()    # api.rst: **name** is a parameter there
            for p in lost_or_changed(m.id, m.string) + (
                    [] if rest else quoted_labels_missing(m.id, m.string, labels)):
                failures.append(f"{page}: {p} in the translation of {m.id[:50]!r}")
            if (BOOK / f"{page}.rst").exists():
                for p in rest_markup_problems(m.string) + rest_literals_changed(m.id, m.string):
                    failures.append(f"{page}: {p} in the translation of {m.id[:50]!r}")
    for f in failures:
        print(f, file=sys.stderr)
    print(f"i18n: {total} messages, {total - missing} translated, {missing} missing, "
          f"{len(failures)} problems")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("update")
    e = sub.add_parser("export")
    e.add_argument("page")
    e.add_argument("out", type=Path)
    i = sub.add_parser("import")
    i.add_argument("page")
    i.add_argument("src", type=Path)
    c = sub.add_parser("check")
    c.add_argument("page", nargs="*")
    c.add_argument("--allow-missing", action="store_true")
    a = ap.parse_args(argv)
    if a.cmd == "update":
        update()
    elif a.cmd == "export":
        export(a.page, a.out)
    elif a.cmd == "import":
        import_(a.page, a.src)
    else:
        return check(a.page, a.allow_missing)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
