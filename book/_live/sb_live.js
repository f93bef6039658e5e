/* Live mode of the static book: the one browser adapter of every experiment.
 *
 * Loaded by the first click on a "Run live" button (tools/sb_live.py adds the buttons).  It
 * loads Pyodide from the site itself (../_pyodide/, no CDN) ONCE per page, shares it between
 * the page's experiments, unpacks the book's spatialbook and widgets packages (sb_packages.zip)
 * and runs widgets/live.py.  For each experiment it builds HTML controls from the experiment's
 * CONTROLS specs (sliders, toggle choices, play), calls the experiment's own Python on every
 * change and copies the blitted Agg canvas's RGBA pixels into an HTML canvas (ImageData, no
 * PNG).  The readouts are the experiment's own readout table.  No physics or drawing here.
 */
(function () {
  "use strict";
  if (window.sbLive) { return; }
  var script = document.currentScript;
  var base = new URL(".", script ? script.src : document.baseURI).href;   // .../_live/
  var pyodideBase = new URL("../_pyodide/", base).href;
  var booting = null;
  var counter = 0;

  var BOOT = [
    "import importlib, importlib.util, os, sys",
    "importlib.invalidate_caches()",
    "sys.path.insert(0, '/home/pyodide/sb')",
    "_spec = importlib.util.spec_from_file_location('sb_live', '/home/pyodide/sb/widgets/live.py')",
    "_m = importlib.util.module_from_spec(_spec); sys.modules['sb_live'] = _m; _spec.loader.exec_module(_m)",
    "_m.install_ipywidgets_stand_in()",
    "_m.install_fontlist('/home/pyodide/sb/fontlist-v330.json')",
    "_m.lighten_matplotlib_import()",
    "import widgets",
    "_m.LIVE"
  ].join("\n");

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.onload = resolve;
      s.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(s);
    });
  }

  // The page's one interpreter: a promise of the Python object sb_live.LIVE.
  function boot() {
    if (booting) { return booting; }
    booting = (async function () {
      var t = performance.now(), times = {};
      var lap = function (name) { var n = performance.now(); times[name] = n - t; t = n; };
      window.sbLive.bootTimes = times;
      var zip = fetch(base + "sb_packages.zip").then(function (r) {
        if (!r.ok) { throw new Error("sb_packages.zip: HTTP " + r.status); }
        return r.arrayBuffer();
      });
      var bytecode = fetch(base + "sb_bytecode.zip").then(function (r) {
        if (!r.ok) { throw new Error("sb_bytecode.zip: HTTP " + r.status); }
        return r.arrayBuffer();
      });
      await loadScript(pyodideBase + "pyodide.js");
      lap("pyodide.js");
      // the wheels download while the interpreter starts (loadPyodide's packages option)
      var pyodide = await window.loadPyodide({
        indexURL: pyodideBase, fullStdLib: false, packages: ["numpy", "matplotlib"],
        stdLibURL: base + "python_stdlib_pyc.zip",      // the standard library + its bytecode
        stdout: function () {}, stderr: function (msg) { console.warn(msg); }
      });
      lap("interpreter+numpy+matplotlib");
      // compiled bytecode of the wheels, next to their installed sources
      pyodide.unpackArchive(await bytecode, "zip", { extractDir: "/" });
      pyodide.unpackArchive(await zip, "zip", { extractDir: "/home/pyodide/sb" });
      lap("unpack");
      window.sbLive.pyodide = pyodide;
      var live = pyodide.runPython(BOOT);
      lap("import widgets");
      return live;
    })();
    booting.catch(function () { booting = null; });      // a later click may try again
    return booting;
  }

  function decimals(fmt, step) {
    var m = /\.(\d+)f$/.exec(fmt || "");
    if (m) { return parseInt(m[1], 10); }
    var s = String(step);
    return s.indexOf(".") < 0 ? 0 : s.length - s.indexOf(".") - 1;
  }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) { if (attrs[k] !== undefined) { e.setAttribute(k, attrs[k]); } }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function Experiment(button, live, info) {
    var self = this;
    var player = button.closest(".sb-frame-player");
    var uid = button.id.replace(/-live$/, "") + "-lv";
    this.live = live;
    this.times = [];          // ms from a control's input event to the new pixels in the canvas
    this.updates = 0;
    this.pending = null;
    this.busy = false;
    this.inputs = {};         // control name -> {spec, get(), set(v)}
    this.players = [];

    var root = el("div", { "class": "sb-live", role: "group", "aria-label": "Live: " + info.title });
    var controls = el("div", { "class": "sb-live-controls" });
    info.controls.forEach(function (c) {
      var id = uid + "-" + c.name;
      var box = el("div", { "class": "sb-live-control sb-live-" + c.kind });
      if (c.kind === "slider") {
        var digits = decimals(c.fmt, c.step);
        var input = el("input", { type: "range", id: id, min: c.min, max: c.max, step: c.step,
                                  value: c.value, "data-sb-control": c.name });
        var out = el("output", { "for": id, id: id + "-out" }, Number(c.value).toFixed(digits));
        var show = function () {
          out.textContent = Number(input.value).toFixed(digits);
          input.setAttribute("aria-valuetext", out.textContent);
        };
        show();
        input.addEventListener("input", function (ev) { show(); self.request(ev.timeStamp); });
        box.appendChild(el("label", { "for": id }, c.label));
        box.appendChild(input);
        box.appendChild(out);
        self.inputs[c.name] = { spec: c, el: input,
          get: function () { return parseFloat(input.value); },
          set: function (v) { input.value = v; show(); } };
      } else if (c.kind === "choice") {
        var fs = el("fieldset", { id: id });
        fs.appendChild(el("legend", {}, c.label));
        var radios = c.options.map(function (o, i) {
          var rid = id + "-" + i;
          var r = el("input", { type: "radio", id: rid, name: id, value: String(i),
                                "data-sb-control": c.name });
          r.checked = (o === c.value);
          r.addEventListener("change", function (ev) { self.request(ev.timeStamp); });
          var lab = el("label", { "for": rid }, String(o));
          var span = el("span", { "class": "sb-live-option" });
          span.appendChild(r);
          span.appendChild(lab);
          fs.appendChild(span);
          return r;
        });
        box.appendChild(fs);
        self.inputs[c.name] = { spec: c, el: fs,
          get: function () {
            for (var i = 0; i < radios.length; i++) { if (radios[i].checked) { return c.options[i]; } }
            return c.value;
          },
          set: function (v) { radios.forEach(function (r, i) { r.checked = (c.options[i] === v); }); } };
      } else if (c.kind === "player") {
        var targetLabel = c.target;
        info.controls.forEach(function (t) { if (t.name === c.target) { targetLabel = t.label; } });
        var btn = el("button", { type: "button", id: id, "aria-pressed": "false",
                                 "data-sb-control": c.name }, "\u25B6 Play " + targetLabel);
        var timer = null;
        var stop = function () {
          if (timer !== null) { clearInterval(timer); timer = null; }
          btn.setAttribute("aria-pressed", "false");
          btn.textContent = "\u25B6 Play " + targetLabel;
        };
        btn.addEventListener("click", function () {
          if (timer !== null) { stop(); return; }
          btn.setAttribute("aria-pressed", "true");
          btn.textContent = "\u275A\u275A Pause " + targetLabel;
          timer = setInterval(function () {
            var target = self.inputs[c.target];
            var v = Number(target.get()) + c.step;
            if (v > c.max) { v = c.min; }
            target.set(v);
            self.request(performance.now());
          }, c.interval);
        });
        box.appendChild(btn);
        self.players.push(stop);
      }
      controls.appendChild(box);
    });
    this.canvas = el("canvas", { width: info.width, height: info.height, role: "img",
      "class": "sb-live-canvas",
      "aria-label": (player.querySelector("img.sb-frame") || {}).alt || info.title });
    this.ctx = this.canvas.getContext("2d");
    this.readout = el("div", { "class": "sb-readout sb-live-readout", "aria-live": "polite" });
    root.appendChild(controls);
    root.appendChild(this.canvas);
    root.appendChild(this.readout);
    this.root = root;
    this.player = player;
    this.name = button.getAttribute("data-sb-experiment");
    root.sbLive = this;
    this.layout(info);

    // start where the chapter's frames are: every control as the frames were drawn (Python
    // already set them: info.values), the swept one at the frame the reader is looking at
    info.controls.forEach(function (c) {
      if (c.kind !== "player" && info.values && c.name in info.values) {
        self.inputs[c.name].set(info.values[c.name]);
      }
    });
    var swept = player.getAttribute("data-sb-control");
    var shown = parseFloat((player.querySelector(".sb-value") || {}).textContent);
    info.controls.forEach(function (c) {
      if (c.name !== swept || !isFinite(shown)) { return; }
      if (c.kind === "slider") { self.inputs[c.name].set(shown); }
      if (c.kind === "choice" && c.options[Math.round(shown)] !== undefined) {
        self.inputs[c.name].set(c.options[Math.round(shown)]);
      }
    });
  }

  // The figure's layout: wide (as in JupyterLab) or, when the player is narrower than 3/4 of
  // the wide figure (a phone), the experiment's narrow layout, panels stacked, shown 1:1.
  function wantNarrow(player) {
    var wide = parseFloat(player.getAttribute("data-sb-wide-width")) || 900;
    return player.clientWidth > 0 && player.clientWidth < 0.75 * wide;
  }

  Experiment.prototype.layout = function (info) {
    this.handle = info.handle;
    this.width = info.width;
    this.height = info.height;
    this.narrow = !!info.narrow;
    this.canvas.width = info.width;
    this.canvas.height = info.height;
    this.canvas.setAttribute("data-sb-layout", this.narrow ? "narrow" : "wide");
    this.image = this.ctx.createImageData(info.width, info.height);
  };

  // After a resize across the threshold: the same experiment, same values, other layout.
  Experiment.prototype.relayout = function () {
    var narrow = wantNarrow(this.player);
    if (narrow === this.narrow) { return; }
    this.live.close(this.handle);
    this.layout(JSON.parse(this.live.create(this.name, narrow, JSON.stringify(this.values()))));
    this.render();
  };

  Experiment.prototype.values = function () {
    var out = {};
    for (var name in this.inputs) { out[name] = this.inputs[name].get(); }
    return out;
  };

  // Coalesce changes: one Python update at a time; the latest values win.
  Experiment.prototype.request = function (t0) {
    this.pending = (this.pending === null) ? t0 : this.pending;
    if (this.busy) { return; }
    var self = this;
    this.busy = true;
    setTimeout(function () { self.flush(); }, 0);
  };

  Experiment.prototype.flush = function () {
    var t0 = this.pending;
    this.pending = null;
    try {
      this.render();
      this.times.push(performance.now() - t0);
    } catch (e) {
      console.error("sb_live: " + e);
    }
    this.busy = false;
    if (this.pending !== null) { this.request(this.pending); }
  };

  Experiment.prototype.render = function () {
    var out = JSON.parse(this.live.update(this.handle, JSON.stringify(this.values())));
    var px = this.live.pixels(this.handle);
    var buf = px.getBuffer("u8clamped");
    try {
      this.image.data.set(buf.data);
    } finally {
      buf.release();
      px.destroy();
    }
    this.ctx.putImageData(this.image, 0, 0);
    this.readout.innerHTML = out.readouts;
    this.readoutHtml = out.readouts;
    this.state = out.state;
    this.updates += 1;
    this.root.setAttribute("data-sb-updates", String(this.updates));
  };

  async function start(button) {
    if (button.getAttribute("data-sb-live") === "1") { return; }
    var t0 = performance.now();
    button.disabled = true;
    if (location.protocol === "file:") {
      // browsers do not let a file:// page fetch the WebAssembly and package files
      button.textContent = "Live mode needs the book served over http (make serve); " +
        "opened from a file, the frames below work";
      return null;
    }
    button.textContent = "Loading the Python interpreter...";
    var player = button.closest(".sb-frame-player");
    try {
      var live = await boot();
      var t1 = performance.now();
      var info = JSON.parse(live.create(button.getAttribute("data-sb-experiment"),
                                        wantNarrow(player),
                                        player.getAttribute("data-sb-settings") || "{}"));
      var exp = new Experiment(button, live, info);
      exp.render();
      exp.createMs = performance.now() - t1;
      // the live panel replaces the frame player's slider, picture and readouts
      Array.prototype.forEach.call(player.children, function (child) {
        if (child.matches(".sb-controls, img.sb-frame, .sb-readout")) {
          child.hidden = true;
        }
      });
      button.parentNode.parentNode.insertBefore(exp.root, button.parentNode.nextSibling);
      exp.firstFrameAt = performance.now();
      exp.firstFrameMs = exp.firstFrameAt - t0;
      button.setAttribute("data-sb-live", "1");
      button.textContent = "Live";
      var hint = button.parentNode.querySelector(".sb-live-hint");
      if (hint) { hint.textContent = "every control runs the book's Python in your browser"; }
      player.setAttribute("data-sb-live", "1");
      window.addEventListener("resize", function () {
        try { exp.relayout(); } catch (e) { console.error("sb_live: " + e); }
      });
      return exp;
    } catch (e) {
      console.warn("sb_live: " + (e && e.message ? e.message : e));
      button.textContent = "Live mode failed to start (the frames still work)";
      player.setAttribute("data-sb-live", "failed");
      return null;
    }
  }

  var style = document.createElement("style");
  style.textContent = [
    ".sb-live-controls { display: flex; flex-wrap: wrap; gap: 4px 18px; align-items: center; }",
    ".sb-live-control { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; }",
    ".sb-live-control fieldset { border: 0; margin: 0; padding: 0; }",
    ".sb-live-control legend { float: left; margin-right: 6px; padding: 0; }",
    ".sb-live-option { margin-right: 8px; white-space: nowrap; }",
    ".sb-live-control output { font-family: monospace; min-width: 3.5em; }",
    ".sb-live-readout { max-width: 100%; overflow-x: auto; }",
    ".sb-live-canvas { display: block; max-width: 100%; height: auto; margin: 6px 0; }",
    ".sb-live-control button, .sb-live-button { min-height: 32px; }"
  ].join("\n");
  document.head.appendChild(style);

  window.sbLive = { start: start, boot: boot };
})();
