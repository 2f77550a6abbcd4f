// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace pin platform: a simulated mm (dg_user_mm.h) and the hooks of
 * dg_pin_plat.h over it, standing in for pin_user_pages_fast(),
 * mmu_interval_notifier, mm->pinned_vm and dma_map_sgtable(). Frames and
 * mappings are plain malloc (not the counted bookkeeping allocator): the
 * tests count them through the mm's own counters.
 */
#include "dg_user_mm.h"
#include "pincache.h"

static unsigned long frame_serial;

__thread void (*dg_user_xchg_hook)(void);

unsigned long dg_user_mm_addr(unsigned long page)
{
	return DG_USER_MM_BASE + page * DG_PAGE_SIZE;
}

struct dg_user_mm *dg_user_mm_create(unsigned long nr_pages)
{
	struct dg_user_mm *mm = calloc(1, sizeof(*mm));

	if (!mm)
		return NULL;
	mm->pt = calloc(nr_pages, sizeof(*mm->pt));
	if (!mm->pt) {
		free(mm);
		return NULL;
	}
	pthread_mutex_init(&mm->lock, NULL);
	mm->nr_pages = nr_pages;
	mm->pinned_limit = -1;
	mm->fail_page = ULONG_MAX;
	INIT_LIST_HEAD(&mm->notifiers);
	return mm;
}

static void frame_put(struct dg_user_mm *mm, struct dg_user_frame *f)
{
	if (!f->mapped && !f->pins) {
		free(f);
		mm->frames_live--;
	}
}

static struct dg_user_frame *frame_new(struct dg_user_mm *mm)
{
	struct dg_user_frame *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	f->mapped = true;
	f->id = __atomic_add_fetch(&frame_serial, 1, __ATOMIC_RELAXED);
	mm->frames_live++;
	return f;
}

/* Tears down the page table; frames still pinned are a leak (kept). */
void dg_user_mm_destroy(struct dg_user_mm *mm)
{
	unsigned long i;

	for (i = 0; i < mm->nr_pages; i++) {
		struct dg_user_frame *f = mm->pt[i].frame;

		if (f) {
			f->mapped = false;
			frame_put(mm, f);
		}
	}
	if (mm->frames_live || mm->pins_live || mm->maps_live ||
	    mm->notifiers_live || mm->pinned_vm) {
		fprintf(stderr, "dg_user_mm_destroy: leaked %ld frames, %ld pins, %ld maps, %ld notifiers, pinned_vm %ld\n",
			mm->frames_live, mm->pins_live, mm->maps_live,
			mm->notifiers_live, mm->pinned_vm);
		abort();
	}
	pthread_mutex_destroy(&mm->lock);
	free(mm->pt);
	free(mm);
}

/* [addr, addr + len) as page indexes, if inside the simulated range. */
static bool mm_range(struct dg_user_mm *mm, unsigned long addr, size_t len,
		     unsigned long *first, unsigned long *end)
{
	unsigned long top = dg_user_mm_addr(mm->nr_pages);

	if (!len || addr < DG_USER_MM_BASE || addr >= top || len > top - addr)
		return false;
	*first = (addr - DG_USER_MM_BASE) / DG_PAGE_SIZE;
	*end = (addr - DG_USER_MM_BASE + len + DG_PAGE_SIZE - 1) / DG_PAGE_SIZE;
	return true;
}

/* The notifier round of one change, before it is applied. mm->lock held. */
static void mm_invalidate(struct dg_user_mm *mm, unsigned long first,
			  unsigned long end, enum dg_pin_event ev)
{
	unsigned long start = dg_user_mm_addr(first);
	unsigned long last = dg_user_mm_addr(end) - 1;
	struct dg_pin_notifier *n, *tmp;

	/* The kernel's is odd while in progress; unique here. */
	if (ev != DG_PIN_EV_UNMAP)
		mm->unchanged_events++;
	else
		mm->seq += 2;
	list_for_each_entry_safe(n, tmp, &mm->notifiers, link)
		if (n->start <= last && start <= n->last)
			dg_pin_invalidate(n, mm->seq, ev);
}

