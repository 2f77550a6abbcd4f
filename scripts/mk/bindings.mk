# SPDX-License-Identifier: GPL-2.0
#
# Rust over the public ABI (bindings/, README "Using dmaguard from Rust"):
#
#   make bindings       regenerate the committed generated files,
#                       bindings/dmaguard-sys/src/{bindings,layout}.rs,
#                       from abi/include/dmaguard/ (bindgen 0.60 and the
#                       headers' own layout asserts; scripts/bindings/
#                       generate.sh); review and commit the diff
#   make rust-test      cargo test of the crates against libdmaguard.a
#                       (offline, products in build/cargo)
#
# Check groups: abi gets the bindings' lines (drift against the headers,
# function coverage, layout asserts under both rustc; each with a planted
# failure: scripts/bindings/check.sh, run from abi.mk); rust runs cargo
# test, clippy, fmt, the kernel-style build of the shared files and the
# compile-fail fixtures (scripts/bindings/rust-check.sh).

CHECK_GROUPS	+= rust
CHECK_PREP	+= $(BUILD)/user/libdmaguard.a

.PHONY: bindings rust-test check-rust

bindings: deps
	@scripts/bindings/generate.sh

# From bindings/, so that cargo reads bindings/.cargo/config.toml
# (products in build/cargo, offline).
rust-test: deps $(BUILD)/user/libdmaguard.a
	@cd bindings && PATH="$${CARGO_HOME:-$$HOME/.cargo}/bin:$$PATH" cargo test --offline

check-rust: deps $(BUILD)/user/libdmaguard.a
	@mkdir -p $(RESULTS)
	@echo "rust: cargo test/clippy/fmt, kernel-style build, compile-fail fixtures"
	@rm -f $(RESULTS)/rust
	@scripts/check-step.sh rust $(RESULTS)/rust $(BUILD)/rust-check.log -- \
		scripts/bindings/rust-check.sh
