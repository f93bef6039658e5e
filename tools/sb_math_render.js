/* The book's mathematics typeset once, when the book is built (issue 33), by the MathJax the
 * pages used to load (3.2.2, the mathjax-full package that django-static-mathjax ships).
 *
 *     node tools/sb_math_render.js <mathjax-full folder>
 *
 * Run by tools/sb_offline_assets.py for the whole build.  Each line on stdin is one page, JSON
 * {"fontURL": "<the woff-v2 folder, relative to the page>", "math": [[tex, display], ...]};
 * each line on stdout is the answer, JSON {"html": [<mjx-container>...</mjx-container>, ...],
 * "css": <the page's stylesheet>, "errors": [[index, message], ...]}.
 *
 * The output is what MathJax's CommonHTML output wrote into the page in the browser: the same
 * TeX input (the packages of tex-chtml.js that the book uses, boldsymbol loaded), the same
 * CommonHTML elements, each with its assistive MathML for screen readers, and the page's own
 * stylesheet (adaptive: only the characters the page uses, as MathJax made it in the page).
 * The browser's MathJax scaled the math to the surrounding text's x-height (matchFontHeight);
 * here the scale is 1 and book/_static/spatialbook.css sets it.  A formula that does not
 * parse is an error naming it (the browser drew it in red), never a page with raw TeX.
 */
"use strict";
const readline = require("readline");
const P = process.argv[2];
const { mathjax } = require(P + "/js/mathjax.js");
const { TeX } = require(P + "/js/input/tex.js");
const { CHTML } = require(P + "/js/output/chtml.js");
const { liteAdaptor } = require(P + "/js/adaptors/liteAdaptor.js");
const { RegisterHTMLHandler } = require(P + "/js/handlers/html.js");
const { AssistiveMmlHandler } = require(P + "/js/a11y/assistive-mml.js");
for (const pkg of ["base/BaseConfiguration", "ams/AmsConfiguration",
                   "newcommand/NewcommandConfiguration", "boldsymbol/BoldsymbolConfiguration",
                   "configmacros/ConfigMacrosConfiguration"]) {
  require(P + "/js/input/tex/" + pkg + ".js");
}
const PACKAGES = ["base", "ams", "newcommand", "boldsymbol", "configmacros"];

const adaptor = liteAdaptor();
AssistiveMmlHandler(RegisterHTMLHandler(adaptor));

function page(request) {
  // a document of its own per page: its stylesheet holds that page's characters only
  const tex = new TeX({ packages: PACKAGES, formatError: (jax, err) => { throw err; } });
  const chtml = new CHTML({ fontURL: request.fontURL, adaptiveCSS: true });
  const doc = mathjax.document("", { InputJax: tex, OutputJax: chtml });
  const errors = [];
  const html = request.math.map(([source, display], i) => {
    try {
      return adaptor.outerHTML(doc.convert(source, { display: !!display, em: 16, ex: 8,
                                                      containerWidth: 1280 }));
    } catch (err) {
      errors.push([i, String((err && err.message) || err)]);
      return "";
    }
  });
  return { html: html, css: adaptor.textContent(chtml.styleSheet(doc)), errors: errors };
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  if (!line.trim()) { return; }
  let answer;
  try {
    answer = page(JSON.parse(line));
  } catch (err) {
    answer = { html: [], css: "", errors: [[-1, String((err && err.message) || err)]] };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
