# blectl — build, test, run and install.
#
#   make run      the main job on the mock adapter (no Bluetooth needed)
#   make test     install missing Debian packages (as root), build, run every test
#   make test-ha  a real Home Assistant Core as the MQTT discovery consumer (docs/testing.md)
#   make e2e      real BlueZ in a qemu guest (see Tests/E2E/README.md)
#   make e2e-repeat N=10   the real-BlueZ suite N times: "N of M passed", retries, recovery spread
#   make e2e-memory   real BlueZ, scenarios 10, 10s, 10t: a pvvx sensor's memory fills gaps; a Xiaomi stock sensor's hourly records; a ThermoPro clock (~12 min)
#   make e2e-adapters real BlueZ, scenarios 11-13 and 15: two central controllers (~4 min)
#   make e2e-sensors  real BlueZ, scenario 14: an encrypted MiBeacon, an Inkbird, Govee meat probes (~2 min)
#   make traces   record real BlueZ: the suite once, its bus log normalised into
#                 Tests/Fixtures/traces (what the mock's conformance tests read)
#   make bench    the benchmark (see docs/benchmarks.md)
#   make bench-families  CPU (callgrind instructions) per advertisement, family by family
#                 (bench/advert_families.py; ARGS="--formats LIST --json FILE")
#   make flood-soak  blectld under a flood of 10,000 devices for 5 minutes (FLOOD_SECONDS)
#   make soak     blectld --mock under a seeded random schedule of faults (MINUTES=120, SEED=random;
#                 docs/testing.md); make soak-smoke: 3 minutes, a fixed seed (what CI runs)
#   make test-oracle  the advertisement decoders against Home Assistant's parsers (PyPI, pinned)
#   make test-tsan, make test-asan    every test under ThreadSanitizer, or Address+UB Sanitizer
#   make fuzz     libFuzzer on the parsers and decoders (see docs/testing.md)
#   make install  binaries, systemd units, a sample config, man pages and completions under $(PREFIX)
#   make deb      the Debian package blectl_VERSION_ARCH.deb (see debian/rules)
#   make man      the man pages from man/*.scd (scdoc) into man/build
#   make docs     rewrite the documents' generated lists of sensor formats and settings from the code
#   make e2e-systemd  the .deb under real systemd in a qemu guest (see Tests/E2E/README.md)

APT_PACKAGES := libdbus-1-dev libbluetooth-dev nettle-dev libsqlite3-dev libmosquitto-dev libmicrohttpd-dev dbus dbus-daemon pkg-config scdoc \
	mosquitto mosquitto-clients openssl
# What only the tests use: a real browser for the HTTP page, Prometheus' own parser for /metrics,
# and the shells whose completions CompletionTests loads.
TEST_APT_PACKAGES := chromium python3-prometheus-client zsh fish
# What `make deb` needs on top (not `make test`): debhelper builds, lintian checks the result.
DEB_PACKAGES := debhelper dpkg-dev lintian
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift

.PHONY: check-layers deps test-deps build release test test-ha test-oracle test-tsan test-asan build-asan fuzz fuzz-smoke run e2e e2e-repeat e2e-memory e2e-adapters e2e-sensors e2e-systemd traces bench \
	bench-check bench-families flood-soak soak soak-smoke install uninstall format lint clean man completions docs deb

