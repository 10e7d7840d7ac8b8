# blectl — build, test, run and install.
#
#   make run      the main job on the mock adapter (no Bluetooth needed)
#   make test     install missing Debian packages (as root), build, run every test
#   make e2e      real BlueZ in a qemu guest (see Tests/E2E/README.md)
#   make bench    the benchmark (see docs/benchmarks.md)
#   make install  binaries, systemd units and a sample config under $(PREFIX)

APT_PACKAGES := libdbus-1-dev libbluetooth-dev dbus dbus-daemon pkg-config
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift

.PHONY: deps build release test test-tsan run e2e bench install format lint clean

deps:
	@scripts/install-deps.sh $(APT_PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread
	$(SWIFT) test --skip-build --sanitize=thread

run: release
	@scripts/run-mock.sh .build/release

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

lint:
	$(SWIFT) format lint --recursive Sources Tests Package.swift

clean:
	rm -rf .build
