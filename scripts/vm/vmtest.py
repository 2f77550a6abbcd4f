#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Boot one VM test spec on one kernel and judge it.
#
# ADDING A VM TEST: write tests/vm/<name>.vmtest (format below); `make
# check-vm` boots it on every kernel (try it alone with `make vm-spec
# SPEC=tests/vm/<name>.vmtest KVER=...`). A test module goes in tests/kmod/
# (built by `make modules DMAGUARD_TEST_HOOKS=1` into $KO); a static guest program goes in
# build/vm-bin/ from a make target added to VM_DEPS (scripts/mk/vm.mk).
# ADDING A `make run` REPORT SECTION: a spec in tests/vm/report/ (sections
# ordered by file name: 00-, 10-, ...) printing "REPORT <text>" lines; it is
# also an ordinary test of `make check-vm`. Example: tests/vm/report/.
# Planted-failure examples of every verdict: tests/vm/harness-selftest/.
#
# VM TEST SPEC FORMAT (tests/vm/<name>.vmtest, tests/vm/report/<name>.vmtest)
# --------------------------------------------------------------------------
# A text file, one directive per line, "key: value". Blank lines and lines
# starting with '#' are ignored (a '#' elsewhere is part of the value).
# Every key except the step keys is optional.
#
#   run: CMD           Guest shell command (busybox sh), run in file order
#                      with the other steps; must exit 0, else the spec fails.
#   test: NAME: CMD    Same, but its exit status is its own result line
#                      "vm/<kver>/<spec>/NAME" (userspace test programs).
#   smp: N             vCPUs (default 1; a spec that does not say shares
#                      a boot with any number, SHARED BOOTS).
#   mem: SIZE          guest memory (default 640M: the debug kernel's boot,
#                      KASAN shadow and kmemleak scans grow with it; under
#                      512M the kernel turns transparent huge pages off).
#   qemu: ARGS         extra QEMU arguments, shell-quoted, may repeat, e.g.
#                      "qemu: -machine q35 -device edu".
#   machine: TYPE      QEMU's machine type (q35 or pc; default QEMU's,
#                      pc), also under a backend that sets the same one
#                      (an IOMMU backend: q35). NVMe wants q35: under pc
#                      each probe takes seconds.
#   disk: ID SIZE [OPTS]  a raw disk image of SIZE (sparse, created for
#                      each boot beside its log, deleted after it) as
#                      "-drive file=...,format=raw,if=none,id=ID[,OPTS]",
#                      for a "-device ...,drive=ID" of qemu:; may repeat.
#   ko-set: NAME       also put build/vm-ko/<kver>/NAME/ in the guest as
#                      $KO/NAME/ (modules only some specs load, e.g.
#                      Debian's own drivers); may repeat.
#   append: ARGS       extra kernel command line.
#   timeout: SECONDS   whole boot, from QEMU start to power-off (default 120);
#                      on expiry QEMU is killed and the spec fails.
#   kernels: REGEX     run only on kernels whose version matches (Python re,
#                      search), e.g. "^6\.12\.". Default: every kernel.
#   expect-warning: RE a kernel WARNING must occur whose block (from
#                      "cut here" to the "WARNING:" line, i.e. including the
#                      WARN() message) has a line matching RE; may repeat.
#   allow-warning: RE  such a WARNING may occur; may repeat.
#   expect-log: RE     some kernel log or console line must match RE.
#   allow-taint: LETTERS  taint flags allowed at the end besides O and E
#                      (W is implied by expect-/allow-warning), e.g. "W".
#   ktap: N            exactly N top-level KTAP documents (kernel and guest
#                      programs together) must be printed.
#   kcsan-smp: N...    also boot the spec on the KCSAN kernel
#                      (scripts/kernels.sh --kcsan), once per vCPU count
#                      given, under the direct mapping: a race spec
#                      (scripts/vm/lib.sh: vm_kcsan_specs writes each copy,
#                      "<spec>-smp<N>"). A KCSAN report whose racing
#                      functions include one of dmaguard's modules fails
#                      the spec (a "BUG:" line); the kernel's own races are
#                      noted on its line (kernel_own_kcsan()).
#   backends: NAMES    boot the spec once per DMA backend (see DMA BACKENDS
#                      below), e.g. "backends: direct iommu-strict"; "all"
#                      is every backend. Default: direct only, without the
#                      backend proof step.
#
# Guest environment: modules built for the booted kernel in $KO (= /ko):
# those of `make modules DMAGUARD_TEST_HOOKS=1` (the test flavour) plus any in build/vm-ko/<kver>/ (modules built
# elsewhere); static binaries from build/vm-bin/ on PATH (/vmbin); /proc,
# /sys, /dev, /tmp and debugfs mounted.
# QEMU runs as (never KVM: guests hang on this host)
#   qemu-system-x86_64 -accel tcg -cpu max -m MEM -smp N -nographic
#     -no-reboot -kernel <image of V> -initrd <per-spec initramfs>
#     -append "console=ttyS0 panic=-1 quiet slub_debug=FZPU log_buf_len=8M
#              tsc=reliable pty.legacy_count=0 <append:>"
#     <qemu:> [-nic none, unless qemu: has -nic/-net/-netdev]
# and /init raises the console log level, so the serial log has everything.
#
# DMA BACKENDS (the BACKENDS table below is their one definition). A spec
# with "backends:" boots once per backend; the backend's QEMU arguments go
# before the spec's qemu: ones (an IOMMU must precede the devices it
# translates), its kernel arguments before the spec's append: ones. Names:
#   direct         no IOMMU, dma-direct (today's boots)
#   iommu-strict   q35 + intel-iommu,intremap=off; intel_iommu=on
#                  iommu.strict=1: edu's IOMMU group type must be DMA
#   iommu-lazy     the same with iommu.strict=0: type DMA-FQ (flush queue)
#   amd-iommu      q35 + amd-iommu,intremap=off; iommu.passthrough=0: type
#                  DMA (the AMD driver forces strict mode in a VM; with
#                  interrupt remapping, a busy host can make the guest's
#                  IO-APIC timer check fail and panic at boot)
#   swiotlb        no IOMMU, swiotlb=force (bounce buffers for streaming
#                  DMA; a guest under 4 GiB would not set up swiotlb without it)
# Result lines of a direct boot keep the spec's name, the others are named
# "<spec>@<backend>" (vm/<kver>/<spec>@iommu-strict/...; logs likewise).
# Each such boot starts with a step "backend" (scripts/vm/backend-check,
# result line vm/<kver>/<spec>@<backend>/backend) that proves the backend
# is really in force for the test device, QEMU's edu (1234:11e8): under an
# IOMMU, the edu device's /sys/.../iommu_group/type must be the backend's
# (a boot that silently fell back to passthrough or no IOMMU fails); under
# direct and swiotlb, no IOMMU may exist; under swiotlb, the kernel must have
# set up its bounce buffers (debugfs swiotlb/io_tlb_nslabs > 0: without
# swiotlb=force a guest under 4 GiB has none). The guest sees the name as $BACKEND.
# A spec booted under an IOMMU backend must have the edu device in its
# qemu: line, and every edu device must be given "dma_mask=0xffffffff" (the
# test modules give it a 32-bit DMA mask; QEMU's edu default, 28 bits,
# would truncate their DMA addresses). Such a spec may not choose -machine.
#
# SHARED BOOTS. Most of a boot's time under TCG is the kernel's boot, so
# specs that would boot the same machine share one boot (`--boot NAME=SPEC`
# more than once; `--plan` groups a list): same kernel, DMA backend,
# qemu: but its -device arguments, append: and smp: where the spec has one
# (every spec's devices, the largest mem:, the sum of the timeouts). A spec
# with expect-warning:, allow-warning: or allow-taint: boots alone. The
# guest runs the specs in turn, each as a boot would start it (no module
# of the one before loaded, an empty /tmp), and marks each one's part of
# the console and of the kernel log (scripts/vm/shared.py cuts the log).
# Each spec is judged by the rules below on its own part: the boot up to
# the first spec, its steps' console and kernel lines, the taint bits and
# DMA-API debug errors added during its part, lockdep as its part left it;
# it keeps its own result lines and log (<name>.log, the shared boot's
# whole log in <out>/shared/). A spec whose own line is "not ok" (a crash,
# a WARNING, a timeout...) sends the specs after it to a new shared boot,
# since a first report can switch a debug check off for the rest of a
# boot. A finding after the last spec (the debug kernels' kmemleak scans,
# power-off) sends every spec of that boot to a boot of its own, whose
# verdict stands; if none fails alone, all are "not ok" (the finding is
# real but could not be pinned on one).
#
# RETRY. A boot whose kernel reports a panic, an Oops or a BUG before the
# guest's /init has printed its first marker, or whose QEMU dies of a
# signal before then, is booted once more, and
# judged by the second boot alone; its spec line says so ("retried once:
# ...") and the first log is kept as <name>.crash-before-init.log. No test
# code runs before /init, so such a report is the emulator's
# (crashed_before_init()).
#
# VERDICT. The spec's own line "vm/<kver>/<spec>" is "not ok" on: QEMU
# timeout or error, a missing "all steps done" marker, a failed or
# unfinished run: step, Kernel panic / Oops / BUG: / SLUB "BUG cache (...)"
# / general protection fault / RCU stall / hung task / UBSAN (KASAN reports
# and "sleeping function called from invalid context" are BUG: lines), any
# WARNING (lockdep splats and DMA-API debug reports are WARNINGs) not
# matched by expect-/allow-warning; on the debug kernels, after the steps
# (scripts/vm/init): a kmemleak leak (two scans 5 s apart), a non-zero
# DMA-API debug error count, lockdep switched off; an expect-* pattern
# never matched, a taint flag outside O, E (+W, + allow-taint), a KTAP
# document with a missing plan line, more or fewer results than its plan,
# or a parse error, a "ktap:" count mismatch. Each KTAP case becomes its own line
# "vm/<kver>/<spec>/<module>/<case>" (see ktap.py); each test: step too.
# KTAP/TAP printed by guest programs (console lines without a printk
# timestamp) is parsed the same way, its documents named "user-ktapN".
#
# REPORT LINES. Any console line (kernel printk or guest program output)
# of the form "[prefix: ]REPORT text" is collected, in order, into
# <out>/<spec>.report; `make run` prints those of tests/vm/report/*.vmtest
# (a spec whose text has "REPORT [" also boots under iommu-strict there,
# adding only its lines starting "[<backend>]"), and tables of their "BENCH ..." and "DEBUGFS <table>
# <label>: <row>" lines (scripts/report/report_data.py).
#
# Usage: vmtest.py --kver V --name NAME --out DIR --ko-dir DIR [--ko-dir DIR]
#                  [--bin-dir DIR] [--backend B] [--image FILE] SPEC
#        vmtest.py --kver V --out DIR ... --boot NAME=SPEC [--boot ...]
#                  (one shared boot; NAME "<spec>@<backend>" for a backend)
#        vmtest.py --plan --kver V --boot NAME=SPEC...  (print the boots,
#                  one line of NAME=SPEC words per boot)
# --image: the kernel to boot (scripts/kernels.sh --image V; default
# /boot/vmlinuz-V).
#        vmtest.py --list-backends SPEC   (the backends the spec boots under)
# Writes DIR/NAME.log (full serial log), DIR/NAME.results (result lines, also
# printed), DIR/NAME.report. Exit status 0 iff every result line is "ok".
# DMAGUARD_VM_DRY=1 (the benchmarks' dry run, BENCH_DRY=1): build the
# initramfs and check what the boot would need (the kernel image, every
# $KO/... module a step loads, a QEMU plugin), then give one
# "ok ... # dry run" line per spec, or "not ok" naming what is missing;
# nothing boots.
# Later --ko-dir directories win over earlier ones for a module of the same
# name.
import argparse
import collections
import gzip
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
os.environ.setdefault('KUNIT_DIR', os.path.join(
	TOP, 'build/tools/linux/tools/testing/kunit'))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True		# no __pycache__ in the source tree
