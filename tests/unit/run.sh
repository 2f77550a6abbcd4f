#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run cmocka unit test programs and turn their TAP output into results
# lines ("ok - unit/<program>/<case>" / "not ok - ..."), see scripts/check.sh.
#
#   tests/unit/run.sh <results-file> <program>...
#
# A program that crashes (sanitizer report, abort), spins (killed after
# UNIT_CPU_LIMIT seconds of CPU time, default 300), hangs (killed after
# UNIT_TIMEOUT seconds, default 1800) or whose case count does not match
# its TAP plan gets a "not ok" line of its own, so a crash can never look
# green. The limit that matters is CPU time: `make check` runs this group
# at idle priority beside the VM boots, where a second of CPU may take
# minutes of wall clock. Logs go next to the programs (<program>.log).
set -u
out=$1
shift
: > "$out"
fail=0
for bin in "$@"; do
	name=$(basename "$bin")
	log="$bin.log"
	t0=$(date +%s.%N)
	CMOCKA_MESSAGE_OUTPUT=TAP \
	ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		prlimit --cpu="${UNIT_CPU_LIMIT:-300}" \
		timeout -k 10 "${UNIT_TIMEOUT:-1800}" "$bin" > "$log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$log" | head -n1)
	lines=$(sed -n -E "s|^(not ok\|ok) [0-9]+ - ([^ ]+).*$|\1 - unit/$name/\2|p" "$log")
	n=0
	[ -n "$lines" ] && n=$(printf '%s\n' "$lines" | wc -l)
	[ -n "$lines" ] && printf '%s\n' "$lines" >> "$out"
	bad=0
	if printf '%s\n' "$lines" | grep -q '^not ok'; then
		bad=1
	fi
	if [ "$rc" -ne 0 ] && [ $bad -eq 0 ]; then
		echo "not ok - unit/$name: exited $rc" >> "$out"
		bad=1
	fi
	if [ -z "$plan" ] || [ "$n" -ne "$plan" ]; then
		echo "not ok - unit/$name: ran $n cases of plan ${plan:-?}" >> "$out"
		bad=1
	fi
	printf '  %-28s %3d cases  %6.2f s  %s\n' "$name" "$n" \
		"$(awk "BEGIN { print $t1 - $t0 }")" "$([ $bad -eq 0 ] && echo ok || echo FAILED)"
	# informational lines of a program ("# ..."), e.g. metadata per block
	grep '^# ' "$log" | grep -Ev '^# (not )?ok - ' | sed 's/^/    /'
	if [ $bad -ne 0 ]; then
		fail=1
		sed 's/^/    | /' "$log" | tail -n 60
	fi
done
exit $fail
