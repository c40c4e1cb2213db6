# Two commands on a fresh machine: `make lab` opens the course, `make test` runs everything.
# Both create .venv and install the package with what it needs on first use: `make lab` the
# course extra (JupyterLab and the notebooks' packages), `make test` the dev extra too (pytest,
# ruff and the other tools of pyproject.toml's dev list).
# `make check` is the fast tier: lint and the unit tests that take no long trials.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# One stamp per extra of pyproject.toml installed into .venv: .venv/.installed-course and so on.
EXTRA_STAMP = $(VENV)/.installed-$(1)
# What a learner or a teacher needs: the package and the course extra.
COURSE := $(call EXTRA_STAMP,course)
# What a maintainer needs to test: the course and the dev tools.
DEV := $(call EXTRA_STAMP,dev)
# The extras that list "ledgerlab[course]" in pyproject.toml: installing one installs the course.
WITH_COURSE := dev browser book classroom lite
# Extras to install with any install, in the same pip run: CI names every extra it needs
# (EXTRAS="browser book classroom lite bench") and `make deps` installs them with dev.
EXTRAS ?=
PIP := $(BIN)/python -m pip install --disable-pip-version-check --progress-bar on
comma := ,
empty :=
space := $(empty) $(empty)
# The extras one install of extra $(1) gives, with EXTRAS; as pip writes them ("browser,dev");
# and the stamps that install writes, the course's too when one of them includes the course.
extras_of = $(sort $(1) $(EXTRAS))
extra_list = $(subst $(space),$(comma),$(call extras_of,$(1)))
with_course = $(sort $(1) $(if $(filter $(WITH_COURSE),$(1)),course))
stamps_of = $(foreach extra,$(call with_course,$(call extras_of,$(1))),$(call EXTRA_STAMP,$(extra)))
# npm ci writes this file last: node_modules is complete once it exists.
BOOK_NPM := editions/book/node_modules/.package-lock.json
SITE := build/book/html/index.html
LITE_NPM := editions/lite/node_modules/.package-lock.json
SLIDES_NPM := editions/slides/node_modules/.package-lock.json
CHP := build/classroom/npm/node_modules/.bin/configurable-http-proxy
STUDENTS ?= 10
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval-sanitize.cfg
# Notebooks whole on one worker, cells in order in one kernel (xdist's loadfile).
XDIST := -n 2 --dist loadfile
LINT := ledgerlab tests benchmarks editions notebooks tools teacher
# Outside make test: they need a browser and built sites (test-browser, test-lite).
NOT_IN_TEST := --ignore=tests/editions/browser --ignore=tests/editions/lite
# Run on their own after the rest: the hostile submissions are graded two at a time under
# time and memory limits, and with a second worker busy beside them the grader's peak
# memory passed its 400 MiB bound (484 MiB; alone it stays under).
ALONE := tests/course/test_grading_hostile.py
# Kernels on loopback speak CurveZMQ (the kernelspec offers it): without it every kernel
# logs "Kernel is running over TCP without encryption".
ENCRYPTED := --KernelManager.transport_encryption=auto

# Python's bytecode cache (__pycache__, ignored by git) is written even where the environment
# sets PYTHONDONTWRITEBYTECODE: without it every pytest process compiles the package and
# rewrites each test module's asserts again (make check took 97 s of CPU instead of 77 s).
check test: export PYTHONDONTWRITEBYTECODE :=

.PHONY: links lab lint check test notebooks present test-browser test-classroom book lite test-lite \
	stress bench assignment grade handout collect slides deps clean

# JupyterLab on work/ (not committed): the learner's own copies of learner/, the course
# with no outputs. Each `make lab` adds the notebooks work/ does not have yet and never
# overwrites one, so a learner's work survives a git pull and make notebooks. Then JupyterLab
# with no news or update pop-up, idle kernels culled: `python -m ledgerlab.course lab` does
# both (ledgerlab/course/cli.py), the command for a machine without make. LAB_ROOT and
# LAB_ARGS (more flags) are for tests/editions/browser, which launches lab through here.
LAB_ROOT ?= work

lab: $(COURSE)
	$(BIN)/python -m ledgerlab.course lab --root=$(LAB_ROOT) -- $(LAB_ARGS)

# The Binder and class hub links for the GitHub repository of this clone's origin
# (HUB=https://hub.example.org for the hub's address).
links: $(COURSE)
	@$(BIN)/python -m ledgerlab.course links $(if $(HUB),--hub "$(HUB)")

