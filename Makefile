# The lab's commands. Only Python 3.11+ and make are needed: the first target you run creates
# .venv from requirements.txt, and it is installed again whenever requirements.txt changes.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed-requirements
NEWEST_STEP := $(lastword $(sort $(dir $(wildcard labs/step*/demo.py))))
NOTEBOOKS := $(sort $(wildcard notebooks/[0-9]*.ipynb))

.PHONY: help python-version demo lab check step-venv steps test-source notebooks exercises exercise hint bench clean

help:
	@echo "make demo        run the newest step's demo ($(NEWEST_STEP))"
	@echo "make lab         open the notebooks in JupyterLab"
	@echo "make check       ruff (lint, format), every step's tests, course-wide tests, notebooks, exercises"
	@echo "make exercises   list the exercises;  make exercise ID=01.1  checks one"
	@echo "make hint ID=01.1  one short hint for an exercise (before you read its solution)"
	@echo "make bench       the production step at scale: 100,000 entries resumed, then compacted, JSONL beside SQLite"
	@echo "make steps       cut labs/ from source/ after an edit there (never edit labs/)"
	@echo "make test-source the production step's tests, on source/lab/ where it is edited"
	@echo "make notebooks   re-execute every notebook in place (fresh, in order) after a change"

# One line, not a traceback, for a Python too old: checked once before either install starts.
python-version:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "error: the lab needs Python 3.11+, $(PYTHON) is " + sys.version.split()[0])'

# uv installs the very pins pip would, in seconds rather than a minute (it fetches and unpacks
# side by side); where uv cannot be installed or cannot reach the index (a mirror set up for pip
# alone), pip installs the file. Bytecode is compiled at install: make check's processes read it.
$(INSTALLED): requirements.txt | python-version
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "installing requirements.txt into $(VENV) (once; under a minute)"
	@{ $(PY) -m pip install --quiet --disable-pip-version-check "$$(grep '^uv==' requirements.txt)" \
	  && $(VENV)/bin/uv pip install --quiet --python $(PY) --compile-bytecode -r requirements.txt \
	  2>/dev/null; } || { echo "uv could not install it; pip does (a minute or two)" \
	  && $(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt; }
	@touch $@

demo: $(INSTALLED)
	@$(PY) $(NEWEST_STEP)demo.py

# Rooted at the lab's folder, so the file browser reaches exercises/ (where you edit) as well
# as notebooks/; each notebook's kernel still starts in notebooks/, next to labtools.py.
# As root (a container, a CI image, a cloud notebook) Jupyter refuses to start unless told
# that root is meant; where there is no browser to open, it prints the address instead of a
# warning. LAB_ARGS passes more options (LAB_ARGS="--port 8890").
# JupyterLab asks on first start whether to fetch Jupyter's news, over the first notebook; the
# lab answers no for it (tools/jupyterlab/overrides.json, JupyterLab's own settings overrides,
# in .venv): nothing is fetched from the web, and nothing covers the notebook.
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json

$(LAB_OVERRIDES): tools/jupyterlab/overrides.json $(INSTALLED)
	@mkdir -p $(dir $@) && cp tools/jupyterlab/overrides.json $@

lab: $(INSTALLED) $(LAB_OVERRIDES)
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=. \
	  --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate \
	  --LabApp.default_url=/lab/tree/$(firstword $(NOTEBOOKS)) \
	  $(if $(filter 0,$(shell id -u)),--ServerApp.allow_root=True) \
	  $(if $(shell $(PY) -c 'import webbrowser; webbrowser.get()' 2>/dev/null || echo none),--no-browser) \
	  $(LAB_ARGS)

# make check also runs the newest step in an environment of its own requirements.txt alone:
# made beside the lab's own, at the same time (one pip cannot use both cores), with the
# system's Python (copy_out.py needs only the standard library).
check:
	@$(MAKE) --no-print-directory -j2 $(INSTALLED) step-venv
	@$(PY) tools/run_checks.py

step-venv: python-version
	@$(PYTHON) tools/copy_out.py --venv-only $(NEWEST_STEP)

# labs/ is made from source/ (source/README.md); ruff, from .venv, formats each step it cuts.
steps: $(INSTALLED)
	@$(PY) tools/make_steps.py

exercises: $(INSTALLED)
	@$(PY) -m exercises list

# ID reaches the runner as one word, whatever it holds: make hands a recipe to the shell, and
# ID="01.1; rm -rf ~" must be an unknown exercise, not a command. $(value ID) is the text as
# typed: make expands nothing in it, so ID='01.1$(shell rm -rf ~)' runs nothing either.
# And ID is not exported: make puts a variable given on the command line into each recipe's
# environment, and expands it to do so, which ran that $(shell ...) before the recipe did.
# (A sub-make still gets ID, escaped, through MAKEFLAGS.)
QUOTED_ID = '$(subst ','\'',$(value ID))'
unexport ID

exercise: $(INSTALLED)
	@$(PY) -m exercises check $(QUOTED_ID)

hint: $(INSTALLED)
	@$(PY) -m exercises hint $(QUOTED_ID)

# One fresh in-order run per notebook, in the same environment `make check` uses; the
# outputs (and execution counts 1..N) are what nbval later compares against.
notebooks: $(INSTALLED)
	@for nb in $(NOTEBOOKS); do \
	  echo "executing $$nb"; \
	  (cd notebooks && ../$(VENV)/bin/jupyter nbconvert --to notebook --execute \
	    --inplace --ExecutePreprocessor.kernel_name=python3 $$(basename $$nb)) || exit 1; \
	done

# Figures, not a test: a 100,000-entry session (about 120 MiB) resumed by the production step
# against the floor of parsing every line, then compacted and resumed by steps 05, 06 and the
# production step; peak memory against the file; and step 01's append costs.
bench: $(INSTALLED)
	@$(PY) tools/bench.py

clean:
	rm -rf notebooks/.scratch .pytest_cache .ruff_cache

# The production step's tests, run on the source where it is edited (make check runs them on
# the step folder cut from it, copied out alone).
test-source: $(INSTALLED)
	@cd source/lab && ../../$(PY) -m pytest -q -p no:cacheprovider
