/* Live mode of the static book: the one browser adapter of every experiment (main thread).
 *
 * Loaded by the first click on a "Run live" button (tools/live_pages.py adds the buttons, each
 * with a hidden progress bar the click shows at once).  Python never runs on the page's main
 * thread: one Web Worker per page (sb_worker.js, shared by the page's experiments) downloads
 * Pyodide from the site itself (../_pyodide/, no CDN, the browser's ordinary HTTP cache), the
 * book's spatialbook and widgets packages, and runs widgets/live.py.  For each experiment this
 * file builds HTML controls from the experiment's CONTROLS specs (sliders, segmented choices,
 * play), sends the control values to the worker on a change and shows the pixels it sends
 * back (an ImageBitmap made in the worker, handed to a "bitmaprenderer" canvas without a
 * copy; putImageData of a transferred RGBA buffer where ImageBitmap is missing); the readouts
 * are the experiment's
 * own readout table.  While a change is computed, only the newest values are kept (a drag
 * never queues up stale frames).  No physics or drawing here.
 *
 * Warm start: once live mode has run in this browser, a later page starts the worker itself
 * from a script in its head, loads this script once its HTML is parsed and calls warm() (see
 * tools/live_pages.py warm_script): Python starts from the HTTP cache, this script takes the
 * worker over (window.__sbEarly) and draws the page's experiments, and a click shows the
 * drawn picture at once.
 */
