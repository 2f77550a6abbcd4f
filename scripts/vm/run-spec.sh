#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one or more spec files on every kernel (KVER= for one), once per DMA
# backend of their "backends:" line (BACKEND= for some), with the modules
# of `make modules DMAGUARD_TEST_HOOKS=1` (the test flavour), specs that
# may share a boot sharing one (VM_SHARED=0: each spec boots alone), and
# print their result lines. For developing a spec:
# `make vm-spec SPEC=tests/vm/<name>.vmtest [KVER=...] [BACKEND=...]`.
# The specs of tests/vm/inkernel/ boot the in-kernel kernels instead
# (scripts/kernels.sh --inkernel, and the debug kernel, whose tree has the
# series too) with their own modules (vm_inkernel_ko);
# they cannot be mixed with the others in one call.
# --kcsan: the KCSAN copies of the specs named (vm_kcsan_specs; default:
# every spec with a kcsan-smp: line) on the KCSAN kernel (`make vm-kcsan`).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kcsan=0
[ "${1:-}" != --kcsan ] || { kcsan=1; shift; }
[ $# -gt 0 ] || [ $kcsan = 1 ] ||
	{ echo "usage: $0 [--kcsan] SPEC.vmtest..." >&2; exit 2; }
vm_lock
inkernel=0
for spec in "$@"; do
	case $(cd "$(dirname "$spec")" && pwd) in
	"$top/tests/vm/inkernel") inkernel=$((inkernel + 1)) ;;
	esac
done
[ "$inkernel" = 0 ] || [ "$inkernel" = $# ] ||
	{ echo "run-spec: specs of tests/vm/inkernel/ go alone" >&2; exit 2; }
if [ "$inkernel" = 0 ]; then
	mapfile -t kernels < <("$top/scripts/kernels.sh")
else
	mapfile -t kernels < <("$top/scripts/kernels.sh" --inkernel
			      "$top/scripts/kernels.sh" | grep -e '-dmaguard-debug$' || true)
	[ ${#kernels[@]} -gt 0 ] ||
		{ echo "run-spec: no in-kernel kernel built (make kernels)" >&2; exit 2; }
fi
boots=()		# "<boot name>:<spec path>"
if [ $kcsan = 1 ]; then
	mapfile -t kernels < <("$top/scripts/kernels.sh" --kcsan)
	[ ${#kernels[@]} -gt 0 ] ||
		{ echo "run-spec: no KCSAN kernel built (make kernels)" >&2; exit 2; }
	while read -r n s; do
		for spec in "${@:-}"; do
			[ -z "$spec" ] || [ "${n%-smp*}" = "$(basename "$spec" .vmtest)" ] &&
				boots+=("$n:$s")
		done
	done < <(vm_kcsan_specs)
	set --
fi
for spec in "$@"; do
	[ -f "$spec" ] || { echo "run-spec: no such spec: $spec" >&2; exit 2; }
	spec=$(cd "$(dirname "$spec")" && pwd)/$(basename "$spec")
	n=${spec#"$top/tests/vm/"}
	n=${n%.vmtest}
	n=${n#/}
	for b in $(vm_boots "$n" "$spec"); do
		boots+=("$b:$spec")
	done
done
[ ${#boots[@]} -gt 0 ] || [ $kcsan = 0 ] ||
	{ echo "run-spec: no spec named has a kcsan-smp: line" >&2; exit 2; }
[ ${#boots[@]} -gt 0 ] || { echo "run-spec: no spec lists BACKEND=${BACKEND:-}" >&2; exit 2; }
for kver in "${kernels[@]}"; do
	for ns in "${boots[@]}"; do
		# BACKEND= names the boots to run, on every kernel.
		[ -n "${BACKEND:-}" ] || vm_on_kernel "$kver" "${ns%%:*}" || continue
		rm -f "$vm_out/$kver/${ns%%:*}.results"
		echo "${ns%%:*} ${ns#*:}"
	done | if [ "$inkernel" = 0 ]; then
		vm_shared_jobs "$kver" "$top/build/kernel/$kver/test/ko"
	else
		vm_shared_jobs "$kver" "$(vm_inkernel_ko "$kver")"
	fi
done | vm_run_jobs
rc=0
for kver in "${kernels[@]}"; do
	for ns in "${boots[@]}"; do
		[ -n "${BACKEND:-}" ] || vm_on_kernel "$kver" "${ns%%:*}" || continue
		vm_results "$kver" "${ns%%:*}"
		! grep -q '^not ok' < <(vm_results "$kver" "${ns%%:*}") || rc=1
	done
done
exit $rc
