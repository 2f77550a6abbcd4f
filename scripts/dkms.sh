#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dmaguard under DKMS (./dkms.conf), from scripts/mk/dkms.mk:
#
#   dkms.sh source       assemble build/dkms/dmaguard-<version>/, the tree
#                        a user hands to `dkms add`: dkms.conf, Kbuild and
#                        the production module's sources (c-core/ without
#                        the userspace platform, abi/include/, abi/shim/
#                        without the test hooks, abi/inplace/ (the in-place
#                        module), the POST_BUILD hook that
#                        keeps Module.symvers); prints its path
#   dkms.sh check        the check-dkms group: version agreement, `dkms
#                        build` for every Debian kernel in a throw-away
#                        DKMS tree, modinfo of each built module, an
#                        initramfs made with the early-load files of
#                        dmaguard_inplace.ko (initramfs_ok), and the
#                        planted failures that prove those checks fire;
#                        "ok - ..."/"not ok - ..." lines on stdout, details
#                        on stderr, exit 1 if any case failed
#   dkms.sh vm-ko        the DKMS-built module of each Debian kernel as
#                        build/vm-ko/<kver>/dmaguard-dkms.ko (so the guest
#                        has it as $KO/dmaguard-dkms.ko, next to the test
#                        flavour's dmaguard.ko; tests/vm/dkms.vmtest),
#                        rebuilt only when a shipped source changed
#
# The throw-away tree (build/dkms/tree/) stands in for all of DKMS's
# system paths: --sourcetree for /usr/src, --dkmstree for /var/lib/dkms,
# --installtree for /lib/modules, and the module signing key DKMS makes on
# first use (default /var/lib/dkms/mok.*) goes there too. Nothing outside
# build/ is written; `dkms build` never installs.
# KVER= (environment) restricts the kernels, as everywhere.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/dkms
tree=$out/tree
header=abi/include/dmaguard/dmaguard.h

# The shipped files, relative to the repository root.
shipped_files() {
	(cd "$top" && git ls-files --cached --others --exclude-standard -- \
		dkms.conf Kbuild scripts/dkms-post-build.sh scripts/dkms-inplace.sh \
		':(glob)c-core/*.[ch]' ':(glob)abi/inplace/boot/**' \
		':(glob)c-core/platform/kernel/*.[ch]' \
		':(glob)abi/include/dmaguard/*.h' ':(glob)abi/shim/*.[ch]' \
		':(glob)abi/inplace/*.[ch]') |
		grep -v -e '^abi/shim/dg_test_hooks\.' |
		while IFS= read -r f; do [ -f "$top/$f" ] && echo "$f"; done
}

# PACKAGE_VERSION of a dkms.conf (DKMS sources it; a plain assignment).
conf_version() {
	sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$1"
}

# MAJOR.MINOR of the public header under directory $1.
header_version() {
	awk '$1 == "#define" && $2 == "DMAGUARD_VERSION_MAJOR" { ma = $3 }
	     $1 == "#define" && $2 == "DMAGUARD_VERSION_MINOR" { mi = $3 }
	     END { if (ma != "" && mi != "") print ma "." mi }' "$1/$header"
}

# The export namespace the public header names (DMAGUARD_NS).
header_ns() {
	awk '$1 == "#define" && $2 == "DMAGUARD_NS" { print $3 }' "$1/$header"
}

# Does the dkms.conf of package tree $1 carry its header's version?
version_agrees() {
	local c h
	c=$(conf_version "$1/dkms.conf")
	h=$(header_version "$1")
	[ -n "$c" ] && [ "$c" = "$h" ] && echo "dkms.conf $c = $header $h" && return 0
	echo "dkms.conf PACKAGE_VERSION '$c' != $header '$h'" >&2
	return 1
}

# Is package tree $1 free of test code (tests/, the test hooks)?
no_test_code() {
	local t
	t=$(cd "$1" && find . -path ./tests -o -name 'dg_test_hooks*')
	[ -z "$t" ] || { echo "$1: $t" >&2; return 1; }
	echo "$(cd "$1" && find . -type f | wc -l) files, no test code"
}