# What both tiers check before their tests: ruff (notebooks included); the layers, as the
# import contracts of pyproject.toml ([tool.importlinter]); the CI workflow, with actionlint.
lint: $(DEV)
	$(BIN)/ruff check $(LINT)
	$(BIN)/lint-imports --no-logo
	$(BIN)/actionlint

# The fast tier (20 s on two idle cores): no kill -9 trials, no sandboxed grading, no JVM, no
# notebooks, nothing matplotlib renders (the mark `draws`), and a tenth of each property test's
# examples (the hypothesis profile `fast`, tests/conftest.py). `make test` runs all of them,
# every example, but the `long` runs.
# nbval is only for `make test`'s notebooks: loading the plugin imports nbformat, whose jsonschema
# builds a grammar on import, 1.3 s of CPU in each of xdist's three processes.
check: lint
	$(BIN)/python -m pytest -p no:nbval -m "not slow and not long and not draws" -n 2 --hypothesis-profile=fast \
		tests/library tests/course

# Everything: every test outside the browser ones and strict nbval, on both cores; then the
# tests that need the machine to themselves.
# matplotlib's font cache is built first: on a fresh, loaded machine a kernel building it
# prints "Matplotlib is building the font cache" into a cell's output, which strict nbval fails.
# Where npm is, reveal.js is installed for the slides test (without it, that test skips).
test: lint $(if $(shell command -v npm 2>/dev/null),$(SLIDES_NPM))
	$(BIN)/python -c "import matplotlib.font_manager"
	$(BIN)/python -m pytest -m "not long" $(XDIST) tests notebooks $(NBVAL) $(NOT_IN_TEST) \
		--ignore=$(ALONE)
	$(BIN)/python -m pytest $(ALONE)

# Re-run the course in place after a change to what it shows (strict nbval compares outputs):
# 14-solutions is generated from ledgerlab.course.exercises first. Each explorer's widget
# state goes to editions/book/widget-state, where the course site takes it from. Then
# learner/ is written again: the same notebooks with no outputs, what learners open.
notebooks: $(DEV)
	$(BIN)/python tools/write_solutions.py
	$(BIN)/python tools/run_notebooks.py
	$(BIN)/python -m ledgerlab.course.learner build