import ktap  # noqa: E402
import shared  # noqa: E402

# log_buf_len: the verdict parses the guest's final dmesg; a big buffer keeps
# the start of long KTAP runs from being overwritten.
# tsc=reliable: on a busy host the clocksource watchdog of a TCG guest marks
# the TSC unstable, and the static key flip that follows (text_poke with
# int3, racing another vCPU under TCG) crashed -smp 2 boots of Debian 6.12
# before any step ran ("Oops: int3" in sched_clock_cpu / sched_clock_tick,
# twice in two days). The bench, not the code: every guest boots with it.
# pty.legacy_count=0: the debug and rt kernels have CONFIG_LEGACY_PTYS
# (Debian's do not: the parameter is then ignored); registering 256 BSD pty
# pairs took 1.7 s of each debug boot, and nothing here uses them.
BASE_APPEND = ('console=ttyS0 panic=-1 quiet slub_debug=FZPU log_buf_len=8M '
	       'tsc=reliable pty.legacy_count=0')
MARK = shared.MARK
TAINT_LETTERS = 'PFSRMBUDAWCIOELKXTN'	# bit n = TAINT_LETTERS[n]
FATAL = [
	(re.compile(r'Kernel panic'), 'kernel panic'),
	(re.compile(r'\bOops\b'), 'Oops'),
	(re.compile(r'\bBUG:'), 'BUG'),
	(re.compile(r'kernel BUG at'), 'BUG'),
	(re.compile(r'^BUG \S+ \(.*\): '), 'SLUB corruption'),
	(re.compile(r'general protection fault'), 'general protection fault'),
	(re.compile(r'rcu: INFO: .*detected stalls|self-detected stall'),
	 'RCU stall'),
	(re.compile(r'INFO: task .* blocked for more than'), 'hung task'),
	(re.compile(r'UBSAN:'), 'UBSAN'),
]
ANSI = re.compile(r'\x1b(?:\[[0-9;?]*[A-Za-z]|[@-Z\\-_c])')
# A KCSAN report (the KCSAN kernel, scripts/kernel/kcsan.config): its
# title, "BUG: KCSAN: data-race in A / B" (the functions that made the
# racing accesses; one for a race at unknown origin), and a function of
# one of dmaguard's modules there ("dg_pool_drain [dmaguard]").
KCSAN_TITLE = re.compile(r'\bBUG: KCSAN: (.*)$')
DMAGUARD_TAG = re.compile(r'\[dmaguard\w*\](?: |$)')
TIMESTAMP = shared.TIMESTAMP
REPORT = re.compile(r'^(?:[^\s:][^:]*: )?REPORT(?: (.*))?$')
STEP_NAME = re.compile(r'^[A-Za-z0-9_.+-]+$')

