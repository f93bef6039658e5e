/* spatialbook-lab: the book's small JupyterLab extension, written by hand (no build step).
 *
 * JupyterLab loads a "federated" extension by running this file, which must define a module
 * federation container `window._JUPYTERLAB[name]` with `init(shareScope)` and `get(module)`;
 * `get("./extension")` resolves to a factory of a module whose `default` is a list of plugins.
 * The shared scope hands over JupyterLab's own instance of @jupyterlab/notebook.
 *
 * 1. An edited {eval} renders on the first run.  jupyterlab-myst (2.7.0) evaluates a markdown
 *    cell's inline expressions when the cell is run, but it reads them from the cell's previous
 *    parse (`cell.mystModel.mdast`, replaced only when the asynchronous render finishes, after
 *    its kernel request is sent): an edited expression is sent as it was before the edit, the
 *    result is stored under the old text, and the new text shows as raw code until the cell is
 *    run again (jupyter-book/jupyterlab-myst issues 175 and 289).  Here, when jupyterlab-myst
 *    stores its results and they are not those of the cell's current source, the current
 *    expressions are evaluated and stored (same metadata, same renderer): the value, or the
 *    error ("ValueError: N: nothing was glued under ...") in jupyterlab-myst's error style.
 *
 * 2. Links that lead somewhere.  In the book, {term}`rigid body` links to the glossary and
 *    [chapter 7](#eq-ch07-def) to an equation of another chapter; JupyterLab knows neither
 *    (a term becomes "#term-rigid body", the label has no target in this notebook).  A click
 *    on such a link opens the glossary (glossary.md, next to or above the chapters) at the
 *    term, or the chapter notebook that defines the label (found by its `chNN_` prefix) at
 *    the label.
 */
