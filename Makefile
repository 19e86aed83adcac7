# campaign-mock — make targets
#
#   make setup     install the system packages the server needs to build (Debian/Ubuntu, Homebrew;
#                  skipped when present)
#   make run       setup, build and start the server on its defaults (http://127.0.0.1:8080)
#   make install   release build into $(PREFIX)/bin (default /usr/local)
#   make setup-test  setup, plus the test tools: curl, openssl, Chromium and its driver, and a
#                  project-local Python environment in .venv/ with Tests/Contract/requirements.txt
#   make test      setup-test, then build and run the whole test suite: the Swift tests, then
#                  Tests/Contract/: the admin API contract test (schemathesis), the SOAP router driven by
#                  zeep and the examples of the README and docs/, all against live servers, then the app-side
#                  package Examples/SwiftClientConsumer (built with the client alone), then the kill -9
#                  durability check (5 kills)
#   make lint      check formatting (swift format, strict), every shell script (shellcheck), the workflows
#                  (actionlint), the Dockerfiles (hadolint), the Homebrew formula (ruby -c) and that every
#                  import of one of the package's modules is used (scripts/check-imports.py), and that Xcode 16
#                  reads the manifests (scripts/check-manifest.py); setup-lint
#                  installs those tools (Debian packages, and .venv/ with Tests/Contract/requirements-lint.txt)
#   make dist      the release artifact for this machine, as the release workflow builds it:
#                  dist/campaign-mock-<version>-linux-<arch>.tar.gz and .sha256 (docs/install.md)
#   make test-dist  make dist, then run it in a bare Debian (debootstrap), install it with install.sh and
#                  run the Homebrew formula's test block on it (Tests/Contract/test_release.py; make test runs it
#                  on Linux, the only system that builds the Linux tarball)
#   make format    fix formatting in place
#   make build     debug build
#   make release   optimised build (.build/release/campaign-mock)
#   make durability  kill -9 the server 20 times under load; every acknowledged request must survive
#                  (make test runs it with 5 kills)
#   make bench     benchmark the release build against nginx on loopback (bench/bench.py; BENCH_SECONDS)
#   make setup-bench  install wrk and nginx for it (Debian/Ubuntu)
#   make bench-ab BASE=<rev>  this tree's release build against BASE's, alternately in one sitting
#                  (bench/ab.py): BASE is built once in its own git worktree, .build-ab/<commit>/; then
#                  AB_ROUNDS (≥ 3) rounds of tracking hits and registrations, wrk -t2 -c64 for AB_SECONDS
#                  (8) each, distinct ids and tokens, a fresh data directory each; prints every round, the
#                  medians, HEAD/BASE per load and the p99s (AB_ARGS: extra `serve` arguments for both)
#   make bench-peers  the release build beside WireMock 2.35.1 on the same loads in the same run
#                  (bench/peers.py): its jar comes from PyPI's wiremock 2.7.0 wheel (pip download, cached in
#                  .build-peers/), run by Java 17 with a 200 OK stub per path, its JIT warmed 15 s a load;
#                  prints both rates, both p99s and the ratios (PEERS_ROUNDS, PEERS_SECONDS, PEERS_WARMUP)
#   make bench-instructions  instructions per tracking hit, registration and health check (callgrind)
#   make bench-volume  the admin API's lists with 100,000 devices and 1,000,000 events
#   make bench-retention  registrations while retention sweeps, against the same load without it
#   make bench-retention-steady  the store against its caps under a steady mixed load, then a flood
#   make bench-soak  memory under a steady mixed load (SOAK_SECONDS, default 600): its slope over the second half
#   make fuzz      build the libFuzzer targets (Fuzz/) and run each for FUZZ_SECONDS (default 60)
#   make clean     remove build products
#
# Variables: SWIFT (default: swift), PYTHON (creates .venv; default: python3), PREFIX, ARGS (extra arguments for `make run`, e.g. ARGS="--port 9000"),
# FUZZ_SECONDS, FUZZ_TARGETS (default: all thirteen).

SWIFT ?= swift
# The commit `campaign-mock --version` names, handed to every build (and test) through the environment:
# Package.swift defines it for one C file, so a new commit recompiles that file alone.
export CAMPAIGN_MOCK_COMMIT ?= $(shell commit=$$(git rev-parse --short=12 HEAD 2>/dev/null) \
	&& { git diff --quiet HEAD 2>/dev/null && echo $$commit || echo $$commit-modified; })
