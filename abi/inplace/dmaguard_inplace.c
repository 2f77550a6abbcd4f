// SPDX-License-Identifier: GPL-2.0
/**
 * DOC: dmaguard_inplace.ko
 *
 * The kernel's own dma_pool API, served by dmaguard on a running kernel.
 * Once loaded, every pool a driver creates with
 * dma_pool_create() (dmam_pool_create() too, which calls it) is a dmaguard
 * pool: its free state lives out of line and every dma_pool_free() is
 * checked. No driver is converted or rebuilt.
 *
 * How. ftrace, on the four exported functions of mm/dmapool.c.
 * dma_pool_alloc() and dma_pool_free(), the hot ones, get a direct call
 * (register_ftrace_direct()): their first instruction calls a trampoline
 * of this file, which looks at the pool argument and either returns into
 * the kernel's function or drops that return and jumps to
 * dmaguard_pool_alloc() or dmaguard_pool_free(), which return to the
 * driver. A few instructions, where a regular ftrace_ops callback saves
 * and restores the registers around an indirect call: 8 instructions a
 * call over a converted driver instead of 110 (make bench, BENCH inplace). dma_pool_create()
 * and dma_pool_destroy() get an ftrace_ops with FTRACE_OPS_FL_IPMODIFY,
 * whose callback moves the instruction pointer the same way: every create
 * comes here, every destroy of a pool created here. A pool created before
 * the load (a built-in driver, a module loaded earlier) stays on the
 * kernel's code for its whole life: a pool never changes implementation.
 *
 * Why ftrace and not livepatch. The requirement is that nothing can take
 * the redirect away while a pool created here exists, since the kernel's
 * code would then run on a pool it does not know. Each such pool holds a
 * reference on this module, so rmmod is refused until the last one is
 * destroyed, and FTRACE_OPS_FL_PERMANENT refuses the ftrace_enabled sysctl
 * while the ops are registered. A livepatch can be disabled through sysfs
 * at any time and its callbacks cannot refuse; its consistency model and
 * whole-function replacement buy nothing here, where the choice is made
 * per call from the pool argument.
 *
 * Which pool is whose, in O(1) and without reading device-visible memory:
 * the first word of a pool created here is DGIP_POOL_MAGIC, a value below
 * 2^31, so a user address and never a kernel one (and one compare with a
 * sign-extended immediate on x86-64). The kernel's struct dma_pool begins
 * with the head of its page list, a kernel pointer; both structures live
 * in kernel memory that no device can reach. The check reads that one
 * word.
 *
 * Locking: dgip_lock (a mutex) guards the list of devices and their pool
 * lists; the readers of the pools files take it. dgip_reg_lock, outside
 * it, serialises create and destroy, and is held while they make or
 * remove a device's sysfs pools file: the removal waits for readers inside
 * the file's show(), so it must not hold what show() takes (the kernel's
 * mm/dmapool.c has the same pair). The allocation and free paths take
 * neither.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/dmapool.h>
#include <linux/ftrace.h>
#include <linux/kernfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>
#include <dmaguard/dmaguard.h>

DMAGUARD_IMPORT_NS();

/* 6.1 names the ftrace_regs accessors differently. */
#ifndef ftrace_regs_set_instruction_pointer
#define ftrace_regs_set_instruction_pointer(fregs, ip) \
	ftrace_instruction_pointer_set(fregs, ip)
#endif
#ifndef ftrace_regs_get_argument
#define ftrace_regs_get_argument(fregs, n) \
	regs_get_kernel_argument(&(fregs)->regs, n)
#endif
/* Up to 6.5 the direct calls of an ftrace_ops had a _multi suffix. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
#define register_ftrace_direct(ops, addr) \
	register_ftrace_direct_multi(ops, addr)
#define unregister_ftrace_direct(ops, addr, free_filters) \
	((void)(free_filters), unregister_ftrace_direct_multi(ops, addr))
#endif
/* 6.1 has no call depth tracking to account for. */
#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT ""
#endif

