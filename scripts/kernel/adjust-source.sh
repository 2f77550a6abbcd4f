#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# adjust-source.sh DIR: adapt an extracted linux-source-6.12 tree in DIR to
# Debian bookworm's bindgen (0.60.1; 6.12 asks for 0.65.1). Nothing of the
# kernel's source is kept in dmaguard: these edits are made to the throw-away
# copy that scripts/kernel/build.sh extracts. Each edit must apply exactly:
# a tarball that changed under us fails here, not in the middle of a build.
#
#  1. scripts/min-tool-version.sh: accept bindgen 0.60.1.
#  2. rust/Makefile: bindgen 0.60 refuses `--rust-target 1.68` (it knows
#     no target that new); 1.47 works with 6.12 and rustc 1.96.
#  3. rust/Makefile: bindgen 0.60 does not turn __noreturn into `-> !`, and
#     rust/kernel calls BUG() where it needs a diverging function: patch the
#     generated helper binding after bindgen writes it.
set -euo pipefail

dir=${1:?usage: adjust-source.sh LINUX_SOURCE_DIR}
cd "$dir"

# edit FILE SED_SCRIPT CHECK_REGEX: apply, then require CHECK_REGEX to match.
edit() {
	sed -i -e "$2" "$1"
	grep -qE -- "$3" "$1" || { echo "adjust-source: $1: edit '$2' did not apply" >&2; exit 1; }
}

grep -qx '	echo 0.65.1' scripts/min-tool-version.sh ||
	{ echo "adjust-source: bindgen minimum is no longer 0.65.1" >&2; exit 1; }
edit scripts/min-tool-version.sh 's/^	echo 0\.65\.1$/	echo 0.60.1/' '^	echo 0\.60\.1$'

grep -q -- '--rust-target 1.68' rust/Makefile ||
	{ echo "adjust-source: rust/Makefile has no --rust-target 1.68" >&2; exit 1; }
edit rust/Makefile 's/--rust-target 1\.68/--rust-target 1.47/' '--rust-target 1\.47'

# The helpers' bindgen_target_extra is a sed run on the generated file;
# chain one more that makes BUG() diverge.
grep -q 'pub fn rust_helper_(\[a-zA-Z0-9_\]\*)/#\[link_name' rust/Makefile ||
	{ echo "adjust-source: rust/Makefile helper rewrite not found" >&2; exit 1; }
edit rust/Makefile \
	'/pub fn rust_helper_(\[a-zA-Z0-9_\]\*)\/#\[link_name/s/\$@$/$@; sed -i "s\/pub fn BUG();\/pub fn BUG() -> !;\/" $@/' \
	'pub fn BUG\(\) -> !'
