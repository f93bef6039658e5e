"""Live mode's frames in the built pages: the players' phone frames as files, and 2x frames.

Phone frames (``move_narrow_frames``): the phone layout of each frame player's pictures is
stored in the notebook as data URIs; in the built page they become files of ``_sb_frames/``
(named by content), so the page is not heavier.

2x frames (``add_dense_frames``): every recognised player's frames are drawn again at twice
the pixel density, both layouts, from what the player records (its experiment,
``data-sb-settings``, ``data-sb-control``, the values beside its slider;
``widgets.players.dense_frames``), written beside the phone frames (named by content) and
listed in the player (``<script class="sb-2x-frames">``, a few bytes a frame).  The player's
script shows them (``srcset`` "2x", same CSS size) only where ``devicePixelRatio >= 1.5``: a
1x reader fetches none.  Drawing the book's 544 took 28-37 s on the 2-core test machine (56 MB
of PNG at zlib level 1); a cache kept between builds (``book/_build/.sb_dense_cache``, keyed
by the player and the source of ``widgets`` and ``spatialbook``, pruned to what the last
build used: ``prune_dense_cache``) makes a rebuild with unchanged code nearly free.

Called by ``tools/live_stage.py`` at each page (``html-page-context``) and at the build's end.
"""

from __future__ import annotations

import functools
import html
import json
import re
import shutil
import sys
from pathlib import Path

from live_packages import PACKAGES, robot_files

ROOT = Path(__file__).resolve().parent.parent

#: a frame player's opening tag (``widgets.static_html.frame_player``); group 1: its id
PLAYER = re.compile(r'<div class="sb-frame-player" id="(sb-fp-[0-9a-f]{12})"[^>]*>')
#: a player's ``data-sb-settings`` (the experiment's settings its frames were drawn at)
SETTINGS = re.compile(r"data-sb-settings='([^']*)'|data-sb-settings=\"([^\"]*)\"")


# The phone layout of each frame player's pictures (``narrow_frames`` of
# widgets.static_html.frame_player) is stored in the notebook as data URIs in a JSON <script>.
# In the built page they become files of _sb_frames/ (named by content), so the page is not
# heavier: a wide screen never asks for them, a phone asks for the frames it shows.
_NARROW_LIST = re.compile(r'<script type="application/json" class="sb-narrow-frames">(\[.*?\])</script>',
                          re.S)


def move_narrow_frames(body: str, outdir: Path, pathto) -> str:
    """Replace every player's inline narrow frames by links to files written in
    ``outdir/_sb_frames/`` (``pathto(name, 1)`` makes the page-relative link)."""
    import base64
    import hashlib

    folder = Path(outdir) / "_sb_frames"

    def move(m: re.Match) -> str:
        links = []
        for uri in json.loads(m.group(1)):
            head, _, data = uri.partition(",")
            if not head.startswith("data:image/png;base64"):
                links.append(uri)
                continue
            png = base64.b64decode(data)
            name = f"_sb_frames/{hashlib.sha1(png).hexdigest()[:20]}.png"
            folder.mkdir(parents=True, exist_ok=True)
            target = Path(outdir) / name
            if not target.is_file():
                target.write_bytes(png)
            links.append(pathto(name, 1))
        return ('<script type="application/json" class="sb-narrow-frames">'
                + json.dumps(links).replace("</", "<\\/") + "</script>")

    return _NARROW_LIST.sub(move, body)


# Each player's frames again at twice the pixel density (issue 20: sharp on a 2x screen, a 1x
# reader's page no heavier): drawn at build time by widgets.players.dense_frames from what the
# player records (its experiment, data-sb-settings, data-sb-control and the values it shows),
# written beside the phone frames (named by content) and listed in the player as
# {"base": folder, "wide": [names], "narrow": [names]}; the player's script asks for them only
# where devicePixelRatio >= 1.5 (widgets/static_html.py).
DENSE_SCALE = 2.0
_VALUES = re.compile(r"var values = (\[.*?\]);")
_CONTROL = re.compile(r'data-sb-control="([^"]*)"')


def player_values(cls, control: str, texts: list[str]) -> list:
    """The values of ``control`` a player's frames show, from the texts beside its slider
    (``static_html._fmt``, 4 digits): a choice control's options by index; a slider's
    ``sweep(len(texts))`` when it prints the same texts (the players' default sweeps, whose
    values 4 digits may round), else the numbers as printed."""
    sys.path.insert(0, str(ROOT))
    from widgets.controls import Choice
    from widgets.static_html import _fmt

    specs = {c.name: c for c in cls.CONTROLS}
    if control not in specs:
        raise ValueError(f"sb_live: {cls.__name__} has no control {control!r}")
    spec = specs[control]
    if isinstance(spec, Choice):
        return [spec.options[int(float(t))] for t in texts]
    sweep = spec.sweep(len(texts))
    if [_fmt(v) for v in sweep] == list(texts):
        return sweep
    return [float(t) for t in texts]


@functools.lru_cache(maxsize=None)
def dense_code_key() -> str:
    """What a 2x frame depends on besides its player: the source of the packages that draw it
    (``widgets``, ``spatialbook``), matplotlib's, numpy's and Python's versions and the PNG
    level (the cache's key; see ``add_dense_frames``)."""
    import hashlib
    import platform

    import matplotlib
    import numpy

    from widgets.players import DENSE_COMPRESS_LEVEL

    h = hashlib.sha1()
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            h.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    for path in robot_files():
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    h.update(repr((matplotlib.__version__, numpy.__version__, platform.python_version(),
                   DENSE_COMPRESS_LEVEL)).encode())
    return h.hexdigest()


