# SPDX-License-Identifier: GPL-2.0
#
# Shared boots of the VM harness (vmtest.py, SHARED BOOTS): which specs may
# share one boot, and how the serial log of a shared boot is cut into one
# log per spec that vmtest.judge() reads as if the spec had booted alone.
#
# The guest (scripts/vm/init) marks each spec on the console ("spec <i>
# begin", "spec <i> all steps done", "spec <i> end <state>") and in the
# kernel log ("DMAGUARD-VM-KMSG: spec <i> begin", "... specs done"), and
# prints the state a verdict needs after each spec: taint, the DMA-API
# debug error count, lockdep's debug_locks. A spec is judged on what
# changed during its part: the taint bits and DMA-API errors added since
# the previous spec ended, lockdep as its part left it. What happened
# after the last spec (the debug kernels' kmemleak scans, power-off) is
# the tail, judged apart: it cannot be pinned on one spec.
import re

MARK = 'DMAGUARD-VM: '
KMSG = 'DMAGUARD-VM-KMSG: '
KTIME = r'\[\s*\d+\.\d+\]'		# a kernel console line's time stamp
TIMESTAMP = re.compile('^' + KTIME + ' ?')
STATE = re.compile(r'tainted=(\d+) dma-api=(\S+) debug_locks=(\S+)')


EMBEDDED = re.compile('^(' + re.escape(MARK) + '.*?)(' + KTIME + ' .*)$')


def mend(lines):
	"""The serial log merges two streams: the kernel writes a console line
	whole and at once, between two characters of a line the guest's
	/init is still sending through the tty ("DMAGUARD-VM: spe[  13.4]
	DMAGUARD-VM-KMSG: specs done", then "c 1 end tainted=..."). Put such
	a marker line back together, the kernel lines in it before it."""
	out, carry = [], None
	for line in lines:
		if carry is not None:
			if TIMESTAMP.match(line):
				out.append(line)
				continue
			line, carry = carry + line, None
		m = EMBEDDED.match(line)
		if m:
			out.append(m.group(2))
			carry = m.group(1)
		else:
			out.append(line)
	if carry is not None:
		out.append(carry)
	return out


def devices(qemu):
	"""A spec's qemu: arguments as (machine, devices): the "-device X"
	pairs apart from the rest (the machine: -M, -global, ...)."""
	machine, devs = [], []
	i = 0
	while i < len(qemu):
		if qemu[i] == '-device' and i + 1 < len(qemu):
			devs.append(qemu[i + 1])
			i += 2
		else:
			machine.append(qemu[i])
			i += 1
	return tuple(machine), devs


def batch_key(spec, backend):
	"""What a boot is made of besides its steps: specs with the same key
	may share one boot. The machine is the same (backend, qemu: arguments
	but its devices, append:, smp:); the boot has every device any of
	them asks for and the most memory (machine_of()): a spec that does
	not use a device is not changed by its presence. A spec without smp:
	has None there, and may join a boot of any vCPU count (plan()).
	None: the spec boots alone (it expects or allows a WARNING or a taint,
	which a shared boot could not pin on it)."""
	if spec['expect-warning'] or spec['allow-warning'] or spec['allow-taint']:
		return None
	return (backend, devices(spec['qemu'])[0], tuple(spec['append']),
		spec['smp'], spec['machine'], tuple(spec['disks']))


def machine_of(specs):
	"""The boot of specs sharing a batch_key(): the first spec's, with
	the vCPUs one of them asks for, the most memory, every spec's devices
	(first use first, each once) and the sum of their timeouts."""
	boot = dict(specs[0])
	boot['smp'] = max(sp['smp'] or 1 for sp in specs)
	boot['mem'] = max((sp['mem'] for sp in specs), key=mem_bytes)
	boot['timeout'] = sum(sp['timeout'] for sp in specs)
	machine, devs = devices(specs[0]['qemu'])
	for sp in specs[1:]:
		devs += [d for d in devices(sp['qemu'])[1] if d not in devs]
	boot['qemu'] = list(machine) + [a for d in devs for a in ('-device', d)]
	return boot


def mem_bytes(size):
	m = re.fullmatch(r'(\d+)([KMGT]?)B?', size.upper())
	if not m:
		return 0
	return int(m.group(1)) << {'': 0, 'K': 10, 'M': 20, 'G': 30, 'T': 40}[m.group(2)]


def _state(line):
	m = STATE.search(line)
	return m.groups() if m else None


def _state_lines(prev, cur):
	"""The end-of-boot markers vmtest.judge() reads, for the change from
	state prev to state cur (tuples of strings from STATE)."""
	taint = int(cur[0]) & ~int(prev[0])
	lines = []
	if cur[1] != '-':
		lines.append(f'{MARK}dma-api errors={int(cur[1]) - int(prev[1])}')
	if cur[2] != '-':
		lines.append(f'{MARK}lockdep debug_locks:{cur[2]}')
	lines.append(f'{MARK}tainted={taint}')
	return lines


