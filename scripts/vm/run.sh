#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: boot every kernel with dmaguard and print its report. The
# report is made of the specs in tests/vm/report/*.vmtest, in name order
# (prefix them 00-, 10-, ... to order sections); each contributes the text
# of its "REPORT <text>" console lines (guest `echo "REPORT ..."` or a
# module's pr_info("REPORT ...")). A spec whose verdict is not ok prints
# why, and makes `make run` exit non-zero. Logs: build/vm/<kver>/report/.
# A report spec boots under the direct DMA backend only (BACKEND= for
# others; `make check` boots every backend of its "backends:" line).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BACKEND=${BACKEND:-direct}

vm_lock
mapfile -t kernels < <("$top/scripts/kernels.sh")
mapfile -t specs < <(vm_specs report)
[ ${#specs[@]} -gt 0 ] || { echo "run: no tests/vm/report/*.vmtest" >&2; exit 1; }

start=$(date +%s)
echo "Booting ${#kernels[@]} kernel(s) in QEMU (TCG), ${#specs[@]} report spec(s) each..."
declare -A boots		# spec -> its boot names (vm_boots)
for s in "${specs[@]}"; do
	boots[$s]=$(vm_boots "$s" "$top/tests/vm/$s.vmtest")
done
for kver in "${kernels[@]}"; do
	for s in "${specs[@]}"; do
		for n in ${boots[$s]}; do
			vm_on_kernel "$kver" "$n" || continue
			rm -f "$vm_out/$kver/$n.results" "$vm_out/$kver/$n.report"
			vm_job "$kver" "$n" "$top/tests/vm/$s.vmtest" \
				"$top/build/kernel/$kver/test/ko"
		done
	done
done | vm_run_jobs

rc=0
echo
echo "dmaguard report"
echo "==============="
for kver in "${kernels[@]}"; do
	echo
	echo "-- $kver"
	for s in "${specs[@]}"; do
		for n in ${boots[$s]}; do
			vm_on_kernel "$kver" "$n" || continue
			[ -f "$vm_out/$kver/$n.report" ] &&
				sed 's/^/   /' "$vm_out/$kver/$n.report"
			res=$(vm_results "$kver" "$n")
			if grep -q '^not ok' <<<"$res"; then
				rc=1
				echo "   FAILED ($n, log build/vm/$kver/$n.log):"
				grep '^not ok' <<<"$res" | sed 's/^not ok - /     /'
			fi
		done
	done
done
echo
if [ $rc -eq 0 ]; then
	echo "all report specs passed on ${#kernels[@]} kernel(s) in $(( $(date +%s) - start )) s"
else
	echo "some report specs FAILED (see above)"
fi
exit $rc