def read_player(body: str, starts: list, k: int, cls) -> tuple | None:
    """Player ``k`` of ``body`` (``starts``: PLAYER's matches as (start, end, id)): its opening
    tag, the markup up to the next player, and how it was drawn (the control, the settings
    and the control's values for ``cls``), or None for a player that does not say so."""
    start, end, _ = starts[k]
    tag = body[start:end]
    markup = body[end:starts[k + 1][0] if k + 1 < len(starts) else len(body)]
    values_m, control_m, settings_m = _VALUES.search(markup), _CONTROL.search(tag), \
        SETTINGS.search(tag)
    if not (values_m and control_m and settings_m):
        return None
    control = html.unescape(control_m.group(1))
    settings = json.loads(html.unescape(settings_m.group(1) or settings_m.group(2)))
    return tag, markup, control, settings, player_values(cls, control, json.loads(values_m.group(1)))


def add_dense_frames(body: str, outdir: Path, pathto, players: dict, stats: dict | None = None,
                     cache: Path | None = None, scale: float = DENSE_SCALE, key: str = "") -> str:
    """Give every frame player of ``players`` (id -> experiment class) its frames drawn at
    ``scale`` times the density, wide and (if it has them) narrow, as files of
    ``outdir/_sb_frames/`` listed in a ``<script class="sb-2x-frames">`` (see above).

    ``cache`` (a folder kept between builds): frames drawn by an earlier build from the same
    inputs (player: experiment, settings, control, values, layout; code: ``dense_code_key``)
    are linked from there instead of drawn again; ``key`` (the Chinese edition's translations,
    ``tools/zh_frames.py``) is part of each entry's key when given.  ``stats`` (optional) counts the frames
    drawn and linked, the seconds spent and the bytes written, and collects the cache entries
    used (``prune_dense_cache`` removes the others)."""
    import hashlib
    import time

    from widgets.players import dense_frames

    stats = {} if stats is None else stats
    folder = Path(outdir) / "_sb_frames"
    starts = [(m.start(), m.end(), m.group(1)) for m in PLAYER.finditer(body)]
    out, last = [], 0
    for k, (start, end, uid) in enumerate(starts):
        cls = players.get(uid)
        if cls is None:
            continue
        found = read_player(body, starts, k, cls)
        if found is None:
            continue                     # a player that does not say how it was drawn
        tag, markup, control, settings, values = found
        t0 = time.perf_counter()
        lists = {}
        for layout in ("wide", "narrow"):
            if layout == "narrow" and "sb-narrow-frames" not in markup:
                continue
            inputs = [dense_code_key(), cls.__module__, cls.__name__, settings, control,
                      repr(values), layout, scale]
            entry = hashlib.sha1(json.dumps(inputs + ([key] if key else []),
                                            sort_keys=True).encode()).hexdigest()
            names = _cached(cache, entry, folder, stats)
            if names is None:
                names = []
                for png in dense_frames(cls, settings, control, values, layout == "narrow", scale):
                    digest = hashlib.sha1(png).hexdigest()[:20]
                    target = folder / f"{digest}.png"
                    if not target.is_file():
                        folder.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(png)
                        stats["bytes"] = stats.get("bytes", 0) + len(png)
                    if cache is not None and not (cache / target.name).is_file():
                        cache.mkdir(parents=True, exist_ok=True)
                        _link(target, cache / target.name)
                    names.append(digest)
                stats["drawn"] = stats.get("drawn", 0) + len(names)
                if cache is not None:
                    (cache / f"{entry}.txt").write_text("\n".join(names) + "\n")
                    stats.setdefault("used", set()).update([f"{entry}.txt", *(f"{n}.png" for n in names)])
            lists[layout] = names
        stats["seconds"] = stats.get("seconds", 0.0) + time.perf_counter() - t0
        link = pathto(f"_sb_frames/{lists['wide'][0]}.png", 1)
        listed = {"base": link[:-len(lists["wide"][0] + ".png")], **lists}
        out += [body[last:end], '<script type="application/json" class="sb-2x-frames">',
                json.dumps(listed, separators=(",", ":")).replace("</", "<\\/"), "</script>"]
        last = end
    out.append(body[last:])
    return "".join(out)


def _cached(cache: Path | None, key: str, folder: Path, stats: dict) -> list[str] | None:
    """The frame names of cache entry ``key``, linked (or copied) into ``folder``; None when
    the entry or one of its frames is missing."""
    entry = cache / f"{key}.txt" if cache is not None else None
    if entry is None or not entry.is_file():
        return None
    names = entry.read_text().split()
    if not names or not all((cache / f"{n}.png").is_file() for n in names):
        return None
    folder.mkdir(parents=True, exist_ok=True)
    for n in names:
        target = folder / f"{n}.png"
        if not target.is_file():
            _link(cache / f"{n}.png", target)
            stats["bytes"] = stats.get("bytes", 0) + target.stat().st_size
    stats["linked"] = stats.get("linked", 0) + len(names)
    stats.setdefault("used", set()).update([entry.name, *(f"{n}.png" for n in names)])
    return names


def _link(source: Path, target: Path) -> None:
    """A hard link (no copy: the site and the cache share the file), else a copy."""
    import os

    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def prune_dense_cache(cache: Path, used: set[str]) -> int:
    """Remove the cache's files that this build did not use (older code's frames); their count."""
    gone = 0
    for path in cache.glob("*"):
        if path.name not in used and path.suffix in (".txt", ".png"):
            path.unlink()
            gone += 1
    return gone
