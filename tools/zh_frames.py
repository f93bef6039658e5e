"""The Chinese edition's frames (issue 36): each frame player's pictures drawn again with the
figures' text in Chinese (``widgets/figure_text.py``), in the Chinese pages only.

The notebooks store the English frames (wide ones inline, phone ones as data URIs that
``tools/live_frames.py`` moves into ``_sb_frames/``).  In a Chinese page, before live mode's
stage adds the 2x frames (``tools/live_stage.py``), :func:`chinese_players` draws every
recognised player's sweep at 1x, wide and phone layouts, in Chinese, the same PNG encoding as
the English frames (``Experiment.frame_compress_level``), and puts them where the English ones
were: the wide frames inline (the page's size barely changes), the phone frames in the list that
becomes files of the shared ``_sb_frames/`` (named by content).  A player whose figure has no
text to translate (nothing drawn differs) keeps the English frames, and its 2x frames are the
English build's (no drawing, no bytes).

The frames drawn are kept between builds in ``book/_build/.sb_zh_frames_cache`` (keyed like the
2x frames' cache: the player, the code, the translations), pruned to what the last Chinese
build used.  A figure text without a translation (``figure_text.MISSES``) is reported at the
build's end and fails it (``tools/live_stage.py``: a Sphinx warning, ``-W``).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path

from live_frames import PLAYER, dense_code_key, read_player
from widgets.static_html import _data_uri, _js_string_list as _js_list  # the players' own

_IMG = re.compile(r'(<img class="sb-frame" id="sb-fp-[0-9a-f]{12}-img" src=")([^"]*)(" [^>]*'
                  r'data-frame="(\d+)")')
_FRAMES = re.compile(r"(var frames = )(\[.*?\]);")
_NARROW = re.compile(r'(<script type="application/json" class="sb-narrow-frames">)(\[.*?\])(</script>)',
                     re.S)


def table_key(table: dict) -> str:
    return hashlib.sha1(json.dumps(table, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def draw(cls, settings: dict, control: str, values: list, narrow: bool, table: dict) -> tuple[list[bytes], int]:
    """(1x PNG frames of the sweep in Chinese, texts translated): a fresh experiment at
    ``settings``, ``control`` swept over ``values``, as ``widgets.players.sweep`` encodes."""
    from widgets.figure_text import language

    with language(table) as translate:
        exp = cls(narrow=bool(narrow), **settings)
        try:
            out = []
            for v in values:
                exp._set({control: v}, live=False)
                out.append(exp._encode(exp.frame_compress_level))
        finally:
            exp.close()
        return out, (translate.hits if translate is not None else 0)


def _cached_names(cache: Path | None, key: str) -> list[str] | None:
    """The frames of cache entry ``key`` ([] : the figure has no text to translate), or None."""
    entry = cache / f"{key}.txt" if cache is not None else None
    if entry is None or not entry.is_file():
        return None
    names = entry.read_text().split()
    return names if all((cache / f"{n}.png").is_file() for n in names) else None


def chinese_players(body: str, players: dict, table: dict, stats: dict,
                    cache: Path | None, keys: dict | None = None) -> tuple[str, set[str]]:
    """``body`` with the frames of every player of ``players`` (id -> experiment class) drawn
    in Chinese; the ids of the players whose frames changed (the others have no text to
    translate).  ``keys`` (experiment class -> text): what of the translations a class's
    frames depend on, for the cache (default: the whole ``table``; the build gives each
    experiment's own figure strings, so that a translation changed redraws only its figures)."""
    starts = [(m.start(), m.end(), m.group(1)) for m in PLAYER.finditer(body)]
    out, last, changed = [], 0, set()
    for k, (start, end, uid) in enumerate(starts):
        cls = players.get(uid)
        stop = starts[k + 1][0] if k + 1 < len(starts) else len(body)
        found = None if cls is None else read_player(body, starts, k, cls)
        if found is None:
            continue
        _, markup, control, settings, values = found
        t0 = time.perf_counter()
        lists = {}
        for layout in ("wide", "narrow"):
            if layout == "narrow" and "sb-narrow-frames" not in markup:
                continue
            own = (keys or {}).get(cls) or table_key(table)
            key = hashlib.sha1(json.dumps(["zh-1x", dense_code_key(), own,
                                           cls.__module__, cls.__name__, settings, control,
                                           repr(values), layout], sort_keys=True).encode()).hexdigest()
            names = _cached_names(cache, key)
            if names is not None:
                stats["linked"] = stats.get("linked", 0) + len(names)
                stats.setdefault("used", set()).update([f"{key}.txt", *(f"{n}.png" for n in names)])
                pngs = [(cache / f"{n}.png").read_bytes() for n in names]
            else:
                pngs, hits = draw(cls, settings, control, values, layout == "narrow", table)
                if not hits:
                    pngs = []                # nothing to translate: the English frames stay
                stats["drawn"] = stats.get("drawn", 0) + len(values)
                if cache is not None:
                    cache.mkdir(parents=True, exist_ok=True)
                    names = [hashlib.sha1(p).hexdigest()[:20] for p in pngs]
                    for n, p in zip(names, pngs):
                        if not (cache / f"{n}.png").is_file():
                            (cache / f"{n}.png").write_bytes(p)
                    (cache / f"{key}.txt").write_text("\n".join(names) + "\n")
                    stats.setdefault("used", set()).update([f"{key}.txt", *(f"{n}.png" for n in names)])
            lists[layout] = pngs
            if not pngs:
                break                        # the wide figure has no text: neither layout changes
        stats["seconds"] = stats.get("seconds", 0.0) + time.perf_counter() - t0
        if not lists.get("wide"):
            continue
        wide = lists["wide"]
        img = _IMG.search(markup)
        at = int(img.group(4))
        uris = [_data_uri(p) for p in wide]
        markup = _IMG.sub(lambda m: m.group(1) + uris[at] + m.group(3), markup, count=1)
        markup = _FRAMES.sub(lambda m: m.group(1) + _js_list(
            "" if i == at else u for i, u in enumerate(uris)) + ";", markup, count=1)
        if lists.get("narrow"):
            markup = _NARROW.sub(lambda m: m.group(1) + _js_list(_data_uri(p) for p in lists["narrow"])
                                 + m.group(3), markup, count=1)
        stats["bytes"] = stats.get("bytes", 0) + sum(map(len, wide)) \
            + sum(map(len, lists.get("narrow", [])))
        out += [body[last:end], markup]
        last = stop
        changed.add(uid)
    out.append(body[last:])
    return "".join(out), changed