deps:
	@scripts/install-deps.sh $(APT_PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Heavy suites run alone, after the others (see TestSupport's heavyTestsRun), so that their load
# skews no one's timing: the device flood, and the tests that hold hundreds of descriptors.
HEAVY_TESTS := FloodTests|SocketServerTests/manyClients|SocketAbuseTests/manyClients|HTTPOutputIntegrationTests/abuse|ServerLimitsTests/thousandConnections

test-deps: deps
	@scripts/install-deps.sh $(TEST_APT_PACKAGES)

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	BLECTL_HEAVY_TESTS=1 $(SWIFT) test --skip-build --filter '$(HEAVY_TESTS)'

# A real Home Assistant Core (pinned in Tests/HomeAssistant/ha_venv.py, installed once into
# ~/.cache/blectl, minutes) reading blectld's MQTT discovery; docs/testing.md. The driver
# needs the standard library only; Home Assistant runs on pyenv's Python 3.13.
test-ha: deps
	$(SWIFT) build
	/usr/bin/python3 Tests/HomeAssistant/ha_test.py --bin "$$($(SWIFT) build --show-bin-path)"

# Sanitizer builds, each in its own scratch directory so it does not replace the debug build.
# Tests wait SANITIZER_TIME_SCALE times longer (BLECTL_TEST_TIME_SCALE, docs/testing.md): the
# sanitizers slow everything down, and a deadline tuned for a normal run would fail a slow test.
SANITIZER_TIME_SCALE ?= 6
# ThreadSanitizer slows Swift concurrency more (5-15 times against AddressSanitizer's 2-4).
TSAN_TIME_SCALE ?= 8
TSAN_FLAGS := --sanitize=thread --scratch-path .build/tsan
# AddressSanitizer for everything; UndefinedBehaviorSanitizer for the C our modules compile
# (the inline shims of CBlueZ, CLinux, CNettle, CSQLite): swiftc has no -sanitize=undefined on
# Linux, and Swift code traps on overflow and out-of-bounds access by itself.
ASAN_FLAGS := --sanitize=address -Xswiftc -Xcc -Xswiftc -fsanitize=undefined --scratch-path .build/asan
# No leak check at exit (the fuzzers check for leaks per input instead): a process ending
# frees nothing, and LeakSanitizer cannot follow Swift's tagged pointers (weak-reference side
# tables, multi-payload enums such as DBusValue), so it reports live objects as leaked.
ASAN_ENV := ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# blectl's advertisement decoders against Home Assistant's parsers from PyPI, pinned, in a
# cached virtual environment (scripts/oracle.sh; docs/advertisements.md has the table).
test-oracle: deps
	$(SWIFT) build --product blectl-oracle
	scripts/oracle.sh .build/debug/blectl-oracle

test-tsan: test-deps
	$(SWIFT) build --build-tests $(TSAN_FLAGS)
	BLECTL_TEST_TIME_SCALE=$(TSAN_TIME_SCALE) $(SWIFT) test --skip-build $(TSAN_FLAGS)

# The AddressSanitizer build alone (CI starts it beside the PyPI-bound steps; after make test-deps).
build-asan:
	$(SWIFT) build --build-tests $(ASAN_FLAGS)

test-asan: test-deps build-asan
	$(ASAN_ENV) BLECTL_TEST_TIME_SCALE=$(SANITIZER_TIME_SCALE) $(SWIFT) test --skip-build $(ASAN_FLAGS)

# libFuzzer with AddressSanitizer, FUZZ_SECONDS per target, from the committed seeds; a
# crash, leak or timeout fails it and leaves the input in .build/fuzz/artifacts/.
# FUZZ_RUNS=N: N executions per target instead (the long run docs/testing.md records: 1000000).
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) SWIFT=$(SWIFT) Tests/Fuzz/run.sh

# Every target for 10 s: what CI runs.
fuzz-smoke: deps
	FUZZ_SECONDS=10 FUZZ_RUNS= SWIFT=$(SWIFT) Tests/Fuzz/run.sh

run: release
	@MQTT="$(MQTT)" scripts/run-mock.sh .build/release

e2e: release
	Tests/E2E/run-e2e.sh --bin-dir "$$($(SWIFT) build -c release --show-bin-path)"

# Scenarios 10 and 10s (issue 35): a pvvx sensor recording every 60 s into its memory; blectld
# stopped for 3 minutes, then hci0 powered off for 3 minutes; the history filled from the
# sensor's memory; then a Xiaomi stock sensor (LYWSD03MMC, LYWSD02) with two days of hourly
# records read by `blectl memory`; a ThermoPro TP358's display clock set. About 12 minutes;
# not in `make e2e` (Tests/E2E/README.md, "Scenario 10", "Scenario 10s", "Scenario 10t").
# MEMORY_ARGS="--driver-arg --memory-outage-s=600" for the issue's 10-minute outages.
MEMORY_ARGS ?=
e2e-memory: release
	VM_TIMEOUT=$${VM_TIMEOUT:-1500} DRIVER_TIMEOUT=$${DRIVER_TIMEOUT:-1380} Tests/E2E/run-e2e.sh \
	  --bin-dir "$$($(SWIFT) build -c release --show-bin-path)" --scenarios 10,10s,10t --driver-arg --deadline=1200 $(MEMORY_ARGS)

# Scenarios 11-13 and 15 alone (issue 36): two central controllers (hci0, hci3) given to
# blectld; the sensor heard by both (each measurement once), the link's controller powered off
# 7 times (the median recovery), one controller silenced; 15: a controller of its own (through
# btvirt's server socket) removed and re-added under a new index. About 4 minutes; `make e2e`
# runs 12 (3 times).
ADAPTERS_ARGS ?= --driver-arg --failover-reps=7
e2e-adapters: release
	Tests/E2E/run-e2e.sh --bin-dir "$$($(SWIFT) build -c release --show-bin-path)" --scenarios 1,11,12,13,15 $(ADAPTERS_ARGS)

# Scenario 14 alone (issue 34): an encrypted MiBeacon v5, an Inkbird (its temperature
# bluetoothd's company id) and a Govee H5184 meat thermometer (four probes, each its own
# reading) from the rig's sensor; not in `make e2e` (Tests/E2E/README.md).
e2e-sensors: release
	Tests/E2E/run-e2e.sh --bin-dir "$$($(SWIFT) build -c release --show-bin-path)" --scenarios 14

# The .deb under real systemd (socket activation, watchdog, reload, the journal) in a qemu
# guest booting a small Debian 12; takes a few minutes (Tests/E2E/README.md).
e2e-systemd: deb
	Tests/E2E/run-e2e.sh --systemd --deb "blectl_$$(dpkg-parsechangelog -SVersion)_$$(dpkg-architecture -qDEB_HOST_ARCH).deb"

# A passing run only: traces.py refuses the logs of a failed one.
traces: release
	Tests/E2E/run-e2e.sh --bin-dir "$$($(SWIFT) build -c release --show-bin-path)"
	/usr/bin/python3 Tests/E2E/traces.py --from "$${E2E_DIR:-/tmp/blectl-e2e}/last-run.tar.gz"
	/usr/bin/python3 Tests/E2E/traces.py --from "$${E2E_DIR:-/tmp/blectl-e2e}/last-run.tar.gz" --stats

N ?= 10
e2e-repeat: release
	Tests/E2E/repeat.sh $(N) --bin-dir "$$($(SWIFT) build -c release --show-bin-path)"

bench: release
	bench/run.sh

# Every advertisement format blectl-mock knows, one at a time: instructions per advertisement
# under callgrind, CPU and allocations without it (docs/benchmarks.md).
ARGS ?=
bench-families: release
	bench/families.sh $(ARGS)

# Issue 25's flood for FLOOD_SECONDS (default 300), printing CPU, RSS and status latency.
flood-soak: release
	scripts/flood-soak.sh .build/release

# Issue 22's soak with faults (Tests/Soak/soak.py, docs/testing.md): Debian's python3 with
# python3-dbus drives the mock; mosquitto (in APT_PACKAGES) is the broker it restarts.
SOAK_APT_PACKAGES := python3-dbus
MINUTES ?= 120
SEED ?=
soak: release
	@scripts/install-deps.sh $(SOAK_APT_PACKAGES)
	/usr/bin/python3 Tests/Soak/soak.py --minutes $(MINUTES) --seed "$(SEED)" \
		--bin-dir "$$($(SWIFT) build -c release --show-bin-path)"

soak-smoke:
	$(MAKE) soak MINUTES=3 SEED=22

# The benchmark checks itself (counts add up, nothing lost) and blectld's allocations and
# system calls per notification and allocations per advertisement stay within bench/budget.json, neither above it nor far below
# (a loose budget), and the idle blectld --mock's RSS under its ceiling; about a minute; CI runs it.
bench-check: release
	bench/check.sh

# Units go where the distribution's packages put them when installing into /usr, else
# where an administrator's own units go.
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,/etc/systemd/system)
SYSCONFDIR ?= /etc
# The unit's system user is made by systemd-sysusers from here (it reads /usr/lib and /etc only).
SYSUSERSDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/sysusers.d,/etc/sysusers.d)
# What `make release` built; `install` builds nothing (it runs as root, often without
# the toolchain on its PATH), it installs what is there.
BUILD_DIR ?= .build/release
BINARIES := blectld blectl blectl-mock
MAN_PAGES := man/build/blectl.1 man/build/blectl-mock.1 man/build/blectld.conf.5 man/build/blectld.8
# Completion directories: Debian's vendor ones in /usr, the local ones elsewhere.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

