"""Sphinx extension: serve MathJax from the built site itself, so the book works offline.

Loaded through ``sphinx.local_extensions`` in ``jupyter_book.yml``.  At ``config-inited`` it
stages the few MathJax 3.2.2 files the pages need (from the PyPI package
``django-static-mathjax``, es5 build) in ``<outdir>/../_sb_assets/mathjax/`` and appends that
staging folder to ``html_extra_path``, so Sphinx copies it to ``<outdir>/mathjax/``.  The files are
NOT put under ``_static`` (Sphinx would add a script tag for every .js there).  Source maps are
pruned.  ``mathjax_path`` in ``jupyter_book.yml`` points at the copied ``tex-chtml.js``.

Staged: ``tex-chtml.js`` (TeX input + CommonHTML output + menu), ``input/tex/extensions/``
(autoloaded TeX packages such as boldsymbol), ``output/chtml/fonts/woff-v2/`` (the math fonts),
``ui/`` and ``a11y/`` (lazy-loaded by the menu and assistive MathML).

It also stops sphinx-thebe from writing its CDN URL (unpkg.com) into every page, and inlines
``tools/sb_math.js`` after MathJax's configuration in every page that loads MathJax: the page's
math is typeset in slices of about 10 ms, the math on screen first, instead of in one
0.7-1.5 s task at load (issue 33: long tasks beside live mode's start).  At ``build-finished``
it hands pydata-sphinx-theme's measuring of scrollable regions to ``book/_static/sb_a11y.js``
(:func:`hand_scrollables_to_book`), which measures them a slice at a time.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

NEEDED = ["tex-chtml.js", "input/tex/extensions", "output/chtml/fonts/woff-v2", "ui", "a11y"]


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
    if stamp.is_file() and stamp.read_text() == str(src):
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
    stamp.write_text(str(src))
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


MATH_SLICES = Path(__file__).with_name("sb_math.js")


def _typeset_in_slices(app, pagename, templatename, context, doctree) -> None:
    """A page that loads MathJax gets ``sb_math.js`` inlined after MathJax's configuration
    (Sphinx's inline ``window.MathJax = ...``, priority 500) and before the deferred
    tex-chtml.js runs.  Connected after ``sphinx.ext.mathjax``'s own handler (priority 600)."""
    path = app.config.mathjax_path                   # the builder writes it as _static/<path>
    if not any(str(getattr(js, "filename", "") or "").endswith(path)
               for js in context.get("script_files", ())):
        return
    app.builder.add_js_file("", body=MATH_SLICES.read_text(encoding="utf-8"), priority=501)


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


def setup(app):
    app.connect("config-inited", _config_inited)
    app.connect("html-page-context", _typeset_in_slices, priority=600)
    app.connect("build-finished", _patch_theme_script)
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
