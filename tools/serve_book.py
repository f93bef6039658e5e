"""Serve the built book on http://127.0.0.1:PORT/ (``make serve``), with what live mode and the
JupyterLite site (``lite/``) need: the WebAssembly, module-script and JSON types set here, not
taken from the machine's MIME registry (which on some systems maps ``.js`` to text/plain or
lacks ``.wasm``: the browser then refuses them), and the loopback address, where browsers allow
JupyterLite's service worker (it hands the book's files to Python; http on another host
name would need https).  Standard library only.

    python3 tools/serve_book.py [--port 8000] [--directory book/_build/html]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
from pathlib import Path

TYPES = {".wasm": "application/wasm", ".js": "text/javascript", ".mjs": "text/javascript",
         ".json": "application/json", ".ipynb": "application/json", ".whl": "application/zip",
         ".zip": "application/zip", ".svg": "image/svg+xml", ".woff2": "font/woff2"}


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--directory", type=Path,
                    default=Path(__file__).resolve().parent.parent / "book" / "_build" / "html")
    args = ap.parse_args(argv)
    handler = functools.partial(Handler, directory=str(args.directory))
    with http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler) as server:
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
