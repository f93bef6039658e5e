// Run a Python script with Pyodide's own CPython 3.12 under Node.js (no CPython 3.12 needed).
//
//     node tools/pyodide_python.mjs PYODIDE_DIR SCRIPT [ARG ...]
//
// PYODIDE_DIR: the verified distribution (tools/pyodide_dist.py: pyodide.mjs, pyodide.asm.*,
// python_stdlib.zip, pyodide-lock.json).  The host's file system is mounted at /host inside
// Pyodide, and SCRIPT and every argument that is an absolute path are read there, so the
// script reads and writes the host's files.  The exit status is the script's (SystemExit).
// Used by tools/live_compile.py to compile live mode's bytecode (tools/live_archives.py) where the
// builder's machine has no CPython 3.12: the bytecode is then made by the very interpreter
// the browser runs.
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dist, script, ...args] = process.argv.slice(2);
if (!dist || !script) {
  console.error("usage: node tools/pyodide_python.mjs PYODIDE_DIR SCRIPT [ARG ...]");
  process.exit(2);
}
const dir = path.resolve(dist);
const { loadPyodide } = await import(pathToFileURL(path.join(dir, "pyodide.mjs")).href);
const py = await loadPyodide({
  indexURL: dir + "/", lockFileURL: path.join(dir, "pyodide-lock.json"),
  stdout: (s) => console.log(s), stderr: (s) => console.error(s),
});
py.FS.mkdirTree("/host");
py.FS.mount(py.FS.filesystems.NODEFS, { root: "/" }, "/host");
const host = (p) => (path.isAbsolute(p) ? "/host" + p : p);
py.globals.set("_argv", py.toPy([host(path.resolve(script)), ...args.map(host)]));
py.FS.chdir(host(process.cwd()));
const code = py.runPython(`
import runpy, sys
sys.argv = list(_argv)
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
    _code = 0
except SystemExit as e:
    _code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
_code
`);
process.exit(code);
