# Two commands on a fresh machine: `make lab` opens the course, `make test` runs everything.
# Both create .venv and install the package with what it needs on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
BROWSER := $(VENV)/.installed-browser
BOOK_TOOLS := $(VENV)/.installed-book
# npm ci writes this file last: node_modules is complete once it exists.
NODE_MODULES := node_modules/.package-lock.json
SITE := build/book/html/index.html
CLASSROOM := $(VENV)/.installed-classroom
LITE_TOOLS := $(VENV)/.installed-lite
LITE_PYODIDE := lite/node_modules/.package-lock.json
CHP := build/classroom/npm/node_modules/.bin/configurable-http-proxy
STUDENTS ?= 10
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval-sanitize.cfg

.PHONY: lab test notebooks present test-browser test-classroom book lite test-lite stress bench assignment grade clean

# No news or update pop-up over the first notebook: lab-settings/overrides.json answers the
# "get notified about official Jupyter news?" question, and nothing asks the Internet.
# LAB_ROOT and LAB_ARGS (more flags) are for tests/browser, which launches lab through here.
LAB_ROOT ?= notebooks
LAB_QUIET := --LabApp.app_settings_dir=$(CURDIR)/lab-settings --LabApp.news_url=None \
	--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate

lab: $(INSTALLED)
	$(BIN)/jupyter lab --ServerApp.root_dir=$(LAB_ROOT) $(LAB_QUIET) \
		$(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

test: $(INSTALLED)
	$(BIN)/ruff check ledgerlab tests benchmarks apps notebooks tools book lite
	$(BIN)/python -m pytest tests notebooks $(NBVAL) --ignore=tests/browser --ignore=tests/lite

# Re-run the course in place after a change to what it shows (strict nbval compares outputs):
# 10-solutions is generated from ledgerlab.course.exercises first.
notebooks: $(INSTALLED)
	$(BIN)/python -m ledgerlab.course.grading solutions
	$(BIN)/python tools/run_notebooks.py

# The budget explorer as a page of its own (Voila), for a teacher to project.
present: $(BROWSER)
	@port=$$($(BIN)/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'); \
	echo; echo "  The budget explorer: http://127.0.0.1:$$port/   (Ctrl-C stops it)"; echo; \
	exec $(BIN)/voila apps/budget-explorer.ipynb --no-browser --Voila.ip=127.0.0.1 --port=$$port --Voila.port_retries=0

# Voila, JupyterLab and the course site on loopback, driven in Debian's Chromium
# (apt-get install -y chromium).
test-browser: $(BROWSER) $(BOOK_TOOLS) $(SITE)
	$(BIN)/python -m pytest tests/browser

# The graded edition: build/assignment/{student,solutions,autograder}, then grade a folder of
# submitted notebooks into build/grades.csv, build/grades-feedback/ and build/grades-summary.md.
# Each submission runs in a bubblewrap sandbox (apt-get install bubblewrap); where bwrap cannot
# run, UNSAFE=1 grades without it (python -m ledgerlab.course.grading grade --help says what
# that gives up).
assignment: $(INSTALLED)
	$(BIN)/python -m ledgerlab.course.grading assignment build/assignment

grade: assignment
	@test -d "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=DIR (a folder of .ipynb files)"; exit 2; }
	$(BIN)/python -m ledgerlab.course.grading grade "$(SUBMISSIONS)" --autograder build/assignment/autograder --out build/grades.csv $(if $(UNSAFE),--unsafe-no-sandbox)

# The course as a static site in build/book/html: every notebook executed (a copy, with its
# widget state), Jupyter Book from PyPI, the widget manager and require.js from npm.
book: $(SITE)

# (notebooks/. is the folder: a notebook removed or renamed changes it, not a file in it.
# Not `notebooks`, the phony target that re-runs the course in place on every build.)
$(SITE): $(BOOK_TOOLS) $(NODE_MODULES) notebooks/. $(wildcard book/*.py book/*.yml book/site/* notebooks/*.ipynb ledgerlab/*.py ledgerlab/course/*.py)
	$(BIN)/python book/build.py

$(NODE_MODULES): package.json package-lock.json
	@command -v npm >/dev/null || { echo "make book needs npm (apt-get install -y nodejs npm)"; exit 1; }
	npm ci --ignore-scripts --no-audit --no-fund

# A simulated class on a local JupyterHub (loopback only): STUDENTS=N students (default 10),
# then a class of 3 in which one student's kernel is killed partway. Needs node and npm.
# See docs/classroom.md.
test-classroom: $(CLASSROOM) $(CHP)
	STUDENTS=$(STUDENTS) $(BIN)/python tests/classroom/run_class.py
	STUDENTS=3 KILL_ONE=2 $(BIN)/python tests/classroom/run_class.py

# The browser edition: JupyterLite with the Pyodide kernel, static files in build/lite
# (lite/build.py says what goes in). Pyodide's core comes from npm (lite/package.json).
lite: $(LITE_TOOLS) $(LITE_PYODIDE)
	$(BIN)/python lite/build.py

# Offline: the library under Pyodide in Node, then the site in Chromium (needs make lite).
test-lite: $(LITE_TOOLS) $(BROWSER) $(LITE_PYODIDE)
	@test -f build/lite/jupyter-lite.json || { echo "run make lite first"; exit 1; }
	$(BIN)/python -m pytest tests/lite

$(LITE_PYODIDE): lite/package.json lite/package-lock.json
	@command -v npm >/dev/null || { echo "make lite needs npm (apt-get install -y nodejs npm)"; exit 1; }
	npm ci --prefix lite --ignore-scripts --no-audit --no-fund

# The long kill -9 run: 1,000 trials instead of the 50 in `make test`.
stress: $(INSTALLED)
	LEDGERLAB_KILL_TRIALS=1000 $(BIN)/python -m pytest tests/test_journal_crash.py -s

# Side-by-side timings (select, the article's loop, LangChain's trim_messages, the journal).
bench: $(INSTALLED)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev,bench]"
	$(BIN)/python benchmarks/bench_select.py

$(INSTALLED): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
		{ echo "ledgerlab needs Python 3.10 or newer; set PYTHON=python3.x"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"
	touch $@

$(BROWSER): $(INSTALLED)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev,browser]"
	touch $@

$(BOOK_TOOLS): $(INSTALLED)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev,book]"
	touch $@

$(LITE_TOOLS): $(INSTALLED)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev,lite]"
	touch $@

$(CLASSROOM): $(INSTALLED)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[dev,classroom]"
	touch $@

# The hub's proxy, from npm, kept under build/ (not in the repository's package.json).
# Version 5 needs Node 20; Debian 12's own nodejs is 18, which 4.6 supports.
$(CHP):
	@command -v npm >/dev/null || { echo "make test-classroom needs node and npm (apt-get install -y nodejs npm)"; exit 1; }
	npm install --silent --no-fund --no-audit --prefix build/classroom/npm \
		configurable-http-proxy@$$(node -p 'process.versions.node.split(".")[0] >= 20 ? 5 : "4.6"')

clean:
	rm -rf $(VENV) build node_modules .pytest_cache .hypothesis