(function () {
  "use strict";
  if (window.sbLive) { return; }
  var script = document.currentScript;
  var base = new URL(".", script ? script.src : document.baseURI).href;   // .../_live/
  var pyodideBase = new URL("../_pyodide/", base).href;
  var worker = null;
  var booting = null;
  var experiments = {};      // id -> Experiment (or a pending creation)
  var creating = {};         // id -> {resolve, reject}
  var progressListeners = [];
  var lastProgress = null;   // the worker's newest progress message (shown to a late click)
  var counter = 0;

  function mb(bytes) { return (bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0); }

  // The Chinese edition's texts (issue 36).  A page whose <html lang> is Chinese carries the
  // entries of the code strings' catalogue (book/locale/zh_CN/code_strings.po, written into the
  // page by tools/zh_strings.py) as JSON in <script id="sb-strings">: tr(text) is the text's
  // translation (a pattern's places, "{label}", translated in turn), else the text itself (the
  // English edition; numbers, units and formulas, which have no entry).  The English texts
  // below are the catalogue's source: tests/book/test_zh_strings.py finds each in it.
  var STRINGS = readStrings();
  // the figures' text: Python draws it in Chinese (widgets/figure_text.py), sent with "create"
  var FIGURES = STRINGS ? (JSON.parse(document.getElementById("sb-strings").textContent)
                           .figures || null) : null;

  function readStrings() {
    var lang = (document.documentElement.getAttribute("lang") || "").toLowerCase();
    var node = document.getElementById("sb-strings");
    if (lang.indexOf("zh") !== 0 || !node) { return null; }
    var table;
    try { table = JSON.parse(node.textContent).strings || {}; } catch (e) { return null; }
    var patterns = [];
    Object.keys(table).forEach(function (en) {
      if (!/\{\w+\}/.test(en)) { return; }
      var names = [];
      var rx = en.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\\{(\w+)\\\}/g,
        function (m, name) { names.push(name); return "([\\s\\S]+?)"; });
      patterns.push({ rx: new RegExp("^" + rx + "$"), names: names, zh: table[en],
                      literal: en.replace(/\{\w+\}/g, "").length });
    });
    // the most specific first: "{label}: {why}" only when no longer pattern fits
    patterns.sort(function (a, b) { return b.literal - a.literal; });
    return { table: table, patterns: patterns };
  }

  function tr(text) {
    if (!STRINGS || typeof text !== "string" || !/[A-Za-z]{2}/.test(text)) { return text; }
    var core = text.trim();
    var at = text.indexOf(core);
    var lead = text.slice(0, at), trail = text.slice(at + core.length);
    if (Object.prototype.hasOwnProperty.call(STRINGS.table, core)) {
      return lead + STRINGS.table[core] + trail;
    }
    for (var i = 0; i < STRINGS.patterns.length; i++) {
      var p = STRINGS.patterns[i], m = p.rx.exec(core);
      if (!m) { continue; }
      var values = {};
      p.names.forEach(function (n, k) { values[n] = tr(m[k + 1]); });
      return lead + p.zh.replace(/\{(\w+)\}/g, function (x, n) {
        return values[n] !== undefined ? values[n] : "";
      }) + trail;
    }
    return text;
  }

  // Every text and aria-label under ``root`` (a readout panel Python wrote) through tr().
  function trTree(root) {
    if (!STRINGS) { return; }
    var walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (var n = walk.nextNode(); n; n = walk.nextNode()) {
      var t = tr(n.nodeValue);
      if (t !== n.nodeValue) { n.nodeValue = t; }
    }
    Array.prototype.forEach.call(root.querySelectorAll("[aria-label]"), function (e) {
      e.setAttribute("aria-label", tr(e.getAttribute("aria-label")));
    });
  }

  // The readouts of a new frame: where the table has the same elements as the one shown (a
  // change of a control changes numbers, seldom rows), only the text and attributes that
  // differ are written into the page's nodes (parsed in an inert <template>, no layout), so
  // the page lays out and repaints a few cells, not a new table (E11's 7x7 H and 11 rows:
  // 3 ms of main thread per frame when replaced whole); otherwise the whole table is replaced.
  var readoutTemplate = null;
  function setReadouts(box, html) {
    if (!readoutTemplate) { readoutTemplate = document.createElement("template"); }
    readoutTemplate.innerHTML = html;
    var fresh = readoutTemplate.content;
    trTree(fresh);
    if (!box.firstChild || !sameShape(box, fresh)) {
      box.textContent = "";
      box.appendChild(fresh);
      return;
    }
    copyInto(box, fresh);
  }

  function sameShape(a, b) {
    var x = a.childNodes, y = b.childNodes;
    if (x.length !== y.length) { return false; }
    for (var i = 0; i < x.length; i++) {
      if (x[i].nodeType !== y[i].nodeType || x[i].nodeName !== y[i].nodeName) { return false; }
      if (x[i].nodeType === 1 && !sameShape(x[i], y[i])) { return false; }
    }
    return true;
  }

  function copyInto(a, b) {
    var x = a.childNodes, y = b.childNodes;
    for (var i = 0; i < x.length; i++) {
      if (x[i].nodeType !== 1) {
        if (x[i].nodeValue !== y[i].nodeValue) { x[i].nodeValue = y[i].nodeValue; }
        continue;
      }
      var ea = x[i], eb = y[i], k, at;
      for (k = ea.attributes.length - 1; k >= 0; k--) {
        at = ea.attributes[k].name;
        if (!eb.hasAttribute(at)) { ea.removeAttribute(at); }
      }
      for (k = 0; k < eb.attributes.length; k++) {
        at = eb.attributes[k];
        if (ea.getAttribute(at.name) !== at.value) { ea.setAttribute(at.name, at.value); }
      }
      copyInto(ea, eb);
    }
  }

  // The page's one worker: a promise resolved when Python and widgets are loaded.
  function boot() {
    if (booting) { return booting; }
    booting = new Promise(function (resolve, reject) {
      // the warm start's worker, started by the page before this script had loaded
      // (tools/live_pages.py warm_script), with the messages it has sent meanwhile
      var early = window.__sbEarly;
      window.__sbEarly = null;
      worker = early ? early.worker : new Worker(base + "sb_worker.js");
      window.sbLive.worker = worker;
      window.sbLive.downloaded = 0;
      var receive = function (m) {
        if (m.type === "progress") {
          lastProgress = m;
          if (m.phase === "download") { window.sbLive.downloaded = m.loaded; }
          progressListeners.forEach(function (fn) { fn(m); });
        } else if (m.type === "ready") {
          window.sbLive.bootTimes = m.times;
          window.sbLive.bootMarks = m.marks;
          window.sbLive.ready = true;
          resolve();
        } else if (m.type === "frame") {
          if (creating[m.id]) {
            var c = creating[m.id]; delete creating[m.id]; c.resolve(m);
          } else if (experiments[m.id]) {
            experiments[m.id].onFrame(m);
          }
        } else if (m.type === "error") {
          console.warn("sb_live: " + m.message);
          if (m.id !== undefined && creating[m.id]) {
            var d = creating[m.id]; delete creating[m.id]; d.reject(new Error(m.message));
          } else if (m.id !== undefined && experiments[m.id]) {
            experiments[m.id].onError(m.message);
          } else {
            reject(new Error(m.message));
          }
        }
      };
      worker.onmessage = function (ev) { receive(ev.data); };
      worker.onerror = function (e) { reject(new Error("worker: " + (e.message || e))); };
      if (early) {
        early.queue.forEach(receive);
        if (early.error) { reject(new Error("worker: " + early.error)); }
      } else {
        worker.postMessage({ type: "boot", pyodideBase: pyodideBase, liveBase: base });
      }
    });
    booting.catch(function () {          // a later click may try again
      booting = null;
      if (worker) { worker.terminate(); worker = null; }
    });
    return booting;
  }

  // ``swept`` (optional): {name, shown}, the player's swept control and the value its slider
  // shows; the worker sets it on the experiment before the first drawing (sb_worker.js
  // ``onScreen``), so the first live frame is the frame on screen, not the base settings.
  function create(id, name, narrow, values, swept) {
    return new Promise(function (resolve, reject) {
      creating[id] = { resolve: resolve, reject: reject };
      worker.postMessage({ type: "create", id: id, name: name, narrow: narrow, values: values,
                           swept: swept || null, scale: pixelScale(), figures: FIGURES });
    });
  }

  // The frame on screen of a static player: its recorded settings and the swept control at
  // the value its slider shows now.
  function onScreen(player) {
    var shown = (player.querySelector(".sb-value") || {}).textContent;
    var name = player.getAttribute("data-sb-control");
    return { settings: player.getAttribute("data-sb-settings") || "{}",
             swept: name && shown !== undefined ? { name: name, shown: shown } : null };
  }

  function sameScreen(a, b) {
    return a.settings === b.settings && JSON.stringify(a.swept) === JSON.stringify(b.swept);
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

  function Experiment(id, button, info) {
    var self = this;
    var player = button.closest(".sb-frame-player");
    var uid = button.id.replace(/-live$/, "") + "-lv";
    this.id = id;
    this.times = [];          // ms from a control's input event to the new pixels in the canvas
    this.pythonTimes = [];    // ms of Python per update, in the worker
    this.paintTimes = [];
    this.updates = 0;
    this.pending = null;      // time of the oldest change not yet sent to the worker
    this.inflight = null;     // time of the oldest change of the update being computed
    this.busy = false;
    this.inputs = {};         // control name -> {spec, get(), set(v)}
    this.players = [];

    var root = el("div", { "class": "sb-live", role: "group", "aria-label": tr("Live: " + info.title) });
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
        box.appendChild(el("label", { "for": id }, tr(c.label)));
        box.appendChild(input);
        box.appendChild(out);
        self.inputs[c.name] = { spec: c, el: input,
          get: function () { return parseFloat(input.value); },
          set: function (v) { input.value = v; show(); } };
      } else if (c.kind === "choice") {
        // a segmented control: the label beside a row of joined option buttons (radios)
        var fs = el("fieldset", { id: id, "class": "sb-live-segmented" });
        fs.appendChild(el("legend", {}, tr(c.label)));
        var seg = el("span", { "class": "sb-live-segments" });
        var radios = c.options.map(function (o, i) {
          var rid = id + "-" + i;
          var r = el("input", { type: "radio", id: rid, name: id, value: String(i),
                                "data-sb-control": c.name });
          r.checked = (o === c.value);
          r.addEventListener("change", function (ev) { self.request(ev.timeStamp); });
          seg.appendChild(r);
          seg.appendChild(el("label", { "for": rid }, tr(String(o))));
          return r;
        });
        fs.appendChild(seg);
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
                                 "data-sb-control": c.name }, tr("\u25B6 Play " + targetLabel));
        var timer = null;
        var stop = function () {
          if (timer !== null) { clearInterval(timer); timer = null; }
          btn.setAttribute("aria-pressed", "false");
          btn.textContent = tr("\u25B6 Play " + targetLabel);
        };
        btn.addEventListener("click", function () {
          if (timer !== null) { stop(); return; }
          btn.setAttribute("aria-pressed", "true");
          btn.textContent = tr("\u275A\u275A Pause " + targetLabel);
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
      "aria-label": (player.querySelector("img.sb-frame") || {}).alt || tr(info.title) });
    this.ctx = null;          // a canvas gets one kind of context: made on the first frame
    this.bitmaps = null;
    this.readout = el("div", { "class": "sb-readout sb-live-readout", "aria-live": "polite" });
    // one line per control that is disabled now (why) or has a declared hint (what it moves)
    this.notes = el("div", { "class": "sb-live-notes" });
    this.labels = {};
    info.controls.forEach(function (c) { self.labels[c.name] = c.label; });
    root.appendChild(controls);
    root.appendChild(this.canvas);
    root.appendChild(this.readout);
    root.appendChild(this.notes);
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

  // The figure's layout: wide (as in JupyterLab) or, when the player's content box is
  // narrower than the wide figure may shrink to (its smallest text 12 CSS px: the player's
  // data-sb-min-scale, as the frames), the experiment's narrow layout, panels stacked, 1:1.
  function wantNarrow(player) {
    var wide = parseFloat(player.getAttribute("data-sb-wide-width")) || 660;
    var least = parseFloat(player.getAttribute("data-sb-min-scale")) || 1;
    var style = getComputedStyle(player);
    var room = player.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return player.clientWidth > 0 && room < least * wide;
  }

  // Device pixels per CSS pixel the figure is drawn at: a 2x screen gets a figure drawn at
  // twice the dpi (sharp text), shown at the same CSS size; a 1x screen the 1x figure.
  function pixelScale() {
    var r = window.devicePixelRatio || 1;
    return Math.min(3, Math.max(1, Math.round(r * 4) / 4));
  }

  Experiment.prototype.layout = function (info) {
    this.width = info.width;
    this.height = info.height;
    this.narrow = !!info.narrow;
    this.scale = info.scale || 1;
    this.canvas.width = info.width;              // device pixels (info.scale per CSS px)
    this.canvas.height = info.height;
    this.canvas.style.width = (info.width / this.scale) + "px";
    this.canvas.setAttribute("data-sb-layout", this.narrow ? "narrow" : "wide");
    // "replayed": laid out from the build's recorded measurements, "measured": here (tests)
    this.canvas.setAttribute("data-sb-fit", info.layout || "");
  };

  // After a resize across the threshold: the same experiment, same values, other layout.
  Experiment.prototype.relayout = function () {
    var narrow = wantNarrow(this.player);
    if (narrow === this.narrow || this.relayingOut) { return; }
    var self = this;
    this.relayingOut = true;
    delete experiments[this.id];
    // an update in flight for the old layout is dropped; changes made meanwhile are sent next
    var done = function (drawn) {
      experiments[self.id] = self;
      self.relayingOut = false;
      self.inflight = null;
      if (self.pending !== null) { self.send(); } else { self.busy = false; }
      // the width may have changed again while this layout was drawn (a resize there and
      // back): resizes were ignored meanwhile, so look again (issue 33: the phone layout stayed
      // in a desktop column)
      if (drawn) { self.relayout(); }
    };
    create(this.id, this.name, narrow, this.values()).then(function (m) {
      self.layout(m.info);
      self.paint(m);
      done(true);
    }, function (e) {
      console.warn("sb_live: " + e.message);
      done(false);
    });
  };

  Experiment.prototype.values = function () {
    var out = {};
    for (var name in this.inputs) { out[name] = this.inputs[name].get(); }
    return out;
  };

  // Coalesce changes: one update in the worker at a time per experiment; while it is computed,
  // further changes only mark the experiment as changed, and the newest values are sent next.
  Experiment.prototype.request = function (t0) {
    lastChange = performance.now();
    if (this.pending === null) { this.pending = t0; }
    this.busy = true;
    if (this.inflight === null) { this.send(); }
  };

  Experiment.prototype.send = function () {
    this.inflight = this.pending;
    this.pending = null;
    worker.postMessage({ type: "update", id: this.id, values: this.values() });
  };

  Experiment.prototype.onFrame = function (m) {
    this.paint(m);
    if (this.inflight !== null) { this.times.push(performance.now() - this.inflight); }
    if (typeof m.pythonMs === "number") { this.pythonTimes.push(m.pythonMs); }
    this.inflight = null;
    if (this.pending !== null) { this.send(); } else { this.busy = false; }
  };

  Experiment.prototype.onError = function (message) {
    this.inflight = null;
    this.pending = null;
    this.busy = false;
    this.root.setAttribute("data-sb-error", message);
  };

  Experiment.prototype.paint = function (m) {
    var t = performance.now();
    if (m.bitmap) {            // made in the worker: handed over, no copy on the main thread
      if (!this.bitmaps) { this.bitmaps = this.canvas.getContext("bitmaprenderer"); }
      this.bitmaps.transferFromImageBitmap(m.bitmap);
    } else {
      if (!this.ctx) { this.ctx = this.canvas.getContext("2d"); }
      this.ctx.putImageData(new ImageData(new Uint8ClampedArray(m.pixels), m.width, m.height), 0, 0);
    }
    if (m.readouts !== this.readoutHtml) { setReadouts(this.readout, m.readouts); }
    this.showNotes(m.inactive || {}, m.notes || {});
    this.paintTimes.push(performance.now() - t);     // main-thread ms of this frame (script)
    this.readoutHtml = m.readouts;
    this.state = m.state;
    this.updates += 1;
    this.root.setAttribute("data-sb-updates", String(this.updates));
  };

  // Controls that change nothing in the current state are disabled, their reason as tooltip
  // and as a note under the readouts (as in JupyterLab); a declared hint is a note as well.
  Experiment.prototype.showNotes = function (inactive, notes) {
    var key = JSON.stringify([inactive, notes]);
    if (key === this.notesKey) { return; }
    this.notesKey = key;
    for (var name in this.inputs) {
      var inp = this.inputs[name], off = name in inactive;
      var parts = inp.spec.kind === "choice" ? inp.el.querySelectorAll("input") : [inp.el];
      Array.prototype.forEach.call(parts, function (e) { e.disabled = off; });
      inp.el.title = tr(notes[name] || "");
      inp.el.closest(".sb-live-control").classList.toggle("sb-live-off", off);
    }
    var self = this;
    this.notes.textContent = "";
    Object.keys(notes).forEach(function (name) {
      self.notes.appendChild(el("div", { "data-sb-note": name }, tr(self.labels[name] + ": " + notes[name])));
    });
  };

  // The button's bar: progress (bytes, then steps) while starting, then the running state.
  function bar(button) {
    var box = button.parentNode;
    var progress = box.querySelector("progress.sb-live-progress");
    var status = box.querySelector(".sb-live-status");
    if (!progress) {
      progress = el("progress", { "class": "sb-live-progress", max: "1" });
      box.appendChild(progress);
    }
    if (!status) {
      status = el("span", { "class": "sb-live-status", role: "status" });
      box.appendChild(status);
    }
    return { progress: progress, status: status };
  }

  // Live mode's start as a promise, ``window.sbLive.starting`` (null when no start runs),
  // resolved once the first live frame is drawn or the start has failed.  busyStarting()
  // returns the function that ends this start (call it once).
  var startingCount = 0, startingDone = null;
  function busyStarting() {
    if (startingCount++ === 0) {
      window.sbLive.starting = new Promise(function (resolve) { startingDone = resolve; });
    }
    var ended = false;
    return function () {
      if (ended) { return; }
      ended = true;
      if (--startingCount === 0) { window.sbLive.starting = null; startingDone(); }
    };
  }

  // While live mode is busy (starting, a change in flight, or one in the last QUIET_MS) the
  // page's settling (tools/sb_settle.js) lays out nothing more: it would take a core from the
  // worker on a two-core machine (ch11's far math, typeset in the browser then, resumed after
  // the start made long animation frames of 78-90 ms, half of them layout, while the first
  // controls moved).  busyUntil(): null when quiet, else a promise resolved when it is.
  var QUIET_MS = 400, lastChange = -Infinity;
  function busyUntil() {
    var again = function () { return busyUntil(); };
    if (window.sbLive.starting) { return window.sbLive.starting.then(again); }
    var busy = Object.keys(experiments).some(function (k) { return experiments[k].busy; });
    var wait = lastChange + QUIET_MS - performance.now();
    if (!busy && wait <= 0) { return null; }
    return new Promise(function (resolve) { setTimeout(resolve, Math.max(wait, 50)); }).then(again);
  }

  var STEPS = ["starting Python", "unpacking numpy and matplotlib", "importing the experiments", "drawing"];

  async function start(button) {
    if (button.getAttribute("data-sb-live") === "1" || button.getAttribute("data-sb-live") === "starting") {
      return null;
    }
    var t0 = performance.now();
    var player = button.closest(".sb-frame-player");
    var hint = button.parentNode.querySelector(".sb-live-hint");
    if (location.protocol === "file:") {
      // browsers do not let a file:// page start a worker or fetch the WebAssembly files
      button.disabled = true;
      button.textContent = tr("Run live");
      if (hint) {
        hint.textContent = tr("Live mode needs the book served over http (make serve); " +
          "opened from a file, the frames below work");
      }
      return null;
    }
    button.setAttribute("data-sb-live", "starting");
    button.disabled = true;
    button.textContent = tr("Starting\u2026");
    var ui = bar(button);
    ui.progress.hidden = false;
    ui.status.hidden = false;
    if (hint) { hint.hidden = true; }
    var show = function (m) {
      var text = null;      // English; shown through tr(), kept in English in data-sb-progress
      if (m.phase === "download") {
        if (m.total > 0) {
          ui.progress.max = m.total;
          ui.progress.value = Math.min(m.loaded, m.total);
          text = "downloading " + mb(m.loaded) + " of " + mb(m.total) + " MB";
        } else {
          ui.progress.removeAttribute("value");
          text = "downloading " + mb(m.loaded) + " MB";
        }
        if (m.done) { text = "downloaded " + mb(m.loaded) + " MB"; }
      } else if (m.phase === "step") {
        var i = STEPS.indexOf(m.step);
        ui.progress.max = STEPS.length;
        ui.progress.value = (i < 0 ? 0 : i) + (m.part || 0);
        text = m.step + (m.detail ? ": " + m.detail : "") + "\u2026";
      }
      if (text !== null) { ui.status.textContent = tr(text); }
      player.setAttribute("data-sb-progress", text !== null ? text : ui.status.textContent);
    };
    progressListeners.push(show);
    if (lastProgress) { show(lastProgress); }         // Python was already starting (warm)
    var started = busyStarting();
    try {
      await boot();
      var t1 = performance.now();
      show({ phase: "step", step: "drawing" });
      var prep = prepared[button.id], id, m = null, screen = onScreen(player);
      delete prepared[button.id];
      if (prep && prep.narrow === wantNarrow(player) && prep.scale === pixelScale() &&
          sameScreen(prep.screen, screen)) {
        id = prep.id;                      // drawn by the warm start
        m = await prep.frame.catch(function () { return null; });
      } else if (prep) {                   // drawn for another layout or frame: dropped
        prep.frame.then(function () { worker.postMessage({ type: "close", id: prep.id }); },
                        function () {});
      }
      if (!m) {
        id = counter++;
        m = await create(id, button.getAttribute("data-sb-experiment"), wantNarrow(player),
                         JSON.parse(screen.settings), screen.swept);
      }
      var exp = new Experiment(id, button, m.info);
      exp.warmed = !!(prep && prep.id === id);    // the picture the warm start drew
      exp.paint(m);
      exp.createMs = performance.now() - t1;
      experiments[id] = exp;
      // the live panel replaces the frame player's slider, picture and readouts
      Array.prototype.forEach.call(player.children, function (child) {
        if (child.matches(".sb-controls, img.sb-frame, .sb-readout")) {
          child.hidden = true;
        }
      });
      button.parentNode.parentNode.insertBefore(exp.root, button.parentNode.nextSibling);
      exp.firstFrameAt = performance.now();
      exp.firstFrameMs = exp.firstFrameAt - t0;
      // drawn at the frame on screen; a slider's value the worker rounded otherwise than the
      // page's slider does is sent again (not expected: both keep to the step grid)
      if (JSON.stringify(exp.values()) !== JSON.stringify(m.info.values)) {
        exp.request(performance.now());
      }
      button.setAttribute("data-sb-live", "1");
      button.disabled = false;
      button.setAttribute("aria-pressed", "true");
      button.classList.add("sb-live-on");
      button.textContent = tr("\u25CF Live");
      button.title = tr("Live: every control runs the book's Python in your browser");
      ui.progress.hidden = true;
      ui.status.textContent = "";
      ui.status.hidden = true;
      if (hint) {
        hint.hidden = false;
        hint.textContent = tr("every control runs the book's Python in your browser");
      }
      player.setAttribute("data-sb-live", "1");
      remember(true);
      // every change of the column's width (a window resize, or the page's own layout: a
      // sidebar shown or hidden), not only the window's resize events
      window.addEventListener("resize", function () { exp.relayout(); });
      if (typeof ResizeObserver === "function") {
        new ResizeObserver(function () { exp.relayout(); }).observe(player);
      }
      return exp;
    } catch (e) {
      console.warn("sb_live: " + (e && e.message ? e.message : e));
      button.textContent = tr("Live mode failed to start (the frames still work)");
      button.removeAttribute("data-sb-live");
      ui.progress.hidden = true;
      player.setAttribute("data-sb-live", "failed");
      return null;
    } finally {
      progressListeners.splice(progressListeners.indexOf(show), 1);
      started();
    }
  }

  // Warm start.  A reader who has run live mode once in this browser (remembered in
  // localStorage) gets Python started in the background when a later page with experiments
  // has loaded (the inline script of tools/live_pages.py's button calls warm()): the files come
  // from the browser's cache, so nothing is downloaded, and a click then only draws.  Each
  // bar's hint says so and offers to stop it; a reader who never started live mode gets
  // nothing of this (the page loads no live file before a click).
  var WARM_KEY = "sb-live-warm";
  var prepared = {};         // button id -> {id, narrow, scale, screen, frame: Promise}: drawn by warm()

  function remember(on) {
    try {
      if (on) { localStorage.setItem(WARM_KEY, "1"); } else { localStorage.removeItem(WARM_KEY); }
    } catch (e) { /* storage disabled: no warm start */ }
  }

  function hints() {
    return Array.prototype.filter.call(document.querySelectorAll(".sb-live-bar"), function (b) {
      var button = b.querySelector(".sb-live-button");
      return button && !button.getAttribute("data-sb-live");
    }).map(function (b) { return b.querySelector(".sb-live-hint"); }).filter(Boolean);
  }

  function warmHint(text) {
    hints().forEach(function (hint) {
      hint.textContent = tr(text) + " ";
      var off = el("button", { type: "button", "class": "sb-live-cold",
                               title: tr("Stop starting Python on the book's pages by itself") },
                   tr("don't start by itself"));
      off.addEventListener("click", cold);
      hint.appendChild(off);
    });
  }

  // Stop the warm start: forget it, and stop the worker unless an experiment is running.
  function cold() {
    remember(false);
    if (Object.keys(experiments).length === 0 && !document.querySelector('.sb-live-button[data-sb-live="starting"]')) {
      if (worker) { worker.terminate(); worker = null; }
      window.sbLive.worker = null;
      prepared = {};
      booting = null;
      lastProgress = null;
      window.sbLive.ready = false;
    }
    hints().forEach(function (hint) {
      hint.textContent = tr("Python will start only when you click Run live");
    });
  }

  function warm() {
    if (booting || location.protocol === "file:") { return booting; }
    window.sbLive.warmState = "starting";
    warmHint("Python is starting in the background (you ran live mode before in this browser)");
    var started = busyStarting(), booted = boot();
    booted.then(started, started);
    return booted.then(function () {
      // draw the page's experiments at their frames' settings, in page order, so that a
      // click only shows the picture (start() takes it if the layout still fits)
      var all = Array.prototype.map.call(document.querySelectorAll(".sb-live-button"), function (b) {
        if (b.getAttribute("data-sb-live") || prepared[b.id]) { return null; }
        var player = b.closest(".sb-frame-player");
        var prep = { id: counter++, narrow: wantNarrow(player), scale: pixelScale(),
                     screen: onScreen(player) };
        prep.frame = create(prep.id, b.getAttribute("data-sb-experiment"), prep.narrow,
                            JSON.parse(prep.screen.settings), prep.screen.swept);
        prepared[b.id] = prep;
        return prep.frame;
      }).filter(Boolean);
      return Promise.all(all);
    }).then(function () {
      window.sbLive.warmState = "ready";
      warmHint("Python is ready: Run live starts at once");
    }, function () {
      window.sbLive.warmState = "failed";
    });
  }

  window.sbLive = { starting: null, busyUntil: busyUntil, start: start, boot: boot, warm: warm, cold: cold, experiments: experiments, tr: tr,
                  setReadouts: setReadouts };
})();
