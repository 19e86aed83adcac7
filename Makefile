# campaign-mock — make targets
#
#   make setup     install the system packages the build needs (Debian/Ubuntu; skipped when present)
#   make run       setup, build and start the server on its defaults (http://127.0.0.1:8080)
#   make test      build and run the whole test suite: the Swift tests, then Tests/Contract/: the admin
#                  API contract test (schemathesis) and the SOAP router driven by zeep, both against a live server
#   make lint      check formatting (swift format, strict)
#   make format    fix formatting in place
#   make build     debug build
#   make release   optimised build (.build/release/campaign-mock)
#   make clean     remove build products
#
# Variables: SWIFT (default: swift), ARGS (extra arguments for `make run`, e.g. ARGS="--port 9000").

SWIFT ?= swift
PYTHON ?= python3
ARGS ?=
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)
# Debian packages: the SQLite and OpenSSL headers to build; curl, the openssl tool and Python's pip for
# the tests.
DEBIAN_PACKAGES := libsqlite3-dev libssl-dev pkg-config curl openssl python3-pip
SWIFT_SOURCES := Sources Tests Package.swift

.PHONY: setup run build release test lint format clean

setup:
	@if command -v dpkg >/dev/null 2>&1; then \
		missing=""; \
		for package in $(DEBIAN_PACKAGES); do \
			dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; \
		done; \
		if [ -n "$$missing" ]; then \
			echo "Installing:$$missing"; \
			$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; \
		fi; \
	elif command -v brew >/dev/null 2>&1; then \
		brew list sqlite >/dev/null 2>&1 || brew install sqlite; \
	fi
	@command -v $(SWIFT) >/dev/null 2>&1 || { echo "Swift 6.2 or newer is required: https://www.swift.org/install"; exit 1; }
	@$(PYTHON) Tests/Contract/requirements_met.py || { \
		echo "Installing the contract-test tools (Tests/Contract/requirements.txt)"; \
		$(PYTHON) -m pip install --quiet --disable-pip-version-check -r Tests/Contract/requirements.txt; }

run: setup
	$(SWIFT) run campaign-mock serve $(ARGS)

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	Tests/Contract/schemathesis.sh "$$($(SWIFT) build --show-bin-path)/campaign-mock"
	CAMPAIGN_MOCK_BINARY="$$($(SWIFT) build --show-bin-path)/campaign-mock" $(PYTHON) -m pytest -q -p no:cacheprovider Tests/Contract

lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)

format:
	$(SWIFT) format format --in-place --recursive $(SWIFT_SOURCES)

clean:
	rm -rf .build
