"""Frame players: an experiment's figure swept over one control, as PNG frames under a plain-JS
slider that needs no kernel (the static book's players, see ``widgets/static_html.py``)."""

from __future__ import annotations

import contextlib
from typing import Sequence

from ._narrow import checked_narrow
from .controls import Choice
from .readouts import plain
from .style import WIDE_MIN_SCALE


def swept(exp: "Experiment", control, values) -> tuple[str, list]:
    """(control, values) of a sweep, checked: ``control`` None for the main control, else one of
    the experiment's; ``values`` None for its default sweep, else a non-empty sequence (each
    value is checked by the control as it is set)."""
    control = exp.main_control if control is None else control
    exp._control(control)
    if values is None:
        return control, exp.sweep_values(control)
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise ValueError(f"values: expected a sequence of values of {control!r}, got {values!r:.60}")
    values = list(values)
    if not values:
        raise ValueError(f"values: expected at least one value of {control!r}, got an empty sequence")
    return control, values


def sweep(exp: "Experiment", control: str | None = None,
          values: Sequence | None = None) -> list[tuple[bytes, str]]:
    """(full-quality PNG, readout table) for each value of ``control`` (default: the main
    control, over :meth:`Experiment.sweep_values`); every control is restored afterwards, and
    a notebook's widgets see only the restored values."""
    control, values = swept(exp, control, values)
    # restore every control afterwards: the sliders; a Play follows its slider (linked both ways)
    old = {k: c.value for k, c in exp.controls.items() if k not in exp._players}
    out = []
    with contextlib.ExitStack() as held:   # the browser sees only the restored values
        for c in exp.controls.values():
            if hasattr(c, "hold_sync"):
                held.enter_context(c.hold_sync())
        try:
            for v in values:
                exp._set({control: v}, live=False)
                out.append((exp._encode(exp.frame_compress_level), exp.readout_table()))
        finally:
            exp._set(old, live=True)
    return out


def frames(exp: "Experiment", control: str | None = None, values: Sequence | None = None,
           narrow: bool = False) -> list[bytes]:
    """Full-quality PNG bytes, one per value of ``control``; ``narrow=True``: the same frames
    in the phone layout, drawn by a narrow twin at ``exp``'s current values."""
    if checked_narrow(narrow):
        twin = type(exp)(narrow=True, **exp.values())
        try:
            return frames(twin, control, values)
        finally:
            twin.close()
    return [png for png, _ in sweep(exp, control, values)]


def static_player(exp: "Experiment", control: str | None = None, values: Sequence | None = None):
    """Frames of a sweep under a plain-JS slider with per-frame readouts
    (``widgets.static_html.frame_player``), wide and narrow; a choice control is swept over
    its options (the slider shows the option's index, the label lists the options); the player
    records every control's value, where live mode starts."""
    from .static_html import frame_player

    control, values = swept(exp, control, values)
    spec = exp._specs[control]
    pairs = sweep(exp, control, values)
    settings = plain(exp.values())
    narrow = frames(exp, control, values, narrow=True)   # the same frames for a phone
    label = getattr(spec, "label", control)
    readouts = [r for _, r in pairs]
    if isinstance(spec, Choice):
        label = f"{label} ({', '.join(f'{i} = {o}' for i, o in enumerate(spec.options))})"
        readouts = [f"{v}: {r}" for v, r in zip(values, readouts)]
        values = [float(spec.options.index(v)) for v in values]
    return frame_player([p for p, _ in pairs], [float(v) for v in values], label,
                        readouts=readouts, alt=exp.alt or exp.title, narrow_frames=narrow,
                        settings=settings, control=control, min_scale=WIDE_MIN_SCALE)


#: zlib level of the 2x frames: they are made at every build of the book (tools/live_frames.py), so
#: fast (level 1: 5 ms a frame, 14 % bigger than level 6's 21 ms, measured on E12's frame)
DENSE_COMPRESS_LEVEL = 1


def dense_frames(cls: type, settings: dict, control: str, values: Sequence,
                 narrow: bool = False, scale: float = 2.0) -> list[bytes]:
    """A frame player's frames drawn again at ``scale`` times the pixel density: the same
    figure (inches, layout, points) at ``scale`` times the experiment's dpi, one PNG per value
    of ``control``, every other control at ``settings`` (the player's ``data-sb-settings``);
    ``narrow``: the phone layout.  One experiment draws the whole sweep (blitted), made and
    first drawn at 1x, then at ``scale`` times its dpi: what live mode shows a 2x screen for
    the same values (``widgets/live.py``; the phone layout's first 1x picture decides how far
    a panel is narrowed, as for the 1x frames).  The static book's 2x frames (tools/live_frames.py
    ``add_dense_frames``)."""
    from .blit import encode_png

    if not isinstance(settings, dict):
        raise ValueError(f"dense_frames: settings must be a dict of control values, got {settings!r}")
    if not isinstance(control, str) or control not in {c.name for c in cls.CONTROLS}:
        raise ValueError(f"dense_frames: control must be one of {cls.__name__}'s controls "
                         f"{[c.name for c in cls.CONTROLS]}, got {control!r}")
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise ValueError(f"values: expected a sequence of values of {control!r}, got {values!r:.60}")
    exp = cls(narrow=checked_narrow(narrow), **settings)
    try:
        exp.set_scale(scale)
        out = []
        for v in values:
            exp._set({control: v}, live=False)
            out.append(encode_png(exp.canvas.buffer_rgba(), DENSE_COMPRESS_LEVEL, alpha=False))
        return out
    finally:
        exp.close()