# The DMA backends (DMA BACKENDS above): QEMU and kernel arguments, and what
# the guest's proof (scripts/vm/backend-check) demands: the edu device's
# IOMMU group type ("none": no IOMMU at all), and whether swiotlb's bounce
# buffers must exist.
Backend = collections.namedtuple('Backend', 'qemu append group swiotlb')
INTEL_IOMMU = ['-machine', 'q35', '-device', 'intel-iommu,intremap=off']
BACKENDS = {
	'direct': Backend([], [], 'none', False),
	'iommu-strict': Backend(INTEL_IOMMU, ['intel_iommu=on', 'iommu.strict=1'],
				'DMA', False),
	'iommu-lazy': Backend(INTEL_IOMMU, ['intel_iommu=on', 'iommu.strict=0'],
			      'DMA-FQ', False),
	'amd-iommu': Backend(['-machine', 'q35', '-device', 'amd-iommu,intremap=off'],
			     ['iommu.passthrough=0'], 'DMA', False),
	'swiotlb': Backend([], ['swiotlb=force'], 'none', True),
}
EDU_MASK = 'dma_mask=0xffffffff'


class SpecError(Exception):
	pass


def default_spec():
	"""A spec with no lines: what each key is when a spec leaves it out."""
	return {'smp': None, 'mem': '640M', 'qemu': [], 'append': [], 'timeout': 120,
		'kernels': None, 'expect-warning': [], 'allow-warning': [],
		'expect-log': [], 'allow-taint': '', 'ktap': None, 'steps': [],
		'backends': None, 'machine': None, 'disks': [], 'ko-sets': [],
		'kcsan-smp': []}