static int mm_change(struct dg_user_mm *mm, unsigned long addr, size_t len,
		     int prot, bool fresh, enum dg_pin_event ev)
{
	unsigned long first, end, i;

	if (!mm_range(mm, addr, len, &first, &end))
		return -EINVAL;
	pthread_mutex_lock(&mm->lock);
	mm_invalidate(mm, first, end, ev);
	for (i = first; i < end; i++) {
		struct dg_user_pte *pte = &mm->pt[i];
		int p = prot < 0 ? pte->prot : prot;	/* -1: keep it */

		if (fresh && pte->frame) {
			pte->frame->mapped = false;
			frame_put(mm, pte->frame);
			pte->frame = NULL;
		}
		if (p != DG_UNMAPPED && !pte->frame)
			pte->frame = frame_new(mm);
		pte->prot = p;
	}
	pthread_mutex_unlock(&mm->lock);
	return 0;
}

int dg_user_mm_map(struct dg_user_mm *mm, unsigned long addr, size_t len,
		   enum dg_user_prot prot)
{
	return mm_change(mm, addr, len, prot, true, DG_PIN_EV_UNMAP);
}

int dg_user_mm_unmap(struct dg_user_mm *mm, unsigned long addr, size_t len)
{
	return mm_change(mm, addr, len, DG_UNMAPPED, true, DG_PIN_EV_UNMAP);
}

int dg_user_mm_protect(struct dg_user_mm *mm, unsigned long addr, size_t len,
		       enum dg_user_prot prot)
{
	return mm_change(mm, addr, len, prot, false, DG_PIN_EV_PROT);
}

/* A notifier round that changes no PTE. */
static void mm_event(struct dg_user_mm *mm, unsigned long addr, size_t len,
		     enum dg_pin_event ev)
{
	unsigned long first, end;

	if (!mm_range(mm, addr, len, &first, &end))
		return;
	pthread_mutex_lock(&mm->lock);
	mm_invalidate(mm, first, end, ev);
	pthread_mutex_unlock(&mm->lock);
}

void dg_user_mm_numa_hint(struct dg_user_mm *mm, unsigned long addr,
			  size_t len)
{
	mm_event(mm, addr, len, DG_PIN_EV_PROT);
}

void dg_user_mm_fork(struct dg_user_mm *mm, unsigned long addr, size_t len)
{
	mm_event(mm, addr, len, DG_PIN_EV_WRPROTECT);
}

int dg_user_mm_dontneed(struct dg_user_mm *mm, unsigned long addr,
			size_t len)
{
	/* -1: each page keeps its protection, gets a fresh frame */
	return mm_change(mm, addr, len, -1, true, DG_PIN_EV_UNMAP);
}

static int mm_access(struct dg_user_mm *mm, unsigned long addr, void *buf,
		     size_t len, bool write)
{
	unsigned long first, end, i, off;
	unsigned char *p = buf;
	size_t n;

	if (!mm_range(mm, addr, len, &first, &end))
		return -EFAULT;
	pthread_mutex_lock(&mm->lock);
	for (i = first; i < end; i++)
		if (mm->pt[i].prot < (write ? DG_PROT_RW : DG_PROT_READ)) {
			pthread_mutex_unlock(&mm->lock);
			return -EFAULT;
		}
	while (len) {
		i = (addr - DG_USER_MM_BASE) / DG_PAGE_SIZE;
		off = addr & (DG_PAGE_SIZE - 1);
		n = min(len, DG_PAGE_SIZE - off);
		if (write)
			memcpy(mm->pt[i].frame->data + off, p, n);
		else
			memcpy(p, mm->pt[i].frame->data + off, n);
		p += n;
		addr += n;
		len -= n;
	}
	pthread_mutex_unlock(&mm->lock);
	return 0;
}

int dg_user_mm_write(struct dg_user_mm *mm, unsigned long addr,
		     const void *buf, size_t len)
{
	return mm_access(mm, addr, (void *)buf, len, true);
}

int dg_user_mm_read(struct dg_user_mm *mm, unsigned long addr, void *buf,
		    size_t len)
{
	return mm_access(mm, addr, buf, len, false);
}