def split(serial, count):
	"""Cut the serial log (list of lines, ANSI codes removed) of a boot
	that ran count specs into count + 1 logs: one (log, ended) per spec,
	then the tail's log. A spec that never began gets (None, False); one
	that began but never ended gets what the log has of it. The tail's
	is None if the last spec never ended. Each returned log has the first
	(command) line, the boot up to the first spec, the spec's console part,
	its end-of-spec markers and, when the boot got that far, the dmesg dump
	cut likewise (boot part + the spec's part)."""
	head = serial[:1]
	begins = {}
	ends = {}
	done = {}
	tail_at = None
	dump = dump_end = None
	for n, line in enumerate(serial):
		if not line.startswith(MARK):
			continue
		m = re.match(MARK + r'spec (\d+) (begin|all steps done|end)\b', line)
		if m:
			i = int(m.group(1))
			{'begin': begins, 'all steps done': done, 'end': ends}[m.group(2)][i] = n
		elif line.startswith(MARK + 'all specs done'):
			tail_at = n
		elif line.startswith(MARK + 'dmesg begin'):
			dump = n
		elif line.startswith(MARK + 'dmesg end'):
			dump_end = n
	first = min(begins.values()) if begins else len(serial)
	boot = serial[1:first]

	# The dmesg dump, cut at the kernel-log markers.
	klog = None
	if dump is not None and dump_end is not None and dump_end > dump:
		klog = {'boot': [], 'tail': []}
		part = 'boot'
		for line in serial[dump + 1:dump_end]:
			text = TIMESTAMP.sub('', line)
			m = re.match(KMSG + r'spec (\d+) begin', text)
			if m:
				part = int(m.group(1))
				klog[part] = []
			elif text.startswith(KMSG + 'specs done'):
				part = 'tail'
			klog[part].append(line)

	logs = []
	prev = ('0', '0', '1')
	stop = [n for n in (tail_at, dump) if n is not None]
	for i in range(count):
		if i not in begins:
			logs.append((None, False))
			continue
		b = begins[i]
		e = ends.get(i, min([n for n in list(begins.values()) + stop
				     if n > b] or [len(serial)]))
		log = head + boot + serial[b + 1:e]
		if i in done:
			log.append(MARK + 'all steps done')
		cur = _state(serial[ends[i]]) if i in ends else None
		if cur:
			log += _state_lines(prev, cur)
			prev = cur
		if klog is not None:
			log += ([MARK + 'dmesg begin'] + klog['boot'] +
				klog.get(i, []) + [MARK + 'dmesg end'])
		logs.append((log, i in ends))

	# The tail: what the boot printed after the last spec ended.
	if tail_at is None:
		logs.append(None)
		return logs
	tail = head + [MARK + 'all steps done']
	end_state = None
	for line in serial[tail_at + 1:dump if dump is not None else len(serial)]:
		if line.startswith(MARK + 'end '):
			end_state = _state(line)
		else:
			tail.append(line)
	if end_state:
		tail += _state_lines(prev, end_state)
	if klog is not None:
		tail += [MARK + 'dmesg begin'] + klog['tail'] + [MARK + 'dmesg end']
	tail += serial[dump_end + 1:] if dump_end is not None else []
	logs.append(tail)
	return logs


def whole(serial):
	"""The log of a boot that ran one spec, as vmtest.judge() reads it:
	everything counts against the spec, the state is the boot's last."""
	out = []
	for line in serial:
		if line.startswith(MARK + 'spec 0 all steps done'):
			out.append(MARK + 'all steps done')
		elif line.startswith(MARK + 'end '):
			cur = _state(line)
			out += _state_lines(('0', '0', '1'), cur) if cur else []
		else:
			out.append(line)
	return out


def plan(items, parse):
	"""Group boots: items are (name, backend, spec path) in order; parse(path)
	returns the parsed spec or None (a bad spec, or one not for this
	kernel: it boots alone and its own boot says why). Specs without smp:
	join the first group of the same machine that has one (the fewest
	boots). Returns lists of items, one per boot, in the order of their
	first item."""
	groups = {}
	order = []
	for item in items:
		spec = parse(item[2])
		key = batch_key(spec, item[1]) if spec else None
		if key is None:
			order.append([item])
		elif key in groups:
			groups[key].append(item)
		else:
			groups[key] = [item]
			order.append(groups[key])
	for key, group in list(groups.items()):
		if key[-1] is not None:
			continue
		into = [g for k, g in groups.items()
			if k[:-1] == key[:-1] and k[-1] is not None]
		if into:
			into[0] += group
			order.remove(group)
	return order
