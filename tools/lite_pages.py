"""Sphinx extension: an "Edit in your browser" link on every chapter page (issue 35).

Set up by ``tools/sb_offline_assets.py`` (the book's local extension) when this file is next
to it.  At ``html-page-context`` each chapter page gets, at its end, a bar with a link that
opens the chapter's notebook in the book's JupyterLite site (``lite/``, made after the build by
``tools/lite_site.py``) and a "Restore the book's version" button, shown only when this browser
keeps an edited copy of that notebook (JupyterLite keeps a reader's edits in the browser's
IndexedDB, where they shadow the site's copy: the button deletes the edited copy, after asking).
Each "Run live" bar (``tools/live_pages.py``) gets the same link beside its button.

The link works served over http (``make serve``): JupyterLite needs a service worker or
cross-origin isolation, which a ``file://`` page has neither of; opened from a file the link
says so instead of opening a blank page.  When the lite site could not be built,
``tools/build_book.py`` removes the bars again (:func:`strip_links`) and the book reads as before.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

LITE = "lite"
#: JupyterLite 0.6's browser storage of the reader's files (localforage: the database is this
#: name, " - " and the lite site's path, e.g. "JupyterLite Storage - /lite/"; its stores)
STORAGE_DB = "JupyterLite Storage"
STORAGE_STORES = ("files", "checkpoints")

_HINT = ("opens this chapter as a notebook you can change and run: JupyterLite, Python in "
         "your browser, nothing installed")
#: what the chapters import that JupyterLite's Pyodide cannot: native engines with no Pyodide
#: build (mujoco, pinocchio) and modern_robotics, which the lite site does not carry.  A chapter
#: importing one would stop at its first cell in the browser, so its page says so instead of
#: offering the link.
NOT_IN_BROWSER = ("mujoco", "pinocchio", "modern_robotics")
_IMPORT = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_][\w]*)", re.MULTILINE)

_FILE_HINT = "Editing in the browser needs the book served over http (make serve)"

# The bar's script: from a file, disable the link; otherwise show the restore button when the
# browser keeps an edited copy of the notebook, and delete that copy on a confirmed click.
_SCRIPT = """<script>(function(s){var bar=s.parentNode,a=bar.querySelector('a'),b=bar.querySelector('button');
if(location.protocol==='file:'){a.removeAttribute('href');a.setAttribute('aria-disabled','true');
bar.querySelector('.sb-lite-hint').textContent=%(file_hint)s;return;}
var path=bar.getAttribute('data-sb-lite-path'),stores=%(stores)s;
var root=new URL(a.getAttribute('href').split('notebooks/index.html')[0],document.baseURI).pathname;
function open(then){if(!window.indexedDB){return;}var r;try{r=indexedDB.open(%(db)s+' - '+root);}catch(e){return;}
r.onupgradeneeded=function(){r.transaction.abort();};
r.onsuccess=function(){var db=r.result,names=stores.filter(function(n){return db.objectStoreNames.contains(n);});
if(!names.length){db.close();return;}then(db,names);};}
open(function(db,names){var q=db.transaction('files').objectStore('files').count(path);
q.onsuccess=function(){if(q.result>0){b.hidden=false;}db.close();};});
b.onclick=function(){if(!window.confirm('Delete your edited copy of '+path+' kept in this browser, and open the book\\'s version next time?')){return;}
open(function(db,names){var t=db.transaction(names,'readwrite');names.forEach(function(n){var st=t.objectStore(n);
if(n==='files'){st.delete(path);}else{var c=st.openCursor();c.onsuccess=function(){var k=c.result;if(!k){return;}
if(String(k.key).indexOf(path)===0){k.delete();}k.continue();};}});
t.oncomplete=function(){db.close();b.hidden=true;b.textContent='Restored';};});};
})(document.currentScript);</script>"""


def browser_missing(notebook: Path) -> list[str]:
    """The packages of :data:`NOT_IN_BROWSER` that the notebook's code cells import."""
    cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    code = "\n".join("".join(c.get("source", "")) for c in cells if c.get("cell_type") == "code")
    return sorted(set(_IMPORT.findall(code)) & set(NOT_IN_BROWSER))


def no_lite_bar(missing: list[str], live: bool) -> str:
    """The bar of a chapter whose code cannot run in the browser: why, and where it runs
    (``live``: the page has experiments, which still run live)."""
    still = "; the experiments on this page still run live" if live else ""
    verb = "does" if len(missing) == 1 else "do"
    return ('<div class="sb-lite-bar sb-lite-none"><span class="sb-lite-hint">This chapter\'s code '
            f'imports {", ".join(missing)}, which {verb} not run in the browser: edit and run it in '
            f'JupyterLab (<code>make lab</code>){still}.</span></div>\n')


def lite_href(pagename: str, pathto, shared: str = "") -> str:
    """The lite site's URL of the page's notebook, relative to the page (``shared``: the
    site's root relative to this edition's, ``"../"`` in the Chinese edition)."""
    return pathto(f"{shared}{LITE}/notebooks/index.html", 1) + f"?path={pagename}.ipynb"


def bar(pagename: str, pathto, shared: str = "") -> str:
    """The page's top bar: the link, its hint, the (hidden) restore button and the script."""
    script = _SCRIPT % {"file_hint": json.dumps(_FILE_HINT), "stores": json.dumps(STORAGE_STORES),
                        "db": json.dumps(STORAGE_DB)}
    return (f'<div class="sb-lite-bar" data-sb-lite-path="{pagename}.ipynb">'
            f'<a class="sb-lite-edit" href="{lite_href(pagename, pathto, shared)}">Edit in your browser</a> '
            f'<span class="sb-lite-hint">{_HINT}</span> '
            '<button type="button" class="sb-lite-restore" hidden>Restore the book\'s version'
            '</button>' + script.replace("\n", "") + "</div>\n")


def _page_context(app, pagename, templatename, context, doctree) -> None:
    body = context.get("body")
    src = Path(app.srcdir) / f"{pagename}.ipynb"
    if not body or not pagename.startswith("chapters/") or not src.is_file():
        return
    from sb_editions import shared_root

    shared = shared_root(app.config)
    missing = browser_missing(src)
    if missing:
        context["body"] = body + no_lite_bar(missing, ">Run live</button>" in body)
        return
    link = (f' <a class="sb-lite-edit sb-lite-beside" href="{lite_href(pagename, context["pathto"], shared)}">'
            "Edit in your browser</a>")
    body = re.sub(r'(>Run live</button>)', r"\1" + link.replace("\\", "\\\\"), body)
    # at the page's end: a bar above the title shifted every line of the page (and axe then
    # found a glossary link of ch03 under the sticky header); the links beside Run live are
    # where a reader meets them
    context["body"] = body + bar(pagename, context["pathto"], shared)


_BAR = re.compile(r'<div class="sb-lite-bar".*?</script></div>\n|'
                  r'<div class="sb-lite-bar sb-lite-none">.*?</div>\n|'
                  r' <a class="sb-lite-edit sb-lite-beside" href="[^"]*">Edit in your browser</a>',
                  re.DOTALL)


def strip_links(html_dir: Path) -> int:
    """Remove every lite link from the built chapter pages (the lite site is not there);
    returns how many pages changed."""
    n = 0
    for page in sorted((html_dir / "chapters").glob("*.html")):
        text = page.read_text(encoding="utf-8")
        new = _BAR.sub("", text)
        if new != text:
            page.write_text(new, encoding="utf-8")
            n += 1
    return n


def setup(app):
    app.connect("html-page-context", _page_context)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
