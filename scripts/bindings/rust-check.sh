#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The rust group of `make check` (scripts/mk/bindings.mk): the crates of
# bindings/ with rustup's cargo, offline, build products in build/cargo.
# One result line each on stdout, tool output on stderr:
#
#   rust/cargo-test        cargo test: unit, integration and doc tests
#                          against libdmaguard.a (the userspace build of the
#                          C core and ABI shim)
#   rust/clippy            cargo clippy --all-targets -- -D warnings
#   rust/fmt               cargo fmt --check, rustfmt --check of the
#                          fixtures, the kernel mirror and kmod.rs
#   rust/lockfile          Cargo.lock unchanged by the run (no churn)
#   rust/kernel-mirror     the shared files as modules of a no_std crate,
#                          the kernel module's way (kernel-mirror/), with
#                          Debian's rustc (the kernel's), edition 2021, the
#                          kernel's main lints, -D warnings; the kernel
#                          crate's Arc from a stand-in (kernel-mirror/kernel.rs)
#   rust/compile-fail/<f>  each bindings/dmaguard/compile-fail/<f>.rs,
#                          compiled against the dmaguard rlib, fails with
#                          the error code of its "// expect: E...." line
#                          and no other error (one without a code
#                          included), one of them saying what its
#                          "// expect-message:" line says: it fails for
#                          its reason, and only that; "expect: ok" ones
#                          must compile; "expect: no-rules" ones must be
#                          refused by a macro (no rules expected the
#                          token), with no other error
#
# Usage: scripts/bindings/rust-check.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# rustup's cargo and rustc first: Debian's rustc (the kernel's, 1.96) cannot
# read what rustup's cargo (1.95) builds.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export CARGO_TARGET_DIR=$top/build/cargo
manifest=$top/bindings/Cargo.toml
out=$top/build/rust-check
mkdir -p "$out"
lock=$top/bindings/Cargo.lock
lock_before=$(sha256sum < "$lock")

# rustup's toolchain is not a Debian package (scripts/deps.sh cannot
# install it): say so plainly rather than through a cargo error.
for tool in cargo "cargo clippy" "cargo fmt"; do
	if ! $tool --version > /dev/null 2>&1; then
		echo "not ok - rust/toolchain # '$tool' not found: rustup's stable toolchain with clippy and rustfmt is expected in ${CARGO_HOME:-$HOME/.cargo}/bin (rustup component add clippy rustfmt)"
		exit 1
	fi
done

if cargo test --offline --manifest-path "$manifest" > "$out/test.log" 2>&1; then
	n=$(awk '/^test result: ok\./ { n += $4 } END { print n + 0 }' "$out/test.log")
	echo "ok - rust/cargo-test ($n tests)"
else
	cat "$out/test.log" >&2
	echo "not ok - rust/cargo-test # see build/rust-check/test.log"
fi

if cargo clippy --offline --manifest-path "$manifest" --all-targets \
	-- -D warnings > "$out/clippy.log" 2>&1; then
	echo "ok - rust/clippy"
else
	cat "$out/clippy.log" >&2
	echo "not ok - rust/clippy # see build/rust-check/clippy.log"
fi

