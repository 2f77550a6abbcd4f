#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every check group, never stopping at the first red one, then count
# every test case of every group and print the closing tally.
#
# A group is `make check-<group>`; it writes build/results/<group> with one
# line per case: "ok - <name>" or "not ok - <name>". A group that exits
# non-zero without writing a single "not ok" line gets one added for it, so
# a crashed group can never look green.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
results="$top/build/results"
mkdir -p "$results"
start=$(date +%s)

# cpu_now: set cpu to the CPU time (user + system, whole seconds) of this
# script's finished children so far: a group's share tells how well it
# uses the CPUs.
cpu_now() {
	times > "$results/.times"
	cpu=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] } printf "%d\n", n }' "$results/.times")
}

for g in "$@"; do
	rm -f "$results/$g"
	t0=$(date +%s)
	cpu_now
	c0=$cpu
	echo "=== check group: $g"
	make -C "$top" --no-print-directory "check-$g"
	rc=$?
	cpu_now
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$results/$g" 2>/dev/null; then
		echo "not ok - $g: group exited $rc" >> "$results/$g"
	fi
	if [ ! -s "$results/$g" ]; then
		echo "not ok - $g: group ran no test" >> "$results/$g"
	fi
	echo "=== $g: $(grep -c '^ok' "$results/$g") passed," \
		"$(grep -c '^not ok' "$results/$g") failed ($(( $(date +%s) - t0 )) s," \
		"$((cpu - c0)) CPU-s)"
done

pass=0
fail=0
for g in "$@"; do
	p=$(grep -c '^ok' "$results/$g")
	f=$(grep -c '^not ok' "$results/$g")
	pass=$((pass + p))
	fail=$((fail + f))
	grep '^not ok' "$results/$g" | sed "s/^/FAILED [$g] /"
done
echo "check took $(( $(date +%s) - start )) s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
