#!/usr/bin/env bash
# Fuzzes blectl's parsers and decoders with libFuzzer and AddressSanitizer.
#
#   Tests/Fuzz/run.sh [TARGET...]      every target (or those named), FUZZ_SECONDS each (60)
#   FUZZ_RUNS=1000000 Tests/Fuzz/run.sh  each target for that many executions instead, however
#                                        long it takes (the long run docs/testing.md records)
#
# Builds the blectl-fuzz executable (Tests/Fuzz/Harness) with `--sanitize=fuzzer
# --sanitize=address` in its own scratch path (.build/fuzz), then runs each target from its
# committed seeds (Tests/Fuzz/corpus/TARGET), the inputs of crashes found before
# (Tests/Fuzz/regressions/TARGET) and what earlier runs found (.build/fuzz/corpus/TARGET,
# where new inputs go). A crash, an ASan report, a leak or an
# input that takes longer than FUZZ_TIMEOUT seconds (10) fails the run; the input is left in
# .build/fuzz/artifacts/TARGET/ and the command that replays it is printed.
# Exit status: 0 when every target ran clean, 1 when one failed, 2 when the build failed.
set -uo pipefail
cd "$(dirname "$0")/../.."

SWIFT=${SWIFT:-swift}
SECONDS_EACH=${FUZZ_SECONDS:-60}
RUNS=${FUZZ_RUNS:-}
limit=(-max_total_time="$SECONDS_EACH")
budget="${SECONDS_EACH}s"
if [[ -n $RUNS ]]; then
    limit=(-runs="$RUNS")
    budget="$RUNS executions"
fi
TIMEOUT=${FUZZ_TIMEOUT:-10}
SCRATCH=.build/fuzz
ALL_TARGETS=(protocol gatt advertisements config dbus bluez)
TARGETS=("${@:-${ALL_TARGETS[@]}}")
# `--sanitize=fuzzer` makes SwiftPM link libFuzzer's main rather than the target's; the
# compiler gets both sanitizers in one flag after it: given as two flags (as
# `--sanitize=fuzzer --sanitize=address` passes them, in no fixed order), swiftc keeps only
# the last, and the build silently lacks ASan or coverage.
BUILD=("$SWIFT" build --scratch-path "$SCRATCH" --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address
    -Xswiftc -DBLECTL_LIBFUZZER)

for target in "${ALL_TARGETS[@]}"; do
    [[ -d Tests/Fuzz/corpus/$target ]] || { echo "fuzz: no seeds for $target in Tests/Fuzz/corpus" >&2; exit 2; }
done
mkdir -p "$SCRATCH/logs"
echo "fuzz: building blectl-fuzz with libFuzzer and ASan (log $SCRATCH/logs/build.log)"
if ! "${BUILD[@]}" --product blectl-fuzz >"$SCRATCH/logs/build.log" 2>&1; then
    grep -E 'error' "$SCRATCH/logs/build.log" | head -20 >&2
    echo "fuzz: the build failed" >&2
    exit 2
fi
bin_path="$("${BUILD[@]}" --show-bin-path)"
binary="$bin_path/blectl-fuzz"
# Both instrumentations must be in the code under test (see BUILD above).
objects=$(nm "$bin_path"/DBusCore.build/*.o 2>/dev/null)
if ! grep -q '__asan_report_load' <<<"$objects" || ! grep -q '__sanitizer_cov_8bit_counters_init' <<<"$objects"; then
    echo "fuzz: DBusCore was built without ASan or without coverage; see BUILD in $0" >&2
    exit 2
fi

# Swift's own crash handler would symbolicate for seconds; libFuzzer and ASan report instead.
export SWIFT_BACKTRACE=enable=no
# Leaks are failures (libFuzzer checks for them after an input that allocated); see
# Tests/Fuzz/lsan.supp for what is not ours.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/Tests/Fuzz/lsan.supp:print_suppressions=0}

failed=()
summary=()
for target in "${TARGETS[@]}"; do
    work="$SCRATCH/corpus/$target"
    artifacts="$SCRATCH/artifacts/$target"
    log="$SCRATCH/logs/$target.log"
    mkdir -p "$work" "$artifacts"
    regressions=()
    [[ -d Tests/Fuzz/regressions/$target ]] && regressions=("Tests/Fuzz/regressions/$target")
    echo "fuzz: $target for $budget (log $log)"
    started=$SECONDS
    BLECTL_FUZZ_TARGET=$target "$binary" "${limit[@]}" -timeout="$TIMEOUT" \
        -artifact_prefix="$artifacts/" -print_final_stats=1 "$work" "Tests/Fuzz/corpus/$target" "${regressions[@]}" >"$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1)
    summary+=("$(printf '%-15s %10s runs  %s  %ss' "$target" "${runs:-?}" "${coverage:-no coverage line}" \
        "$((SECONDS - started))")")
    if [[ $status -ne 0 ]]; then
        failed+=("$target")
        echo "fuzz: $target FAILED (exit $status):" >&2
        grep -E '^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*fuzz check failed|ALARM|artifact_prefix|Test unit written)' "$log" \
            | head -20 >&2
        echo "fuzz: replay with: BLECTL_FUZZ_TARGET=$target $binary INPUT  (or blectl-fuzz $target INPUT)" >&2
    fi
done

echo "fuzz: $budget per target (executions; libFuzzer's edge coverage, features, corpus size; time)"
printf '  %s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz: failed: ${failed[*]}; inputs in $SCRATCH/artifacts/" >&2
    exit 1
fi