PYTHON ?= python3
PREFIX ?= /usr/local
ARGS ?=
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= http-request form additional-params tracking-id soap-envelope state-document spooled-request \
	payload-check config-file http2-response redo-log http-response journal-file
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)
# What the server needs to build: the SQLite, OpenSSL and nghttp2 (HTTP/2, for APNs) headers, found through
# pkg-config.
SERVER_PACKAGES := libsqlite3-dev libssl-dev libnghttp2-dev pkg-config
# What the tests need besides: curl, the openssl tool and ApacheBench (driven by tests) and Python's venv for the
# project-local test environment.
TEST_PACKAGES := curl openssl python3-venv apache2-utils
BROWSER_PACKAGES := chromium chromium-driver
# The JVM client: a JDK, Maven with the plugins its offline build takes from Debian's /usr/share/maven-repo
# (clients/jvm/build.sh), and JUnit 4 and 5 for its rule, extension and tests.
JVM_PACKAGES := default-jdk-headless maven libmaven-compiler-plugin-java libmaven-jar-plugin-java \
	libmaven-source-plugin-java libmaven-resources-plugin-java libmaven-install-plugin-java junit4 junit5
# What the JVM client's build and tests find when JVM_PACKAGES are installed.
JVM_READY := command -v javac >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1 \
	&& [ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-source-plugin ] \
	&& [ -f /usr/share/java/junit-platform-console-standalone.jar ] && [ -f /usr/share/java/junit4.jar ]
# What `make lint` needs besides Swift: shellcheck, Ruby (the Homebrew formula's syntax and test block) and
# Python's venv for the linters of Tests/Contract/requirements-lint.txt (hadolint, actionlint).
LINT_PACKAGES := shellcheck ruby python3-venv
# What the release artifact's test needs: debootstrap (the bare Debian it runs in) and Ruby (the formula).
DIST_TEST_PACKAGES := debootstrap ruby curl
# The test tools (schemathesis, zeep, pytest) live in this project-local virtual environment, never in
# the system Python (Debian and Ubuntu refuse that).
VENV := .venv
VENV_PYTHON := $(VENV)/bin/python
BIN_PATH = $$($(SWIFT) build --show-bin-path)
# Warnings are errors in the debug builds make runs (build, run, test) and in CI's: a flag, not the manifest,
# whose tools version stays one Xcode 16 reads (Package.swift). The release builds (release, install, dist,
# the benches) leave it out: a newer compiler's new warning does not stop an install.
WARNINGS_AS_ERRORS := -Xswiftc -warnings-as-errors
SWIFT_SOURCES := Sources Tests Fuzz Examples Package.swift

.PHONY: jvm-client setup setup-test run build release install test lint format clean fuzz bench bench-ab bench-peers bench-instructions bench-volume setup-bench bench-retention bench-retention-steady bench-soak durability dist setup-lint test-dist

# Installs the missing Debian packages of $(1) (or the Homebrew ones of $(2) on macOS), a line each.
define install_packages
	@if command -v dpkg >/dev/null 2>&1; then \
		missing=""; \
		for package in $(1); do \
			dpkg -s $$package >/dev/null 2>&1 || missing="$$missing $$package"; \
		done; \
		if [ -n "$$missing" ]; then \
			echo "==> installing Debian packages:$$missing"; \
			$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
		fi; \
	elif command -v brew >/dev/null 2>&1; then \
		for formula in $(2); do \
			brew list $$formula >/dev/null 2>&1 || { echo "==> installing $$formula (Homebrew)"; brew install $$formula; }; \
		done; \
	fi
endef

# Creates the project-local Python environment .venv/ when it is missing.
define make_venv
	@[ -x $(VENV_PYTHON) ] || { echo "==> creating the project's Python environment $(VENV)/ ($(PYTHON) -m venv)"; \
		$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); echo "python3 -m venv failed: install python3-venv"; exit 1; }; }
endef

# On macOS SQLite comes from the SDK and Package.swift reads Homebrew's openssl and nghttp2 .pc files itself.
setup:
	$(call install_packages,$(SERVER_PACKAGES),openssl@3 libnghttp2)
	@command -v $(SWIFT) >/dev/null 2>&1 || { echo "Swift 6.2 or newer is required: https://www.swift.org/install"; exit 1; }