struct dg_user_frame *dg_user_mm_frame(struct dg_user_mm *mm,
				       unsigned long addr)
{
	unsigned long first, end;
	struct dg_user_frame *f;

	if (!mm_range(mm, addr, 1, &first, &end))
		return NULL;
	pthread_mutex_lock(&mm->lock);
	f = mm->pt[first].frame;
	pthread_mutex_unlock(&mm->lock);
	return f;
}

unsigned long dg_user_mm_seq(struct dg_user_mm *mm)
{
	unsigned long s;

	pthread_mutex_lock(&mm->lock);
	s = mm->seq;
	pthread_mutex_unlock(&mm->lock);
	return s;
}

/* The registry of live caches (dg_pin_plat.h), as the kernel's. */
static LIST_HEAD(dg_user_pin_caches);
static pthread_mutex_t dg_user_pin_caches_lock;	/* registry_setup() */
static pthread_once_t dg_user_pin_caches_once = PTHREAD_ONCE_INIT;
void (*dg_user_pin_fini_hook)(struct dg_pin_plat *plat);

static void registry_setup(void)
{
	if (pthread_mutex_init(&dg_user_pin_caches_lock, NULL))
		abort();
}

static void registry_lock(void)
{
	pthread_once(&dg_user_pin_caches_once, registry_setup);
	pthread_mutex_lock(&dg_user_pin_caches_lock);
}

void dg_pin_registry_add(struct dg_pin_plat *plat, struct dg_pin_cache *c)
{
	registry_lock();
	plat->cache = c;
	list_add_tail(&plat->registry, &dg_user_pin_caches);
	pthread_mutex_unlock(&dg_user_pin_caches_lock);
}

/* Called by dg_pin_plat_fini() (pin_mm.c); a cache never added: no-op. */
void dg_user_pin_registry_del(struct dg_pin_plat *plat)
{
	if (dg_user_pin_fini_hook)
		dg_user_pin_fini_hook(plat);
	registry_lock();
	list_del_init(&plat->registry);
	pthread_mutex_unlock(&dg_user_pin_caches_lock);
}

/* The handles of every registered cache: debugfs "pin_caches" in kind. */
unsigned long dg_user_pin_caches_handles(void)
{
	struct dg_pin_plat *plat;
	struct dg_pin_stats st;
	unsigned long n = 0;

	registry_lock();
	list_for_each_entry(plat, &dg_user_pin_caches, registry) {
		dg_pin_get_stats(plat->cache, &st);
		n += st.handles;
	}
	pthread_mutex_unlock(&dg_user_pin_caches_lock);
	return n;
}

/* The platform hooks (contracts in ../kernel/dg_pin_plat.h). */

int dg_pin_plat_init(struct dg_pin_plat *plat, void *mm, void *dev)
{
	if (!mm)
		return -EINVAL;
	plat->mm = mm;
	plat->dev = dev;
	INIT_LIST_HEAD(&plat->registry);
	INIT_LIST_HEAD(&plat->age_link);
	plat->cache = NULL;
	return 0;
}

void dg_pin_plat_fini(struct dg_pin_plat *plat)
{
	dg_user_pin_registry_del(plat);
	plat->mm = NULL;
}

int dg_pin_plat_track(struct dg_pin_plat *plat, struct dg_pin_notifier *n,
		      unsigned long start, unsigned long len)
{
	struct dg_user_mm *mm = plat->mm;

	pthread_mutex_lock(&mm->lock);
	n->mm = mm;
	n->start = start;
	n->last = start + len - 1;
	n->seq = mm->seq;
	list_add_tail(&n->link, &mm->notifiers);
	mm->notifiers_live++;
	pthread_mutex_unlock(&mm->lock);
	return 0;
}

/* Waits for a notifier round in progress: it holds the mm lock. */
void dg_pin_plat_untrack(struct dg_pin_notifier *n)
{
	struct dg_user_mm *mm = n->mm;

	/* mmu_interval_notifier_remove() waits for running invalidations */
	might_sleep();
	pthread_mutex_lock(&mm->lock);
	list_del(&n->link);
	mm->notifiers_live--;
	pthread_mutex_unlock(&mm->lock);
}

unsigned long dg_pin_plat_read_begin(struct dg_pin_notifier *n)
{
	unsigned long seq;

	pthread_mutex_lock(&n->mm->lock);
	seq = n->seq;
	pthread_mutex_unlock(&n->mm->lock);
	return seq;
}

