# spatialbook: the two commands a reader needs are `make book` and `make test`.
# Everything is installed into ./.venv from PyPI, pinned by the universal lock constraints.txt.
# Choose the interpreter with PYTHON (3.11, 3.12 or 3.13; newer ones are accepted, untested), e.g. `make test PYTHON=python3.12`:
# a .venv made by another Python is replaced, not reused.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
export PYTHONHASHSEED := 0
export MPLBACKEND := Agg

.PHONY: book serve test test-fast test-experiment lab check bench outputs venv lock clean

## Create or refresh .venv for $(PYTHON) (quick when it is up to date).
venv:
	@$(PYTHON) -c 'import sys' >/dev/null 2>&1 || { echo "spatialbook: could not run '$(PYTHON)'; name an installed interpreter, e.g. make test PYTHON=python3.12" >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || { echo "spatialbook needs Python 3.11 or newer, but $(PYTHON) is $$($(PYTHON) -V 2>&1); choose another, e.g. make test PYTHON=python3.12" >&2; exit 1; }
	@$(PYTHON) tools/setup_venv.py

## Refresh the universal lock (every Python from 3.11, every platform) from pyproject.toml.
## Existing pins are kept where they still resolve; `make lock UPGRADE=--upgrade` moves them.
lock: venv
	cp constraints.txt constraints.txt.new
	$(VENV)/bin/uv pip compile $(UPGRADE) pyproject.toml --extra widgets --extra book --extra test \
	  --universal --python-version 3.11 --no-header -o constraints.txt.new --quiet
	{ sed -n '/^# /p' constraints.txt; cat constraints.txt.new; } > constraints.txt.tmp
	rm constraints.txt.new && mv constraints.txt.tmp constraints.txt
	@echo "constraints.txt refreshed; run make test (and make outputs if pinned versions changed)"

## Build the book and print where to open it.
book: venv
	$(PY) tools/build_book.py --open

## Serve the built book on http://127.0.0.1:$(PORT)/ (live mode and the JupyterLite site,
## lite/, need http://, not file://; tools/serve_book.py sets the types they need).
PORT ?= 8000
serve:
	@test -f book/_build/html/index.html || { echo "the book is not built yet: run make book" >&2; exit 1; }
	@echo "Serving the book at http://127.0.0.1:$(PORT)/ (Ctrl-C stops)"
	@test -f book/_build/html/lite/jupyter-lite.json && echo "Edit a chapter in your browser: http://127.0.0.1:$(PORT)/lite/notebooks/index.html?path=chapters/ch01_velocity_field.ipynb" \
	  || echo "(no JupyterLite site in this build: make book says why; the book and live mode work without it)"
	$(PYTHON) tools/serve_book.py --port $(PORT) --directory book/_build/html

## Set up and run every test: library, widgets, notebooks (nbval), book build, browsers.
test: venv
	$(PY) tools/run_tests.py

## The quick loop for authors: library and widget tests and the self-check, the exhaustive
## fuzz, sweep and property runs on a seeded subset (tests/sampling.py); `make test` runs them whole.
test-fast: venv
	$(PY) tools/run_tests.py --fast

## One experiment: its own tests and the registry-wide tests for it, e.g.
## make test-experiment NAME=kinetic_energy
test-experiment: venv
	@test -n "$(NAME)" || { echo "name the experiment: make test-experiment NAME=kinetic_energy" >&2; exit 2; }
	$(PY) tools/run_tests.py --experiment $(NAME)

## Open the chapters in JupyterLab with live widgets (ipywidgets 8, no extension build).
## The chapters are trusted first (their answer boxes and frame players are HTML with scripts,
## which JupyterLab runs only in a trusted notebook), and every kernel loads IPython's autoreload
## (a profile in .venv/ipython), so an edited widgets/ or spatialbook/ module shows on re-run.
## The server's root is book/ (the glossary is next to chapters/) and JUPYTER_PATH adds the
## book's own prebuilt extension (tools/jupyter/labextensions/spatialbook-lab): an edited {eval}
## renders on the first run, {term} links open the glossary, links to another chapter open it.
lab: venv
	$(VENV)/bin/jupyter trust book/chapters/*.ipynb >/dev/null
	@mkdir -p $(VENV)/ipython/profile_default
	@printf '%s\n' "c.InteractiveShellApp.extensions = ['autoreload']" \
	  "c.InteractiveShellApp.exec_lines = ['%autoreload 2']" > $(VENV)/ipython/profile_default/ipython_kernel_config.py
	JUPYTER_PATH=$(CURDIR)/tools/jupyter$(if $(JUPYTER_PATH),:$(JUPYTER_PATH)) \
	IPYTHONDIR=$(CURDIR)/$(VENV)/ipython $(VENV)/bin/jupyter lab book \
	  --LabApp.default_url=/lab/tree/chapters $(LAB_ARGS) $(if $(filter 0,$(shell id -u)),--allow-root)

## The library's self-check: a table of every invariant it verifies.
check: venv
	$(PY) -m spatialbook check

## Benchmarks: scripts that print figures.
bench: venv
	$(PY) benchmarks/bench_core.py
	$(PY) benchmarks/bench_widgets.py
	$(PY) benchmarks/bench_book.py
	$(PY) benchmarks/bench_tree.py
	$(PY) benchmarks/bench_live.py

## Re-execute every chapter notebook and store its outputs.
outputs: venv
	$(PY) tools/execute_notebooks.py

clean:
	rm -rf book/_build
