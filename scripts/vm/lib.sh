# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the VM harness scripts (sourced, not run).
#
# vm_run_jobs: run the vmtest.py invocations listed on stdin (one command
# line per line, already shell-quoted) at most VM_JOBS at a time (default:
# number of CPUs). TCG guests are single-threaded per vCPU, so two boots use
# both cores of a 2-CPU machine.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
vmtest=$top/scripts/vm/vmtest.py
vm_out=$top/build/vm
vm_bin=${VM_BIN_DIR:-$top/build/vm-bin}

vm_run_jobs() {
	xargs -d '\n' -r -P "${VM_JOBS:-$(nproc)}" -I{} bash -c '{} >/dev/null' || true
}

# vm_job KVER NAME SPEC KO_DIR...: print the command line of one boot. A
# NAME of vm_boots' form "<name>@<backend>" boots under that DMA backend.
# A module in a later KO_DIR replaces one of the same name in an earlier.
vm_job() {
	local kver=$1 name=$2 spec=$3 d
	shift 3
	printf '%q ' python3 "$vmtest" --kver "$kver" --name "$name" \
		--image "$("$top/scripts/kernels.sh" --image "$kver")" \
		--out "$vm_out/$kver" --bin-dir "$vm_bin"
	[[ $name != *@* ]] || printf '%q ' --backend "${name##*@}"
	for d in "$@"; do printf '%q ' --ko-dir "$d"; done
	printf '%q\n' "$spec"
}

# vm_shared_jobs KVER KO_DIR... < "NAME SPEC" lines: print the command
# lines of the boots that run those specs on KVER, specs that may share a
# boot sharing one (vmtest.py --plan; SHARED BOOTS there). VM_SHARED=0:
# each spec boots alone.
vm_shared_jobs() {
	local kver=$1 n s d group items=() kos=()
	shift
	for d in "$@"; do kos+=(--ko-dir "$d"); done
	while read -r n s; do
		if [ "${VM_SHARED:-1}" = 0 ]; then
			vm_job "$kver" "$n" "$s" "$@"
		else
			items+=(--boot "$n=$s")
		fi
	done
	[ ${#items[@]} -gt 0 ] || return 0
	python3 "$vmtest" --plan --kver "$kver" "${items[@]}" |
	while IFS= read -r group; do
		eval "set -- $group"
		printf '%q ' python3 "$vmtest" --kver "$kver" \
			--image "$("$top/scripts/kernels.sh" --image "$kver")" \
			--out "$vm_out/$kver" --bin-dir "$vm_bin" "${kos[@]}"
		for d in "$@"; do printf '%q ' --boot "$d"; done
		echo
	done
}

# vm_boots NAME SPEC: the boots of a spec, one name per DMA backend of its
# "backends:" line (vmtest.py; default: direct): NAME for direct,
# NAME@<backend> for the others. $BACKEND (space-separated backend names,
# `make ... BACKEND=`) keeps only those backends.
vm_boots() {
	local b
	for b in $(python3 "$vmtest" --list-backends "$2"); do
		case " ${BACKEND:-$b} " in
		*" $b "*) ;;
		*) continue ;;
		esac
		if [ "$b" = direct ]; then
			echo "$1"
		else
			echo "$1@$b"
		fi
	done
}

# vm_on_kernel KVER NAME: whether boot NAME (vm_boots) runs on kernel KVER.
# Debian's kernels boot every backend of a spec; the debug and rt kernels
# built here boot direct and iommu-strict only (the other backends change
# the DMA mapping, not the locking or memory rules those kernels check,
# and a debug boot costs several Debian ones).
vm_on_kernel() {
	case $2 in *@*) ;; *) return 0 ;; esac
	[ "${2##*@}" = iommu-strict ] && return 0
	[ -n "${vm_built_kernels+set}" ] ||
		vm_built_kernels=$(KVER= "$top/scripts/kernels.sh" --built)
	! grep -qxF -- "$1" <<<"$vm_built_kernels"
}

# vm_results KVER NAME: the result lines of one boot, or a "not ok" line if
# the harness itself died before writing them.
vm_results() {
	local f=$vm_out/$1/$2.results
	if [ -f "$f" ]; then
		cat "$f"
	else
		echo "not ok - vm/$1/$2 # harness wrote no result (see $vm_out/$1/$2.log)"
	fi
}