def parse_spec(path):
	spec = default_spec()
	with open(path) as f:
		for num, raw in enumerate(f, 1):
			line = raw.strip()
			if not line or line.startswith('#'):
				continue
			key, sep, val = line.partition(':')
			key, val = key.strip(), val.strip()
			where = f'{path}:{num}'
			if not sep or not val:
				raise SpecError(f'{where}: expected "key: value"')
			try:
				if key == 'run':
					spec['steps'].append(('run', '-', val))
				elif key == 'test':
					name, sep, cmd = val.partition(':')
					name, cmd = name.strip(), cmd.strip()
					if not sep or not cmd or not STEP_NAME.match(name):
						raise SpecError(f'{where}: expected "test: NAME: CMD"')
					spec['steps'].append(('test', name, cmd))
				elif key in ('smp', 'timeout', 'ktap'):
					spec[key] = int(val)
				elif key == 'kcsan-smp':
					spec[key] = [int(v) for v in val.split()]
					if min(spec[key]) < 1:
						raise SpecError(f'{where}: kcsan-smp: vCPU counts')
				elif key == 'mem':
					spec['mem'] = val
				elif key == 'qemu':
					spec['qemu'] += shlex.split(val)
				elif key == 'append':
					spec['append'].append(val)
				elif key == 'machine':
					if val not in ('q35', 'pc'):
						raise SpecError(f'{where}: machine q35 or pc')
					spec['machine'] = val
				elif key == 'disk':
					spec['disks'].append(parse_disk(where, val))
				elif key == 'ko-set':
					if not STEP_NAME.match(val):
						raise SpecError(f'{where}: bad ko-set name')
					spec['ko-sets'].append(val)
				elif key == 'kernels':
					spec['kernels'] = re.compile(val)
				elif key == 'backends':
					spec['backends'] = parse_backends(val)
				elif key in ('expect-warning', 'allow-warning', 'expect-log'):
					spec[key].append(re.compile(val))
				elif key == 'allow-taint':
					bad = set(val) - set(TAINT_LETTERS) - set(' ,')
					if bad:
						raise SpecError(f'{where}: unknown taint letter(s) {bad}')
					spec['allow-taint'] += val
				else:
					raise SpecError(f'{where}: unknown key "{key}"')
			except (ValueError, re.error) as e:
				raise SpecError(f'{where}: {e}') from e
	if not spec['steps']:
		raise SpecError(f'{path}: no run: or test: step')
	check_backends(path, spec)
	return spec


def parse_disk(where, val):
	words = val.split()
	if len(words) not in (2, 3) or not STEP_NAME.match(words[0]) or \
	   not re.fullmatch(r'\d+[KMG]', words[1]):
		raise SpecError(f'{where}: expected "disk: ID SIZE[KMG] [OPTS]"')
	return tuple(words) if len(words) == 3 else (*words, '')


def parse_backends(val):
	names = list(BACKENDS) if val == 'all' else val.split()
	bad = [n for n in names if n not in BACKENDS]
	if bad:
		raise SpecError(f'unknown backend(s) {bad}, known: {list(BACKENDS)}')
	return list(dict.fromkeys(names))


def check_backends(path, spec):
	"""The rules of DMA BACKENDS that a spec must follow."""
	q = spec['qemu']
	edu = [a for i, a in enumerate(q[1:], 1)
	       if q[i - 1] == '-device' and a.split(',')[0] == 'edu']
	for a in edu:
		if EDU_MASK not in a.split(','):
			raise SpecError(f'{path}: "-device {a}" lacks {EDU_MASK} '
					'(test modules give edu a 32-bit mask)')
	for name in spec['backends'] or []:
		b = BACKENDS[name]
		if b.group != 'none' and not edu:
			raise SpecError(f'{path}: backend {name} needs the test '
					f'device: qemu: -device edu,{EDU_MASK}')
		if '-machine' in b.qemu and {'-machine', '-M'} & set(q):
			raise SpecError(f'{path}: backend {name} sets -machine; '
					'the spec may not')
		if '-machine' in b.qemu and spec['machine'] and \
		   b.qemu[b.qemu.index('-machine') + 1] != spec['machine']:
			raise SpecError(f'{path}: backend {name} sets another '
					'machine than machine:')
	if spec['machine'] and {'-machine', '-M'} & set(q):
		raise SpecError(f'{path}: machine: and -machine in qemu:')


def backend_step(name):
	"""The proof step a boot under backend @name starts with."""
	b = BACKENDS[name]
	cmd = ['backend-check', b.group] + (['swiotlb'] if b.swiotlb else [])
	return ('test', 'backend', shlex.join(cmd))


def is_dynamic_elf(path):
	"""True if path is an ELF64 file with a PT_INTERP (dynamic) header."""
	with open(path, 'rb') as f:
		hdr = f.read(64)
		if hdr[:4] != b'\x7fELF' or hdr[4] != 2:
			return False
		phoff = int.from_bytes(hdr[32:40], 'little')
		phentsize = int.from_bytes(hdr[54:56], 'little')
		phnum = int.from_bytes(hdr[56:58], 'little')
		if phentsize < 4 or not phnum:		# e.g. relocatable objects
			return False
		f.seek(phoff)
		table = f.read(phentsize * phnum)
	return any(int.from_bytes(table[i:i + 4], 'little') == 3	# PT_INTERP
		   for i in range(0, len(table), phentsize))


