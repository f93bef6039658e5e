"""Live mode's HTML in the built pages: a "Run live" bar under each experiment's frame player,
and the warm-start script in the head of a page that has one.

A frame player that shows a registered experiment is recognised by its picture's alt text
(``Experiment.alt``, ``alt_names``); a player whose pictures have their own alt text (ch02's
probe sweep) by the control names of its ``data-sb-settings`` (``settings_names``).
``add_bars`` gives each a Run live bar (``_button``): a few attributes, an inline click
handler (it shows the progress bar and starts the worker at once, ``_EARLY``) and a hidden
progress bar.  Before the click the page loads nothing new, unless live mode has already run
in this browser: then the warm start, a script in the page's head (``warm_script``): Python
starts in the background from the browser's cache while the page is parsed and draws the
page's experiments, so a click only shows them; the hint offers to turn it off.  The first
click loads the adapter (``book/_live/sb_live.js``), which takes over the Web Worker running
Pyodide (once per page, shared by the page's experiments); the files come from the browser's
HTTP cache on the next page (plain URLs, no query strings).  When live mode could not be
staged, every recognised player gets a short note instead (``_NOTE``) and the frames work as
before.

Called by ``tools/live_stage.py`` at each page (``html-page-context``).
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

from live_frames import PLAYER, SETTINGS

ROOT = Path(__file__).resolve().parent.parent


def alt_names() -> dict[str, str]:
    """Escaped alt text of each registered experiment's pictures -> registry name."""
    sys.path.insert(0, str(ROOT))
    from widgets import EXPERIMENTS

    return {html.escape(cls.alt or cls.title): name for name, cls in EXPERIMENTS.items()}


def settings_names() -> dict[frozenset, str]:
    """The control names of each registered experiment (its players' settings) -> name."""
    from widgets import EXPERIMENTS, Player

    out: dict[frozenset, list] = {}
    for name, cls in EXPERIMENTS.items():
        key = frozenset(c.name for c in cls.CONTROLS if not isinstance(c, Player))
        out.setdefault(key, []).append(name)
    return {k: v[0] for k, v in out.items() if len(v) == 1}     # unambiguous ones only


_NOTE = ('<p class="sb-live-note">Live mode is not available in this build (the Pyodide '
         'distribution could not be fetched when the book was built); the precomputed frames '
         'below work without it.</p>')


_FILE_HINT = ("Live mode needs the book served over http (make serve); opened from a file, "
              "the frames below work")


# Start the page's worker before the adapter has loaded (the warm start below, and a click):
# its downloads and Python's start then run while the adapter's script is fetched and run,
# and the adapter takes the worker over with the messages it sent meanwhile (sb_live.js
# ``boot``, ``window.__sbEarly``).  ``src``: the adapter's URL, relative to the page.  Single
# quotes only: it is also part of the button's onclick attribute, where ``URL`` alone is
# ``document.URL`` (an inline handler's scope holds the document's properties): hence
# ``window.URL``.
_START = ("var base=new window.URL('.',new window.URL(src,document.baseURI)).href;"
          "if(!window.__sbEarly){try{var k=new Worker(base+'sb_worker.js'),e={worker:k,queue:[]};"
          "k.onmessage=function(m){e.queue.push(m.data);};"
          "k.onerror=function(m){e.error=m.message||'the worker failed';};"
          "k.postMessage({type:'boot',pyodideBase:new window.URL('../_pyodide/',base).href,liveBase:base});"
          "window.__sbEarly=e;}catch(x){}}")
_EARLY = "var src=b.getAttribute('data-sb-src');" + _START        # ``b``: the Run live button