(function () {
  "use strict";
  var NAME = "spatialbook-lab";
  var EVAL_ROLE = /\{eval\}`([^`]+)`/g;
  var METADATA = "user_expressions";          // jupyterlab-myst's cell metadata key
  var scope = null;

  function shared(pkg) {
    var versions = scope && scope[pkg];
    if (!versions) {
      return Promise.reject(new Error(NAME + ": JupyterLab shares no " + pkg));
    }
    var entry = versions[Object.keys(versions).sort().pop()];
    return Promise.resolve(entry.get()).then(function (factory) { return factory(); });
  }

  // ------------------------------------------------------------------ 1. {eval} on first run

  function currentExpressions(cell) {
    var source = cell.model.sharedModel.getSource(), out = [], m;
    EVAL_ROLE.lastIndex = 0;
    while ((m = EVAL_ROLE.exec(source)) !== null) { out.push(m[1]); }
    return out;
  }

  function storedExpressions(cell) {
    var stored = cell.model.getMetadata(METADATA);
    return Array.isArray(stored) ? stored.map(function (e) { return e.expression; }) : [];
  }

  function same(a, b) {
    return a.length === b.length && a.every(function (x, i) { return x === b[i]; });
  }

  var results = new WeakMap();     // cell -> [{expression, result}] of its current source
  var watched = new WeakSet();

  function apply(cell) {
    var mine = results.get(cell);
    if (!mine || cell.isDisposed) { return; }
    var expressions = mine.map(function (e) { return e.expression; });
    if (!same(currentExpressions(cell), expressions)) { return; }   // edited again meanwhile
    if (!same(storedExpressions(cell), expressions)) { cell.model.setMetadata(METADATA, mine); }
  }

  function watch(cell) {
    if (watched.has(cell)) { return; }
    watched.add(cell);
    // jupyterlab-myst stores its (possibly stale) results whenever its kernel reply comes:
    // put the current ones back if it overwrote them
    cell.model.metadataChanged.connect(function (_, change) {
      if (change.key === METADATA) { Promise.resolve().then(function () { apply(cell); }); }
    });
  }

  function evaluate(cell, kernel, expressions) {
    var request = {};
    expressions.forEach(function (e, i) { request[String(i)] = e; });
    var future = kernel.requestExecute({ code: "", silent: true, store_history: false,
                                         user_expressions: request }, true);
    future.onReply = function (msg) {
      var content = msg.content;
      if (content.status !== "ok") { return; }
      results.set(cell, expressions.map(function (e, i) {
        return { expression: e, result: content.user_expressions[String(i)] };
      }));
      apply(cell);
    };
  }

  function watchEval(notebookModule) {
    notebookModule.NotebookActions.executed.connect(function (_, args) {
      var cell = args.cell, notebook = args.notebook;
      if (!cell || cell.model.type !== "markdown") { return; }
      var panel = notebook && notebook.parent;
      var session = panel && panel.sessionContext && panel.sessionContext.session;
      var kernel = session && session.kernel;
      var expressions = currentExpressions(cell);
      if (!kernel || !expressions.length) { return; }
      watch(cell);
      // a task later than jupyterlab-myst's own request, so the kernel answers ours last
      setTimeout(function () { evaluate(cell, kernel, expressions); }, 0);
    });
  }

  // ------------------------------------------------------------------ 2. links

  var TERM_ROLE = /\{term\}`([^`]+)`/g;
  var CHAPTER_LABEL = /^eq-ch(\d\d)-/;

  function dirname(path) { var i = path.lastIndexOf("/"); return i < 0 ? "" : path.slice(0, i); }
  function join(dir, name) { return dir ? dir + "/" + name : name; }

  function untilFound(find, timeout) {     // poll (per animation frame) until find() is truthy
    var t0 = Date.now();
    return new Promise(function (resolve) {
      (function again() {
        var hit = find();
        if (hit || Date.now() - t0 > timeout) { resolve(hit || null); }
        else { requestAnimationFrame(again); }
      })();
    });
  }

  function show(element) {
    element.scrollIntoView({ block: "center" });
    element.classList.add("sb-link-target");
    setTimeout(function () { element.classList.remove("sb-link-target"); }, 2000);
  }

  // the glossary key of a {term} link: the k-th term link of a cell is its k-th {term} role,
  // written `text` or `text <Key>`
  function termKey(cell, link) {
    var links = Array.prototype.slice.call(cell.node.querySelectorAll('a.hover-link[href="#"]'));
    var roles = [], m, source = cell.model.sharedModel.getSource();
    TERM_ROLE.lastIndex = 0;
    while ((m = TERM_ROLE.exec(source)) !== null) {
      var parts = /^([\s\S]*?)\s*<([^<>]+)>\s*$/.exec(m[1]);
      roles.push(parts ? { text: parts[1].trim(), key: parts[2].trim() }
                       : { text: m[1].trim(), key: m[1].trim() });
    }
    var text = link.textContent.trim(), k = links.indexOf(link);
    if (k >= 0 && k < roles.length && roles[k].text === text) { return roles[k].key; }
    for (var i = 0; i < roles.length; i++) { if (roles[i].text === text) { return roles[i].key; } }
    return text;
  }

  function findGlossary(app, dir) {        // glossary.md next to the notebook or above it
    var tries = [join(dir, "glossary.md")], d = dir;
    while (d) { d = dirname(d); tries.push(join(d, "glossary.md")); }
    var next = function (i) {
      if (i >= tries.length) { return Promise.resolve(null); }
      return app.serviceManager.contents.get(tries[i], { content: false })
        .then(function () { return tries[i]; }, function () { return next(i + 1); });
    };
    return next(0);
  }

  function openTerm(app, panel, cell, link) {
    var key = termKey(cell, link), wanted = key.toLowerCase();
    return findGlossary(app, dirname(panel.context.path)).then(function (path) {
      if (!path) { console.warn(NAME + ": no glossary.md for the term " + key); return; }
      return app.commands.execute("docmanager:open", { path: path, factory: "Markdown Preview" })
        .then(function (widget) {
          return untilFound(function () {
            // jupyterlab-myst shows the {glossary} directive as one paragraph per entry, the
            // term on its first line (a definition list <dt> or a term-<key> id elsewhere)
            var candidates = widget.node.querySelectorAll("dt, [id^='term-'], p");
            for (var i = 0; i < candidates.length; i++) {
              var c = candidates[i], text = c.textContent.trim().toLowerCase();
              if (text === wanted || text.indexOf(wanted + "\n") === 0
                  || (c.id || "").toLowerCase() === "term-" + wanted.replace(/\s+/g, "-")) {
                return c;
              }
            }
            return null;
          }, 30000);
        }).then(function (target) { if (target) { show(target); } });
    });
  }

  function openLabel(app, panel, label) {
    var chapter = CHAPTER_LABEL.exec(label)[1], dir = dirname(panel.context.path);
    return app.serviceManager.contents.get(dir, { content: true }).then(function (listing) {
      var hit = (listing.content || []).filter(function (item) {
        return item.type === "notebook" && item.name.indexOf("ch" + chapter + "_") === 0;
      })[0];
      if (!hit) { console.warn(NAME + ": no chapter notebook ch" + chapter + "_*.ipynb in " + dir); return; }
      return app.commands.execute("docmanager:open", { path: hit.path }).then(function (other) {
        return other.context.ready.then(function () { return other.revealed; }).then(function () {
          var notebook = other.content, cells = notebook.widgets;
          for (var i = 0; i < cells.length; i++) {         // the cell that defines the label
            var src = cells[i].model.sharedModel.getSource();
            if (src.indexOf("(" + label + ")") >= 0 || src.indexOf("label: " + label) >= 0) {
              notebook.activeCellIndex = i;
              if (notebook.scrollToItem) { notebook.scrollToItem(i, "center"); }
              break;
            }
          }
          return untilFound(function () {
            return other.node.querySelector("#" + CSS.escape(label));
          }, 30000);
        }).then(function (target) { if (target) { show(target); } });
      });
    });
  }

  function watchLinks(app) {
    var style = document.createElement("style");
    style.textContent = ".sb-link-target { outline: 2px solid var(--jp-brand-color1, #1976d2);"
      + " outline-offset: 2px; }";
    document.head.appendChild(style);
    // capture phase: before jupyterlab-myst's own handlers, which have nowhere to go
    document.addEventListener("click", function (event) {
      var link = event.target && event.target.closest && event.target.closest("a");
      if (!link || !link.closest(".jp-Notebook .jp-MarkdownCell")) { return; }
      var panel = app.shell.currentWidget;
      if (!panel || !panel.content || !panel.context || !panel.node.contains(link)) { return; }
      var href = link.getAttribute("href") || "";
      var cell = panel.content.widgets.filter(function (c) { return c.node.contains(link); })[0];
      if (href === "#" && link.classList.contains("hover-link") && cell) {
        event.preventDefault();
        event.stopPropagation();
        openTerm(app, panel, cell, link);
      } else if (href.charAt(0) === "#" && CHAPTER_LABEL.test(href.slice(1))
                 && !panel.node.querySelector("#" + CSS.escape(href.slice(1)))) {
        event.preventDefault();
        event.stopPropagation();
        openLabel(app, panel, href.slice(1));
      }
    }, true);
  }

  var plugins = function (notebookModule) {
    return [{
      id: NAME + ":eval-on-first-run",
      description: "Re-evaluates a markdown cell's {eval} roles that jupyterlab-myst read stale.",
      autoStart: true,
      activate: function () { watchEval(notebookModule); }
    }, {
      id: NAME + ":links",
      description: "{term} links open the glossary; links to another chapter's label open it.",
      autoStart: true,
      activate: function (app) { watchLinks(app); }
    }];
  };

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = {
    init: function (shareScope) { scope = shareScope; return Promise.resolve(); },
    get: function (module) {
      if (module !== "./extension") {
        return Promise.reject(new Error(NAME + ": no module " + module));
      }
      return shared("@jupyterlab/notebook").then(function (notebookModule) {
        return function () { return { __esModule: true, default: plugins(notebookModule) }; };
      });
    }
  };
})();