def build_initramfs(items, args, work):
	"""items: (name, backend, spec) of each spec the boot runs, in order."""
	root = os.path.join(work, 'root')
	shutil.rmtree(root, ignore_errors=True)
	for d in ('bin', 'sbin', 'proc', 'sys', 'dev', 'tmp', 'ko', 'vmbin',
		  'spec', 'usr/bin', 'usr/sbin'):
		os.makedirs(os.path.join(root, d))
	busybox = shutil.which('busybox') or '/bin/busybox'
	# The guest has no libc: everything must be linked statically.
	if is_dynamic_elf(busybox):
		raise SpecError(f'{busybox} is dynamic: install busybox-static')
	shutil.copy(busybox, os.path.join(root, 'bin/busybox'))
	os.symlink('busybox', os.path.join(root, 'bin/sh'))
	shutil.copy(os.path.join(HERE, 'init'), os.path.join(root, 'init'))
	os.chmod(os.path.join(root, 'init'), 0o755)
	shutil.copy(os.path.join(HERE, 'backend-check'),
		    os.path.join(root, 'bin/backend-check'))
	os.chmod(os.path.join(root, 'bin/backend-check'), 0o755)
	# Modules built outside the top-level Kbuild for this kernel (other
	# make targets drop them there) join the --ko-dir ones in /ko.
	own = os.path.join(TOP, 'build/vm-ko', args.kver)
	sets = {os.path.join(own, k) for _, _, sp in items for k in sp['ko-sets']}
	for d in sorted(sets):
		if not os.path.isdir(d):
			raise SpecError(f'no {d}: its make target (a VM_DEPS one) '
					'did not build it')
		shutil.copytree(d, os.path.join(root, 'ko', os.path.basename(d)))
	for d in args.ko_dir + [own]:
		for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
			if f.endswith('.ko'):
				shutil.copy(os.path.join(d, f), os.path.join(root, 'ko', f))
	if args.bin_dir and os.path.isdir(args.bin_dir):
		for f in sorted(os.listdir(args.bin_dir)):
			src = os.path.join(args.bin_dir, f)
			if os.path.isfile(src):
				if is_dynamic_elf(src):
					raise SpecError(f'{src} is dynamically linked; '
							'build it with musl-gcc -static')
				shutil.copy(src, os.path.join(root, 'vmbin', f))
	with open(os.path.join(root, 'spec/order'), 'w') as f:
		f.write(' '.join(str(i) for i in range(len(items))) + '\n')
	for i, (name, backend, spec) in enumerate(items):
		d = os.path.join(root, 'spec', str(i))
		os.makedirs(os.path.join(d, 'steps'))
		with open(os.path.join(d, 'name'), 'w') as f:
			f.write(name + '\n')
		with open(os.path.join(d, 'backend'), 'w') as f:
			f.write(backend + '\n')
		with open(os.path.join(d, 'steps.list'), 'w') as lst:
			for n, (kind, step, cmd) in enumerate(spec['steps'], 1):
				lst.write(f'{n} {kind} {step}\n')
				with open(os.path.join(d, 'steps', str(n)), 'w') as f:
					f.write(cmd + '\n')
	initrd = os.path.join(work, 'initramfs.cpio.gz')
	subprocess.run(
		'find . -print0 | cpio --null -o -H newc -R 0:0 --quiet | gzip -1 > '
		+ shlex.quote(initrd), shell=True, cwd=root, check=True)
	shutil.rmtree(root)
	return initrd


def kernel_image(args):
	return args.image or f'/boot/vmlinuz-{args.kver}'


def dry_missing(items, args, spec0, backend, work):
	"""What a boot of items would need and does not have (a dry run)."""
	need = [kernel_image(args)]
	opts = BACKENDS[backend].qemu + spec0['qemu']
	need += [v.split(',')[0] for o, v in zip(opts, opts[1:]) if o == '-plugin']
	with open(os.path.join(work, 'initramfs.cpio.gz'), 'rb') as f:
		names = subprocess.run(['cpio', '-it', '--quiet'],
				       input=gzip.decompress(f.read()),
				       capture_output=True, check=True).stdout
	have = {n.removeprefix('./') for n in names.decode().split('\n')}
	missing = [p for p in need if not os.path.isfile(p)]
	for _, _, sp in items:
		for _, _, cmd in sp['steps']:
			for m in re.finditer(r'\$KO/([\w./-]+\.ko)\b', cmd):
				if 'ko/' + m.group(1) not in have:
					missing.append('$KO/' + m.group(1))
	return sorted(set(missing))


def boot(spec, args, backend, initrd, log):
	b = BACKENDS[backend]
	cmd = ['qemu-system-x86_64', '-accel', 'tcg', '-cpu', 'max',
	       '-m', spec['mem'], '-smp', str(spec['smp'] or 1),
	       '-nographic', '-no-reboot',
	       '-kernel', kernel_image(args),
	       '-initrd', initrd,
	       '-append', ' '.join([BASE_APPEND] + b.append + spec['append'])]
	cmd += b.qemu + spec['qemu']
	if spec['machine'] and '-machine' not in b.qemu:
		cmd += ['-machine', spec['machine']]
	images = []
	for ident, size, opts in spec['disks']:
		images.append(f'{log[:-len(".log")]}.{ident}.img')
		with open(images[-1], 'wb') as f:
			f.truncate(shared.mem_bytes(size))
		cmd += ['-drive', f'file={images[-1]},format=raw,if=none,'
			f'id={ident}' + (f',{opts}' if opts else '')]
	# No default NIC unless the spec asks for networking: its option ROM
	# (iPXE) costs seconds under TCG.
	if not {'-nic', '-net', '-netdev'} & set(spec['qemu']):
		cmd[1:1] = ['-nic', 'none']
	with open(log, 'wb') as out:
		out.write(('# ' + shlex.join(cmd) + '\n').encode())
		out.flush()
		proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
					stderr=subprocess.STDOUT,
					start_new_session=True)
		try:
			return proc.wait(timeout=spec['timeout']), False
		except subprocess.TimeoutExpired:
			os.killpg(proc.pid, signal.SIGKILL)
			proc.wait()
			return None, True
		finally:
			for img in images:
				os.unlink(img)


def warning_blocks(klog):
	"""Yield (WARNING: line, lines of its block) of a kernel log."""
	for i, line in enumerate(klog):
		# WARN*(): "WARNING: CPU: 0 PID: 1 at ..."; lockdep and RCU:
		# "WARNING: possible ...", "WARNING: suspicious RCU usage".
		if not line.startswith('WARNING:'):
			continue
		start = i
		for j in range(i - 1, max(-1, i - 40), -1):
			if 'cut here' in klog[j]:
				start = j
				break
		yield line, klog[start:i + 1]