# vm_inkernel_ko KVER: the modules the specs of tests/vm/inkernel/ load on
# an in-kernel kernel (scripts/kernels.sh --inkernel), which has no
# dmaguard module, gathered into build/kernel/KVER/inkernel/ko (printed):
# the kernel's own dmapool_test.ko and, for baseline, the series' test
# (mm/dmapool_test.c after `make kernel-series`) built against it as
# dmapool_test_series.ko, the contrast the hardened kernel is read against.
vm_inkernel_ko() {
	local kdir d=$top/build/kernel/$1/inkernel src
	kdir=$("$top/scripts/kernels.sh" --kdir "$1") || return 1
	rm -rf "$d"
	mkdir -p "$d/ko" "$d/series"
	cp "$kdir/mm/dmapool_test.ko" "$d/ko/" || return 1
	case $1 in
	*-dmaguard-baseline)
		src=$("$top/scripts/kernel/build.sh" --source) || return 1
		python3 "$top/scripts/kernel-series/generate.py" --src "$src" \
			--test-file "$d/series/dmapool_test_series.c" || return 1
		echo 'obj-m += dmapool_test_series.o' > "$d/series/Kbuild"
		# shellcheck disable=SC2046
		make -C "$kdir" M="$d/series" $("$top/scripts/kernels.sh" --make-args "$1") \
			modules > "$d/series/build.log" 2>&1 || {
			cat "$d/series/build.log" >&2; return 1; }
		cp "$d/series/dmapool_test_series.ko" "$d/ko/" ;;
	esac
	echo "$d/ko"
}

# vm_kcsan_specs: "NAME SPEC" lines of the boots of the KCSAN kernel: for
# each spec of tests/vm/ with a "kcsan-smp:" line and each vCPU count N on
# it, a copy build/vm/kcsan-specs/<spec>-smp<N>.vmtest (written here) with
# smp: N, kernels: the KCSAN kernel, no backends: (the direct mapping: the
# races KCSAN watches are in dmaguard's code, not the DMA backend's) and
# three times the timeout (default 120 s; KCSAN's watchpoints stall
# instrumented code), a watchpoint every 400 accesses instead of 4000 (ten
# times the chances to catch a race in boots this short), and the
# kernel's word that KCSAN runs, strict, and passed its self-test.
vm_kcsan_specs() {
	local f n name smps out=$vm_out/kcsan-specs
	mkdir -p "$out"
	for f in "$top"/tests/vm/*.vmtest; do
		smps=$(sed -n 's/^kcsan-smp:[[:space:]]*//p' "$f")
		[ -n "$smps" ] || continue
		name=$(basename "$f" .vmtest)
		for n in $smps; do
			awk -v name="$name" -v n="$n" '
			NR == 1 { print "# Generated from tests/vm/" name ".vmtest for the KCSAN kernel, " n " vCPUs (scripts/vm/lib.sh: vm_kcsan_specs)." }
			/^(kernels|backends|smp|kcsan-smp):/ { next }
			/^timeout:/ { print "timeout: " $2 * 3; t = 1; next }
			{ print }
			END { if (!t) print "timeout: 360"
			      print "smp: " n; print "kernels: -dmaguard-kcsan$"
			      print "append: kcsan.skip_watch=400"
			      print "expect-log: kcsan: strict mode configured$"
			      print "expect-log: kcsan: selftest: 3/3 tests passed$" }' \
				"$f" > "$out/$name-smp$n.vmtest"
			echo "$name-smp$n $out/$name-smp$n.vmtest"
		done
	done
}

# vm_specs [SUBDIR]: names (path below tests/vm/, no .vmtest) of the specs
# in tests/vm/SUBDIR.
vm_specs() {
	local f
	local dir=$top/tests/vm${1:+/$1} f
	for f in "$dir"/*.vmtest; do
		[ -f "$f" ] || continue
		f=${f#"$top/tests/vm/"}
		echo "${f%.vmtest}"
	done
}

# vm_fixture_main ARGS...: the command line of a fixture script (selftest.sh,
# planted.sh) that defines prepare, jobs and judge (each taking KVER):
#   SCRIPT [KVER]                 all three on KVER (default: the newest
#                                 kernel), print the judged lines, exit 1 on
#                                 any "not ok"
#   SCRIPT prepare|jobs|judge KVER   one of them (check-vm runs the jobs in
#                                 its pool of boots)
vm_fixture_main() {
	local kver out
	case ${1:-all} in
	prepare|jobs|judge)
		[ $# -eq 2 ] || { echo "usage: $0 $1 KVER" >&2; exit 2; }
		"$1" "$2" ;;
	*)
		kver=${1:-$("$top/scripts/kernels.sh" --distro | tail -n1)}
		[ "$kver" != all ] || kver=$("$top/scripts/kernels.sh" --distro | tail -n1)
		vm_lock
		prepare "$kver"
		jobs "$kver" | vm_run_jobs
		out=$(judge "$kver")
		echo "$out"
		! grep -q '^not ok' <<<"$out" ;;
	esac
}

# vm_lock: serialise whole harness runs (check-vm, run, vm-spec, vm-selftest)
# sharing this tree's build/vm/; held until the calling script exits.
vm_lock() {
	mkdir -p "$vm_out"
	exec 8>"$vm_out/.lock"
	if ! flock -n 8; then
		echo "vm: waiting for another VM run in this tree to finish..." >&2
		flock 8
	fi
}
