"""The Chinese edition's figures (issue 36): the players' frames drawn again in Chinese
(tools/zh_frames.py, widgets/figure_text.py) and the built site's check that no Chinese page
shows a player's English frames (tools/zh_edition.py ``figure_problems``).

    .venv/bin/python -m pytest tests/book/test_zh_figures.py -q
"""

from __future__ import annotations


import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))

import zh_edition  # noqa: E402
from zh_frames import chinese_players  # noqa: E402
from zh_strings import figure_table  # noqa: E402


def _player_html(values=(0.0, 60.0, 120.0)):
    from widgets import EXPERIMENTS
    from widgets.players import static_player

    exp = EXPERIMENTS["velocity_field"]()
    try:
        return static_player(exp, "angle", list(values)).data
    finally:
        exp.close()


def _uris(body: str) -> list[str]:
    return re.findall(r"data:image/png;base64,[A-Za-z0-9+/=]+", body)


def test_chinese_players_draws_every_frame_again_and_keeps_english_without_translations():
    from widgets import EXPERIMENTS

    body = _player_html()
    uid = re.search(r'id="(sb-fp-[0-9a-f]{12})"', body).group(1)
    stats: dict = {}
    zh, changed = chinese_players(body, {uid: EXPERIMENTS["velocity_field"]}, figure_table(),
                                  stats, None)
    assert changed == {uid}
    en_uris, zh_uris = _uris(body), _uris(zh)
    assert len(zh_uris) == len(en_uris) == 6          # 3 wide (one in <img>), 3 phone
    assert not set(en_uris) & set(zh_uris)             # every frame drawn again
    assert stats["drawn"] == 6
    assert re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", zh) == \
        re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", body)
    # no translation at all: the figure has no text to change, the English frames stay
    same, changed = chinese_players(body, {uid: EXPERIMENTS["velocity_field"]},
                                    {"no such text": "无"}, {}, None)
    assert same == body and changed == set()


def test_site_check_finds_a_chinese_page_with_the_english_frames(tmp_path):
    body = _player_html((0.0, 90.0))
    page = f"<html><body>{body}</body></html>"
    (tmp_path / "zh" / "chapters").mkdir(parents=True)
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "ch.html").write_text(page, encoding="utf-8")
    (tmp_path / "zh" / "chapters" / "ch.html").write_text(page, encoding="utf-8")
    found = zh_edition.figure_problems(tmp_path)
    assert len(found) == 1 and "shows the English frames" in found[0]
    from widgets import EXPERIMENTS

    uid = re.search(r'id="(sb-fp-[0-9a-f]{12})"', body).group(1)
    zh, _ = chinese_players(body, {uid: EXPERIMENTS["velocity_field"]}, figure_table(), {}, None)
    (tmp_path / "zh" / "chapters" / "ch.html").write_text(f"<html><body>{zh}</body></html>",
                                                          encoding="utf-8")
    assert zh_edition.figure_problems(tmp_path) == []


def test_a_chinese_page_with_one_experiment_translates_its_whole_figure():
    """Live mode on a Chinese page translates the figure with the page's table: the figure
    strings tagged with the page's experiments (tools/zh_strings.py ``live_strings``; for a page
    with one experiment that is ``figure_table(experiment=...)``).  So every string an experiment
    draws must carry its tag, also when the catalogue's "used by" list is long enough for the
    .po writer to wrap it (it was read as its first line: "hinge O" lost power_split, probes,
    spatial_inertia and velocity_field, and their live figures on Chinese pages said "hinge O"
    in English).  Each experiment, wide and narrow, at its defaults and at each end of its
    main control."""
    from widgets import EXPERIMENTS
    from widgets.figure_text import english_texts, language

    problems = []
    for name, cls in sorted(EXPERIMENTS.items()):
        with language(figure_table(experiment=name)):
            for narrow in (False, True):
                exp = cls(narrow=narrow)
                try:
                    spec = {c.name: c for c in cls.CONTROLS}[exp.main_control]
                    ends = [spec.options[0], spec.options[-1]] if hasattr(spec, "options") \
                        else [spec.min, spec.max]
                    for value in [None, *ends]:
                        if value is not None:
                            exp.set(**{exp.main_control: value})
                        left = english_texts(exp.figure)
                        if left:
                            problems.append(f"{name} ({'narrow' if narrow else 'wide'}, "
                                            f"{exp.main_control}={value}): {left}")
                finally:
                    exp.close()
    assert not problems, "\n".join(problems)