def debug_reports(console):
	"""The debug kernels' end-of-boot reports (scripts/vm/init): kmemleak
	leaks, DMA-API debug errors (it prints only the first one), lockdep
	switched off (after a splat, or out of entries)."""
	fails = []
	leak = False
	for l in console:
		if l.startswith(MARK + 'kmemleak begin'):
			leak = True
		elif l.startswith(MARK + 'kmemleak end'):
			leak = False
		elif leak and l.startswith('unreferenced object'):
			fails.append(f'kmemleak: {l.strip()}')
		elif leak and l.startswith('kmemleak: '):
			fails.append(l.strip())
		m = re.match(MARK + r'dma-api errors=(\d+)', l)
		if m and int(m.group(1)):
			fails.append(f'DMA-API debug: {m.group(1)} error(s)')
		if l.startswith(MARK + 'lockdep debug_locks:0'):
			fails.append('lockdep turned itself off (debug_locks=0)')
	return fails


def kernel_own_kcsan(lines):
	"""The KCSAN reports that are not dmaguard's: {index of the title
	line: its text after "BUG: KCSAN: "} for each report whose racing
	accesses were made by no function of dmaguard's modules (its title
	names them, as KCSAN's own report filter sees them; a dmaguard
	caller deeper in a stack, e.g. of hrtimer_cancel() or schedule(),
	does not make the kernel's race dmaguard's). Strict KCSAN reports
	races of the kernel itself (the tick's hrtimer_active(), the
	workqueue's read of a worker's run time, ACPI evaluating a _PRT for
	two NVMe probes at once, the PS/2 driver): they come at random times
	and no change here can remove them, so they are noted, not judged."""
	own = {}
	for i, l in enumerate(lines):
		m = KCSAN_TITLE.search(l)
		if m and not DMAGUARD_TAG.search(m.group(1)):
			own[i] = m.group(1).strip()
	return own


def read_serial(log):
	with open(log, 'rb') as f:
		return shared.mend([ANSI.sub('', l.rstrip('\r')) for l in
				    f.read().decode('utf-8', 'replace').split('\n')])


def judge(spec, args, spec_name, serial, log, rc, timed_out, report=True):
	"""The result lines of one spec from its serial log (a list of lines,
	the first QEMU's command line): a boot's own, or its part of a shared
	boot (shared.split())."""
	fails = []
	results = []
	prefix = f'vm/{args.kver}/{spec_name}'

	if timed_out:
		fails.append(f'timeout after {spec["timeout"]} s (QEMU killed)')
	elif rc != 0:
		fails.append(f'QEMU exited {rc}')

	# Console = the serial log outside the final dmesg dump; kernel log =
	# the dmesg dump (clean, complete from boot) or, if the guest never got
	# there, the console.
	begin = next((i for i, l in enumerate(serial)
		      if l.startswith(MARK + 'dmesg begin')), None)
	end = next((i for i, l in enumerate(serial)
		    if l.startswith(MARK + 'dmesg end')), None)
	if begin is not None and end is not None and end > begin:
		console = serial[:begin] + serial[end + 1:]
		klog = serial[begin + 1:end]
	else:
		console = serial
		klog = serial
	# Userspace output = console lines without a printk timestamp (both
	# kernels have CONFIG_PRINTK_TIME=y) and not ours.
	user = [l for l in console
		if not TIMESTAMP.match(l) and not l.startswith(MARK)]
	console = [TIMESTAMP.sub('', l) for l in console]
	klog = [TIMESTAMP.sub('', l) for l in klog]

	kcsan_own = kernel_own_kcsan(serial)
	for i, l in enumerate(serial[1:], 1):
		if l.startswith(MARK) or i in kcsan_own:
			continue
		for pat, what in FATAL:
			text = TIMESTAMP.sub('', l).strip()
			if pat.search(text):
				fails.append(text if what in text
					     else f'{what}: {text}')
				break

	if not any(l.startswith(MARK + 'all steps done') for l in console):
		fails.append('no "all steps done" marker')
	fails += debug_reports(console)

	# Steps: "step N end rc=X" markers.
	ends = {}
	for l in console:
		m = re.match(MARK + r'step (\d+) end rc=(\d+)', l)
		if m:
			ends[int(m.group(1))] = int(m.group(2))
	for n, (kind, name, cmd) in enumerate(spec['steps'], 1):
		st = ends.get(n)
		why = ('' if st == 0 else
		       f'did not finish: {cmd}' if st is None else
		       f'exited {st}: {cmd}')
		if kind == 'test':
			results.append((st == 0, f'{prefix}/{name}',
					f' # {why}' if why else ''))
		elif why:
			fails.append(f'step {n} {why}')

	# Warnings.
	allowed = spec['expect-warning'] + spec['allow-warning']
	matched = set()
	for wline, block in warning_blocks(klog):
		hit = [p for p in allowed if any(p.search(b) for b in block)]
		matched.update(p.pattern for p in hit)
		if not hit:
			fails.append(f'unexpected {wline.strip()}')
	for p in spec['expect-warning']:
		if p.pattern not in matched:
			fails.append(f'expected WARNING /{p.pattern}/ did not occur')
	for p in spec['expect-log']:
		if not any(p.search(l) for l in klog + console):
			fails.append(f'expected log line /{p.pattern}/ not found')

	# Taint: computed from the bits, O and E (+W, +allow-taint) allowed.
	taint = next((int(l.split('=', 1)[1]) for l in console
		      if l.startswith(MARK + 'tainted=')), None)
	if taint is None:
		if not fails:
			fails.append('no taint value printed')
	else:
		ok_letters = 'OE' + spec['allow-taint'] + ('W' if allowed else '')
		ok_mask = sum(1 << TAINT_LETTERS.index(c) for c in ok_letters
			      if c in TAINT_LETTERS)
		bad = taint & ~ok_mask
		if bad:
			letters = ''.join(c for i, c in enumerate(TAINT_LETTERS)
					  if bad >> i & 1)
			fails.append(f'tainted {taint} has flags {letters} '
				     f'(allowed: {ok_letters})')

	# KTAP.
	docs = ktap.parse_log(klog)
	docs += [(f'user-{doc}', cases, errors)
		 for doc, cases, errors in ktap.parse_log(user)]
	for doc, cases, errors in docs:
		for ok, name, why in cases:
			results.append((ok, f'{prefix}/{doc}/{name}', why))
		fails += [f'KTAP {doc}: {e}' for e in errors]
	if spec['ktap'] is not None and len(docs) != spec['ktap']:
		fails.append(f'{len(docs)} KTAP document(s), expected {spec["ktap"]}')

	if report:
		with open(os.path.join(args.out, spec_name + '.report'), 'w') as f:
			for l in console:
				m = REPORT.match(l)
				if m:
					f.write((m.group(1) or '') + '\n')

	fails = list(dict.fromkeys(fails))	# console and dmesg repeat lines
	if len(fails) > 6:
		fails[6:] = [f'{len(fails) - 6} more, see {log}']
	notes = list(dict.fromkeys(kcsan_own.values()))
	if notes:
		notes = [f"the kernel's own KCSAN report(s), none of dmaguard's "
			 f"modules in them, not judged: {'; '.join(notes)}"]
	spec_line = (not fails, prefix, ' # ' + '; '.join(fails + notes)
		     if fails or notes else '')
	return [spec_line] + results