man: $(MAN_PAGES)

man/build/%: man/%.scd
	@command -v scdoc > /dev/null || { echo "scdoc is missing: apt-get install scdoc (or make deps)" >&2; exit 1; }
	@mkdir -p man/build
	scdoc < $< > $@.$$$$.tmp && mv $@.$$$$.tmp $@

# The shell completions come from the programs' own --dump-spec; a test fails when they are stale.
completions: release
	/usr/bin/python3 completions/generate.py --bin-dir "$$($(SWIFT) build -c release --show-bin-path)"

# The lists and tables of sensor formats in the documents come from the registries, and the
# keys of blectld.conf(5) and etc/blectld.conf from the settings tables (scripts/docs.sh,
# blectl-docs); a test fails when one is stale.
docs:
	SWIFT=$(SWIFT) scripts/docs.sh

# blectl_VERSION_ARCH.deb here, from `swift build -c release` (incremental after `make release`).
# dpkg-buildpackage writes next to the source directory; the results are moved here.
deb: release
	@scripts/install-deps.sh $(DEB_PACKAGES)
	dpkg-checkbuilddeps
	dpkg-buildpackage -b --no-sign
	@version=$$(dpkg-parsechangelog -SVersion); arch=$$(dpkg-architecture -qDEB_HOST_ARCH); \
	mkdir -p .build/deb && mv ../blectl_$${version}_$${arch}.deb . && \
	mv ../blectl_$${version}_$${arch}.buildinfo ../blectl_$${version}_$${arch}.changes \
		../blectl-dbgsym_$${version}_$${arch}.deb .build/deb/ && \
	echo "built blectl_$${version}_$${arch}.deb; lintian:" && \
	lintian --fail-on error,warning blectl_$${version}_$${arch}.deb && \
	echo "install with: sudo apt install ./blectl_$${version}_$${arch}.deb"

