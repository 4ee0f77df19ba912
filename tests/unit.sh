#!/bin/sh
# tests/unit.sh - the unit tests: build/unit-tests (BMP writer, colour
# table, input reader, CLI, knobs, tune cache, progress lines, reference),
# all of them: they take under a second. build/unit-tests DIR NAME runs
# the test functions whose names contain NAME.
# ids: unit
SUBJECT=unit
. "$(dirname "$0")/lib.sh"

# energy.c's NVML path runs on the stand-in library (tests/fake_nvml.c)
FAKE_NVML_LIB=$(pwd)/$B/libfake-nvml.so
export FAKE_NVML_LIB
$B/unit-tests "$W" >"$W/unit.log" 2>"$W/unit.err"
st=$?
relay "$W/unit.log" unit.
# it ends with 1 when a test printed FAIL; any other status (a crash, an
# abort after some lines) is a failure of its own
[ "$st" -eq 0 ] || { [ "$st" -eq 1 ] && grep -q '^FAIL ' "$W/unit.log"; } || bad unit.exit "build/unit-tests ended with status $st: $(tail -c 300 "$W/unit.err" | tr '\n' ' ')"