/*
 * Below 2^31: a user address on every 64-bit architecture, never the
 * kernel pointer that begins the kernel's struct dma_pool.
 */
#define DGIP_POOL_MAGIC		0x70696764UL
/* The trampolines compare it as a sign-extended 32-bit immediate. */
static_assert(DGIP_POOL_MAGIC < 0x80000000UL);

/**
 * struct dgip_dev - a device with pools created here
 * @dev: the device
 * @pools: its pools (struct dgip_pool.node)
 * @node: in dgip_devs
 * @pools_file: this module created the device's sysfs "pools" file (the
 *	kernel's is there instead while pools from before the load exist)
 */
struct dgip_dev {
	struct device *dev;
	struct list_head pools;
	struct list_head node;
	bool pools_file;
};

/**
 * struct dgip_pool - what dma_pool_create() returns once this is loaded
 * @magic: DGIP_POOL_MAGIC, first: what tells it from the kernel's pool
 * @pool: the dmaguard pool that serves it
 * @ddev: its device
 * @node: in @ddev->pools
 * @name: its name, for the pools files
 */
struct dgip_pool {
	unsigned long magic;
	struct dmaguard_pool *pool;
	struct dgip_dev *ddev;
	struct list_head node;
	char name[32];
};

static LIST_HEAD(dgip_devs);
static DEFINE_MUTEX(dgip_lock);
static DEFINE_MUTEX(dgip_reg_lock);
static struct dentry *dgip_debugfs;

static bool dgip_owns(unsigned long pool)
{
	return pool && READ_ONCE(*(unsigned long *)pool) == DGIP_POOL_MAGIC;
}

static struct dgip_pool *to_dgip(struct dma_pool *pool)
{
	return (struct dgip_pool *)pool;
}

/* Called with dgip_lock held: @dev's entry, or NULL. */
static struct dgip_dev *dgip_dev_find(struct device *dev)
{
	struct dgip_dev *d;

	lockdep_assert_held(&dgip_lock);
	list_for_each_entry(d, &dgip_devs, node)
		if (d->dev == dev)
			return d;
	return NULL;
}

/* The device's sysfs "pools" file, in the kernel's format. */
static ssize_t pools_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct dmaguard_pool_stats st;
	struct dgip_pool *p;
	struct dgip_dev *d;
	int size;

	size = sysfs_emit(buf, "poolinfo - 0.1\n");
	mutex_lock(&dgip_lock);
	d = dgip_dev_find(dev);
	if (d) {
		list_for_each_entry(p, &d->pools, node) {
			st.sz = sizeof(st);
			if (dmaguard_pool_get_stats(p->pool, &st))
				continue;
			size += sysfs_emit_at(buf, size,
					      "%-16s %4llu %4llu %4u %2llu\n",
					      p->name,
					      st.blocks_in_use, st.blocks_total,
					      st.block_size,
					      (u64)st.chunks * st.chunk_size >>
					      PAGE_SHIFT);
		}
	}
	mutex_unlock(&dgip_lock);
	return size;
}
static DEVICE_ATTR_RO(pools);

/*
 * Called with dgip_reg_lock held: @p joins its device's entry, made on its
 * first pool, with the device's pools file. Return: 0 or an error.
 */
static int dgip_dev_add(struct dgip_pool *p, struct device *dev)
{
	struct dgip_dev *d;
	int err;

	lockdep_assert_held(&dgip_reg_lock);
	mutex_lock(&dgip_lock);
	d = dgip_dev_find(dev);
	if (d) {
		p->ddev = d;
		list_add_tail(&p->node, &d->pools);
	}
	mutex_unlock(&dgip_lock);
	if (d)
		return 0;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->dev = dev;
	INIT_LIST_HEAD(&d->pools);
	/*
	 * Pools from before the load keep the kernel's file (it lists them);
	 * it is removed with the last of them. Reading the list head races
	 * only with their destroy, which cannot make it non-empty again.
	 */
	if (list_empty(&dev->dma_pools)) {
		err = device_create_file(dev, &dev_attr_pools);
		if (err && err != -EEXIST) {
			kfree(d);
			return err;
		}
		d->pools_file = !err;
	}
	p->ddev = d;
	mutex_lock(&dgip_lock);
	list_add_tail(&p->node, &d->pools);
	list_add_tail(&d->node, &dgip_devs);
	mutex_unlock(&dgip_lock);
	return 0;
}