# blectl-mock is installed next to blectld: `blectld --mock` (the way to try blectl
# without a thermometer, and what blectl suggests when no daemon runs) starts it from there.
install: man
	@for binary in $(BINARIES); do \
		test -x $(BUILD_DIR)/$$binary || { \
			echo "nothing to install: $(BUILD_DIR)/$$binary is missing; run 'make release' first (as yourself), then 'sudo make install'" >&2; \
			exit 1; }; \
	done
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/blectl \
		$(DESTDIR)$(PREFIX)/share/doc/blectl $(DESTDIR)$(SYSUSERSDIR)
	install -m 0644 systemd/blectl.sysusers $(DESTDIR)$(SYSUSERSDIR)/blectl.conf
	install -m 0755 $(addprefix $(BUILD_DIR)/,$(BINARIES)) $(DESTDIR)$(PREFIX)/bin/
	for unit in blectld.service blectld.socket; do \
		sed -e 's|/usr/local/bin/|$(PREFIX)/bin/|g' -e 's|/usr/local/share/|$(PREFIX)/share/|g' \
			-e 's|/etc/blectl/|$(SYSCONFDIR)/blectl/|g' systemd/$$unit > $(DESTDIR)$(UNITDIR)/$$unit; \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$unit; \
	done
	@# Never overwrite an administrator's configuration.
	test -e $(DESTDIR)$(SYSCONFDIR)/blectl/blectld.conf || \
		install -m 0644 etc/blectld.conf $(DESTDIR)$(SYSCONFDIR)/blectl/blectld.conf
	install -m 0644 README.md docs/*.md systemd/blectld-mqtt.conf systemd/blectld-http.conf \
		systemd/blectld-adapter-reset.conf systemd/blectld-mgmt.conf $(DESTDIR)$(PREFIX)/share/doc/blectl/
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0644 man/build/blectl.1 man/build/blectl-mock.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 man/build/blectld.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 0644 man/build/blectld.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0644 $(addprefix completions/bash/,$(BINARIES)) $(DESTDIR)$(BASHCOMPDIR)/
	install -m 0644 $(addprefix completions/zsh/_,$(BINARIES)) $(DESTDIR)$(ZSHCOMPDIR)/
	install -m 0644 $(addsuffix .fish,$(addprefix completions/fish/,$(BINARIES))) $(DESTDIR)$(FISHCOMPDIR)/
	@echo "installed; enable with: systemd-sysusers && systemctl daemon-reload && systemctl enable --now blectld.socket blectld.service"

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(BINARIES))
	rm -f $(DESTDIR)$(UNITDIR)/blectld.service $(DESTDIR)$(UNITDIR)/blectld.socket $(DESTDIR)$(SYSUSERSDIR)/blectl.conf
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/blectl
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/blectl.1 $(DESTDIR)$(PREFIX)/share/man/man1/blectl-mock.1 \
		$(DESTDIR)$(PREFIX)/share/man/man5/blectld.conf.5 $(DESTDIR)$(PREFIX)/share/man/man8/blectld.8
	rm -f $(addprefix $(DESTDIR)$(BASHCOMPDIR)/,$(BINARIES)) $(addprefix $(DESTDIR)$(ZSHCOMPDIR)/_,$(BINARIES)) \
		$(addsuffix .fish,$(addprefix $(DESTDIR)$(FISHCOMPDIR)/,$(BINARIES)))

# The rules of README's "How it is built" (imports, profile ids, waiting), then a self-test
# that plants one violation of each rule and sees it caught (CI runs both).
check-layers:
	@scripts/check-layers.sh
	@scripts/check-layers-selftest.sh

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

# Any finding fails (CI runs it).
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

clean:
	rm -rf .build man/build