/* Deferred reaps: the process's one "workqueue". */
static pthread_mutex_t work_lock;
static LIST_HEAD(work_queue);
static unsigned int work_pending;

/* Before main(): the queue is used by whichever thread comes first. */
__attribute__((constructor)) static void work_init(void)
{
	pthread_mutex_init(&work_lock, NULL);
}

/* Called under the cache lock (as queue_work() may be): never blocks long. */
void dg_pin_plat_queue_reap(struct dg_pin_plat *plat)
{
	pthread_mutex_lock(&work_lock);
	list_add_tail(&plat->reap_link, &work_queue);
	work_pending++;
	pthread_mutex_unlock(&work_lock);
}

unsigned int dg_user_run_work(void)
{
	struct dg_pin_plat *plat;
	unsigned int n = 0;

	for (;;) {
		pthread_mutex_lock(&work_lock);
		plat = list_first_entry_or_null(&work_queue, struct dg_pin_plat,
						reap_link);
		if (plat) {
			list_del(&plat->reap_link);
			work_pending--;
		}
		pthread_mutex_unlock(&work_lock);
		if (!plat)
			return n;
		dg_pin_reap_deferred(plat);
		n++;
	}
}

/* Agings: queued by the caches, run when a test says a period passed. */
unsigned long dg_user_pin_age_period = 1;
static LIST_HEAD(age_queue);

void dg_pin_plat_queue_age(struct dg_pin_plat *plat)
{
	pthread_mutex_lock(&work_lock);
	list_add_tail(&plat->age_link, &age_queue);
	pthread_mutex_unlock(&work_lock);
}

bool dg_pin_plat_cancel_age(struct dg_pin_plat *plat)
{
	bool was;

	pthread_mutex_lock(&work_lock);
	was = !list_empty(&plat->age_link);
	list_del_init(&plat->age_link);
	pthread_mutex_unlock(&work_lock);
	return was;
}

unsigned int dg_user_run_aging(void)
{
	struct dg_pin_plat *plat;
	unsigned int n = 0;
	LIST_HEAD(due);

	/* the ones queued now: an aging queues the next one itself */
	pthread_mutex_lock(&work_lock);
	list_splice_init(&age_queue, &due);
	pthread_mutex_unlock(&work_lock);
	for (;;) {
		/* one at a time: a destroy may cancel the ones still due */
		pthread_mutex_lock(&work_lock);
		plat = list_first_entry_or_null(&due, struct dg_pin_plat,
						age_link);
		if (plat)
			list_del_init(&plat->age_link);
		pthread_mutex_unlock(&work_lock);
		if (!plat)
			return n;
		dg_pin_age_deferred(plat);
		n++;
	}
}

unsigned int dg_user_work_pending(void)
{
	unsigned int n;

	pthread_mutex_lock(&work_lock);
	n = work_pending;
	pthread_mutex_unlock(&work_lock);
	return n;
}

bool dg_pin_plat_allows(struct dg_pin_plat *plat, unsigned long start,
			unsigned long last, bool write)
{
	struct dg_user_mm *mm = plat->mm;
	unsigned long first, end, i;
	bool ok = true;

	if (!mm_range(mm, start, last - start + 1, &first, &end))
		return false;
	pthread_mutex_lock(&mm->lock);
	for (i = first; i < end && ok; i++)
		ok = mm->pt[i].prot >= (write ? DG_PROT_RW : DG_PROT_READ);
	pthread_mutex_unlock(&mm->lock);
	if (mm->allows_hook)
		mm->allows_hook(mm, mm->allows_hook_arg);
	return ok;
}

int dg_pin_plat_charge(struct dg_pin_plat *plat, unsigned long nr_pages)
{
	struct dg_user_mm *mm = plat->mm;
	int err = 0;

	pthread_mutex_lock(&mm->lock);
	if (mm->charge_errno)
		err = mm->charge_errno;
	else if (mm->pinned_limit >= 0 &&
		 mm->pinned_vm + (long)nr_pages > mm->pinned_limit)
		err = -ENOMEM;
	else
		mm->pinned_vm += nr_pages;
	pthread_mutex_unlock(&mm->lock);
	return err;
}