setup-test: setup
	$(call install_packages,$(TEST_PACKAGES),curl)
	@# A real browser for the console's tests; where the distribution cannot install it (Ubuntu ships
	@# chromium as a snap), those tests say they were skipped.
	@if command -v dpkg >/dev/null 2>&1 && ! command -v chromedriver >/dev/null 2>&1; then \
		echo "==> installing Debian packages: $(BROWSER_PACKAGES) (for the console's browser tests)"; \
		{ $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $(BROWSER_PACKAGES) >/dev/null; } \
			|| echo "    could not install them: the console's browser tests will be skipped"; \
	fi
	@# A JDK, Maven and Debian's JUnit 4 and 5 for the JVM client (clients/jvm); skipped, saying why, without them.
	@if command -v dpkg >/dev/null 2>&1 && ! { $(JVM_READY); }; then \
		echo "==> installing Debian packages: $(JVM_PACKAGES) (for the JVM client's tests)"; \
		{ $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $(JVM_PACKAGES) >/dev/null; } \
			|| echo "    could not install them: the JVM client's tests will be skipped"; \
	fi
	$(make_venv)
	@$(VENV_PYTHON) Tests/Contract/requirements_met.py || { \
		echo "==> installing the test tools into $(VENV)/ (Tests/Contract/requirements.txt; a minute the first time)"; \
		$(VENV_PYTHON) -m pip install --quiet --disable-pip-version-check -r Tests/Contract/requirements.txt; }

run: setup
	@echo "==> building campaign-mock (debug; the first build takes a minute or two)"
	@$(SWIFT) build $(WARNINGS_AS_ERRORS) --product campaign-mock
	@echo "==> the binary is $(BIN_PATH)/campaign-mock (make install puts it on your PATH)"
	@exec "$(BIN_PATH)/campaign-mock" serve $(ARGS)

build:
	$(SWIFT) build $(WARNINGS_AS_ERRORS)

# On Linux the Swift runtime is linked in: the installed binary runs without the toolchain next to it,
# and it starts sooner (no dynamic loading of the Swift libraries; see docs/performance.md). macOS
# has the runtime in the system.
STATIC_SWIFT_STDLIB := $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib,)

release:
	$(SWIFT) build -c release $(STATIC_SWIFT_STDLIB) --product campaign-mock

# Installs the release build as $(PREFIX)/bin/campaign-mock (default /usr/local; PREFIX=~/.local for
# no sudo).
install: setup release
	@mkdir -p "$(PREFIX)/bin" 2>/dev/null || $(SUDO) mkdir -p "$(PREFIX)/bin"
	@install -m 755 "$$($(SWIFT) build -c release --show-bin-path)/campaign-mock" "$(PREFIX)/bin/campaign-mock" 2>/dev/null \
		|| $(SUDO) install -m 755 "$$($(SWIFT) build -c release --show-bin-path)/campaign-mock" "$(PREFIX)/bin/campaign-mock"
	@echo "==> installed $(PREFIX)/bin/campaign-mock"

# The release artifact of this machine, built as the release workflow builds it
# (.github/workflows/release.yml): dist/campaign-mock-<version>-linux-<arch>.tar.gz and its .sha256,
# the binary linked statically against everything but the C library (scripts/dist.sh; docs/install.md).
dist: setup
	@SWIFT=$(SWIFT) scripts/dist.sh

test: setup-test
	@echo "==> building campaign-mock and its tests"
	@$(SWIFT) build --build-tests $(WARNINGS_AS_ERRORS)
	@echo "==> Swift tests"
	@$(SWIFT) test --skip-build
	@echo "==> admin API contract (schemathesis)"
	@PYTHON=$(VENV_PYTHON) Tests/Contract/schemathesis.sh "$(BIN_PATH)/campaign-mock"
	@echo "==> SOAP clients (zeep, acc-js-sdk when ACC_JS_SDK_DIR is set) and the examples of the README and docs/ (pytest)"
	@CAMPAIGN_MOCK_BINARY="$(BIN_PATH)/campaign-mock" $(VENV_PYTHON) -m pytest -q -rs -p no:cacheprovider \
		--ignore=Tests/Contract/test_release.py --ignore=Tests/Contract/test_swift_consumer.py Tests/Contract
	@echo "==> SwiftPM consumer (Examples/SwiftClientConsumer): the client alone, built without the server's -dev packages"
	@SWIFT=$(SWIFT) $(VENV_PYTHON) -m pytest -q -rs -p no:cacheprovider Tests/Contract/test_swift_consumer.py
	@echo "==> JVM client (Maven offline; Java 8 and Android API 24; JUnit 4 and 5 against a live server)"
	@if $(JVM_READY); then \
		CAMPAIGN_MOCK_BINARY="$(BIN_PATH)/campaign-mock" clients/jvm/build.sh test; \
	else echo "    skipped: needs a JDK, Maven and Debian's Maven plugins, junit4 and junit5 (make setup-test installs them)"; fi
	@echo "==> kill -9 durability (5 kills)"
	@$(VENV_PYTHON) bench/durability.py --kills 5 --binary "$(BIN_PATH)/campaign-mock"
	@echo "==> release artifact: make dist, then it runs in a bare Debian, installs with install.sh and passes the formula's test (make test-dist)"
	@# Only Linux builds the Linux tarball a bare Debian runs (macOS's make dist makes a macOS one).
	@if [ "$$(uname -s)" = Linux ]; then $(MAKE) --no-print-directory test-dist; \
	else echo "    skipped: the release artifact's test needs a Linux tarball, built on Linux (make dist here makes a $$(uname -s) one)"; fi

