# campaign-mock — make targets
#
#   make setup     install the system packages the build needs (Debian/Ubuntu; skipped when present)
#   make run       setup, build and start the server on its defaults (http://127.0.0.1:8080)
#   make test      build and run the whole test suite: the Swift tests, then Tests/Contract/: the admin
#                  API contract test (schemathesis) and the SOAP router driven by zeep, both against a live server,
#                  then the kill -9 durability check (5 kills)
#   make lint      check formatting (swift format, strict)
#   make format    fix formatting in place
#   make build     debug build
#   make release   optimised build (.build/release/campaign-mock)
#   make durability  kill -9 the server 20 times under load; every acknowledged request must survive
#                  (make test runs it with 5 kills)
#   make bench     benchmark the release build against nginx on loopback (bench/bench.py; BENCH_SECONDS)
#   make setup-bench  install wrk and nginx for it (Debian/Ubuntu)
#   make fuzz      build the libFuzzer targets (Fuzz/) and run each for FUZZ_SECONDS (default 60)
#   make clean     remove build products
#
# Variables: SWIFT (default: swift), ARGS (extra arguments for `make run`, e.g. ARGS="--port 9000"),
# FUZZ_SECONDS, FUZZ_TARGETS (default: all five).

SWIFT ?= swift
PYTHON ?= python3
ARGS ?=
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= http-request form additional-params tracking-id soap-envelope
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)
# Debian packages: the SQLite and OpenSSL headers to build; curl, the openssl tool and Python's pip for
# the tests.
DEBIAN_PACKAGES := libsqlite3-dev libssl-dev pkg-config curl openssl python3-pip
SWIFT_SOURCES := Sources Tests Fuzz Package.swift

.PHONY: setup run build release test lint format clean fuzz bench setup-bench durability

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
	$(PYTHON) bench/durability.py --kills 5 --binary "$$($(SWIFT) build --show-bin-path)/campaign-mock"

durability: build
	$(PYTHON) bench/durability.py --kills 20 --binary "$$($(SWIFT) build --show-bin-path)/campaign-mock"

lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)

format:
	$(SWIFT) format format --in-place --recursive $(SWIFT_SOURCES)

setup-bench:
	@for tool in wrk nginx; do \
		command -v $$tool >/dev/null 2>&1 || [ -x /usr/sbin/$$tool ] || missing="$$missing $$tool"; \
	done; \
	if [ -n "$$missing" ]; then \
		packages=$$(echo $$missing | sed 's/nginx/nginx-light/'); \
		echo "Installing: $$packages"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$packages; \
	fi

bench: setup setup-bench
	$(PYTHON) bench/bench.py

# Each target starts from its seeds in Fuzz/corpus/<target> (python3 Fuzz/make-corpus.py) and keeps
# what it learns in .build-fuzz/corpus/<target>; a crash is written to Fuzz/crashes/ and fails the run.
fuzz:
	$(SWIFT) build --build-path .build-fuzz --product campaign-mock-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
	@mkdir -p Fuzz/crashes
	@for target in $(FUZZ_TARGETS); do \
		mkdir -p .build-fuzz/corpus/$$target; \
		echo "== $$target ($(FUZZ_SECONDS) s)"; \
		CAMPAIGN_MOCK_FUZZ_TARGET=$$target SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=symbolize=0 \
			.build-fuzz/debug/campaign-mock-fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=1 \
			-artifact_prefix=Fuzz/crashes/$$target- .build-fuzz/corpus/$$target Fuzz/corpus/$$target 2>&1 \
			| grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==|artifact_prefix)" \
			|| true; \
		if ls Fuzz/crashes/$$target-* >/dev/null 2>&1; then echo "crash found: Fuzz/crashes/$$target-*"; exit 1; fi; \
	done

clean:
	rm -rf .build .build-fuzz