def warm_script(src: str) -> str:
    """The warm start (sb_live.js ``warm``), a script in the head of every page with a Run live
    button: where live mode has run before in this browser (localStorage), it starts the
    worker the moment the parser reaches it, keeping the worker's messages until the adapter
    has loaded; once the page's HTML has been parsed (DOMContentLoaded) it loads the adapter,
    which takes that worker over (``window.__sbEarly``) and draws the page's experiments (it
    needs every bar).  Python starts from the browser's cache, off the page's main thread.

    Measured on a second page clicked at its load event (``benchmarks/bench_live.py``,
    alternating runs): a worker started at DOMContentLoaded gave the first picture 1.54 s
    after the click (median of 5), one started by an inline script at the page's first bar
    1.17-1.35 s and one started in the head 0.98-1.06 s (medians of 5 and 6); a start from
    the adapter's own script, which runs only about the load event (the main thread is busy
    typesetting the page's mathematics), was about 0.5 s later still.

    Nothing happens opened from a file, for a reader who never ran live mode, with the
    browser's data saver on, or on a device that reports under 4 GB of memory
    (navigator.deviceMemory: Python in a worker takes ~250 MB)."""
    return ('<script>(function(){if(location.protocol==="file:"){return;}'
            'var w=false;try{w=localStorage.getItem("sb-live-warm")==="1";}catch(e){}'
            'if(!w||window.__sbWarm||(navigator.connection&&navigator.connection.saveData)'
            '||(navigator.deviceMemory&&navigator.deviceMemory<4)){return;}'
            f'window.__sbWarm=1;var src={json.dumps(src)};' + _START +
            'var go=function(){if(window.sbLive){window.sbLive.warm();return;}'
            'var x=document.createElement("script");x.src=src;'
            'x.onload=function(){window.sbLive.warm();};document.head.appendChild(x);};'
            'if(document.readyState!=="loading"){go();}'
            'else{document.addEventListener("DOMContentLoaded",go);}})();</script>\n')


def _button(name: str, uid: str, src: str, megabytes: float) -> str:
    """The Run live bar: button, hidden progress bar and status, hint.  The click shows the
    progress bar at once (before the adapter has loaded); opened from a file, an inline
    script disables the button and says why (nothing is fetched)."""
    return (f'<div class="sb-live-bar">'
            f'<button type="button" class="sb-live-button" aria-pressed="false" '
            f'id="{uid}-live" data-sb-experiment="{name}" data-sb-src="{src}" '
            "onclick=\"var b=this,p=b.parentNode;if(window.sbLive){window.sbLive.start(b);return;}"
            "if(b.disabled){return;}b.disabled=true;b.textContent='Starting…';"
            "p.querySelector('progress').hidden=false;"
            "var t=p.querySelector('.sb-live-status');t.hidden=false;"
            "t.textContent='loading the live adapter…';"
            "p.querySelector('.sb-live-hint').hidden=true;" + _EARLY +
            "var s=document.createElement('script');"
            "s.src=src;s.onload=function(){window.sbLive.start(b);};"
            "s.onerror=function(){b.textContent='Live mode unavailable';"
            "if(window.__sbEarly){window.__sbEarly.worker.terminate();window.__sbEarly=null;}};"
            "document.head.appendChild(s);\">Run live</button> "
            '<progress class="sb-live-progress" aria-label="starting live mode" hidden></progress>'
            '<span class="sb-live-status" role="status" hidden></span>'
            "<span class=\"sb-live-hint\">every control runs the book's Python in your browser; "
            f"the first start downloads {megabytes:.0f} MB, later pages start from the "
            "browser's cache</span>"
            '<script>(function(s){var p=s.parentNode;'
            'if(location.protocol==="file:"){p.querySelector("button").disabled=true;'
            f'p.querySelector(".sb-live-hint").textContent="{_FILE_HINT}";}}'
            '})(document.currentScript);</script></div>\n')



def add_bars(body: str, names: dict[str, str], settings: dict[frozenset, str], src: str,
             megabytes: float, problem: str | None) -> tuple[str, dict[str, str]]:
    """``body`` with a Run live bar (or, when ``problem`` says why live mode is unavailable,
    the note) after every frame player that shows a registered experiment (``names``: from
    ``alt_names``, ``settings``: from ``settings_names``), and those players (id -> experiment
    name).  ``src``: the adapter's URL relative to the page; ``megabytes``: the first start's
    download."""
    found: dict[str, str] = {}           # player id -> experiment name

    def add(m: re.Match) -> str:
        uid = m.group(1)
        alt = re.search(rf'id="{uid}-img" src="[^"]*" alt="([^"]*)"', body[m.end():])
        name = names.get(alt.group(1)) if alt else None
        if name is None:       # a player with its own alt text: known by its controls' names
            recorded = SETTINGS.search(m.group(0))
            if recorded:
                raw = html.unescape(recorded.group(1) or recorded.group(2))
                name = settings.get(frozenset(json.loads(raw)))
        if name is None:
            return m.group(0)
        found[uid] = name
        return m.group(0) + "\n" + (_NOTE if problem else _button(name, uid, src, megabytes))

    return PLAYER.sub(add, body), found
