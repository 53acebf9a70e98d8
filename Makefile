# `make run` and `make test` each build the virtual environment they need on a fresh machine.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test

CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test test-min lint clean constraints

# `make run` installs the package alone; `make test` adds the extras the tests exercise (dev tools, sentence
# embeddings, Potato, Spark), so a first `make run` does not download what only the tests need. Both install the
# versions in constraints.txt, so two machines run the same inspect, tokenizers and price list.
EXTRAS := dev,similarity,studies,spark
$(RUN_STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e .
	touch $(RUN_STAMP)

$(TEST_STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[$(EXTRAS)]'
	touch $(TEST_STAMP) $(RUN_STAMP)

# Refresh constraints.txt: resolve pyproject.toml afresh in a scratch venv and freeze it (review the diff, then run
# `make test` before committing it).
LOCK_VENV := .venv-constraints
constraints:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install -q --upgrade pip
	$(LOCK_VENV)/bin/python -m pip install -q '.[$(EXTRAS)]'
	{ head -n 3 constraints.txt; $(LOCK_VENV)/bin/python -m pip freeze --exclude-editable \
	  | grep -v -e '^#' -e '^socialbench==' | sed -E 's/\+[A-Za-z0-9.]+$$//' | sort -f; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(LOCK_VENV)

# The main job: every bundled LongSocialBench item, Full context and BM25 top-20 side by side, on the embedded model.
run: $(RUN_STAMP)
	$(BIN)/socialbench run longsocial -T workflow=full -T workflow=bm25-k20

lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

# Debian packages the tests drive: chromium (the report and annotation pages, through Playwright; never
# `playwright install`), pdflatex with booktabs (every LaTeX table is compiled) and poppler (PDF figures to PNG).
APT = $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get
APT_INSTALL = $(APT) install -y -q $(1) || ($(APT) update -q && $(APT) install -y -q $(1))
$(CHROMIUM):
	$(call APT_INSTALL,chromium)
/usr/bin/pdflatex:
	$(call APT_INSTALL,--no-install-recommends texlive-latex-base texlive-latex-recommended)
/usr/bin/pdftoppm:
	$(call APT_INSTALL,--no-install-recommends poppler-utils)

# Every tier (`-m ""` lifts the fast-tier filter of pyproject's addopts) on every core; `$(BIN)/pytest` alone is the
# fast tier. --dist loadgroup: a module's tests that share an expensive fixture carry xdist_group marks.
test: lint $(CHROMIUM) /usr/bin/pdflatex /usr/bin/pdftoppm
	$(BIN)/pytest -q -m "" -n auto --dist loadgroup
	$(MAKE) test-min

# Every floor in pyproject.toml is true: a scratch venv gets the lowest version of each direct dependency that the
# declared ranges allow (uv's lowest-direct resolution; what they pull in resolves as pip would), then the fast tier
# runs there. A floor that fails is raised in pyproject.toml. `make test` runs it after the suite.
MIN_VENV := .venv-min
comma := ,
UV_VERSION := 0.9.30
test-min:
	rm -rf $(MIN_VENV)
	$(PYTHON) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/python -m pip install -q --upgrade pip uv==$(UV_VERSION)
	$(MIN_VENV)/bin/uv pip compile -q pyproject.toml $(foreach e,$(subst $(comma), ,$(EXTRAS)),--extra $(e)) \
	  --resolution lowest-direct \
	  --python $(MIN_VENV)/bin/python --no-header -o $(MIN_VENV)/lowest.txt
	$(MIN_VENV)/bin/python -m pip install -q -r $(MIN_VENV)/lowest.txt
	$(MIN_VENV)/bin/python -m pip install -q --no-deps -e .
	grep -i -E '^(inspect-ai|pandas|numpy|scipy|statsmodels|scikit-learn|pydantic|llama-cpp-python|tiktoken)==' \
	  $(MIN_VENV)/lowest.txt
	$(MIN_VENV)/bin/pytest -q -p no:cacheprovider -n auto

clean:
	rm -rf $(VENV) $(MIN_VENV) .pytest_cache .mypy_cache .ruff_cache