# The fixtures and the kernel mirror are no cargo targets: rustfmt them too.
if cargo fmt --manifest-path "$manifest" --all --check > "$out/fmt.log" 2>&1 &&
	rustfmt --edition 2024 --check "$top"/bindings/dmaguard/compile-fail/*.rs \
		"$top"/bindings/dmaguard/kernel-mirror/*.rs \
		"$top"/bindings/dmaguard/kmod.rs >> "$out/fmt.log" 2>&1; then
	echo "ok - rust/fmt"
else
	cat "$out/fmt.log" >&2
	echo "not ok - rust/fmt # run cargo fmt in bindings/"
fi

if [ "$(sha256sum < "$lock")" = "$lock_before" ]; then
	echo "ok - rust/lockfile"
else
	echo "not ok - rust/lockfile # cargo rewrote bindings/Cargo.lock"
fi

# kernel.rs stands in for the kernel crate's Arc and allocation flags.
mirror=$top/bindings/dmaguard/kernel-mirror
if /usr/bin/rustc --edition 2021 --crate-type rlib --crate-name kernel \
	--emit metadata -D warnings -o "$out/libkernel.rmeta" \
	"$mirror/kernel.rs" > "$out/mirror.log" 2>&1 &&
	/usr/bin/rustc --edition 2021 --crate-type rlib --emit metadata \
	-D warnings -D unsafe_op_in_unsafe_fn -W missing_docs \
	-W rust_2018_idioms -W unreachable_pub \
	--extern kernel="$out/libkernel.rmeta" \
	-o "$out/kernel-mirror.rmeta" "$mirror/lib.rs" >> "$out/mirror.log" 2>&1; then
	echo "ok - rust/kernel-mirror (rustc $(/usr/bin/rustc --version | cut -d' ' -f2))"
else
	cat "$out/mirror.log" >&2
	echo "not ok - rust/kernel-mirror # the shared files do not build as kernel-style modules"
fi

# The dmaguard rlib (and the deps directory of its dependencies) as cargo
# built it for the tests above.
rlib=$(cargo build --offline --manifest-path "$manifest" -p dmaguard \
	--message-format=json 2> "$out/build.log" |
	python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "dmaguard":
        print([f for f in m["filenames"] if f.endswith(".rlib")][0])
')
if [ -z "$rlib" ]; then
	cat "$out/build.log" >&2
	echo "not ok - rust/compile-fail # cannot build the dmaguard rlib"
	exit 0
fi

# fixture FILE NAME: compile FILE against the rlib, print its result line.
fixture() {
	local f=$1 name=$2 want msg log rc got errs other
	want=$(sed -n 's|^// expect: \([A-Za-z0-9-]*\)$|\1|p' "$f")
	if [ -z "$want" ]; then
		echo "not ok - rust/compile-fail/$name # no // expect: line"
		return
	fi
	msg=$(sed -n 's|^// expect-message: ||p' "$f")
	if [ "$want" != ok ] && [ -z "$msg" ]; then
		echo "not ok - rust/compile-fail/$name # no // expect-message: line"
		return
	fi
	log=$out/$name.log
	rustc --edition 2021 --crate-type lib --emit metadata \
		--extern dmaguard="$rlib" -L dependency="$CARGO_TARGET_DIR/debug/deps" \
		-o "$out/$name.rmeta" "$f" > "$log" 2>&1
	rc=$?
	got=$(grep -o '^error\[E[0-9]*\]' "$log" | sed 's/error\[\(.*\)\]/\1/' | sort -u | tr '\n' ' ')
	got=${got% }
	# every error but the closing count: each must be the expected one
	errs=$(grep '^error' "$log" | grep -v '^error: aborting due to')
	if [ "$want" = no-rules ]; then
		other=$(grep -v '^error: no rules expected' <<< "$errs")
	else
		other=$(grep -v "^error\[$want\]" <<< "$errs")
	fi
	if [ "$want" != ok ] && { [ -n "$other" ] || ! grep -qF -- "$msg" "$log"; }; then
		cat "$log" >&2
		echo "not ok - rust/compile-fail/$name # refused, but not only for its reason (another error: ${other:-none}; '$msg' said: $(grep -cF -- "$msg" "$log") times)"
		return
	fi
	if [ "$want" = no-rules ]; then
		# A macro refusing its input has no error code of its own.
		if [ $rc -ne 0 ] && grep -q 'no rules expected' "$log"; then
			echo "ok - rust/compile-fail/$name (no rules expected)"
		else
			cat "$log" >&2
			echo "not ok - rust/compile-fail/$name # expected a macro to refuse it, got rc $rc: ${got:-no code}"
		fi
	elif [ "$want" = ok ]; then
		if [ $rc -eq 0 ]; then
			echo "ok - rust/compile-fail/$name (compiles, as it must)"
		else
			cat "$log" >&2
			echo "not ok - rust/compile-fail/$name # must compile, failed: ${got:-no code}"
		fi
	elif [ $rc -ne 0 ] && [ "$got" = "$want" ]; then
		echo "ok - rust/compile-fail/$name ($want)"
	else
		cat "$log" >&2
		echo "not ok - rust/compile-fail/$name # expected $want, got rc $rc: ${got:-no code}"
	fi
}

for f in "$top"/bindings/dmaguard/compile-fail/*.rs; do
	fixture "$f" "$(basename "$f" .rs)"
done

# Planted: a fixture refused for its reason plus an unrelated error, and
# one refused with its code but not for the reason it names, must fail.
mkdir -p "$out/planted"
{ cat "$top/bindings/dmaguard/compile-fail/read_as_bool.rs"
  echo 'pub fn unrelated() -> u32 { no_such_name }'; } > "$out/planted/unrelated_error.rs"
sed 's|^// expect-message: .*|// expect-message: a reason rustc does not give|' \
	"$top/bindings/dmaguard/compile-fail/free_raw_is_unsafe.rs" > "$out/planted/wrong_reason.rs"
for p in unrelated_error:'another error: error\[E0425\]' \
	 wrong_reason:"said: 0 times"; do
	why=${p#*:}
	p=${p%%:*}
	if fixture "$out/planted/$p.rs" "planted-$p" 2>/dev/null |
	   grep -q "^not ok .*$why"; then
		echo "ok - rust/compile-fail/planted/$p # caught"
	else
		echo "not ok - rust/compile-fail/planted/$p # passed"
	fi
done
