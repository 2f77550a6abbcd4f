// SPDX-License-Identifier: GPL-2.0
//! Cargo builds only (a kernel module links against dmaguard.ko's exports
//! instead): build the userspace library of the same C sources,
//! `build/user/libdmaguard.a` (core + ABI shim, scripts/mk/core.mk), with
//! the tree's make, and link it. `DMAGUARD_LIB_DIR` names a directory that
//! already holds `libdmaguard.a` and skips make.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=DMAGUARD_LIB_DIR");
    let dir = match env::var_os("DMAGUARD_LIB_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
            let top = manifest.join("../..").canonicalize().unwrap();
            let status = Command::new("make")
                .arg("-s")
                .arg("-C")
                .arg(&top)
                .arg(top.join("build/user/libdmaguard.a"))
                .status()
                .expect("build.rs: cannot run make");
            assert!(
                status.success(),
                "build.rs: make build/user/libdmaguard.a failed"
            );
            for d in ["c-core", "abi/shim", "abi/include"] {
                println!("cargo:rerun-if-changed={}", top.join(d).display());
            }
            top.join("build/user")
        }
    };
    println!(
        "cargo:rerun-if-changed={}",
        dir.join("libdmaguard.a").display()
    );
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=static=dmaguard");
    println!("cargo:rustc-link-lib=dylib=pthread");
}