# Copy the shipped files into $1/dmaguard-<version>/; print that path.
assemble() {
	local dest ver
	ver=$(conf_version "$top/dkms.conf")
	dest=$1/dmaguard-$ver
	rm -rf "$dest"
	mkdir -p "$dest"
	shipped_files | (cd "$top" && xargs cp --parents -t "$dest")
	echo "$dest"
}

# dkms add + build of package tree $1 for kernel $2 in throw-away tree $3
# (created afresh). Its output goes to $3.log; prints the built module
# (.ko or, where the kernel's own modules are compressed, .ko.xz).
dkms_build() {
	local pkg=$1 kver=$2 t=$3 ver mod
	local -a paths
	ver=$(conf_version "$pkg/dkms.conf")
	rm -rf "$t"
	mkdir -p "$t/src" "$t/var" "$t/lib"
	cp -r "$pkg" "$t/src/dmaguard-$ver"
	paths=(--sourcetree "$t/src" --dkmstree "$t/var" --installtree "$t/lib")
	{
		mok_signing_key=$t/mok.key mok_certificate=$t/mok.pub \
			dkms add -m dmaguard -v "$ver" "${paths[@]}" &&
		mok_signing_key=$t/mok.key mok_certificate=$t/mok.pub \
			dkms build -m dmaguard -v "$ver" -k "$kver" "${paths[@]}"
	} > "$t.log" 2>&1 || {
		cat "$t/var/dmaguard/$ver/build/make.log" >> "$t.log" 2>/dev/null || true
		return 1
	}
	mod=$(find "$t/var/dmaguard/$ver/$kver" -path '*/module/dmaguard.ko*' | head -n1)
	[ -n "$mod" ] || { echo "no dmaguard.ko under $t/var" >> "$t.log"; return 1; }
	echo "$mod"
}

# initramfs_ok PKG KVER DIR: what a package tree PKG's POST_INSTALL puts in
# place (scripts/dkms-inplace.sh under ROOT=DIR/root, on a copy of this
# host's initramfs-tools configuration, MODULES=list: the hook alone must
# bring the modules) makes an initramfs for KVER, with the modules DKMS
# built for KVER in this check's tree added to KVER's module directory in a
# private mount namespace (an overlay: /lib/modules is not touched). The
# initramfs must hold dmaguard.ko, dmaguard_inplace.ko and the init-top
# script, and run that script before udev's. Prints what it found.
initramfs_ok() {
	local pkg=$1 kver=$2 d=$3 ver mods order
	ver=$(conf_version "$pkg/dkms.conf")
	mods=$tree/$kver/var/dmaguard/$ver/$kver/$(uname -m)/module
	rm -rf "$d"
	mkdir -p "$d/upper" "$d/work" "$d/root/etc" "$d/x"
	cp -r /etc/initramfs-tools "$d/root/etc/"
	sed -i 's/^MODULES=.*/MODULES=list/' "$d/root/etc/initramfs-tools/initramfs.conf"
	: > "$d/root/etc/initramfs-tools/modules"
	(cd "$pkg" && ROOT=$d/root scripts/dkms-inplace.sh install "$kver") || return 1
	unshare -m sh -ec "
		mount -t overlay overlay -o lowerdir=/lib/modules/$kver,upperdir=$d/upper,workdir=$d/work /lib/modules/$kver
		mkdir -p /lib/modules/$kver/updates/dkms
		cp $mods/dmaguard.ko* $mods/dmaguard_inplace.ko* /lib/modules/$kver/updates/dkms/
		depmod $kver
		mkinitramfs -d $d/root/etc/initramfs-tools -o $d/initrd.img $kver" \
		> "$d.log" 2>&1 || return 1
	lsinitramfs "$d/initrd.img" > "$d/list" || return 1
	grep -q '/updates/dkms/dmaguard\.ko$' "$d/list" &&
		grep -q '/updates/dkms/dmaguard_inplace\.ko$' "$d/list" &&
		grep -qx 'scripts/init-top/dmaguard_inplace' "$d/list" || return 1
	unmkinitramfs "$d/initrd.img" "$d/x" >> "$d.log" 2>&1 || return 1
	order=$(sed -n 's|^/scripts/init-top/\([^ ]*\) .*|\1|p' \
		"$(find "$d/x" -path '*/scripts/init-top/ORDER' | head -n1)" | paste -sd' ' -)
	case " $order " in
	*" dmaguard_inplace "*" udev "*) ;;
	*) echo "init-top order: $order" >> "$d.log"; return 1 ;;
	esac
	echo "dmaguard.ko, dmaguard_inplace.ko and init-top/dmaguard_inplace (before udev: $order)"
}