# The release artifact, tested as a user gets it (Tests/Contract/test_release.py): in a bare Debian root
# file system made by debootstrap (.build-dist/rootfs, kept for the next run), through install.sh, and
# under the Homebrew formula's install and test blocks.
test-dist: dist
	$(call install_packages,$(DIST_TEST_PACKAGES),)
	$(make_venv)
	@$(VENV_PYTHON) Tests/Contract/requirements_met.py || $(VENV_PYTHON) -m pip install --quiet --disable-pip-version-check -r Tests/Contract/requirements.txt
	@CAMPAIGN_MOCK_DIST_DIR=dist $(VENV_PYTHON) -m pytest -q -rs -p no:cacheprovider Tests/Contract/test_release.py

# The JVM client's jars, sources jars and poms (clients/jvm/build/), built by Maven offline (clients/jvm/build.sh).
jvm-client:
	clients/jvm/build.sh

durability: build
	$(PYTHON) bench/durability.py --kills 20 --binary "$$($(SWIFT) build --show-bin-path)/campaign-mock"

setup-lint:
	$(call install_packages,$(LINT_PACKAGES),shellcheck ruby)
	$(make_venv)
	@$(VENV_PYTHON) Tests/Contract/requirements_met.py Tests/Contract/requirements-lint.txt || { \
		echo "==> installing the linters into $(VENV)/ (Tests/Contract/requirements-lint.txt)"; \
		$(VENV_PYTHON) -m pip install --quiet --disable-pip-version-check -r Tests/Contract/requirements-lint.txt; }

# Every shell script of the repository: *.sh, and files whose first line runs sh, bash or dash.
SHELL_SCRIPTS = $$(git ls-files --cached --others --exclude-standard | while IFS= read -r file; do \
		case "$$file" in *.sh) echo "$$file" ;; \
		*) if [ -f "$$file" ] && head -n 1 "$$file" | grep -Eq '^\#!.*[/ ](ba|da)?sh( |$$)'; then echo "$$file"; fi ;; esac; \
	done)

lint: setup-lint
	@echo "==> swift format"
	@$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)
	@echo "==> shellcheck: $(SHELL_SCRIPTS)" | tr '\n' ' '; echo
	@shellcheck $(SHELL_SCRIPTS)
	@echo "==> actionlint (.github/workflows, with shellcheck on their run: scripts)"
	@PATH="$(CURDIR)/$(VENV)/bin:$$PATH" actionlint
	@echo "==> hadolint: $$(git ls-files --cached --others --exclude-standard '*Dockerfile*' | tr '\n' ' ')"
	@$(VENV)/bin/hadolint $$(git ls-files --cached --others --exclude-standard '*Dockerfile*')
	@echo "==> ruby -c: the Homebrew formula and its test shim"
	@for file in Formula/*.rb Tests/Contract/homebrew_shim.rb; do ruby -c "$$file" >/dev/null || exit 1; done
	@echo "==> unused imports of the package's own modules (scripts/check-imports.py)"
	@$(VENV_PYTHON) scripts/check-imports.py
	@echo "==> the manifests an app on Xcode 16 reads: swift-tools-version 6.0 at most, no unsafeFlags (scripts/check-manifest.py)"
	@$(VENV_PYTHON) scripts/check-manifest.py

format:
	$(SWIFT) format format --in-place --recursive $(SWIFT_SOURCES)

setup-bench:
	@for tool in wrk nginx; do \
		command -v $$tool >/dev/null 2>&1 || [ -x /usr/sbin/$$tool ] || missing="$$missing $$tool"; \
	done; \
	if [ -n "$$missing" ] && ! command -v apt-get >/dev/null 2>&1 && command -v brew >/dev/null 2>&1; then \
		echo "Installing (Homebrew):$$missing"; brew install $$missing; \
	elif [ -n "$$missing" ]; then \
		packages=$$(echo $$missing | sed 's/nginx/nginx-light/'); \
		echo "Installing: $$packages"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$packages; \
	fi

bench: setup setup-bench
	$(PYTHON) bench/bench.py

# A/B of release builds in one sitting (bench/ab.py): BASE's binary is built in .build-ab/<commit>/.
bench-ab: setup setup-bench
	@[ -n "$(BASE)" ] || { echo "usage: make bench-ab BASE=<rev> (e.g. BASE=274d1f4)"; exit 1; }
	BASE=$(BASE) $(PYTHON) bench/ab.py

# Beside WireMock 2.35.1 (bench/peers.py): Java 17 runs the jar of PyPI's wiremock 2.7.0 wheel.
bench-peers: setup setup-bench
	@command -v java >/dev/null 2>&1 || ls /usr/lib/jvm/java-17-openjdk-*/bin/java >/dev/null 2>&1 \
		|| { echo "==> installing openjdk-17-jre-headless"; $(SUDO) apt-get install -y -qq openjdk-17-jre-headless >/dev/null; }
	$(PYTHON) bench/peers.py

