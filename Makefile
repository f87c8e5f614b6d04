# Every target installs what it needs into .venv by itself: on a fresh clone
# `make test` and `make demo` are the whole set-up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# The system packages the tests drive: Debian's chromium and its driver (tests/browser and
# the browser figures of make bench), mosquitto (the MQTT tests) and gcc (tests/firmware builds
# the C core for this machine). One step installs them all, as root; without root it says
# what to install.
SYSTEM_PACKAGES := chromium chromium-driver mosquitto gcc
SYSTEM_FILES := /usr/bin/chromium /usr/bin/chromedriver /usr/sbin/mosquitto /usr/bin/cc
# What `make firmware-check` needs to build the C core for a Cortex-M3 and run it in QEMU.
FIRMWARE_PACKAGES := gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
FIRMWARE_FILES := /usr/bin/arm-none-eabi-gcc /usr/lib/arm-none-eabi/newlib/thumb/v7-m/nofp/libc_nano.a \
  /usr/bin/qemu-system-arm

# Install the Debian packages $(1) unless every file of $(2) is there: as root, else say what to install.
define install_missing
@missing=""; for f in $(2); do test -e $$f || missing="$$missing $$f"; done; \
if [ -n "$$missing" ]; then \
  if [ "$$(id -u)" = 0 ]; then \
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $(1); \
  else \
    echo "missing$$missing: as root, apt-get install $(1)" >&2; exit 1; \
  fi; \
fi
endef

.PHONY: test test-fast demo bench venv clean system-packages firmware-packages firmware-check catalogs screenshots

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The gettext catalogs (docs/LANGUAGES.md): the messages extracted from the sources, each
# language's .po brought up to them (new ones untranslated, gone ones kept as obsolete), and
# compiled to the .mo the product reads. The .po and .mo are committed.
LOCALE := controller/locale
catalogs: $(STAMP)
	$(BIN)/pybabel extract -F $(LOCALE)/babel.cfg --no-wrap --sort-by-file \
	  -o $(LOCALE)/mjtable.pot .
	$(BIN)/pybabel update -D mjtable -i $(LOCALE)/mjtable.pot -d $(LOCALE) --no-wrap
	$(BIN)/pybabel compile -D mjtable -d $(LOCALE) --statistics

# The page's screenshots in docs/img/ (docs/LANGUAGES.md), in every language: the Japanese and
# Chinese ones need CJK fonts, which the tests themselves do not (fonts-noto-cjk: 57 MB).
SCREENSHOT_PACKAGES := fonts-noto-cjk
SCREENSHOT_FILES := /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
screenshots: $(STAMP) system-packages
	$(call install_missing,$(SCREENSHOT_PACKAGES),$(SCREENSHOT_FILES))
	MJTABLE_SCREENSHOTS=1 $(BIN)/python -m pytest tests/browser/test_browser_layout.py

system-packages:
	$(call install_missing,$(SYSTEM_PACKAGES),$(SYSTEM_FILES))

firmware-packages:
	$(call install_missing,$(FIRMWARE_PACKAGES),$(FIRMWARE_FILES))

# The C reference core on an emulated Cortex-M3 (QEMU lm3s6965evb): the conformance kit with
# MCU resets through the QEMU monitor, and a whole game through `mjtable run` (docs/FIRMWARE.md).
firmware-check: $(STAMP) firmware-packages
	MJT_FIRMWARE_CHECK=1 $(BIN)/python -m pytest tests/firmware_qemu tests/firmware/test_host_presets.py

test: $(STAMP) system-packages
	$(BIN)/python -m pytest -n 4

# The in-process suite alone (no processes, browser or broker): under a minute on two cores.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m "not processes"

demo: $(STAMP)
	$(BIN)/mjtable demo $(DEMO_ARGS)

bench: $(STAMP) system-packages firmware-packages
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info
