#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every dma_pool user of a kernel's drivers/, converted and built.

Usage: real-drivers.py [--sample] [--kver KVER] [--out DIR]
       (make real-drivers; make check runs --sample)

For each Debian kernel (--kver: one; --sample: the 6.12 one), reads
drivers/ of Debian's linux-source tarball of the kernel's series
(the tree `make kernels` extracted, else extracted here once), finds every .c/.h that names the kernel's pool, and for each
module that holds one (read from its directory's Makefile, as
scripts/convert-driver.py reads it) decides:

  builds      the directory converted by scripts/convert-driver.py and the
              module built out of tree against the kernel's headers with
              dmaguard's Module.symvers: 0 warnings, import_ns DMAGUARD_V1
  fails       it does not (the first diagnostic, and "kernel-wide header"
              when the pool pointer sits in a header under include/)
  not built   Debian's config does not build it as a module (=y: built in,
              unset: not enabled for x86 or at all)

--sample restricts it to a fixed list of modules (check-real-drivers).
Prints "ok - ..." / "not ok - ..." for --sample, a table per kernel
otherwise (also in OUT/<kver>/table.md); exits 1 when a module Debian
builds does not build.
"""

import argparse
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SPEC = importlib.util.spec_from_file_location(
    "convert_driver", os.path.join(TOP, "scripts", "convert-driver.py"))
conv = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(conv)

# SCSI, network, crypto, DMA engines, Bluetooth, NVMe and xHCI (issue 20).
SAMPLE = [
    "drivers/nvme/host/nvme",
    "drivers/usb/host/xhci-hcd",
    "drivers/usb/host/ehci-hcd",
    "drivers/scsi/myrb",
    "drivers/scsi/pmcraid",
    "drivers/scsi/mvsas/mvsas",
    "drivers/net/ethernet/intel/e100",
    "drivers/crypto/ccp/ccp",
    "drivers/dma/idma64",
    "drivers/dma/dw/dw_dmac_core",
    "drivers/dma/ioat/ioatdma",
    "drivers/bluetooth/btintel_pcie",
]
DIAG = re.compile(r"(warning|error|WARNING|ERROR)[: ]")


def own_dmaguard(kver, out):
    """dmaguard.ko built here, from links to the tree (as check-cocci
    does): other check groups build the main flavour at the same time.
    Return its Module.symvers."""
    dgb = os.path.join(out, f"dmaguard-{kver}")
    shutil.rmtree(dgb, ignore_errors=True)
    os.makedirs(dgb)
    for part in ("Kbuild", "c-core", "abi", "tests"):
        subprocess.run(["cp", "-rs", os.path.join(TOP, part), dgb],
                       check=True)
    subprocess.run(["make", "-s", "-C", f"/lib/modules/{kver}/build",
                    f"M={dgb}", "modules"], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(dgb, "Module.symvers")


def kernels_sh(what, kver):
    """scripts/kernels.sh --kdir (the tree modules for kver build
    against) or --make-args (what else their make needs)."""
    return subprocess.run([os.path.join(TOP, "scripts", "kernels.sh"),
                           what, kver], capture_output=True, text=True,
                          check=True).stdout.strip()


def kdir_of(kver):
    return kernels_sh("--kdir", kver)


def kernel_config(kver):
    cfg = {}
    with open(os.path.join(kdir_of(kver), ".config"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$", line)
            if m:
                cfg[m.group(1)] = m.group(2)
    return cfg


def extract(tarball, dest, parts=("drivers", "include")):
    """Directories @parts of the tarball, once (one pass of tar)."""
    mark = os.path.join(dest, ".extracted")
    if os.path.exists(mark):
        return
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    top = os.path.basename(tarball)[:-len(".tar.xz")]
    subprocess.run(["tar", "-xf", tarball, "-C", dest,
                    "--strip-components=1", *(f"{top}/{p}" for p in parts)],
                   check=True)
    open(mark, "w", encoding="utf-8").close()


def cached_source(series):
    """The same tarball extracted for the debug and rt kernels (make
    kernels; scripts/kernel/lib.sh), when the cache holds it: read only."""
    if series != "6.12":
        return None
    res = subprocess.run(
        ["bash", "-c", "source scripts/kernel/lib.sh && "
         "echo \"$kernel_cache/src-$(kernel_key)/linux\""],
        cwd=TOP, capture_output=True, text=True, check=False)
    path = res.stdout.strip()
    return path if os.path.isdir(os.path.join(path, "drivers")) else None


def wide_headers(src):
    """Headers under include/ that hold a struct dma_pool pointer."""
    out = []
    for path in glob.glob(os.path.join(src, "include", "**", "*.h"),
                          recursive=True):
        if re.search(r"struct\s+dma_pool\s*\*\s*\w+\s*(\[[^]]*\])?\s*;",
                     conv.read(path)):
            out.append(os.path.relpath(path, os.path.join(src, "include")))
    return sorted(out)


def pool_files(src):
    res = subprocess.run(
        ["grep", "-rlE", "--include=*.c", "--include=*.h",
         r"\b(dmam?_pool_[a-z_]+\s*\(|struct\s+dma_pool\b)",
         os.path.join(src, "drivers")],
        capture_output=True, text=True, check=False)
    return sorted(os.path.relpath(p, src) for p in res.stdout.split())


def modules_with_pools(src, files):
    """{module path: (config, dir)} of the modules whose files name the
    pool; files no module of their directory's Makefile holds are
    returned apart."""
    found, orphans = {}, []
    for d in sorted({os.path.dirname(f) for f in files}):
        full = os.path.join(src, d)
        configs = {}
        mods = conv.modules_of(full, configs)
        here = {os.path.relpath(os.path.join(src, f), full)
                for f in files if os.path.dirname(f) == d}
        held = set()
        for mod, objs in mods.items():
            members = conv.with_included(full, objs)
            if members & here:
                found[os.path.join(d, mod)] = (configs.get(mod, "?"), d)
                held |= members & here
        # headers count through the modules that include them
        for rel in here - held:
            if not rel.endswith(".h"):
                orphans.append(os.path.join(d, rel))
    return found, orphans


def drivers_headers(src):
    """Every header under drivers/, relative to src."""
    out = []
    for dirpath, _, files in os.walk(os.path.join(src, "drivers")):
        out += [os.path.relpath(os.path.join(dirpath, f), src)
                for f in files if f.endswith(".h")]
    return out


def build_dir(src, d, mods, kver, symvers, out, headers, convert=True):
    """Convert directory d into a tree where it sits at its own path
    beside links to the other headers of drivers/ (for includes such as
    "../dmaengine.h"), and build mods (relative to d) out of tree; return
    the converted directory and the conversion's and the build's output.
    convert=False: the same tree unconverted (a rebuild of the kernel's
    own driver, the noise floor of a comparison)."""
    tree = os.path.join(out, "work" if convert else "work-unconverted",
                        d.replace("/", "_"))
    work = os.path.join(tree, d)
    shutil.rmtree(tree, ignore_errors=True)
    for h in headers:
        if not h.startswith(d + "/"):
            os.makedirs(os.path.join(tree, os.path.dirname(h)),
                        exist_ok=True)
            os.symlink(os.path.join(src, h), os.path.join(tree, h))
    if convert:
        res = subprocess.run([sys.executable,
                              os.path.join(TOP, "scripts",
                                           "convert-driver.py"),
                              "--modules", ",".join(mods),
                              os.path.join(src, d), work],
                             capture_output=True, text=True, check=False)
        log = res.stdout + res.stderr
    else:
        shutil.copytree(os.path.join(src, d), work, dirs_exist_ok=True)
        log = ""
    # Only these modules: the directory's own Makefile (its composite
    # objects, flags), then its obj- lists replaced, subdirectories too.
    own = "Kbuild" if os.path.exists(os.path.join(work, "Kbuild")) \
        else "Makefile"
    if own == "Kbuild":
        os.rename(os.path.join(work, "Kbuild"),
                  os.path.join(work, "Kbuild.orig"))
        own = "Kbuild.orig"
    # -I$(srctree)/drivers/...: the headers package has no drivers/; the
    # tree here has them at the same paths (csiostor: cxgb4's headers)
    mk = os.path.join(work, own)
    with open(mk, encoding="utf-8") as f:
        text = f.read()
    with open(mk, "w", encoding="utf-8") as f:
        f.write(text.replace("$(srctree)/drivers/", f"{tree}/drivers/"))
    with open(os.path.join(work, "Kbuild"), "w", encoding="utf-8") as f:
        f.write(f"include $(src)/{own}\nobj-y :=\nobj-m := " +
                " ".join(m + ".o" for m in mods) + "\n")
    res = subprocess.run(
        ["make", "-C", kdir_of(kver), f"M={work}",
         f"KCFLAGS=-I{TOP}/abi/include",
         f"KBUILD_EXTRA_SYMBOLS={symvers}",
         *kernels_sh("--make-args", kver).split(), "modules"],
        capture_output=True, text=True, check=False)
    return work, log, res.stdout + res.stderr


def judge(rel, members, work, conv_log, build_log, wide):
    """'' when module @rel (of the converted directory @work, made of
    @members) builds as it should, else why not."""
    ko = os.path.join(work, rel + ".ko")
    name = os.path.basename(rel)
    names = {os.path.basename(f) for f in members} | {f"module {name} ",
                                                      f"{name}.ko"}
    diags = [line.strip() for line in build_log.splitlines()
             if DIAG.search(line) and (any(n in line for n in names) or
                                       "modpost" not in line and
                                       ".c:" not in line and
                                       ".h:" not in line)]
    if not os.path.exists(ko) or diags:
        first = diags[0] if diags else "no .ko"
        text = "".join(conv.read(os.path.join(work, f)) for f in members
                       if os.path.isfile(os.path.join(work, f)))
        hdrs = [h for h in wide if h in build_log or f"<{h}>" in text]
        if "incompatible pointer type" in build_log and hdrs:
            return f"pool pointer in a kernel-wide header ({hdrs[0]})"
        return "build: " + first[:160]
    for line in conv_log.splitlines():
        if line.startswith("left") and any(
                f" {f}:" in line or f" {rel}:" in line
                for f in members | {rel}):
            return "conversion: " + line[8:]
    ns = subprocess.run(["modinfo", "-F", "import_ns", ko],
                        capture_output=True, text=True, check=False).stdout
    undef = subprocess.run(["nm", "-u", ko], capture_output=True, text=True,
                           check=False).stdout
    calls = re.search(r"\bdmaguard_", undef)
    if calls and "DMAGUARD_V1" not in ns.split():
        return "no DMAGUARD_V1 import"
    if not calls and "DMAGUARD_V1" in ns.split():
        return "imports DMAGUARD_V1 but calls nothing of it"
    return "" if calls else "struct only"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", action="store_true")
    ap.add_argument("--kver")
    ap.add_argument("--out", default=os.path.join(TOP, "build",
                                                  "real-drivers"))
    args = ap.parse_args()
    kvers = [args.kver] if args.kver else []
    if not kvers:
        res = subprocess.run([os.path.join(TOP, "scripts", "kernels.sh"),
                              "--distro"], capture_output=True, text=True,
                             check=False)
        kvers = res.stdout.split()
        # the sample: the 6.12 kernel only (the check's budget)
        if args.sample:
            kvers = [k for k in kvers if k.startswith("6.12")][-1:]
        if not kvers:
            sys.exit("real-drivers: no Debian kernel with headers")
    rc = 0
    for kver in kvers:
        rc |= one_kernel(kver, args.sample, os.path.join(args.out, kver))
    return rc


def one_kernel(kver, sample, out):
    """The table (or the sample's lines) of one kernel; 1 on a failure."""
    os.makedirs(out, exist_ok=True)
    series = ".".join(kver.split(".")[:2])
    tarball = f"/usr/src/linux-source-{series}.tar.xz"
    if not os.path.exists(tarball):
        print(f"real-drivers: no {tarball} (apt install "
              f"linux-source-{series})", file=sys.stderr)
        return 1
    symvers = own_dmaguard(kver, out)
    src = cached_source(series)
    if not src:
        src = os.path.join(TOP, "build", "real-drivers",
                           f"linux-source-{series}")
        extract(tarball, src)
    cfg = kernel_config(kver)
    files = pool_files(src)
    found, orphans = modules_with_pools(src, files)
    wide = wide_headers(src)
    headers = drivers_headers(src)

    if sample:
        missing = [m for m in SAMPLE if m not in found]
        found = {m: found[m] for m in SAMPLE if m in found}
        for m in missing:
            print(f"not ok - real-drivers {kver}: {m}: no such pool user")
    rows = {}
    by_dir = {}
    for mod, (config, d) in sorted(found.items()):
        val = cfg.get(config, "") if config.startswith("CONFIG_") else config
        if val != "m":
            rows[mod] = ("not built", "built into Debian's kernel"
                         if val == "y" else f"{config} not set")
            continue
        by_dir.setdefault(d, []).append(os.path.relpath(mod, d))

    def one(item):
        d, mods = item
        return d, mods, build_dir(src, d, mods, kver, symvers, out,
                                  headers)

    with ThreadPoolExecutor(1 if sample else 2) as ex:
        for d, mods, (work, clog, blog) in ex.map(one,
                                                   sorted(by_dir.items())):
            with open(os.path.join(work, "build.log"), "w",
                      encoding="utf-8") as f:
                f.write(clog + blog)
            mods_of = conv.modules_of(os.path.join(src, d))
            for m in mods:
                members = conv.with_included(os.path.join(src, d),
                                             mods_of.get(m, []))
                why = judge(m, members, work, clog, blog, wide)
                rows[os.path.join(d, m)] = \
                    ("builds", "0 warnings, imports DMAGUARD_V1") \
                    if not why else \
                    ("builds", "0 warnings; names the struct through a "
                     "header, calls nothing of dmaguard: no import") \
                    if why == "struct only" else ("fails", why)

    bad = 0
    if sample:
        for mod, (state, why) in sorted(rows.items()):
            ok = state == "builds"
            bad += not ok
            print(f"{'ok' if ok else 'not ok'} - real-drivers {kver}: "
                  f"{mod}: {state}: {why}")
        return 1 if bad or len(rows) != len(SAMPLE) else 0
    lines = [f"# dma_pool users in drivers/ of linux-source-{series}, "
             f"converted and built against {kver}", "",
             "| module | result | why |", "|---|---|---|"]
    for mod, (state, why) in sorted(rows.items()):
        lines.append(f"| {mod} | {state} | {why} |")
        bad += state == "fails"
    counts = {s: sum(1 for v in rows.values() if v[0] == s)
              for s in ("builds", "fails", "not built")}
    lines += ["", f"{len(files)} files name the pool; {len(rows)} modules: "
              f"{counts['builds']} build, {counts['fails']} fail, "
              f"{counts['not built']} not built by Debian; files in no "
              f"module of their directory: {len(orphans)}",
              f"kernel-wide headers holding a pool: {', '.join(wide)}"]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "table.md"), "w",
              encoding="utf-8") as f:
        f.write(text)
    print(text, end="")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
