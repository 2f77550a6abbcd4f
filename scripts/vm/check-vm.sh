#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-vm`: boot every VM test spec (tests/vm/*.vmtest and
# tests/vm/report/*.vmtest) on every kernel (scripts/kernels.sh; KVER= for
# one), once per DMA backend of its "backends:" line (BACKEND= keeps only
# those named), plus the harness self-test (scripts/vm/selftest.sh) and the
# planted regressions (scripts/vm/planted.sh), both on the newest kernel
# (VM_SELFTEST=0 skips both), VM_JOBS boots at a time, specs that may share
# a boot sharing one (vmtest.py, SHARED BOOTS), and write
# build/results/vm:
#
#   ok - vm/<kver>/modules            test flavour built (dmaguard.ko with
#                                     the test hooks, tests/kmod/)
#   ok - vm/<kver>/<spec>             boot and log verdict of one spec
#   ok - vm/<kver>/<spec>@<backend>   the same under a DMA backend (direct
#                                     boots keep the plain name)
#   ok - vm/<kver>/<spec>/<case>      each test: step and each KTAP case
#   ok - vm-harness/<fixture>: ...    the harness caught a planted failure
#   ok - vm-planted/<case>: ...       a planted core bug turned a spec red
#
# Spec format and verdict rules: scripts/vm/vmtest.py. Logs: build/vm/<kver>/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

vm_lock
results=$top/build/results/vm
mkdir -p "$(dirname "$results")"
: > "$results"
start=$(date +%s)

# The KCSAN kernel (in the list when KVER= names it) boots the KCSAN
# copies of the race specs only (vm_kcsan_specs), with the test flavour of
# the modules built for it.
mapfile -t kcsans < <("$top/scripts/kernels.sh" --kcsan)
mapfile -t kernels < <("$top/scripts/kernels.sh" |
		       grep -vxF -f <(printf '%s\n' "${kcsans[@]}" _) || true)