/* Called with dgip_reg_lock held: @p leaves its device's entry. */
static void dgip_dev_del(struct dgip_pool *p)
{
	struct dgip_dev *d = p->ddev;
	bool last;

	lockdep_assert_held(&dgip_reg_lock);
	mutex_lock(&dgip_lock);
	list_del(&p->node);
	last = list_empty(&d->pools);
	if (last)
		list_del(&d->node);
	mutex_unlock(&dgip_lock);
	if (!last)
		return;
	if (d->pools_file)
		device_remove_file(d->dev, &dev_attr_pools);
	kfree(d);
}

#ifdef DMAGUARD_TEST_HOOKS
static bool test_unloading;
module_param(test_unloading, bool, 0644);
MODULE_PARM_DESC(test_unloading,
		 "Test hook: creates find the module going, as during rmmod");
#endif

/* A module reference for a new pool: none once the module is going. */
static notrace bool dgip_module_get(void)
{
#ifdef DMAGUARD_TEST_HOOKS
	if (READ_ONCE(test_unloading))
		return false;
#endif
	return try_module_get(THIS_MODULE);
}

/*
 * dma_pool_create() from the load on, with the module reference the
 * redirect took for it (dgip_redirect_fn()). The reference each pool
 * holds keeps the redirect (and this code) in place until its destroy.
 */
static struct dma_pool *dgip_dma_pool_create(const char *name,
					     struct device *dev, size_t size,
					     size_t align, size_t boundary)
{
	struct dgip_pool *p;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		goto err_put;
	p->pool = dmaguard_pool_create(name, dev, size, align, boundary);
	if (!p->pool)
		goto err_free;
	strscpy(p->name, name, sizeof(p->name));
	mutex_lock(&dgip_reg_lock);
	if (dgip_dev_add(p, dev)) {
		mutex_unlock(&dgip_reg_lock);
		dmaguard_pool_destroy(p->pool);
		goto err_free;
	}
	mutex_unlock(&dgip_reg_lock);
	p->magic = DGIP_POOL_MAGIC;
	return (struct dma_pool *)p;

err_free:
	kfree(p);
err_put:
	module_put(THIS_MODULE);
	return NULL;
}

static void dgip_dma_pool_destroy(struct dma_pool *pool)
{
	struct dgip_pool *p = to_dgip(pool);

	mutex_lock(&dgip_reg_lock);
	dgip_dev_del(p);
	mutex_unlock(&dgip_reg_lock);
	dmaguard_pool_destroy(p->pool);
	p->magic = 0;
	kfree(p);
	/*
	 * The last put may let rmmod go on while this returns: the module
	 * exit unregisters the ftrace_ops, which waits (RCU tasks) until no
	 * task is still on this code.
	 */
	module_put(THIS_MODULE);
}

/*
 * The direct-call trampolines of dma_pool_alloc() and dma_pool_free(),
 * called by the first instruction of the kernel's function, the pool in
 * %rdi, the return into the kernel's function on top of the stack. A pool
 * created here: drop that return, put its dmaguard pool in %rdi and jump
 * to dmaguard_pool_alloc() or dmaguard_pool_free(), which take the same
 * other arguments and return to the driver (misuse is theirs to catch:
 * reported once per pool, not applied). Any other pool: return into the
 * kernel's function.
 * A NULL pool faults on the compare, where the kernel's function would
 * fault on its first use of the pool: neither takes one. After the drop
 * the stack is that of a function's entry (UNWIND_HINT_FUNC, for objtool
 * and the ORC unwinder). Call depth tracking counts the call only
 * on the path that returns.
 */
#define DGIP_POOL_OFFSET	8
static_assert(offsetof(struct dgip_pool, pool) == DGIP_POOL_OFFSET);

