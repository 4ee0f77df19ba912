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
relay "$W/unit.log" unit.
