# spatialbook: the two commands a reader needs are `make book` and `make test`.
# Everything is installed into ./.venv from PyPI, pinned by constraints.txt.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
export PYTHONHASHSEED := 0
export MPLBACKEND := Agg

.PHONY: book test lab check bench outputs venv browser clean

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "spatialbook needs Python >= 3.10"'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e ".[widgets,book,test]"
	touch $(STAMP)

## Build the book and print where to open it.
book: $(STAMP)
	$(PY) tools/build_book.py --open

## Set up and run every test: library, widgets, notebooks (nbval), book build, browsers.
test: $(STAMP)
	$(PY) tools/run_tests.py

## Open the chapters in JupyterLab with live widgets (ipywidgets 8, no extension build).
lab: $(STAMP)
	$(VENV)/bin/jupyter lab book/chapters $(if $(filter 0,$(shell id -u)),--allow-root)

## The library's self-check: a table of every invariant it verifies.
check: $(STAMP)
	$(PY) -m spatialbook check

## Benchmarks: scripts that print figures.
bench: $(STAMP)
	$(PY) benchmarks/bench_core.py
	$(PY) benchmarks/bench_widgets.py
	$(PY) benchmarks/bench_book.py

## Re-execute every chapter notebook and store its outputs.
outputs: $(STAMP)
	$(PY) tools/execute_notebooks.py

clean:
	rm -rf book/_build
