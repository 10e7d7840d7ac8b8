#!/bin/sh
# make docs: rewrites the generated regions of README.md, docs/*.md, man/*.scd and etc/*
# (the lists and tables of sensor formats, blectld's settings) from the code, with
# blectl-docs. The tests run `blectl-docs --check` and fail when a region is stale.
set -eu
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
$SWIFT build --product blectl-docs
exec "$($SWIFT build --show-bin-path)/blectl-docs" --root "$PWD" --write