void dg_pin_plat_uncharge(struct dg_pin_plat *plat, unsigned long nr_pages)
{
	struct dg_user_mm *mm = plat->mm;

	pthread_mutex_lock(&mm->lock);
	mm->pinned_vm -= nr_pages;
	if (mm->pinned_vm < 0)
		abort();
	pthread_mutex_unlock(&mm->lock);
}

/*
 * pin_user_pages_fast(FOLL_LONGTERM [| FOLL_WRITE]): pins from @start
 * until the first page that cannot be; returns how many, or that page's
 * errno when it is the first.
 */
long dg_pin_plat_pin(struct dg_pin_plat *plat, unsigned long start,
		     unsigned long nr_pages, bool write, void **pages)
{
	struct dg_user_mm *mm = plat->mm;
	unsigned long first, end, i, n = 0;
	long err = 0;

	/* GUP pins what the untagged address maps. */
	start = untagged_addr(start);
	/* Outside the simulated range: kernel or unmapped addresses. */
	if (!mm_range(mm, start, 1, &first, &end))
		return -EFAULT;
	end = min(first + nr_pages, mm->nr_pages);
	if (end - first < nr_pages)
		err = -EFAULT;	/* after the pages that are inside */
	pthread_mutex_lock(&mm->lock);
	mm->pin_calls++;
	if (mm->pin_hook)
		mm->pin_hook(mm, mm->pin_hook_arg);
	for (i = first; i < end; i++, n++) {
		struct dg_user_pte *pte = &mm->pt[i];
		long e = 0;

		if (i == mm->fail_page)
			e = mm->fail_errno;
		else if (pte->prot < (write ? DG_PROT_RW : DG_PROT_READ))
			e = -EFAULT;
		if (e) {
			err = e;
			break;
		}
		pte->frame->pins++;
		pte->frame->write_pins += write;
		mm->pins_live++;
		pages[n] = pte->frame;
	}
	pthread_mutex_unlock(&mm->lock);
	return n ? (long)n : err;
}

void dg_pin_plat_unpin(struct dg_pin_plat *plat, void **pages,
		       unsigned long nr_pages, bool dirty)
{
	struct dg_user_mm *mm = plat->mm;
	unsigned long i;

	/* unpin_user_pages_dirty_lock() locks each page it dirties */
	might_sleep();
	if (mm->unpin_hook)
		mm->unpin_hook(mm, mm->unpin_hook_arg);
	pthread_mutex_lock(&mm->lock);
	for (i = 0; i < nr_pages; i++) {
		struct dg_user_frame *f = pages[i];

		if (f->pins <= 0)
			abort();
		f->pins--;
		f->write_pins -= dirty;
		if (f->write_pins < 0)
			abort();
		mm->pins_live--;
		frame_put(mm, f);
	}
	pthread_mutex_unlock(&mm->lock);
}

int dg_pin_plat_map(struct dg_pin_plat *plat, void **pages,
		    unsigned long nr_pages, bool write, void **cookie)
{
	static u64 iova = 0x100000;
	struct dg_user_mm *mm = plat->mm;
	struct dg_user_map *m;
	int err;

	pthread_mutex_lock(&mm->lock);
	err = mm->map_errno;
	mm->map_errno = 0;
	if (!err)
		mm->maps_live++;
	pthread_mutex_unlock(&mm->lock);
	if (err)
		return err;
	m = calloc(1, sizeof(*m));
	if (!m)
		abort();
	m->nr_pages = nr_pages;
	m->pages = pages;
	m->iova = __atomic_fetch_add(&iova, nr_pages * DG_PAGE_SIZE,
				     __ATOMIC_RELAXED);
	*cookie = m;
	return 0;
}

void dg_pin_plat_unmap(struct dg_pin_plat *plat, void *cookie,
		       unsigned long nr_pages, bool write)
{
	struct dg_user_mm *mm = plat->mm;
	struct dg_user_map *m = cookie;

	if (m->nr_pages != nr_pages)
		abort();
	free(m);
	pthread_mutex_lock(&mm->lock);
	mm->maps_live--;
	pthread_mutex_unlock(&mm->lock);
}