# An uncompressed copy of module $1 at $2.
plain_ko() {
	case $1 in
	*.ko.xz) xz -dc "$1" > "$2" ;;
	*.ko) cp "$1" "$2" ;;
	*) echo "unknown module format: $1" >&2; return 1 ;;
	esac
}

# The namespaces of the exports of module $1, from its export table: the
# __ksymtab_strings section holds each exported name and its namespace.
export_namespaces() {
	local s
	s=$(mktemp)
	objcopy -O binary --only-section=__ksymtab_strings "$1" "$s"
	tr '\0' '\n' < "$s" | grep -E '^DMAGUARD_[A-Z0-9_]+$' | sort -u | paste -sd' ' -
	rm -f "$s"
}

# modinfo of module $1 (uncompressed) built for kernel $2, against package
# tree $3: description, version = the header's, license GPL, vermagic of
# $2, and export_ns = the header's DMAGUARD_NS = the export table's only
# namespace. Prints the fields; fails with the reason on stderr.
modinfo_ok() {
	local ko=$1 kver=$2 pkg=$3 desc ver lic ns vm table want_ver want_ns
	desc=$(modinfo -F description "$ko")
	ver=$(modinfo -F version "$ko")
	lic=$(modinfo -F license "$ko")
	ns=$(modinfo -F export_ns "$ko")
	vm=$(modinfo -F vermagic "$ko")
	table=$(export_namespaces "$ko")
	want_ver=$(header_version "$pkg")
	want_ns=$(header_ns "$pkg")
	local bad=()
	[ -n "$desc" ] || bad+=("no description")
	[ "$ver" = "$want_ver" ] || bad+=("version '$ver', header $want_ver")
	[ "$lic" = GPL ] || bad+=("license '$lic'")
	[ "${vm%% *}" = "$kver" ] || bad+=("vermagic '$vm'")
	[ -n "$ns" ] && [ "$ns" = "$want_ns" ] || bad+=("export_ns '$ns', header $want_ns")
	[ "$ns" = "$table" ] || bad+=("export_ns '$ns', export table '$table'")
	if [ ${#bad[@]} -gt 0 ]; then
		printf '%s: %s\n' "$ko" "${bad[@]}" >&2
		return 1
	fi
	echo "version $ver, license $lic, export_ns $ns, description \"$desc\""
}

# Module.symvers $1 (kept by the POST_BUILD hook): every export in the
# header's namespace, none in DMAGUARD_INTERNAL.
symvers_ok() {
	local n ns
	ns=$(header_ns "$2")
	[ -s "$1" ] || { echo "$1: missing" >&2; return 1; }
	n=$(awk -v ns="$ns" '$3 ~ /(^|\/)dmaguard$/ && $5 == ns' FS='\t' "$1" | wc -l)
	if [ "$n" -eq 0 ] || grep -q DMAGUARD_INTERNAL "$1" ||
	   [ "$n" -ne "$(grep -c . "$1")" ]; then
		echo "$1: $n of $(grep -c . "$1") exports in $ns" >&2
		return 1
	fi
	echo "$n exports, all in $ns"
}

# The newest mtime among the shipped files (vm-ko rebuilds when newer).
newest_source() {
	shipped_files | (cd "$top" && xargs stat -c %Y) | sort -n | tail -n1
}

# One build directory at a time (check and vm-ko share build/dkms/).
lock() {
	mkdir -p "$out"
	exec 9>"$out/.lock"
	flock -n 9 || { echo "  (waiting for another DKMS build in $out)" >&2; flock 9; }
}

fail=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fail=1; }

cmd_check() {
	local pkg kver mod t0 info first='' planted what stale v
	command -v dkms >/dev/null || { notok "dkms: dkms not installed (make deps)"; return; }
	lock
	pkg=$(assemble "$out")
	if what=$(version_agrees "$pkg"); then
		ok "dkms/version: $what"
	else
		notok "dkms/version: dkms.conf and $header disagree"
	fi
	# The README's dkms commands and paths name the version users get.
	v=$(conf_version "$pkg/dkms.conf")
	stale=$(grep -no 'dmaguard[/-][0-9]\+\.[0-9]\+' "$top/README.md" |
		grep -v "[/-]$v\$" || true)
	if [ -z "$stale" ]; then
		ok "dkms/readme-version: README.md names dmaguard $v only"
	else
		notok "dkms/readme-version: README.md names another version: $(echo $stale)"
	fi
	if what=$(no_test_code "$pkg"); then
		ok "dkms/source: $what"
	else
		notok "dkms/source: test code in $pkg"
	fi
	for kver in $("$top/scripts/kernels.sh" --distro); do
		first=${first:-$kver}
		t0=$(date +%s)
		if mod=$(dkms_build "$pkg" "$kver" "$tree/$kver"); then
			ok "dkms/build/$kver ($(( $(date +%s) - t0 )) s)"
		else
			tail -n 30 "$tree/$kver.log" >&2
			notok "dkms/build/$kver: dkms build failed (log $tree/$kver.log)"
			continue
		fi
		plain_ko "$mod" "$tree/$kver.ko"
		if what=$(symvers_ok "$(dirname "$(dirname "$mod")")/Module.symvers" "$pkg"); then
			ok "dkms/symvers/$kver: $what"
		else
			notok "dkms/symvers/$kver: no usable Module.symvers kept by POST_BUILD"
		fi
		if info=$(modinfo_ok "$tree/$kver.ko" "$kver" "$pkg"); then
			ok "dkms/modinfo/$kver: $info"
		else
			notok "dkms/modinfo/$kver"
		fi
		if what=$(initramfs_ok "$pkg" "$kver" "$tree/$kver.initramfs"); then
			ok "dkms/initramfs/$kver: $what"
		else
			tail -n 20 "$tree/$kver.initramfs.log" >&2 || true
			notok "dkms/initramfs/$kver: the early-load files do not put dmaguard_inplace.ko first in a regenerated initramfs (log $tree/$kver.initramfs.log)"
		fi
	done
	[ -n "$first" ] || { notok "dkms: no Debian kernel"; return; }

	# Planted failures, each on a copy: every check above must fire.
	planted=$out/planted
	rm -rf "$planted"
	mkdir -p "$planted"
	cp -r "$pkg" "$planted/version"
	sed -i 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="1.0"/' "$planted/version/dkms.conf"
	if version_agrees "$planted/version" >/dev/null 2>&1; then
		notok "dkms/planted/version-mismatch: PACKAGE_VERSION 1.0 passed the version check"
	else
		ok "dkms/planted/version-mismatch: PACKAGE_VERSION 1.0 fails the version check"
	fi
	cp -r "$pkg" "$planted/hooks"
	cp "$top/abi/shim/dg_test_hooks.c" "$planted/hooks/abi/shim/"
	if no_test_code "$planted/hooks" >/dev/null 2>&1; then
		notok "dkms/planted/test-hooks-shipped: dg_test_hooks.c passed the source check"
	else
		ok "dkms/planted/test-hooks-shipped: dg_test_hooks.c fails the source check"
	fi
	cp -r "$pkg" "$planted/initramfs"
	sed -i '/^manual_add_modules/d' \
		"$planted/initramfs/abi/inplace/boot/initramfs-tools/hooks/dmaguard_inplace"
	if initramfs_ok "$planted/initramfs" "$first" "$planted/initramfs-tree" >/dev/null; then
		notok "dkms/planted/initramfs-hook: a hook that adds no module passed the initramfs check"
	else
		ok "dkms/planted/initramfs-hook: a hook that adds no module fails the initramfs check"
	fi
	cp -r "$pkg" "$planted/location"
	sed -i 's/^BUILT_MODULE_LOCATION\[0\]=.*/BUILT_MODULE_LOCATION[0]="c-core\/"/' \
		"$planted/location/dkms.conf"
	if dkms_build "$planted/location" "$first" "$planted/location-tree" >/dev/null; then
		notok "dkms/planted/built-module-location: dkms build passed with BUILT_MODULE_LOCATION c-core/"
	elif grep -q 'Make sure the name of the generated module is correct' \
		"$planted/location-tree.log"; then
		ok "dkms/planted/built-module-location: dkms build fails for $first (module not where dkms.conf says)"
	else
		tail -n 20 "$planted/location-tree.log" >&2
		notok "dkms/planted/built-module-location: dkms build failed, but not for the planted reason"
	fi
	what=$(find "$tree/$first/var" -name Module.symvers -path "*/$first/*" | head -n1)
	if [ -n "$what" ]; then
		cp "$what" "$planted/Module.symvers"
		printf '0x0\tdg_test_chunk_bytes\t%s/dmaguard\tEXPORT_SYMBOL_GPL\tDMAGUARD_INTERNAL\n' \
			"$planted" >> "$planted/Module.symvers"
		if symvers_ok "$planted/Module.symvers" "$pkg" >/dev/null 2>&1; then
			notok "dkms/planted/symvers-internal: a DMAGUARD_INTERNAL export passed the symvers check"
		else
			ok "dkms/planted/symvers-internal: a DMAGUARD_INTERNAL export fails the symvers check"
		fi
	else
		notok "dkms/planted/symvers-internal: could not plant (no Module.symvers kept for $first)"
	fi
	if [ -f "$tree/$first.ko" ]; then
		# Same length, so that the section keeps its size.
		cp "$tree/$first.ko" "$planted/ns.ko"
		objcopy --dump-section .modinfo="$planted/modinfo" "$planted/ns.ko"
		sed -i 's/export_ns=DMAGUARD_V1/export_ns=DMAGUARD_V9/' "$planted/modinfo"
		objcopy --update-section .modinfo="$planted/modinfo" "$planted/ns.ko"
		if [ "$(modinfo -F export_ns "$planted/ns.ko")" != DMAGUARD_V9 ]; then
			notok "dkms/planted/export-ns: could not plant export_ns=DMAGUARD_V9"
		elif modinfo_ok "$planted/ns.ko" "$first" "$pkg" >/dev/null 2>&1; then
			notok "dkms/planted/export-ns: export_ns DMAGUARD_V9 passed the modinfo check"
		else
			ok "dkms/planted/export-ns: export_ns DMAGUARD_V9 fails the modinfo check"
		fi
	else
		notok "dkms/planted/export-ns: could not plant (no module built for $first)"
	fi
}

cmd_vm_ko() {
	local pkg kver mod dest newest
	lock
	pkg=''
	newest=$(newest_source)
	for kver in $("$top/scripts/kernels.sh" --distro); do
		dest=$top/build/vm-ko/$kver/dmaguard-dkms.ko
		if [ -f "$dest" ] && [ "$(stat -c %Y "$dest")" -ge "$newest" ]; then
			continue
		fi
		mkdir -p "$(dirname "$dest")"
		# The module of the last check-dkms, if the sources are unchanged.
		if [ -f "$tree/$kver.ko" ] &&
		   [ "$(stat -c %Y "$tree/$kver.ko")" -ge "$newest" ]; then
			cp "$tree/$kver.ko" "$dest"
			continue
		fi
		pkg=${pkg:-$(assemble "$out")}
		echo "  DKMS    dmaguard for $kver (dkms add + build, about 30 s)"
		if ! mod=$(dkms_build "$pkg" "$kver" "$tree/$kver"); then
			tail -n 30 "$tree/$kver.log" >&2
			echo "dkms.sh: dkms build failed for $kver (log $tree/$kver.log)" >&2
			rm -f "$dest"
			fail=1
			continue
		fi
		plain_ko "$mod" "$tree/$kver.ko"
		cp "$tree/$kver.ko" "$dest"
	done
}

case ${1:-} in
source) lock; assemble "$out" ;;
check) cmd_check ;;
vm-ko) cmd_vm_ko ;;
*) echo "usage: dkms.sh source|check|vm-ko" >&2; exit 2 ;;
esac
exit $fail