def crashed_before_init(log, rc):
	"""A boot whose kernel reported a panic, an Oops or a BUG (KASAN's
	included) before the guest's /init printed its first line is the
	bench's, not the spec's: no test code had run (no module loaded, no
	step begun). TCG guests of 6.12 have crashed in sched_clock_cpu()
	("Oops: int3") while a static key was being patched at boot, and the
	debug kernel has taken an interrupt on an IRQ descriptor not yet set
	up while identifying the boot CPU (KASAN: wild-memory-access in
	handle_edge_irq, at 0.005 s), on a loaded host. So is a QEMU that died
	of a signal (rc < 0) before /init: QEMU 7.2 has segfaulted (at address
	0xa0) booting the debug kernel with -smp 2 and the Intel IOMMU, and
	booted the same initramfs cleanly the next time. Returns where the log
	was moved, for one new boot; None for any other boot."""
	try:
		with open(log, errors='replace') as f:
			text = f.read()
	except OSError:
		return None
	before = []
	for line in text.splitlines():
		line = ANSI.sub('', line)
		if line.startswith(MARK):
			break
		before.append(line)
	reached_init = len(before) < len(text.splitlines())
	qemu_died = rc is not None and rc < 0 and not reached_init
	own = kernel_own_kcsan(before)
	if not qemu_died and not any(rx.search(line)
				     for i, line in enumerate(before)
				     if i not in own
				     for rx, _ in FATAL[:3]):
		return None
	first = log[:-len('.log')] + '.crash-before-init.log'
	os.replace(log, first)
	return first


def parse_for(path, kver):
	"""The parsed spec, or None if it is bad or not for kernel kver."""
	try:
		spec = parse_spec(path)
	except (SpecError, OSError):
		return None
	if spec['kernels'] and not spec['kernels'].search(kver):
		return None
	return spec


def item_of(arg):
	"""A --boot argument NAME=SPEC: (name, backend, spec path); the backend
	is the part of NAME after its '@' (direct if none)."""
	name, sep, path = arg.partition('=')
	if not sep or not name or not path:
		raise SystemExit(f'--boot {arg}: expected NAME=SPEC')
	return name, name.partition('@')[2] or 'direct', path


def file_name(names):
	return '+'.join(names).replace('/', '_')


def run_boot(items, args):
	"""Boot the specs of items ((name, backend, parsed spec), one backend)
	in one boot, judge each, and return {name: result lines}. A spec that
	fails in a shared boot sends the specs after it to a new boot (the
	failure may have switched a debug check off); a finding after the last
	spec (kmemleak, a crash at power-off) sends each spec to a boot of its
	own, whose verdict stands."""
	names = [n for n, _, _ in items]
	alone = len(items) == 1
	base = os.path.join(args.out, names[0] if alone else
			    os.path.join('shared', file_name(names)))
	log = base + '.log'
	work = base + '.d'
	os.makedirs(work, exist_ok=True)
	if os.path.exists(log):
		os.unlink(log)
	backend = items[0][1]
	spec0 = shared.machine_of([sp for _, _, sp in items])
	try:
		initrd = build_initramfs(items, args, work)
	except SpecError as e:
		return {n: [(False, f'vm/{args.kver}/{n}', f' # initramfs: {e}')]
			for n in names}
	if os.environ.get('DMAGUARD_VM_DRY') == '1':
		missing = dry_missing(items, args, spec0, backend, work)
		why = (' # dry run: no ' + ', no '.join(missing) if missing else
		       ' # dry run: would boot')
		return {n: [(not missing, f'vm/{args.kver}/{n}', why)] for n in names}
	rc, timed_out = boot(spec0, args, backend, initrd, log)
	first = crashed_before_init(log, rc)
	if first:
		print(f'  VM      {args.kver} {" ".join(names)}: the kernel crashed '
		      f'before /init ran (log {first}); booting again',
		      file=sys.stderr)
		rc, timed_out = boot(spec0, args, backend, initrd, log)
	note = (f'retried once: the first boot crashed before /init ran ({first})'
		if first else None)
	serial = read_serial(log)

	def noted(lines, extra=None):
		extra = '; '.join(x for x in (note, extra) if x)
		if extra:
			ok, name, why = lines[0]
			lines[0] = (ok, name, f'{why}; {extra}' if why else f' # {extra}')
		return lines

	if alone:
		name, _, spec = items[0]
		return {name: noted(judge(spec, args, name, shared.whole(serial),
					  log, rc, timed_out))}

	parts = shared.split(serial, len(items))
	out = {}
	for i, (name, _, spec) in enumerate(items):
		part, ended = parts[i]
		if part is None:
			if i == 0:	# no spec began: the boot's verdict is theirs
				for n, _, sp in items:
					out[n] = noted(judge(sp, args, n, shared.whole(serial),
							     log, rc, timed_out))
				return out
			out.update(run_boot(items[i:], args))
			return out
		own = os.path.join(args.out, name + '.log')
		os.makedirs(os.path.dirname(own), exist_ok=True)
		with open(own, 'w') as f:
			f.write(f'# part {i + 1} of {len(items)} of the shared boot '
				f'{log}\n' + '\n'.join(part[1:]) + '\n')
		lines = noted(judge(spec, args, name, part, own,
				    0 if ended else rc, False if ended else timed_out),
			      f'shared boot {i + 1}/{len(items)}')
		out[name] = lines
		if not lines[0][0]:
			if i + 1 < len(items):
				out.update(run_boot(items[i + 1:], args))
			return out

	tail = parts[-1]
	empty = dict(default_spec(), timeout=spec0['timeout'])
	ok, _, why = judge(empty, args, 'shared', tail or shared.whole(serial),
			   log, rc, timed_out, report=False)[0]
	if ok:
		return out
	print(f'  VM      {args.kver} {" ".join(names)}: after the last spec'
	      f'{why}: booting each spec alone', file=sys.stderr)
	again = {}
	for item in items:
		again.update(run_boot([item], args))
	why = ': ' + why.replace(' # ', '', 1).split('; ')[0]	# the first finding
	pinned = not all(lines[0][0] for lines in again.values())
	for name in names:
		okn, n, w = again[name][0]
		note = (f'booted alone: the shared boot {log} failed after its '
			f'last spec{why}')
		if not pinned:	# real, but no spec alone shows it
			okn, note = False, note + '; no spec alone did'
		again[name][0] = (okn, n, f'{w}; {note}' if w else f' # {note}')
	return again


