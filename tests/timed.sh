# tests/timed.sh - sourced by tests/lib.sh and the subjects that run
# histo without it, after they set HISTO (the binary), SUBJECT and ROOT
# (the suite's work folder): HISTO becomes a wrapper under the suite's
# time limit, also exported as HISTO_TIMED for the scripts they call.
#
# Every histo run of a subject has a time limit, HISTO_TEST_TIMEOUT
# seconds (default 600): $HISTO is a wrapper that runs the binary under
# timeout(1), in the foreground (in its caller's process group, so that
# the runner's stop reaches histo too). A run that overruns exits 124 (its case fails by its
# own check, with its id) and prints "FAIL SUBJECT.time_limit: ..." on
# the subject's standard output (descriptor 9, kept here), whatever the
# case did with histo's own output.
HISTO_REAL=$HISTO
HISTO=$ROOT/bin/$(printf '%s' "$B" | tr '/' '_')-histo
export HISTO_TEST_TIMEOUT=${HISTO_TEST_TIMEOUT:-600} HISTO_TEST_SUBJECT=$SUBJECT
exec 9>&1
mkdir -p "$ROOT/bin"
cat >"$HISTO.$$" <<EOF_WRAPPER
#!/bin/sh
# made by tests/lib.sh: histo under the suite's time limit
real=$HISTO_REAL
limit=\${HISTO_TEST_TIMEOUT:-600}
started=\$(date +%s)
timeout --foreground -k 10 "\$limit" "\$real" "\$@"
st=\$?
# 124: timed out; 137: timed out and killed after the grace, or killed
# by someone else (then before the limit)
if [ "\$st" -eq 124 ] || { [ "\$st" -eq 137 ] && [ \$((\$(date +%s) - started)) -ge "\$limit" ]; }; then
    echo "histo: stopped by the suite's time limit (\$limit s)" >&2
    { echo "FAIL \${HISTO_TEST_SUBJECT:-tests}.time_limit: histo \$* ran over \$limit s" >&9; } 2>/dev/null
fi
exit "\$st"
EOF_WRAPPER
# replaced only when it differs (subjects running share it)
if cmp -s "$HISTO.$$" "$HISTO" && [ -x "$HISTO" ]; then
    rm -f "$HISTO.$$"
else
    chmod +x "$HISTO.$$" && mv -f "$HISTO.$$" "$HISTO"
fi
export HISTO_TIMED=$HISTO