# The budget explorer as a page of its own (Voila), for a teacher to project. The page is
# this repository's, so it is trusted first (as `jupyter trust` records it for this user):
# else Voila warns on every visit that the notebook is not trusted. Its template, `present`
# (editions/voila/share/voila/templates), is Voila's lab one without the two stylesheets it
# links from a CDN; Voila finds it on JUPYTER_PATH. PRESENT_PORT (else a free one) and
# PRESENT_ARGS (more flags) are for tests/editions/browser, which serves the page through here.
EXPLORER := editions/voila/budget-explorer.ipynb
present: $(call EXTRA_STAMP,browser)
	@$(BIN)/jupyter trust --log-level=WARN $(EXPLORER) >/dev/null
	@port=$(or $(PRESENT_PORT),$$($(BIN)/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')); \
	echo; echo "  The budget explorer: http://127.0.0.1:$$port/   (Ctrl-C stops it)"; echo; \
	exec env JUPYTER_PATH=$(CURDIR)/editions/voila/share$${JUPYTER_PATH:+:$$JUPYTER_PATH} \
		$(BIN)/voila $(EXPLORER) --template=present --no-browser --Voila.ip=127.0.0.1 \
		--port=$$port --Voila.port_retries=0 $(ENCRYPTED) $(PRESENT_ARGS)

# Voila, JupyterLab and the course site on loopback, driven in Debian's Chromium
# (apt-get install -y chromium). reveal.js too, for the projected-slides test: a clone where
# only make test ran has it only where npm is.
# Two workers, each file whole on one (a file shares its JupyterLab or site server): 226 s
# against 351 s in one process.
test-browser: $(DEV) $(call EXTRA_STAMP,browser) $(call EXTRA_STAMP,book) $(SITE) $(SLIDES_NPM)
	$(BIN)/python -m pytest $(XDIST) tests/editions/browser

# The graded edition: build/assignment/{student,solutions,autograder}, then grade a folder of
# submitted notebooks into build/grades.csv, build/grades-feedback/ and build/grades-summary.md.
# Each submission runs in a bubblewrap sandbox (apt-get install bubblewrap); where bwrap cannot
# run, UNSAFE=1 grades without it (python -m ledgerlab.course.grading grade --help says what
# that gives up).
# With ROSTER=names.txt (one name per line), build/assignment/students/<name>/ instead of
# student/: each student's exercises on a variant of their own, derived from the name and the
# teacher's secret in SECRET_FILE (made if missing; keep it to rebuild the same variants).
# make grade grades each submission, <name>.ipynb, on the variant of that name; it grades the
# assignment last built, so build it first, with the roster. CANVAS_ASSIGNMENT=ID (the number
# after /assignments/ in the assignment's Canvas address) heads the Canvas gradebook's column
# "Title (ID)", so that Canvas's import fills that assignment instead of making a new one.
SECRET_FILE ?= $(HOME)/.ledgerlab-secret
assignment: $(COURSE)
	$(BIN)/python -m ledgerlab.course.grading assignment build/assignment \
		$(if $(ROSTER),--roster "$(ROSTER)" --secret-file "$(SECRET_FILE)")

grade: $(COURSE)
	@test -d "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=DIR (a folder of .ipynb files)"; exit 2; }
	@test -f build/assignment/autograder/assignment.json || { echo "make assignment first (with ROSTER= for a class's own variants)"; exit 2; }
	$(BIN)/python -m ledgerlab.course.grading grade "$(SUBMISSIONS)" --autograder build/assignment/autograder --out build/grades.csv $(if $(UNSAFE),--unsafe-no-sandbox) $(if $(CANVAS_ASSIGNMENT),--canvas-assignment "$(CANVAS_ASSIGNMENT)")

# A class's hand-out and collection (docs/grading.md): build/handout/<name>.zip per student
# (WHEEL=dist/x.whl puts the package in each), and EXPORT=canvas-or-moodle.zip matched to the
# roster into build/submissions/, ready for make grade SUBMISSIONS=build/submissions.
# MOODLE_WORKSHEET=grades.csv (Moodle's "Download grading worksheet") says which of Moodle's
# files were late: their names do not.
handout: $(COURSE)
	$(BIN)/python -m ledgerlab.course.grading handout build/assignment --out build/handout $(if $(WHEEL),--wheel "$(WHEEL)")

collect: $(COURSE)
	@test -e "$(EXPORT)" || { echo "usage: make collect EXPORT=ZIP-OR-FOLDER (a Canvas or Moodle download)"; exit 2; }
	$(BIN)/python -m ledgerlab.course.grading collect "$(EXPORT)" --autograder build/assignment/autograder --out build/submissions $(if $(MOODLE_WORKSHEET),--moodle-worksheet "$(MOODLE_WORKSHEET)")

# The course as a static site in build/book/html: the notebooks as committed, with their
# explorers' widget state (a notebook without a complete committed run is executed), Jupyter
# Book from PyPI, the widget manager and require.js from npm (editions/book/package.json).
book: $(SITE)

# (notebooks/. is the folder: a notebook removed or renamed changes it, not a file in it.
# Not `notebooks`, the phony target that re-runs the course in place on every build.)
$(SITE): $(call EXTRA_STAMP,book) $(BOOK_NPM) notebooks/. $(wildcard editions/book/*.py \
		editions/book/*.yml editions/book/site/* editions/book/widget-state/* \
		notebooks/*.ipynb ledgerlab/*.py ledgerlab/*/*.py ledgerlab/*/*/*.py)
	$(BIN)/python editions/book/build.py

$(BOOK_NPM): editions/book/package.json editions/book/package-lock.json
	@command -v npm >/dev/null || { echo "make book needs npm (apt-get install -y nodejs npm)"; exit 1; }
	npm ci --prefix editions/book --ignore-scripts --no-audit --no-fund

# One reveal.js deck per session (notebooks 01-11, as committed, with their outputs) in
# build/slides, and an index.html: each heading a slide, a prediction's answer on the slide
# after its question. reveal.js from npm (editions/slides/package.json), copied beside the
# decks, so no deck loads anything from another host.
slides: $(COURSE) $(SLIDES_NPM)
	$(BIN)/python editions/slides/build.py

$(SLIDES_NPM): editions/slides/package.json editions/slides/package-lock.json
	@command -v npm >/dev/null || { echo "make slides needs npm (apt-get install -y nodejs npm)"; exit 1; }
	npm ci --prefix editions/slides --ignore-scripts --no-audit --no-fund

# A simulated class on a local JupyterHub (loopback only): STUDENTS=N students (default 10),
# then a class of 3 in which one student's kernel is killed partway. Needs node and npm.
# See docs/classroom.md.
test-classroom: $(call EXTRA_STAMP,classroom) $(CHP)
	STUDENTS=$(STUDENTS) $(BIN)/python editions/classroom/run_class.py
	STUDENTS=3 KILL_ONE=2 $(BIN)/python editions/classroom/run_class.py

# The browser edition: JupyterLite with the Pyodide kernel, static files in build/lite
# (editions/lite/build.py says what goes in). Pyodide's core comes from npm
# (editions/lite/package.json).
lite: $(call EXTRA_STAMP,lite) $(LITE_NPM)
	$(BIN)/python editions/lite/build.py

# Offline: the library under Pyodide in Node, then the site in Chromium (needs make lite).
test-lite: $(DEV) $(call EXTRA_STAMP,lite) $(call EXTRA_STAMP,browser) $(LITE_NPM)
	@test -f build/lite/jupyter-lite.json || { echo "run make lite first"; exit 1; }
	$(BIN)/python -m pytest tests/editions/lite

$(LITE_NPM): editions/lite/package.json editions/lite/package-lock.json
	@command -v npm >/dev/null || { echo "make lite needs npm (apt-get install -y nodejs npm)"; exit 1; }
	npm ci --prefix editions/lite --ignore-scripts --no-audit --no-fund

# The long runs: 1,000 kill -9 trials instead of the 50 in `make test`, then the property
# tests marked `long` (3,000 and 1,000 examples: 230 s and 59 s of one core, measured
# inside a loaded `make test`).
stress: $(DEV)
	LEDGERLAB_KILL_TRIALS=1000 $(BIN)/python -m pytest tests/library/test_journal_crash.py -s
	$(BIN)/python -m pytest -m long -n 2 tests/library

# Side-by-side timings, one run: select, the article's loop, LangChain's trim_messages and the
# journal (bench_select, which writes notebook 13's results); many facts under a token limit;
# the speed target (issue 44), cold: select on turns it has never seen at most 3.0x one gson
# dumps of the body it returns, at 10,000 and 100,000 turns, 64 and 512 KiB, in the three
# dialects, on tool and reasoning turns, each row marked within or OVER (bench_tools, with
# how often trim_messages' output is refused); summaries and evidence (bench_memory); the bill
# of 300-call conversations under the whole-turn rule, the cache-stable rule, LangChain's
# trim_messages and the offline optimum (bench_cache, issue 47: about 3.5 min of it).
# Measured: 7 min 7 s wall, 168 s of CPU, on this project's 2-core machine at a load average of
# 6 to 9.5 from other work; bench_tools 282 s of it, 151 s of that making its three
# 100,000-turn histories (docs/benchmark.md).
bench: $(call EXTRA_STAMP,bench)
	$(BIN)/python benchmarks/bench_select.py
	$(BIN)/python benchmarks/bench_facts_tokens.py
	$(BIN)/python benchmarks/bench_tools.py
	$(BIN)/python benchmarks/bench_memory.py
	$(BIN)/python benchmarks/bench_cache.py

# Every install happens here. The first creates .venv; each target names the extras it needs,
# and the first target to need one installs it (with EXTRAS, in the same pip run). An extra
# already there is not installed again: its stamp is newer than pyproject.toml (the test in the
# recipe sees one written by an earlier install of this same make run). `make deps` (CI) makes
# the dev stamp, so dev and every extra in EXTRAS come in one pip run.
# Measured on this project's shared 2-core machine: creating .venv took 23-28 s, and the course
# extra's first install into it (110 packages) 3 minutes.
deps: $(DEV)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
		{ echo "ledgerlab needs Python 3.10 or newer; set PYTHON=python3.x"; exit 1; }
	@echo "Creating .venv: up to half a minute, and it prints nothing meanwhile"
	$(PYTHON) -m venv $(VENV)

# (.venv/.installed is the stamp of a .venv made before the course and dev stamps were apart: its
# first install was dev, which includes the course.)
$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	@test $@ -nt pyproject.toml || \
	{ test -n "$(filter course dev,$*)" -a $(VENV)/.installed -nt pyproject.toml && touch $@; } || { \
		echo "Installing ledgerlab[$(call extra_list,$*)] into .venv (a first install takes" \
			"minutes; pip's progress follows)"; \
		echo '$(PIP) -e ".[$(call extra_list,$*)]"'; \
		$(PIP) -e ".[$(call extra_list,$*)]" && touch $(call stamps_of,$*); }

# The hub's proxy, from npm, kept under build/ (not in the repository's package.json).
# Version 5 needs Node 20; Debian 12's own nodejs is 18, which 4.6 supports.
$(CHP):
	@command -v npm >/dev/null || { echo "make test-classroom needs node and npm (apt-get install -y nodejs npm)"; exit 1; }
	npm install --silent --no-fund --no-audit --prefix build/classroom/npm \
		configurable-http-proxy@$$(node -p 'process.versions.node.split(".")[0] >= 20 ? 5 : "4.6"')

clean:
	rm -rf $(VENV) build editions/book/node_modules editions/slides/node_modules .pytest_cache .hypothesis
