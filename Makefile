# Every target installs what it needs into .venv by itself: on a fresh clone
# `make test` and `make demo` are the whole set-up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The system packages the tests drive: Debian's chromium and its driver (tests/browser and
# the browser figures of make bench) and mosquitto (the MQTT tests). One step installs all three, as root; without root it says
# what to install.
SYSTEM_PACKAGES := chromium chromium-driver mosquitto
SYSTEM_FILES := /usr/bin/chromium /usr/bin/chromedriver /usr/sbin/mosquitto

.PHONY: test test-fast demo bench venv clean system-packages

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

system-packages:
	@missing=""; for f in $(SYSTEM_FILES); do test -x $$f || missing="$$missing $$f"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $(SYSTEM_PACKAGES); \
	  else \
	    echo "missing$$missing: as root, apt-get install $(SYSTEM_PACKAGES)" >&2; exit 1; \
	  fi; \
	fi

test: $(STAMP) system-packages
	$(BIN)/python -m pytest -n 4

# The in-process suite alone (no processes, browser or broker): under a minute on two cores.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m "not processes"

demo: $(STAMP)
	$(BIN)/mjtable demo $(DEMO_ARGS)

bench: $(STAMP) system-packages
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info
