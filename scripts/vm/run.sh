#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: boot each kernel with dmaguard and print its report, and
# write it as build/report/index.html. Called by `make run`, which sets
# KVER to Debian's kernels (scripts/kernels.sh --distro) unless KVER= names
# others (the built debug and rt kernels too); run directly, every kernel of
# scripts/kernels.sh.
#
# The report is made of the specs in tests/vm/report/*.vmtest, in name order
# (prefix them 00-, 10-, ... to order sections); each contributes the text
# of its "REPORT <text>" console lines (guest `echo "REPORT ..."` or a
# module's pr_info("REPORT ...")), and tables of its BENCH and DEBUGFS lines
# (scripts/report/make-report.py, which also draws the HTML page's plots).
# Every spec boots under the direct DMA backend; a spec that prints a
# "REPORT [<backend>] ..." line (its text has "REPORT [") also boots under
# iommu-strict when its "backends:" line lists it (BACKEND= picks other
# backends), and such a boot adds only its REPORT lines starting
# "[<backend>]" (`make check` boots every backend of every spec). A spec
# whose verdict is not ok prints why, and makes `make run` exit non-zero.
# Logs: build/vm/<kver>/report/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BACKEND=${BACKEND:-direct iommu-strict}

vm_lock
mapfile -t kernels < <("$top/scripts/kernels.sh")
mapfile -t specs < <(vm_specs report)
[ ${#specs[@]} -gt 0 ] || { echo "run: no tests/vm/report/*.vmtest" >&2; exit 1; }

start=$(date +%s)
declare -A boots		# spec -> its boot names (vm_boots)
n=0
for s in "${specs[@]}"; do
	if grep -qF 'REPORT [' "$top/tests/vm/$s.vmtest"; then
		boots[$s]=$(vm_boots "$s" "$top/tests/vm/$s.vmtest")
	else
		boots[$s]=$(BACKEND=direct vm_boots "$s" "$top/tests/vm/$s.vmtest")
	fi
	n=$((n + $(wc -w <<<"${boots[$s]}")))
done
jobs=${VM_JOBS:-$(nproc)}
# A Debian kernel boots and runs a report spec in 20-45 s of TCG; the
# built debug kernel takes about three times that.
slow=$(KVER='' "$top/scripts/kernels.sh" --built | grep -cxF -f - <(printf '%s\n' "${kernels[@]}") || true)
lo=$(( (n * (${#kernels[@]} + 2 * slow) * 20 + jobs - 1) / jobs ))
echo "Booting ${#kernels[@]} kernel(s) x $n report boot(s) (${specs[*]#report/}) in QEMU (TCG), $jobs at a time: about $lo-$((2 * lo)) s..."
for kver in "${kernels[@]}"; do
	# Only this run's boots make the report.
	rm -f "$vm_out/$kver/report/"*.{results,report,log}
	for s in "${specs[@]}"; do
		for b in ${boots[$s]}; do
			vm_on_kernel "$kver" "$b" || continue
			vm_job "$kver" "$b" "$top/tests/vm/$s.vmtest" \
				"$top/build/kernel/$kver/test/ko"
		done
	done
done | vm_run_jobs
echo "(boots took $(( $(date +%s) - start )) s)"
echo

rc=0
args=()
for kver in "${kernels[@]}"; do args+=(--kernel "$kver"); done
python3 "$top/scripts/report/make-report.py" --text \
	--html "$top/build/report/index.html" "${args[@]}" || rc=$?
echo
if [ $rc -eq 0 ]; then
	echo "all report specs passed on ${#kernels[@]} kernel(s); make run took $(( $(date +%s) - start )) s"
else
	echo "some report specs FAILED (see above); make run took $(( $(date +%s) - start )) s"
fi
exit $rc
