#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run every check group, never stopping at the first red one, then count
# every test case of every group and print the closing tally.
#
#   check.sh [--prep TARGET] [+GROUP...] GROUP... [-- [+]GROUP...]...
#
# Each "--" starts a phase; a phase begins when the one before has ended.
# The groups of a phase run CHECK_JOBS at a time (default: the number of
# CPUs), each one's output shown when it ends; a phase of one group shows
# it as it comes. A "+GROUP" starts first and runs beside the others,
# outside that count, at normal priority; the others of its phase then run
# at idle priority (SCHED_IDLE, nice 19): they take only the CPU time it
# leaves (a VM group: its boots keep their speed, so their timeouts and
# timings mean what they mean alone, and its builds and waits leave CPUs
# to the others). --prep: `make -k TARGET` (what several groups use)
# before the first phase's other groups start, beside its "+" ones, at
# their priority.
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
jobs=${CHECK_JOBS:-$(nproc 2>/dev/null || echo 2)}
# The kernel cache key, once for every group (scripts/kernel/lib.sh).
DMAGUARD_KERNEL_KEY=$(. "$top/scripts/kernel/lib.sh" && kernel_key)
export DMAGUARD_KERNEL_KEY
# Each flavour's key, once (make check built the kernels just before).
DMAGUARD_KERNEL_FKEYS=$(. "$top/scripts/kernel/lib.sh" &&
	for f in "${kernel_flavours[@]}" "${kernel_inkernel[@]}" "${kernel_kcsan[@]}"; do
		printf '%s=%s ' "$f" "$(kernel_flavour_key "$f")"
	done)
export DMAGUARD_KERNEL_FKEYS

# run_group GROUP: run one group (in a subshell of its own: `times` then
# gives the CPU time, user + system, of its commands alone: a group's
# share tells how well it uses the CPUs), then its summary line.
run_group() {
	local g=$1 t0 rc cpu
	t0=$(date +%s)
	make -C "$top" --no-print-directory "check-$g"
	rc=$?
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$results/$g" 2>/dev/null; then
		echo "not ok - $g: group exited $rc" >> "$results/$g"
	fi
	if [ ! -s "$results/$g" ]; then
		echo "not ok - $g: group ran no test" >> "$results/$g"
	fi
	times > "$results/.$g.times"	# not in a pipe: that is another process
	cpu=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) {
		split($i, a, /[ms]/); n += a[1] * 60 + a[2] } printf "%d", n }' \
		"$results/.$g.times")
	echo "=== $g: $(grep -c '^ok' "$results/$g") passed," \
		"$(grep -c '^not ok' "$results/$g") failed ($(( $(date +%s) - t0 )) s," \
		"$cpu CPU-s)"
}

# idle_priority: this subshell and what it starts run at idle priority
# (SCHED_IDLE where chrt can set it, nice 19 always).
idle_priority() {
	{
		renice -n 19 -p "$BASHPID"
		chrt --idle -p 0 "$BASHPID"
	} > /dev/null 2>&1
}

# run_phase [+]GROUP...: the groups, $jobs at a time, the "+" ones beside.
run_phase() {
	local g idle=0 nfg=0
	local -A running=() fg=()
	for g in "$@"; do
		[ "${g#+}" = "$g" ] || fg[${g#+}]=1
		rm -f "$results/${g#+}"
	done
	if [ ${#fg[@]} -eq 0 ] && { [ $# -eq 1 ] || [ "$jobs" -le 1 ]; }; then
		for g in "$@"; do
			echo "=== check group: $g"
			(run_group "$g")
		done
		return
	fi
	for g in "${!fg[@]}"; do
		echo "=== check group: $g (started; beside the others, output when it ends)"
		(run_group "$g") > "$results/$g.log" 2>&1 &
		running[$!]=$g
		nfg=$((nfg + 1))
		idle=1
	done
	if [ -n "$prep" ]; then
		echo "=== check prep: make $prep$([ $idle = 1 ] && echo ' (idle priority)')"
		(
			[ $idle = 0 ] || idle_priority
			make -C "$top" --no-print-directory -k -j"$jobs" "$prep"
		) || echo "=== check prep: make $prep failed (the groups using it will say why)"
		prep=
	fi
	for g in "$@"; do
		[ "${g#+}" = "$g" ] || continue
		while [ $(( ${#running[@]} - nfg )) -ge "$jobs" ]; do reap; done
		echo "=== check group: $g (started; $jobs groups at a time$([ $idle = 1 ] && echo ', idle priority'), output when it ends)"
		(
			[ $idle = 0 ] || idle_priority
			run_group "$g"
		) > "$results/$g.log" 2>&1 &
		running[$!]=$g
	done
	while [ ${#running[@]} -gt 0 ]; do reap; done
}

# reap: wait for one of run_phase's groups (its "running", pid -> group)
# to end and show its output.
reap() {
	local pid
	wait -n -p pid
	[ -z "${fg[${running[$pid]}]:-}" ] || nfg=$((nfg - 1))
	echo "=== output of check group: ${running[$pid]}"
	cat "$results/${running[$pid]}.log"
	unset "running[$pid]"
}

prep=
if [ "${1:-}" = --prep ]; then
	prep=$2
	shift 2
fi
all=()
phase=()
for g in "$@" --; do
	if [ "$g" = -- ]; then
		[ ${#phase[@]} -eq 0 ] || run_phase "${phase[@]}"
		phase=()
	else
		phase+=("$g")
		all+=("${g#+}")
	fi
done

pass=0
fail=0
for g in "${all[@]}"; do
	p=$(grep -c '^ok' "$results/$g")
	f=$(grep -c '^not ok' "$results/$g")
	pass=$((pass + p))
	fail=$((fail + f))
	grep '^not ok' "$results/$g" | sed "s/^/FAILED [$g] /"
done
echo "check took $(( $(date +%s) - start )) s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
