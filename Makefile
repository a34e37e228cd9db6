# Fresh machine: `make demo` or `make test` (each sets up .venv first).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
JOBS ?= 2

.PHONY: setup bytecode openblas dnnl test lit pytest demo bench fuzz clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,tune]'
	@touch $(STAMP)

# The editable install leaves the package's bytecode to the first run, and with
# PYTHONDONTWRITEBYTECODE set (as on CI machines) every process, so every lit RUN line,
# compiles ~100 modules again (0.15-0.25 s each): compile them once, as pip does for a
# regular install (files changed later are recompiled here, not per process).
bytecode: $(STAMP)
	@$(PY) -m compileall -q compiler dialects tools >/dev/null

# `make setup` also installs CBLAS (libopenblas-dev) and oneDNN (libdnnl-dev) where they
# are missing: the cblas example target (examples/targets/cblas) and the built-in dnnl
# target link them.
setup: $(STAMP) bytecode openblas dnnl

openblas:
	@.ci/openblas

dnnl:
	@.ci/dnnl

test: $(STAMP) bytecode openblas dnnl
	$(BIN)/lit -sv -j $(JOBS) tests/lit
	$(BIN)/pytest -q -n $(JOBS) tests

lit: $(STAMP) bytecode
	$(BIN)/lit -sv -j $(JOBS) tests/lit

pytest: $(STAMP) bytecode openblas dnnl
	$(BIN)/pytest -q -n $(JOBS) tests

demo: $(STAMP) bytecode
	@$(PY) examples/demo.py

# `make fuzz N=2000 [SEED=0] [JOBS=2] [MINUTES=20]`: N random graphs x targets x pipelines
# through C against the reference interpreter (or as many as MINUTES allow); minimised
# failures in fuzz-failures/ (exit 1 if any).
N ?= 200
SEED ?= 0
MINUTES ?= 0
fuzz: $(STAMP) bytecode
	$(BIN)/accel-fuzz -n $(N) --seed $(SEED) -j $(JOBS) --minutes $(MINUTES) -o fuzz-failures

bench: $(STAMP)
	$(PY) bench/ir_costs.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis
