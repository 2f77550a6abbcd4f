// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin: how many guest instructions each translated block
 * ran between marker instructions (tests/kmod/dg_prof.h), for
 * scripts/bench/guestprof.py to put names on. Two channels, counted
 * apart: dg_prof_start(ch)/dg_prof_stop(ch), ch 0 or 1, so that one boot
 * profiles two sides of a comparison. The markers are nops with a
 * displacement no compiler emits, found in the instruction bytes at
 * translation time.
 *
 * Usage: qemu-system-x86_64 ... -plugin guestprof.so,out=FILE[,all=on]
 * all=on counts every block into channel 0, markers or not (where a
 * whole boot's time goes).
 * Output: "start N0 N1" (markers met per channel), then
 * "VADDR INSNS EXECS0 EXECS1" per block.
 *
 * Only the few plugin API calls used here are declared: QEMU 7.2 (the
 * bookworm package) installs no qemu-plugin.h. API version 1.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef void (*vcpu_udata_cb)(unsigned int vcpu, void *udata);
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  vcpu_udata_cb cb, int flags,
					  void *udata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    vcpu_udata_cb cb, int flags,
					    void *udata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb,
				    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

/*
 * nopl 0x4d47ddNN(%rax,%rax,1): NN 01/02 start/stop channel 0, 03/04
 * channel 1 (tests/kmod/dg_prof.h).
 */
static const unsigned char mark[7] = {
	0x0f, 0x1f, 0x84, 0x00, 0x00, 0xdd, 0x47 };
#define MARK_LAST	0x4d

struct block {
	uint64_t vaddr;
	uint64_t execs[2];
	uint32_t insns;
	struct block *next;
};

/* Guest vCPUs run one at a time under TCG's default single thread. */
static struct block *blocks;
static volatile int channel = -1;	/* counting into, or -1 */
static uint64_t starts[2];
static const char *out_path;
static bool count_all;

static void on_block(unsigned int vcpu, void *udata)
{
	struct block *b = udata;

	(void)vcpu;
	if (channel >= 0)
		b->execs[channel]++;
	else if (count_all)
		b->execs[0]++;
}

/* udata: the marker's NN byte */
static void on_mark(unsigned int vcpu, void *udata)
{
	uintptr_t nn = (uintptr_t)udata;

	(void)vcpu;
	if (nn & 1) {
		channel = (int)(nn - 1) / 2;
		starts[channel]++;
	} else {
		channel = -1;
	}
}

/* The marker's NN (1-4), or 0 for any other instruction. */
static unsigned int mark_of(struct qemu_plugin_insn *insn)
{
	const unsigned char *d = qemu_plugin_insn_data(insn);

	if (qemu_plugin_insn_size(insn) != 8 || d[7] != MARK_LAST ||
	    memcmp(d, mark, 4) || memcmp(d + 5, mark + 5, 2))
		return 0;
	return d[4] >= 1 && d[4] <= 4 ? d[4] : 0;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b = calloc(1, sizeof(*b));

	(void)id;
	if (!b)
		abort();
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = n;
	b->next = blocks;
	blocks = b;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, 0, b);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		unsigned int nn = mark_of(insn);

		if (nn)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, 0,
							       (void *)(uintptr_t)nn);
	}
}

static void on_qemu_exit(qemu_plugin_id_t id, void *udata)
{
	FILE *f = fopen(out_path, "w");
	struct block *b;

	(void)id;
	(void)udata;
	if (!f) {
		perror(out_path);
		return;
	}
	fprintf(f, "start %llu %llu\n", (unsigned long long)starts[0],
		(unsigned long long)starts[1]);
	for (b = blocks; b; b = b->next)
		if (b->execs[0] || b->execs[1])
			fprintf(f, "%llx %u %llu %llu\n",
				(unsigned long long)b->vaddr, b->insns,
				(unsigned long long)b->execs[0],
				(unsigned long long)b->execs[1]);
	fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const void *info,
			       int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
		else if (!strcmp(argv[i], "all=on"))
			count_all = true;
	if (!out_path) {
		fprintf(stderr, "guestprof: out=FILE is required\n");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