#define DGIP_TRAMPOLINE(fn)						\
	asm(".pushsection .text, \"ax\", @progbits\n"			\
	    ".type dgip_" #fn "_tramp, @function\n"			\
	    "dgip_" #fn "_tramp:\n"					\
	    ASM_ENDBR							\
	    "cmpq $" __stringify(DGIP_POOL_MAGIC) ", (%rdi)\n"	\
	    "jne 1f\n"							\
	    "addq $8, %rsp\n"						\
	    "movq " __stringify(DGIP_POOL_OFFSET) "(%rdi), %rdi\n"	\
	    UNWIND_HINT_FUNC						\
	    "jmp dmaguard_" #fn "\n"					\
	    "1:\n"							\
	    CALL_DEPTH_ACCOUNT						\
	    ASM_RET							\
	    ".size dgip_" #fn "_tramp, .-dgip_" #fn "_tramp\n"		\
	    ".popsection\n")

DGIP_TRAMPOLINE(pool_alloc);
DGIP_TRAMPOLINE(pool_free);
void dgip_pool_alloc_tramp(void);
void dgip_pool_free_tramp(void);

/**
 * struct dgip_redirect - one function of mm/dmapool.c redirected here
 * @ops: its ftrace_ops
 * @name: the function, for messages
 * @from: its address
 * @to: the trampoline (@direct) or the function that runs in its place
 * @direct: a direct call to @to; otherwise an ftrace_ops callback
 * @every_call: the callback redirects every call (create); otherwise only
 *	those whose first argument is a pool created here
 * @registered: @ops is registered
 */
struct dgip_redirect {
	struct ftrace_ops ops;
	const char *name;
	unsigned long from;
	unsigned long to;
	bool direct;
	bool every_call;
	bool registered;
};

static void notrace dgip_redirect_fn(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *ops,
				     struct ftrace_regs *fregs)
{
	struct dgip_redirect *r = container_of(ops, struct dgip_redirect, ops);

	/*
	 * A create takes its module reference here, where nothing sleeps
	 * and the exit's unregistration waits for this callback: while the
	 * module is going (rmmod, after its last pool went) the create is
	 * not redirected, and the kernel's function makes the kernel's pool,
	 * as before the load, never returning into this module.
	 */
	if (r->every_call && !dgip_module_get())
		return;
	if (r->every_call || dgip_owns(ftrace_regs_get_argument(fregs, 0)))
		ftrace_regs_set_instruction_pointer(fregs, r->to);
}

#define DGIP_DIRECT(fn)							\
	{								\
		.name = "dma_" #fn,					\
		.from = (unsigned long)dma_##fn,			\
		.to = (unsigned long)dgip_##fn##_tramp,			\
		.direct = true,						\
	}

/*
 * FTRACE_OPS_FL_PERMANENT: while any is registered, the ftrace_enabled
 * sysctl cannot switch the call sites off (the direct calls included).
 */
#define DGIP_CALLBACK(fn, every)					\
	{								\
		.name = #fn,						\
		.from = (unsigned long)fn,				\
		.to = (unsigned long)dgip_##fn,				\
		.every_call = every,					\
		.ops = {						\
			.func = dgip_redirect_fn,			\
			.flags = FTRACE_OPS_FL_IPMODIFY |		\
				 FTRACE_OPS_FL_PERMANENT,		\
		},							\
	}

/*
 * Registered in this order, unregistered in the reverse one: creation is
 * redirected last, once the calls on the pools it makes already are.
 */
static struct dgip_redirect dgip_redirects[] = {
	DGIP_DIRECT(pool_alloc),
	DGIP_DIRECT(pool_free),
	DGIP_CALLBACK(dma_pool_destroy, false),
	DGIP_CALLBACK(dma_pool_create, true),
};

static void dgip_unregister(void)
{
	int i;

	for (i = ARRAY_SIZE(dgip_redirects) - 1; i >= 0; i--) {
		struct dgip_redirect *r = &dgip_redirects[i];

		if (!r->registered)
			continue;
		if (r->direct)
			unregister_ftrace_direct(&r->ops, r->to, false);
		else
			unregister_ftrace_function(&r->ops);
		ftrace_free_filter(&r->ops);
		r->registered = false;
	}
}

