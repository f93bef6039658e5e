"""Control declarations: what a reader can move (``Slider``, ``Choice``, ``Player``).

Each spec is a frozen dataclass that an experiment lists in ``CONTROLS``; ``make()`` builds its
ipywidget (the experiment's state lives in those widgets' values, in JupyterLab and, through a
stand-in, in live mode), ``sweep(n)`` gives the values a frame player steps through and
``check(value)`` refuses a value the control cannot take (``ValueError`` naming the control and
what it expects: ipywidgets alone would clip an out-of-range number silently, read the text
"0.5" as a number, or raise its own ``TraitError``).
:func:`assign` sets a widget's value from Python without the browser echoing an old one back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ipywidgets as W
import numpy as np


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__}"


def _real(value: Any) -> bool:
    """A real number: Python or numpy int/float, not a bool (nor text, None, complex, arrays)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _whole(value: Any) -> bool:
    """A whole number: Python or numpy int, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _refuse(spec: Any, field: str, expected: str, got: Any) -> None:
    """A spec's own field is wrong: said when the spec is made, not at its first sweep."""
    name = spec.name if isinstance(getattr(spec, "name", None), str) else "?"
    raise ValueError(f"{type(spec).__name__} {name!r}: {field}: expected {expected}, got {_shown(got)}")


def _check_texts(spec: Any, *fields: str) -> None:
    if not isinstance(spec.name, str) or not spec.name.isidentifier():
        _refuse(spec, "name", "a keyword of scene (an identifier)", spec.name)
    for field in fields:
        if not isinstance(getattr(spec, field), str):
            _refuse(spec, field, "a text", getattr(spec, field))


def _checked_count(n: Any) -> int:
    """``n`` of a sweep: a whole number, at least 1 (numpy's "Number of samples" message or
    Python's TypeError otherwise)."""
    if not _whole(n) or n < 1:
        raise ValueError(f"n: expected a whole number of values, at least 1, got {_shown(n)}")
    return int(n)


@dataclass(frozen=True)
class Slider:
    """A float slider: ``name`` (keyword of ``scene``), ``label`` (with unit), range and default.

    ``hint``: one line for a control whose effect is easy to miss (it moves only some readouts,
    say): its tooltip, and a note under the readouts in JupyterLab and in live mode."""

    name: str
    label: str
    min: float
    max: float
    step: float
    value: float
    fmt: str = ".2f"
    hint: str = ""

    def __post_init__(self) -> None:
        """Refuse a spec that cannot work (``ValueError`` naming the field): a step of 0 or one
        that does not divide the range (the sweep would miss ``max``), an empty range, a
        default outside it, a format that formats no number."""
        _check_texts(self, "label", "fmt", "hint")
        for field in ("min", "max", "step", "value"):
            v = getattr(self, field)
            if not _real(v) or not -1e300 < v < 1e300:     # no float(): an int past 1e308
                _refuse(self, field, "a finite number", v)
        if not self.min < self.max:
            _refuse(self, "max", f"a number above min = {self.min:g}", self.max)
        steps = (self.max - self.min) / self.step if self.step > 0 else -1.0
        if not steps >= 1 or abs(steps - round(steps)) > 1e-9 * steps:
            _refuse(self, "step", f"a positive number that divides max - min = "
                    f"{self.max - self.min:g} (so the sweep ends at max)", self.step)
        if not self.min <= self.value <= self.max:
            _refuse(self, "value", f"a number from min = {self.min:g} to max = {self.max:g}", self.value)
        try:
            format(1.0, self.fmt)
        except ValueError:
            _refuse(self, "fmt", "a format of a number such as '.2f'", self.fmt)

    def make(self) -> W.Widget:
        return W.FloatSlider(
            value=self.value, min=self.min, max=self.max, step=self.step,
            description=self.label, readout_format=self.fmt, continuous_update=True,
            style={"description_width": "initial"}, layout=W.Layout(width="340px"),
            tooltip=self.hint or None,
        )

    def check(self, value: Any) -> Any:
        """``value`` if it is a number in [min, max] (to a rounding); else ``ValueError``."""
        tol = 1e-9 * (self.max - self.min)
        # compared as it is (no float(): an int past 1e308 would raise OverflowError); NaN fails
        if not _real(value) or not self.min - tol <= value <= self.max + tol:
            raise ValueError(f"{self.name}: expected a number from {self.min:g} to {self.max:g}, got {_shown(value)}")
        return value

    def sweep(self, n: int = 21) -> list[float]:
        """Up to ``n`` values from min to max on the slider's step grid, both ends included
        (``n`` = 1: min alone); fewer when the grid has fewer than ``n`` steps.  The step
        divides the range (checked when the spec is made), so the last is ``max``."""
        n = _checked_count(n)
        steps = int(round((self.max - self.min) / self.step))
        idx = np.unique(np.round(np.linspace(0, steps, min(n, steps + 1))).astype(int))
        return [float(round(self.min + i * self.step, 10)) for i in idx]


