// Keyboard access to scrolled tables on every pydata-sphinx-theme version: 0.16+ gives each
// .pst-scrollable-table-container tabindex="0" itself; 0.15 (the newest on Python 3.10) does not,
// and axe then reports "scrollable-region-focusable".
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll(".pst-scrollable-table-container:not([tabindex])").forEach(function (el) {
    el.setAttribute("tabindex", "0");
  });
});