static int dgip_register(void)
{
	int i, err;

	for (i = 0; i < ARRAY_SIZE(dgip_redirects); i++) {
		struct dgip_redirect *r = &dgip_redirects[i];

		err = ftrace_set_filter_ip(&r->ops, r->from, 0, 0);
		if (!err) {
			if (r->direct)
				err = register_ftrace_direct(&r->ops, r->to);
			else
				err = register_ftrace_function(&r->ops);
			if (err)
				ftrace_free_filter(&r->ops);
		}
		if (err) {
			pr_err("cannot redirect %s: %d\n", r->name, err);
			dgip_unregister();
			return err;
		}
		r->registered = true;
	}
	return 0;
}

/*
 * A line of the kernel's pools file: the name (it may hold spaces), then
 * four numbers. Cut them off: what is left is the name.
 */
static void dgip_print_kernel_pool(struct seq_file *m, struct device *dev,
				   char *line)
{
	char *end = line + strlen(line);
	int i;

	for (i = 0; i < 4; i++) {
		while (end > line && end[-1] == ' ')
			end--;
		while (end > line && end[-1] != ' ')
			end--;
	}
	while (end > line && end[-1] == ' ')
		end--;
	if (end == line)
		return;
	*end = '\0';
	seq_printf(m, "%s %s created before load: not protected\n",
		   dev_name(dev), line);
}

/*
 * debugfs "pools": every pool created here (device, name, "dmaguard"),
 * then the pools from before the load, which the kernel serves (device,
 * name, "created before load: not protected"). Those are read from the
 * kernel's own sysfs "pools" file of each PCI and platform device.
 */
static int dgip_list_kernel_pools(struct device *dev, void *data)
{
	struct device_attribute *attr;
	struct kernfs_node *kn;
	char *page, *buf, *line;

	if (list_empty(&dev->dma_pools))
		return 0;
	kn = kernfs_find_and_get(dev->kobj.sd, "pools");
	if (!kn)
		return 0;
	attr = container_of((struct attribute *)kn->priv,
			    struct device_attribute, attr);
	page = (char *)__get_free_page(GFP_KERNEL);
	if (page && attr != &dev_attr_pools && attr->show &&
	    attr->show(dev, attr, page) > 0) {
		page[PAGE_SIZE - 1] = '\0';
		buf = page;
		/* the first line is the format's header */
		strsep(&buf, "\n");
		while ((line = strsep(&buf, "\n")) && *line)
			dgip_print_kernel_pool(data, dev, line);
	}
	free_page((unsigned long)page);
	kernfs_put(kn);
	return 0;
}

static int dgip_pools_show(struct seq_file *m, void *v)
{
	struct dgip_pool *p;
	struct dgip_dev *d;

	mutex_lock(&dgip_lock);
	list_for_each_entry(d, &dgip_devs, node)
		list_for_each_entry(p, &d->pools, node)
			seq_printf(m, "%s %s dmaguard\n", dev_name(d->dev),
				   p->name);
	mutex_unlock(&dgip_lock);
#ifdef CONFIG_PCI
	bus_for_each_dev(&pci_bus_type, NULL, m, dgip_list_kernel_pools);
#endif
	bus_for_each_dev(&platform_bus_type, NULL, m, dgip_list_kernel_pools);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dgip_pools);

static int __init dgip_init(void)
{
	int err;

	err = dgip_register();
	if (err)
		return err;
	dgip_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("pools", 0444, dgip_debugfs, NULL,
			    &dgip_pools_fops);
	pr_info("dma_pool_create() and the pools it makes are served by dmaguard\n");
	return 0;
}

/* Only once no pool created here is left: each holds a module reference. */
static void __exit dgip_exit(void)
{
	debugfs_remove_recursive(dgip_debugfs);
	dgip_unregister();
}

module_init(dgip_init);
module_exit(dgip_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("The kernel's dma_pool API served by dmaguard's hardened pools");
