#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel's own NVMe and xHCI drivers for the VM specs and BENCH nvme.

Usage: vm-drivers.py [--keep-going]     (make vm-drivers, a VM_DEPS target)

For each Debian kernel whose linux-source tarball is installed (6.12:
linux-source-6.12, 6.1: linux-source-6.1), into build/vm-ko/<kver>/:

  nvme/     nvme-dmaguard.ko  drivers/nvme/host's "nvme" (pci.c) converted
                              by scripts/convert-driver.py, built out of tree
            nvme-rebuild.ko   the same directory unconverted, built the same
                              way (the noise floor of BENCH nvme)
            nvme-stock.ko     Debian's module, and the stock modules it needs
                              (nvme-core.ko, ...), decompressed
  xhci/     xhci-hcd-dmaguard.ko, xhci-pci-dmaguard.ko (xhci-pci rebuilt:
            converting xhci-hcd changes its export CRCs), Debian's
            xhci-hcd-stock.ko and xhci-pci-stock.ko (for
            dmaguard_inplace.ko), and its usbcore, usb-storage, SCSI and
            sd modules (6.12 only)

The debug and KCSAN kernels (their config fragments have the block layer
and NVMe for this) get the nvme set too, from the source tree they were
built from and their own nvme-core.ko; the rt kernel has no block layer.
Specs load them through "ko-set: nvme" (tests/vm/nvme.vmtest).
One line per kernel and set: "ok - vm-drivers/<kver>/<set>" or "not ok".
A set whose inputs (these scripts, the semantic patches, dmaguard's headers
and Module.symvers, the kernel's, the source tree) are those of its last
build is not built again (build/vm-ko/<kver>/<set>/.inputs).
"""

import argparse
import glob
import hashlib
import importlib.util
import lzma
import os
import shutil
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SPEC = importlib.util.spec_from_file_location(
    "real_drivers", os.path.join(TOP, "scripts", "real-drivers.py"))
rd = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(rd)

# set: (directory, modules built there, file names, stock modules,
# kernels: Debian's series, or the flavours of the kernels built here)
SETS = {
    "nvme": ("drivers/nvme/host", ["nvme"], {"nvme": "nvme-dmaguard"},
             ["nvme", "nvme-core"], ("6.1", "6.12", "debug", "kcsan")),
    "xhci": ("drivers/usb/host", ["xhci-hcd", "xhci-pci"],
             {"xhci-hcd": "xhci-hcd-dmaguard",
              "xhci-pci": "xhci-pci-dmaguard"},
             ["usbcore", "usb-storage", "sd_mod", "xhci-pci"], ("6.12",)),
}


class Modules:
    """A kernel's modules by name: Debian's through modinfo -k, a built
    kernel's (scripts/kernel/build.sh: `make modules` in its O= tree)
    from its modules.order."""

    def __init__(self, kver, kdir):
        self.kver, self.paths = kver, None
        if not kdir.startswith("/lib/modules/"):
            self.paths = {}
            with open(os.path.join(kdir, "modules.order"),
                      encoding="utf-8") as f:
                for line in f:
                    obj = line.strip()[:-len(".o")]
                    self.paths[norm(os.path.basename(obj))] = \
                        os.path.join(kdir, obj + ".ko")

    def info(self, name, field):
        if self.paths is None:
            return subprocess.run(["modinfo", "-k", self.kver, "-F", field,
                                   name], capture_output=True, text=True,
                                  check=True).stdout.strip()
        if norm(name) not in self.paths:
            raise LookupError(f"{self.kver} has no module {name} (its "
                              "config, scripts/kernel/*.config)")
        if field == "filename":
            return self.paths[norm(name)]
        return subprocess.run(["modinfo", "-F", field,
                               self.paths[norm(name)]],
                              capture_output=True, text=True,
                              check=True).stdout.strip()


def norm(name):
    return name.replace("-", "_")


def stock(mods, names, dest, own):
    """Debian's modules @names and every module they depend on,
    decompressed into dest; those the set also builds (@own) are named
    <module>-stock.ko. Writes dest/deps: the others in load order (what
    a module depends on first: busybox insmod does not resolve)."""
    order = []

    def visit(name):
        path = mods.info(name, "filename")
        base = os.path.basename(path).split(".ko")[0]
        if base in order or base + "-stock" in order:
            return
        for dep in filter(None, mods.info(name, "depends").split(",")):
            visit(dep)
        base += "-stock" if base in own else ""
        order.append(base)
        opener = lzma.open if path.endswith(".xz") else open
        with opener(path, "rb") as f, \
                open(os.path.join(dest, base + ".ko"), "wb") as o:
            shutil.copyfileobj(f, o)

    for name in names:
        visit(name)
    with open(os.path.join(dest, "deps"), "w", encoding="utf-8") as f:
        f.write("\n".join(b for b in order
                          if not b.endswith("-stock")) + "\n")


def set_builds(name):
    """A set's builds: (converted?, {module: file name}), in order."""
    builds = [(True, SETS[name][2])]
    if name == "nvme":
        builds.append((False, {"nvme": "nvme-rebuild"}))
    return builds


def inputs_key(kver, name, symvers, src, tarball):
    """What a set's build depends on, as one hash."""
    h = hashlib.sha256(f"{kver} {name} {src}\n".encode())
    files = [os.path.join(TOP, "scripts", f) for f in
             ("vm-drivers.py", "real-drivers.py", "convert-driver.py")]
    files += sorted(glob.glob(os.path.join(TOP, "semantic-patches", "*")))
    files += sorted(glob.glob(os.path.join(TOP, "abi", "include", "**", "*.h"),
                              recursive=True))
    files += [symvers, os.path.join(rd.kdir_of(kver), "Module.symvers")]
    for f in files:
        with open(f, "rb") as fh:
            h.update(f.encode() + b"\0" + hashlib.sha256(fh.read()).digest())
    for f in (src, tarball):
        if os.path.exists(f):
            st = os.stat(f)
            h.update(f"{f} {st.st_size} {st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def build_set(kver, name, work, symvers, src):
    d, mods, files, stock_mods, _ = SETS[name]
    headers = rd.drivers_headers(src)
    kdir = rd.kdir_of(kver)
    dest = os.path.join(TOP, "build", "vm-ko", kver, name)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for convert, names in set_builds(name):
        tree, clog, blog = rd.build_dir(src, d, mods, kver, symvers, work,
                                        headers, convert=convert)
        with open(os.path.join(tree, "build.log"), "w",
                  encoding="utf-8") as f:
            f.write(clog + blog)
        for mod, file in names.items():
            ko = os.path.join(tree, mod + ".ko")
            if not os.path.exists(ko):
                return f"{mod} did not build (log {tree}/build.log)"
            # as Debian installs them (INSTALL_MOD_STRIP)
            subprocess.run(["strip", "--strip-debug", "-o",
                            os.path.join(dest, file + ".ko"), ko],
                           check=True)
    try:
        stock(Modules(kver, kdir), stock_mods, dest, mods)
    except LookupError as e:
        return str(e)
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keep-going", action="store_true")
    args = ap.parse_args()
    kvers = []
    for which in ([], ["--kcsan"]):
        kvers += subprocess.run([os.path.join(TOP, "scripts", "kernels.sh")]
                                + which, capture_output=True, text=True,
                                check=True).stdout.split()
    bad = 0
    for kver in dict.fromkeys(kvers):
        series = ".".join(kver.split(".")[:2])
        # a kernel built here: its flavour ("debug", "rt"), not its series
        flavour = kver.split("-dmaguard-")[1] if "-dmaguard-" in kver \
            else series
        built_here = flavour != series
        wanted = [n for n, s in SETS.items() if flavour in s[4]]
        if not wanted:
            continue
        # a built kernel: the source tree it was built from
        src = rd.cached_source(series) if built_here else None
        tarball = f"/usr/src/linux-source-{series}.tar.xz"
        if not src and not os.path.exists(tarball):
            for n in wanted:
                print(f"not ok - vm-drivers/{kver}/{n} # no {tarball} "
                      f"(apt install linux-source-{series})")
                bad += 1
            continue
        if not src:
            src = os.path.join(TOP, "build", "vm-drivers", f"src-{series}")
            rd.extract(tarball, src, ("drivers/nvme", "drivers/usb"))
        built = subprocess.run([os.path.join(TOP, "scripts",
                                             "build-modules.sh")],
                               env=dict(os.environ, KVER=kver,
                                        DMAGUARD_TEST_HOOKS=""),
                               stdout=subprocess.DEVNULL, check=False)
        symvers = os.path.join(TOP, "build", "kernel", kver, "main", "src",
                               "Module.symvers")
        work = os.path.join(TOP, "build", "vm-drivers", kver)
        for n in wanted:
            if built.returncode != 0:
                why = "dmaguard.ko did not build"
            else:
                key = inputs_key(kver, n, symvers, src, tarball)
                mark = os.path.join(TOP, "build", "vm-ko", kver, n, ".inputs")
                try:
                    with open(mark, encoding="utf-8") as f:
                        same = f.read().strip() == key
                except OSError:
                    same = False
                same = same and all(
                    os.path.exists(os.path.join(os.path.dirname(mark),
                                                f + ".ko"))
                    for _, names in set_builds(n) for f in names.values())
                why = "" if same else build_set(kver, n, work, symvers, src)
                if not why and not same:
                    with open(mark, "w", encoding="utf-8") as f:
                        f.write(key + "\n")
            print(f"{'not ok' if why else 'ok'} - vm-drivers/{kver}/{n}"
                  + (f" # {why}" if why else ""))
            bad += bool(why)
    return 0 if args.keep_going or not bad else 1


if __name__ == "__main__":
    sys.exit(main())
