#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# One step of a check group whose command prints result lines ("ok - ..." /
# "not ok - ..."): its stdout is shown and appended to the group's results
# file, its stderr goes to a log. A command that exits non-zero without
# having printed any "not ok" line (it crashed, or was killed, after some
# "ok" lines) adds one, so that a truncated step cannot pass.
#
#   scripts/check-step.sh NAME RESULTS LOG -- COMMAND [ARG...]
set -uo pipefail

[ $# -ge 5 ] && [ "$4" = -- ] || {
	echo "usage: $0 NAME RESULTS LOG -- COMMAND [ARG...]" >&2
	exit 2
}
name=$1 results=$2 log=$3
shift 4
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" > "$out" 2> "$log"
rc=$?
if [ $rc -ne 0 ] && ! grep -q '^not ok' "$out"; then
	echo "not ok - $name # exited with status $rc after $(grep -c '^ok' "$out") ok lines (log $log)" >> "$out"
fi
tee -a "$results" < "$out"
! grep -q '^not ok' "$out"
