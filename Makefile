# blectl — build, test, run and install.
#
#   make run      the main job on the mock adapter (no Bluetooth needed)
#   make test     install missing Debian packages (as root), build, run every test
#   make e2e      real BlueZ in a qemu guest (see Tests/E2E/README.md)
#   make bench    the benchmark (see docs/benchmarks.md)
#   make install  binaries, systemd units and a sample config under $(PREFIX)

APT_PACKAGES := libdbus-1-dev libbluetooth-dev nettle-dev libsqlite3-dev libmicrohttpd-dev dbus dbus-daemon pkg-config
# What only the tests use: a real browser for the HTTP page, Prometheus' own parser for /metrics.
TEST_APT_PACKAGES := chromium python3-prometheus-client
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift

.PHONY: deps test-deps build release test test-tsan run e2e bench bench-check install uninstall format lint clean

deps:
	@scripts/install-deps.sh $(APT_PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

test-deps: deps
	@scripts/install-deps.sh $(TEST_APT_PACKAGES)

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# ThreadSanitizer build in its own scratch directory, so it does not replace the debug build.
test-tsan: test-deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan

run: release
	@scripts/run-mock.sh .build/release

e2e: release
	Tests/E2E/run-e2e.sh --bin-dir "$$($(SWIFT) build -c release --show-bin-path)"

bench: release
	bench/run.sh

# The benchmark checks itself (counts add up, nothing lost) in under a minute; CI runs it.
bench-check: build
	bench/check.sh

UNITDIR ?= /etc/systemd/system
SYSCONFDIR ?= /etc

install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/blectl \
		$(DESTDIR)$(PREFIX)/share/doc/blectl
	install -m 0755 .build/release/blectld .build/release/blectl .build/release/blectl-mock $(DESTDIR)$(PREFIX)/bin/
	for unit in blectld.service blectld.socket; do \
		sed -e 's|/usr/local/bin/|$(PREFIX)/bin/|g' -e 's|/usr/local/share/|$(PREFIX)/share/|g' \
			-e 's|/etc/blectl/|$(SYSCONFDIR)/blectl/|g' systemd/$$unit > $(DESTDIR)$(UNITDIR)/$$unit; \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$unit; \
	done
	@# Never overwrite an administrator's configuration.
	test -e $(DESTDIR)$(SYSCONFDIR)/blectl/blectld.conf || \
		install -m 0644 etc/blectld.conf $(DESTDIR)$(SYSCONFDIR)/blectl/blectld.conf
	install -m 0644 README.md docs/*.md $(DESTDIR)$(PREFIX)/share/doc/blectl/
	@echo "installed; enable with: systemctl daemon-reload && systemctl enable --now blectld.socket blectld.service"

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/blectld $(DESTDIR)$(PREFIX)/bin/blectl $(DESTDIR)$(PREFIX)/bin/blectl-mock
	rm -f $(DESTDIR)$(UNITDIR)/blectld.service $(DESTDIR)$(UNITDIR)/blectld.socket
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/blectl

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

lint:
	$(SWIFT) format lint --recursive Sources Tests Package.swift

clean:
	rm -rf .build
