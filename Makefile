# blectl — build, test, run and install.
#
#   make run      the main job on the mock adapter (no Bluetooth needed)
#   make test     install missing Debian packages (as root), build, run every test
#   make e2e      real BlueZ in a qemu guest (see Tests/E2E/README.md)
#   make e2e-repeat N=10   the real-BlueZ suite N times: "N of M passed", retries, recovery spread
#   make bench    the benchmark (see docs/benchmarks.md)
#   make flood-soak  blectld under a flood of 10,000 devices for 5 minutes (FLOOD_SECONDS)
#   make install  binaries, systemd units and a sample config under $(PREFIX)

APT_PACKAGES := libdbus-1-dev libbluetooth-dev nettle-dev libsqlite3-dev libmosquitto-dev dbus dbus-daemon pkg-config \
	mosquitto mosquitto-clients openssl
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift

.PHONY: check-layers deps build release test test-tsan run e2e e2e-repeat bench bench-check flood-soak install uninstall format lint clean

deps:
	@scripts/install-deps.sh $(APT_PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Heavy suites (the device flood) run alone, after the others (see TestSupport's heavyTestsRun).
HEAVY_TESTS := FloodTests

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	BLECTL_HEAVY_TESTS=1 $(SWIFT) test --skip-build --filter '$(HEAVY_TESTS)'

# ThreadSanitizer build in its own scratch directory, so it does not replace the debug build.
test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan

run: release
	@MQTT="$(MQTT)" scripts/run-mock.sh .build/release

e2e: release
	Tests/E2E/run-e2e.sh --bin-dir "$$($(SWIFT) build -c release --show-bin-path)"

N ?= 10
e2e-repeat: release
	Tests/E2E/repeat.sh $(N) --bin-dir "$$($(SWIFT) build -c release --show-bin-path)"

bench: release
	bench/run.sh

# Issue 25's flood for FLOOD_SECONDS (default 300), printing CPU, RSS and status latency.
flood-soak: release
	scripts/flood-soak.sh .build/release

# The benchmark checks itself (counts add up, nothing lost) in under a minute; CI runs it.
bench-check: build
	bench/check.sh

# Units go where the distribution's packages put them when installing into /usr, else
# where an administrator's own units go.
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,/etc/systemd/system)
SYSCONFDIR ?= /etc
# What `make release` built; `install` builds nothing (it runs as root, often without
# the toolchain on its PATH), it installs what is there.
BUILD_DIR ?= .build/release
BINARIES := blectld blectl blectl-mock

# blectl-mock is installed next to blectld: `blectld --mock` (the way to try blectl
# without a thermometer, and what blectl suggests when no daemon runs) starts it from there.
install:
	@for binary in $(BINARIES); do \
		test -x $(BUILD_DIR)/$$binary || { \
			echo "nothing to install: $(BUILD_DIR)/$$binary is missing; run 'make release' first (as yourself), then 'sudo make install'" >&2; \
			exit 1; }; \
	done
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/blectl \
		$(DESTDIR)$(PREFIX)/share/doc/blectl
	install -m 0755 $(addprefix $(BUILD_DIR)/,$(BINARIES)) $(DESTDIR)$(PREFIX)/bin/
	for unit in blectld.service blectld.socket; do \
		sed -e 's|/usr/local/bin/|$(PREFIX)/bin/|g' -e 's|/usr/local/share/|$(PREFIX)/share/|g' \
			-e 's|/etc/blectl/|$(SYSCONFDIR)/blectl/|g' systemd/$$unit > $(DESTDIR)$(UNITDIR)/$$unit; \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$unit; \
	done
	@# Never overwrite an administrator's configuration.
	test -e $(DESTDIR)$(SYSCONFDIR)/blectl/blectld.conf || \
		install -m 0644 etc/blectld.conf $(DESTDIR)$(SYSCONFDIR)/blectl/blectld.conf
	install -m 0644 README.md docs/*.md systemd/blectld-mqtt.conf $(DESTDIR)$(PREFIX)/share/doc/blectl/
	@echo "installed; enable with: systemctl daemon-reload && systemctl enable --now blectld.socket blectld.service"

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(BINARIES))
	rm -f $(DESTDIR)$(UNITDIR)/blectld.service $(DESTDIR)$(UNITDIR)/blectld.socket
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/blectl

# The module rules of README's "How it is built", checked on the imports (CI runs it).
check-layers:
	@scripts/check-layers.sh

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

lint:
	$(SWIFT) format lint --recursive Sources Tests Package.swift

clean:
	rm -rf .build