# How the admin API's lists answer with 100,000 devices and 1,000,000 events (the console's first screen).
bench-volume: setup
	$(SWIFT) build -c release --product campaign-mock
	$(PYTHON) bench/volume.py

# Registrations while retention sweeps, against the same load without it (bench/retention.py).
bench-retention: setup setup-bench
	$(SWIFT) build -c release --product campaign-mock
	$(PYTHON) bench/retention.py

# The store against its caps under a steady mixed load at a fixed rate, then a flood (bench/retention.py).
bench-retention-steady: setup setup-bench
	$(SWIFT) build -c release --product campaign-mock
	$(PYTHON) bench/retention.py steady

# Memory under a steady mixed load with event streams, sampled from /proc (bench/soak.py; SOAK_* variables).
# Linux only: what it measures, anonymous memory, macOS does not show in /proc; there it says so and stops.
bench-soak: setup
	@[ "$$(uname -s)" = Linux ] || { echo "make bench-soak is Linux-only: it reads anonymous memory from /proc"; exit 1; }
	$(SWIFT) build -c release --product campaign-mock
	$(PYTHON) bench/soak.py

# Instructions per request (valgrind's callgrind): figures that do not move with the machine's load.
bench-instructions: setup
	@command -v valgrind >/dev/null 2>&1 || { echo "==> installing valgrind"; $(SUDO) apt-get install -y -qq valgrind >/dev/null; }
	$(PYTHON) bench/instructions.py

# Each target starts from its seeds in Fuzz/corpus/<target> (python3 Fuzz/make-corpus.py) and keeps
# what it learns in .build-fuzz/corpus/<target>; a crash is written to Fuzz/crashes/ and fails the run.
# Xcode's Swift says "(swiftlang-…)" in its version, a swift.org toolchain "(swift-6.2-RELEASE)".
fuzz:
	@if [ "$$(uname -s)" = Darwin ] && ! $(SWIFT) --version 2>/dev/null | grep -q "(swift-"; then \
		echo "make fuzz needs libFuzzer, which Xcode's toolchain does not ship: install a swift.org toolchain"; \
		echo "(https://www.swift.org/install/macos/) and run TOOLCHAINS=swift make fuzz, or fuzz on Linux."; exit 1; fi
	$(SWIFT) build --build-path .build-fuzz --product campaign-mock-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
	@mkdir -p Fuzz/crashes
	@for target in $(FUZZ_TARGETS); do \
		mkdir -p .build-fuzz/corpus/$$target; \
		echo "== $$target ($(FUZZ_SECONDS) s)"; \
		CAMPAIGN_MOCK_FUZZ_TARGET=$$target SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=symbolize=0 \
			.build-fuzz/debug/campaign-mock-fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=1 \
			-artifact_prefix=Fuzz/crashes/$$target- .build-fuzz/corpus/$$target Fuzz/corpus/$$target 2>&1 \
			| grep -E "^(#[0-9]+[[:space:]]+DONE|Done|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==|artifact_prefix)" \
			|| true; \
		if ls Fuzz/crashes/$$target-* >/dev/null 2>&1; then echo "crash found: Fuzz/crashes/$$target-*"; exit 1; fi; \
	done

clean:
	@# .build-dist holds the release test's Debian root file system: never removed while something is mounted in it.
	@if grep -q " $(CURDIR)/.build-dist/" /proc/mounts 2>/dev/null; then echo "something is mounted under .build-dist/: unmount it first"; exit 1; fi
	rm -rf .build .build-fuzz .build-dist .build-ab .build-peers dist $(VENV)
	@git worktree prune 2>/dev/null || true
