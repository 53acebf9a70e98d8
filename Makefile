# `make run` and `make test` each build the virtual environment they need on a fresh machine.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,similarity]'
	touch $(STAMP)

# The main job: every bundled LongSocialBench item, Full context and BM25 top-20 side by side, on the embedded model.
run: $(STAMP)
	$(BIN)/socialbench run longsocial -T workflow=full -T workflow=bm25-k20

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint
	$(BIN)/pytest -q

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
