// SPDX-License-Identifier: GPL-2.0
/*
 * Planted failures for the VM harness self-test (scripts/vm/selftest.sh):
 * "insmod planted.ko what=<mode>" misbehaves in one chosen way, and the
 * self-test asserts the harness reports it. Never loaded by a real spec.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *what = "ok";
module_param(what, charp, 0444);
MODULE_PARM_DESC(what, "ok|notok|noplan|short|extra|warn|hang|oops|slub|kcsan-kernel|kcsan-module");

static void ktap(const char *plan, int cases, int failing)
{
	int i;

	pr_info("KTAP version 1\n");
	if (plan)
		pr_info("%s\n", plan);
	for (i = 1; i <= cases; i++)
		pr_info("%sok %d planted_case_%d\n", i == failing ? "not " : "",
			i, i);
}

/*
 * A KCSAN report as the KCSAN kernel prints it (kernel/kcsan/report.c:
 * no prefix, so printk()). @dmaguard: the racing reader is a function of
 * dmaguard.ko, a race the verdict judges. Else the race is the kernel's
 * own, which the verdict notes: only the racing functions count, not a
 * driver's frames below the reader, nor dmaguard's interrupted below the
 * writer's interrupt entry.
 */
static void kcsan_report(bool dmaguard)
{
	const char *tag = dmaguard ? " [dmaguard]" : "";

	printk(KERN_ERR "==================================================================\n");
	printk(KERN_ERR "BUG: KCSAN: data-race in race_reader%s / race_writer\n",
	       tag);
	printk(KERN_ERR "\n");
	printk(KERN_ERR "read to 0xff11000024c1d5d8 of 8 bytes by task 1 on cpu 0:\n");
	printk(KERN_ERR " race_reader+0x7d/0xe0%s\n", tag);
	printk(KERN_ERR " nvme_probe+0x667/0x910 [nvme]\n");
	printk(KERN_ERR "\n");
	printk(KERN_ERR "write to 0xff11000024c1d5d8 of 8 bytes by interrupt on cpu 1:\n");
	printk(KERN_ERR " race_writer+0x148/0x210\n");
	printk(KERN_ERR " asm_sysvec_apic_timer_interrupt+0x1a/0x20\n");
	printk(KERN_ERR " dmaguard_pool_free+0x45/0x290 [dmaguard]\n");
	printk(KERN_ERR "\n");
	printk(KERN_ERR "Reported by Kernel Concurrency Sanitizer on:\n");
	printk(KERN_ERR "==================================================================\n");
}

static int __init planted_init(void)
{
	if (!strcmp(what, "ok")) {
		ktap("1..3", 3, 0);
	} else if (!strcmp(what, "notok")) {
		ktap("1..3", 3, 2);
	} else if (!strcmp(what, "noplan")) {
		ktap(NULL, 3, 0);
	} else if (!strcmp(what, "short")) {
		ktap("1..3", 2, 0);
	} else if (!strcmp(what, "extra")) {
		ktap("1..2", 3, 0);
	} else if (!strcmp(what, "warn")) {
		WARN(1, "dmaguard: pool planted: deliberate misuse warning\n");
	} else if (!strcmp(what, "hang")) {
		pr_info("hanging in module init\n");
		for (;;)
			msleep(1000);
	} else if (!strcmp(what, "oops")) {
		*(volatile int *)NULL = 1;
	} else if (!strcmp(what, "slub")) {
		char *p = kmalloc(24, GFP_KERNEL);
		volatile char *q = p;

		if (!p)
			return -ENOMEM;
		q[24] = 0x5a;	/* right red zone */
		kfree(p);
	} else if (!strcmp(what, "kcsan-kernel")) {
		kcsan_report(false);
	} else if (!strcmp(what, "kcsan-module")) {
		kcsan_report(true);
	} else {
		pr_err("unknown what=%s\n", what);
		return -EINVAL;
	}
	return 0;
}

static void __exit planted_exit(void)
{
}

module_init(planted_init);
module_exit(planted_exit);
MODULE_DESCRIPTION("dmaguard VM harness self-test: planted failures");
MODULE_LICENSE("GPL");
