"""The ipywidgets front end of an experiment: its image, readout panel, layout and observers.

An :class:`~widgets.experiment.Experiment` keeps its state in its control widgets
(``exp.controls``); a :class:`JupyterView` shows it in a notebook: the blitted figure as PNG in
an ``ipywidgets.Image``, the readouts in an ``ipywidgets.HTML`` beside it, the controls above,
and observers that call ``exp.update()`` when a reader moves a control (a Play and its slider
are linked here, in Python).  Live mode in the static book uses the same view with stand-in
widgets (``widgets/live.py``); frame players use none (``widgets/players.py``).
"""

from __future__ import annotations

import math
from typing import Callable

import ipywidgets as W

from .controls import assign
from .style import WIDE_MIN_SCALE


class JupyterView:
    """The displayable widget of ``exp``: ``.widget`` (controls, image, readouts), ``.image``,
    ``.readout``; :meth:`show` puts a frame and its readouts on screen."""

    def __init__(self, exp: "Experiment") -> None:
        self.exp = exp
        w, h = exp.canvas.get_width_height()
        # the plot shrinks (aspect kept) to leave room for the readouts on narrow notebooks,
        # down to its least width (text 12 CSS px), or to the output area's width when that is
        # narrower (a small window with the file browser open): never clipped
        self.image = W.Image(format="png", layout=W.Layout(
            width="100%", max_width=f"{w}px",
            min_width=f"min({math.ceil(w * WIDE_MIN_SCALE)}px, 100%)",
            height="auto", flex="1 1 0%", object_fit="contain"))
        # no ``tooltip`` on the Image: the JupyterLab widget manager 8.1 fails to create an
        # ImageView that has one (TypeError in updateTooltip); the HTML panel carries the text
        self.readout = W.HTML(layout=W.Layout(flex="0 0 auto", min_width="260px",
                                              margin="0 0 0 12px"))
        self.widget = self._layout()
        # a Play and its slider are linked here in Python, not by a jslink in the browser: a
        # jslink answers every slider value the kernel sends with a Play value of its own, which
        # comes back after the kernel's next ``set`` and moves the slider back (the widget and the
        # kernel then disagree after Run All)
        self._linking = False
        controls = exp.controls
        for name, spec in exp._players.items():
            controls[name].observe(self._on_play(spec.target), names="value")
            controls[spec.target].observe(self._on_target(name), names="value")
        for name, c in controls.items():
            if name not in exp._players:
                c.observe(self._on_change, names="value")

    def show(self, png: bytes, readout_html: str) -> None:
        """Put a rendered frame and its readout panel on screen."""
        self.image.value = png
        self.readout.value = readout_html

    def show_inactive(self, off: dict[str, str]) -> None:
        """Disable the controls in ``off`` (name -> reason), the reason as their tooltip; the
        others enabled, with their declared hint."""
        for name, c in self.exp.controls.items():
            if getattr(c, "disabled", False) != (name in off):
                c.disabled = name in off
                c.tooltip = off.get(name, getattr(self.exp._specs[name], "hint", "") or None)

    def close(self) -> None:
        """Close every widget of the view (frees the kernel-side objects)."""
        stack = [self.widget]
        while stack:
            w = stack.pop()
            stack.extend(getattr(w, "children", ()))
            w.close()

    def _layout(self) -> W.Widget:
        rows, row = [], []
        for c in self.exp.controls.values():
            row.append(c)
            if len(row) == 3:
                rows.append(W.HBox(row)); row = []
        if row:
            rows.append(W.HBox(row))
        # readouts beside the plot, wrapping below it when the notebook is narrow
        return W.VBox([*rows, W.HBox([self.image, self.readout],
                                     layout=W.Layout(flex_flow="row wrap", align_items="flex-start"))])

    def _on_change(self, change: dict) -> None:
        if not self.exp._suspended:
            self.exp.update()

    def _on_play(self, target: str) -> Callable[[dict], None]:
        def follow(change: dict) -> None:      # the Play moves its slider
            if not self._linking:
                self._linking = True
                try:
                    assign(self.exp.controls[target], change["new"])
                finally:
                    self._linking = False
        return follow

    def _on_target(self, player: str) -> Callable[[dict], None]:
        def mirror(change: dict) -> None:      # a moved slider: the Play resumes from there
            spec = self.exp._players[player]
            if not self._linking:
                self._linking = True
                try:
                    self.exp.controls[player].value = int(min(max(round(change["new"]), spec.min),
                                                              spec.max))
                finally:
                    self._linking = False
        return mirror