@dataclass(frozen=True)
class Choice:
    """A set of toggle buttons: ``options`` are the values ``scene`` receives; ``hint`` as for
    :class:`Slider`."""

    name: str
    label: str
    options: tuple
    value: Any
    hint: str = ""

    def __post_init__(self) -> None:
        """Refuse a spec that cannot work (``ValueError`` naming the field): no options, or a
        default that is not one of them (ipywidgets' ``TraitError`` at ``make()`` otherwise)."""
        _check_texts(self, "label", "hint")
        if not isinstance(self.options, tuple) or not self.options:
            _refuse(self, "options", "a non-empty tuple of the values scene takes", self.options)
        try:
            self.check(self.value)
        except ValueError:
            _refuse(self, "value", f"one of the options {list(self.options)}", self.value)

    def make(self) -> W.Widget:
        return W.ToggleButtons(
            options=list(self.options), value=self.value, description=self.label,
            style={"description_width": "initial", "button_width": "auto"},
            tooltip=self.hint or None,
        )

    def check(self, value: Any) -> Any:
        """The option equal to ``value``; else ``ValueError`` listing the options."""
        for option in self.options:
            try:
                if isinstance(option, bool) == isinstance(value, bool) and bool(option == value):
                    return option
            except (TypeError, ValueError):         # an array compared with an option
                pass
        raise ValueError(f"{self.name}: expected one of {list(self.options)}, got {_shown(value)}")

    def sweep(self, n: int = 0) -> list:
        return list(self.options)


@dataclass(frozen=True)
class Player:
    """An ipywidgets Play that drives the slider ``target`` (linked in Python, both ways)."""

    name: str
    target: str
    min: int
    max: int
    step: int
    interval: int = 100

    def __post_init__(self) -> None:
        """Refuse a spec that cannot work (``ValueError`` naming the field): whole numbers, a
        non-empty range, a positive step that divides it (0: ``ZeroDivisionError`` in the
        sweep), a positive interval."""
        _check_texts(self, "target")
        for field in ("min", "max", "step", "interval"):
            if not _whole(getattr(self, field)):
                _refuse(self, field, "a whole number", getattr(self, field))
        if not self.min < self.max:
            _refuse(self, "max", f"a whole number above min = {self.min}", self.max)
        if not self.step >= 1 or (self.max - self.min) % self.step:
            _refuse(self, "step", f"a positive whole number that divides max - min = "
                    f"{self.max - self.min}", self.step)
        if not self.interval >= 1:
            _refuse(self, "interval", "a positive whole number of milliseconds", self.interval)

    def make(self) -> W.Widget:
        return W.Play(value=self.min, min=self.min, max=self.max, step=self.step,
                      interval=self.interval, description="play", repeat=True)

    def check(self, value: Any) -> Any:
        """``value`` if it is a whole number in [min, max]; else ``ValueError``."""
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) \
                or not self.min <= value <= self.max:
            raise ValueError(f"{self.name}: expected a whole number from {self.min} to {self.max}, got {_shown(value)}")
        return value

    def sweep(self, n: int = 21) -> list[int]:
        """Up to ``n`` frames from min to max on the step grid, both ends included (``n`` = 1:
        min alone)."""
        n = _checked_count(n)
        steps = (self.max - self.min) // self.step
        idx = np.unique(np.round(np.linspace(0, steps, min(n, steps + 1))).astype(int))
        return [int(self.min + i * self.step) for i in idx]


def assign(control: W.Widget, value: Any) -> None:
    """Set a control's value from Python so that the browser does not send it back.

    A slider view answers a value from the kernel by moving its noUiSlider handle, which fires
    the handle's ``update`` event; with ``continuous_update`` on, the view then sends the
    handle's value back whenever it differs from the model's by a rounding (-0.06 snapped to
    the step grid is -0.060000000000000005).  ipywidgets 8 then ignores the kernel's next value
    for that slider until the echo of the old one returns, and the old value wins: the kernel
    and the slider keep a value that an earlier ``set`` left.  So the value goes out together
    with ``continuous_update=False`` (one message: the view reads the flag during the event),
    and the flag is restored in a second message.
    """
    if not (hasattr(control, "hold_sync") and getattr(control, "continuous_update", False)
            and control.value != value):
        control.value = value              # not a slider, or the live-mode stand-in
        return
    with control.hold_sync():
        control.continuous_update = False
        control.value = value
    control.continuous_update = True


# ------------------------------------------------------------------------ drawing helpers