mapfile -t kcsan_boots < <([ ${#kcsans[@]} -eq 0 ] || vm_kcsan_specs)
if [ ${#kernels[@]} -eq 0 ] && [ ${#kcsans[@]} -eq 0 ]; then
	echo "not ok - vm: no kernel to boot (scripts/kernels.sh)" >> "$results"
	exit 1
fi
mapfile -t specs < <(vm_specs; vm_specs report)
declare -A boots		# spec -> its boot names (vm_boots)
for s in "${specs[@]}"; do
	boots[$s]=$(vm_boots "$s" "$top/tests/vm/$s.vmtest")
done
# The in-kernel kernels (baseline, hardened: no dmaguard module) boot the
# specs of tests/vm/inkernel/ only, with the kernel's own modules; so does
# the debug kernel (its tree has the series too), besides its own specs,
# for those of them whose kernels: line names it.
mapfile -t ik_built < <("$top/scripts/kernels.sh" --inkernel)
mapfile -t inkernels < <([ ${#ik_built[@]} -eq 0 ] || printf '%s\n' "${ik_built[@]}"
			 printf '%s\n' "${kernels[@]}" | grep -e '-dmaguard-debug$' || true)
mapfile -t ik_specs < <(vm_specs inkernel)
for s in "${ik_specs[@]}"; do
	boots[$s]=$(vm_boots "$s" "$top/tests/vm/$s.vmtest")
done
declare -A ik_ko
for kver in "${inkernels[@]}"; do
	ik_ko[$kver]=$(vm_inkernel_ko "$kver") || ik_ko[$kver]=
done
# The harness self-test and the planted core regressions run on the newest
# Debian kernel of the list (the built kernels have their own planted
# cases: scripts/vm/planted-debug.sh).
selftest_kver=
for k in "${kernels[@]}"; do
	selftest_kver=$k
done
for k in "${kernels[@]}"; do
	"$top/scripts/kernels.sh" --distro | grep -qxF "$k" && selftest_kver=$k
done
selftest=${VM_SELFTEST:-1}
[ -n "$selftest_kver" ] || selftest=0

# Build per kernel so one kernel's failure does not hide the other's specs;
# two kernels at a time (a small module's build keeps one CPU busy more
# than two).
declare -A built
mkdir -p "$vm_out"
for kver in "${kernels[@]}" "${kcsans[@]}"; do
	rm -f "$vm_out/.built-$kver"
	{
		DMAGUARD_TEST_HOOKS=1 KVER=$kver "$top/scripts/build-modules.sh" \
			> "$vm_out/.build-$kver.log" 2>&1 && touch "$vm_out/.built-$kver"
	} &
	[ "$(jobs -r | wc -l)" -lt 2 ] || wait -n
done
wait
for kver in "${kernels[@]}" "${kcsans[@]}"; do
	cat "$vm_out/.build-$kver.log" >&2
	[ ! -f "$vm_out/.built-$kver" ] || built[$kver]=1
done
if [ "$selftest" = 1 ] && ! "$top/scripts/vm/selftest.sh" prepare "$selftest_kver" >&2; then
	echo "not ok - vm-harness/build # harness fixtures did not build" >> "$results"
	selftest=0
fi
# The planted cases build while the first boots run (a case that does
# not build is judged, red, with the others); their boots join the queue
# once built, after the debug kernel's own.
planted_ready=$vm_out/.planted-prepared
rm -f "$planted_ready"
if [ "$selftest" = 1 ]; then
	{ "$top/scripts/vm/planted.sh" prepare "$selftest_kver" >&2 || true
	  touch "$planted_ready"; } &
fi

# fixture_jobs: the harness self-test's boots, then the planted cases'
# once they are built.
fixture_jobs() {
	"$top/scripts/vm/selftest.sh" jobs "$selftest_kver"
	while [ ! -e "$planted_ready" ]; do sleep 1; done
	"$top/scripts/vm/planted.sh" jobs "$selftest_kver"
}
fixtures=
[ "$selftest" = 1 ] && fixtures=1
{
	# The slowest kernel first (the debug one, whose boots are the
	# longest), then the others newest first, so that no long boot
	# starts when the others are done.
	for kver in $(printf '%s\n' "${kernels[@]}" | grep -e '-debug$'; \
		      printf '%s\n' "${kernels[@]}" | grep -v -e '-debug$' | tac); do
		[ -n "${built[$kver]:-}" ] || continue
		for s in "${specs[@]}"; do
			for n in ${boots[$s]}; do
				vm_on_kernel "$kver" "$n" || continue
				rm -f "$vm_out/$kver/$n.results"
				echo "$n $top/tests/vm/$s.vmtest"
			done
		done | vm_shared_jobs "$kver" "$top/build/kernel/$kver/test/ko"
		[ -z "$fixtures" ] || fixture_jobs
		fixtures=
	done
	for kver in "${kcsans[@]}"; do
		[ -n "${built[$kver]:-}" ] || continue
		for ns in "${kcsan_boots[@]}"; do
			rm -f "$vm_out/$kver/${ns%% *}.results"
			echo "$ns"
		done | vm_shared_jobs "$kver" "$top/build/kernel/$kver/test/ko"
	done
	for kver in "${inkernels[@]}"; do
		[ -n "${ik_ko[$kver]}" ] || continue
		for s in "${ik_specs[@]}"; do
			for n in ${boots[$s]}; do
				rm -f "$vm_out/$kver/$n.results"
				echo "$n $top/tests/vm/$s.vmtest"
			done
		done | vm_shared_jobs "$kver" "${ik_ko[$kver]}"
	done
	[ -z "$fixtures" ] || fixture_jobs
} | vm_run_jobs
wait

for kver in "${kernels[@]}"; do
	if [ -z "${built[$kver]:-}" ]; then
		echo "not ok - vm/$kver/modules # build failed: make modules KVER=$kver" >> "$results"
		for s in "${specs[@]}"; do
			for n in ${boots[$s]}; do
				vm_on_kernel "$kver" "$n" || continue
				echo "not ok - vm/$kver/$n # not booted: modules did not build" >> "$results"
			done
		done
		continue
	fi
	echo "ok - vm/$kver/modules" >> "$results"
	for s in "${specs[@]}"; do
		for n in ${boots[$s]}; do
			vm_on_kernel "$kver" "$n" || continue
			vm_results "$kver" "$n" >> "$results"
		done
	done
done
for kver in "${kcsans[@]}"; do
	if [ -z "${built[$kver]:-}" ]; then
		echo "not ok - vm/$kver/modules # build failed: make modules KVER=$kver" >> "$results"
		continue
	fi
	echo "ok - vm/$kver/modules" >> "$results"
	for ns in "${kcsan_boots[@]}"; do
		vm_results "$kver" "${ns%% *}" >> "$results"
	done
done
# Without KVER, `make check` built both in-kernel kernels (make kernels),
# and the KCSAN kernel.
if [ -z "${KVER:-}" ] && [ ${#kcsans[@]} -eq 0 ]; then
	echo "not ok - vm/kcsan # the KCSAN kernel is not built: make kernels" >> "$results"
fi
if [ -z "${KVER:-}" ] && [ ${#ik_built[@]} -lt 2 ]; then
	echo "not ok - vm/inkernel # baseline and hardened kernels not built: make kernels" >> "$results"
fi
for kver in "${inkernels[@]}"; do
	if [ -z "${ik_ko[$kver]}" ]; then
		echo "not ok - vm/$kver/inkernel-modules # the kernel's dmapool_test.ko (or the contrast's build) is missing" >> "$results"
		continue
	fi
	for s in "${ik_specs[@]}"; do
		for n in ${boots[$s]}; do
			vm_results "$kver" "$n" >> "$results"
		done
	done
done
if [ "$selftest" = 1 ]; then
	"$top/scripts/vm/selftest.sh" judge "$selftest_kver" >> "$results"
	"$top/scripts/vm/planted.sh" judge "$selftest_kver" >> "$results"
fi

grep '^not ok' "$results" >&2 || true
echo "check-vm: $(grep -c '^ok' "$results") ok, $(grep -c '^not ok' "$results")" \
	"not ok in $(( $(date +%s) - start )) s; logs in build/vm/<kver>/" >&2
! grep -q '^not ok' "$results"