def main():
	ap = argparse.ArgumentParser(description=__doc__)
	ap.add_argument('--list-backends', action='store_true')
	ap.add_argument('--plan', action='store_true')
	ap.add_argument('--kver')
	ap.add_argument('--image')
	ap.add_argument('--name')
	ap.add_argument('--out')
	ap.add_argument('--ko-dir', action='append', default=[])
	ap.add_argument('--bin-dir')
	ap.add_argument('--backend', choices=list(BACKENDS))
	ap.add_argument('--boot', action='append', default=[])
	ap.add_argument('spec', nargs='?')
	args = ap.parse_args()
	if args.list_backends:
		# A bad spec boots (once, direct) to get its "bad spec" line.
		try:
			names = parse_spec(args.spec)['backends']
		except (SpecError, OSError):
			names = None
		print(' '.join(names or ['direct']))
		return 0
	items = [item_of(b) for b in args.boot]
	if args.spec:
		if not args.name:
			ap.error('--name is required with SPEC')
		items.append((args.name, args.backend or 'direct', args.spec))
	if not args.kver or not items:
		ap.error('--kver and SPEC or --boot NAME=SPEC are required')
	if args.plan:
		for group in shared.plan(items, lambda p: parse_for(p, args.kver)):
			print(' '.join(shlex.quote(f'{n}={p}') for n, _, p in group))
		return 0
	if not args.out:
		ap.error('--out is required')
	if len({b for _, b, _ in items}) > 1:
		ap.error('the specs of one boot must share a backend')

	t0 = time.time()
	lines = {}
	todo = []
	for name, backend, path in items:
		res_file = os.path.join(args.out, name + '.results')
		os.makedirs(os.path.dirname(res_file), exist_ok=True)
		if os.path.exists(res_file):
			os.unlink(res_file)
		try:
			spec = parse_spec(path)
		except (SpecError, OSError) as e:
			lines[name] = [(False, f'vm/{args.kver}/{name}', f' # bad spec: {e}')]
			continue
		if spec['kernels'] and not spec['kernels'].search(args.kver):
			print(f'  SKIP    {args.kver} {name} (kernels: '
			      f'{spec["kernels"].pattern})', file=sys.stderr)
			lines[name] = []
			continue
		if backend != 'direct' or spec['backends']:
			spec['steps'].insert(0, backend_step(backend))
		todo.append((name, backend, spec))
	if todo:
		lines.update(run_boot(todo, args))

	bad = 0
	for name, _, _ in items:
		text = ''.join(f'{"ok" if ok else "not ok"} - {n}{why}\n'
			       for ok, n, why in lines[name])
		with open(os.path.join(args.out, name + '.results'), 'w') as f:
			f.write(text)
		sys.stdout.write(text)
		bad += sum(not ok for ok, _, _ in lines[name])
	verdict = f'FAIL ({bad} not ok)' if bad else 'ok'
	print(f'  VM      {args.kver} {" ".join(n for n, _, _ in items)}: {verdict} '
	      f'({time.time() - t0:.1f} s)', file=sys.stderr)
	return 0 if not bad else 1


if __name__ == '__main__':
	try:
		sys.exit(main())
	except Exception as e:	# never leave a boot without a verdict line
		import traceback
		traceback.print_exc()
		a = sys.argv
		kver = a[a.index('--kver') + 1] if '--kver' in a else '?'
		out = a[a.index('--out') + 1] if '--out' in a else None
		names = [a[i + 1].partition('=')[0] for i, x in enumerate(a[:-1])
			 if x == '--boot']
		if '--name' in a:
			names.append(a[a.index('--name') + 1])
		for name in names or ['?']:
			line = f'not ok - vm/{kver}/{name} # harness error: {e!r}\n'
			if out:
				res = os.path.join(out, name + '.results')
				os.makedirs(os.path.dirname(res), exist_ok=True)
				with open(res, 'w') as f:
					f.write(line)
			sys.stdout.write(line)
		sys.exit(1)
