/* The decoded-block cache (see cpu/block.h for the threading design).
 *
 * Two structures:
 * - struct cpu_cache, one per guest thread: its blocks by start address and
 *   by page.  Only the owning thread touches it, except for the queue of
 *   pending invalidations, which is shared and guarded by the mm lock.
 * - struct code_registry, one per address space (mm->code): the pages any
 *   cache decoded from (and whether elfemu write-protected them), and the
 *   list of caches.  Guarded by the mm lock, which also guards the VMA list
 *   the registry consults: one lock, so there is no lock order between
 *   them to get wrong.
 *
 * The invariant that makes lazy dropping safe: whenever a cache holds a
 * block with bytes on page P, either P is in the registry (so a write to it
 * or a munmap/mprotect of it is noticed) or an invalidation of P is queued
 * in that cache.  Pages are entered before their bytes are read, and an
 * invalidation removes the page and queues it in every cache at once. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu/block.h"
#include "cpu/chain.h"
#include "cpu/hook.h"
#include "cpu/ras.h"

#define HASH_BITS 16
#define PAGE_HASH_BITS 12
#define QUEUE_MAX 16

static unsigned hash_rip(uint64_t rip) { return (unsigned)((rip * 0x9e3779b97f4a7c15ull) >> (64 - HASH_BITS)); }
static unsigned hash_page(uint64_t page) { return (unsigned)((page * 0x9e3779b97f4a7c15ull) >> (64 - PAGE_HASH_BITS)); }

/* ------------------------------------------------------------ the registry */

struct code_page {
    uint64_t page;
    bool write_protected;  /* elfemu made it read-only on the host */
    struct code_page *next;
};

struct code_registry {
    struct code_page *pages[1u << PAGE_HASH_BITS];
    uint64_t npages;            /* read without the lock for a fast "none" */
    uint64_t nprotected;        /* of them write-protected; likewise */
    struct cpu_cache *caches;   /* every thread's cache */
    bool faults_observed;       /* cpu_faults_observed(): sticky */
};

/* Which of this cache's blocks have instructions on a page. */
struct page_entry {
    uint64_t page;
    struct block **v;
    uint32_t n, cap;
    struct page_entry *next;
};

struct range {
    uint64_t start, end;
};

struct cpu_cache {
    struct cpu_cache_hot hot; /* first: read by the dispatch loop (block.h) */
    struct block *hash[1u << HASH_BITS];
    struct page_entry *pages[1u << PAGE_HASH_BITS];
    uint64_t npages;          /* entries in pages[] */
    struct cpu *cpu;
    struct mm_space *mm;
    /* Under the mm lock: the registry's list and the pending invalidations
     * (flush_all when the queue overflowed). */
    struct cpu_cache *next;
    struct range queue[QUEUE_MAX];
    unsigned nqueue;
    bool flush_all;
    uint64_t decoded;         /* blocks decoded (written by the owner only) */
};

/* The statistics of block.h (relaxed atomics: read by any thread). */
static uint64_t decoded_by_ended;   /* blocks decoded by caches since destroyed */
static uint64_t smc_pages;
static uint64_t code_generation;

static struct code_registry *registry(const struct mm_space *mm)
{
    return (struct code_registry *)mm->code;
}

static struct code_page **reg_slot(struct code_registry *r, uint64_t page)
{
    struct code_page **slot = &r->pages[hash_page(page)];
    while (*slot && (*slot)->page != page)
        slot = &(*slot)->next;
    return slot;
}

/* Enter page before its bytes are decoded (mm lock held); false when out
 * of memory. */
static bool reg_enter(struct mm_space *mm, uint64_t page)
{
    struct code_registry *r = registry(mm);
    struct code_page **slot = reg_slot(r, page);
    if (*slot)
        return true;
    struct code_page *p = calloc(1, sizeof(*p));
    if (!p)
        return false;
    p->page = page;
    p->write_protected = mm_code_protect(mm, page);
    if (p->write_protected)
        __atomic_store_n(&r->nprotected, r->nprotected + 1, __ATOMIC_RELAXED);
    *slot = p;
    __atomic_store_n(&r->npages, r->npages + 1, __ATOMIC_RELAXED);
    return true;
}

static bool reg_remove(struct mm_space *mm, struct code_page **slot)
{
    struct code_registry *r = registry(mm);
    struct code_page *p = *slot;
    if (p->write_protected) {
        mm_code_unprotect(mm, p->page);
        __atomic_store_n(&r->nprotected, r->nprotected - 1, __ATOMIC_RELAXED);
    }
    *slot = p->next;
    free(p);
    __atomic_store_n(&r->npages, r->npages - 1, __ATOMIC_RELAXED);
    return true;
}

/* Queue [start, end) in every cache and raise their attention. */
static void queue_everywhere(struct code_registry *r, uint64_t start, uint64_t end)
{
    __atomic_fetch_add(&code_generation, 1, __ATOMIC_RELAXED);
    for (struct cpu_cache *k = r->caches; k; k = k->next) {
        if (k->nqueue < QUEUE_MAX)
            k->queue[k->nqueue++] = (struct range){ start, end };
        else
            k->flush_all = true;
        cpu_attention_raise(k->cpu, CPU_ATTN_CODE);
    }
}

/* Remove the registered pages of [start, end) and queue the range in every
 * cache (mm lock held). */
static void invalidate_locked(struct mm_space *mm, uint64_t start, uint64_t end)
{
    struct code_registry *r = registry(mm);
    if (!r || r->npages == 0 || end <= start)
        return;
    uint64_t first = mm_page_down(start);
    bool any = false;
    if ((end - first) / MM_PAGE_SIZE <= 4 * r->npages) {
        for (uint64_t p = first; p < end; p += MM_PAGE_SIZE) {
            struct code_page **slot = reg_slot(r, p);
            if (*slot)
                any = reg_remove(mm, slot);
        }
    } else {
        /* A large range (a big munmap or mmap): visit the code pages instead. */
        for (unsigned i = 0; i < (1u << PAGE_HASH_BITS); i++)
            for (struct code_page **slot = &r->pages[i]; *slot;) {
                if ((*slot)->page >= first && (*slot)->page < end)
                    any = reg_remove(mm, slot);
                else
                    slot = &(*slot)->next;
            }
    }
    if (any)
        queue_everywhere(r, first, end);
}

void cpu_cache_flush_all(struct mm_space *mm)
{
    mm_lock(mm);
    struct code_registry *r = registry(mm);
    for (struct cpu_cache *k = r ? r->caches : NULL; k; k = k->next) {
        k->flush_all = true;
        cpu_attention_raise(k->cpu, CPU_ATTN_CODE);
    }
    mm_unlock(mm);
}

void cpu_invalidate(struct cpu *c, uint64_t start, uint64_t end)
{
    struct code_registry *r = registry(c->mm);
    /* Most calls (every buffer a syscall writes) touch no code page. */
    if (!r || __atomic_load_n(&r->npages, __ATOMIC_RELAXED) == 0 || end <= start)
        return;
    mm_lock(c->mm);
    invalidate_locked(c->mm, start, end);
    mm_unlock(c->mm);
}

void cpu_code_writable(struct cpu *c, uint64_t start, uint64_t end)
{
    struct code_registry *r = registry(c->mm);
    /* Code on pages the guest cannot write is never in the way. */
    if (!r || __atomic_load_n(&r->nprotected, __ATOMIC_RELAXED) == 0 || end <= start)
        return;
    uint64_t first = mm_page_down(start);
    mm_lock(c->mm);
    if ((end - first) / MM_PAGE_SIZE <= 4 * r->npages) {
        for (uint64_t p = first; p < end && r->nprotected; p += MM_PAGE_SIZE) {
            struct code_page **slot = reg_slot(r, p);
            if (*slot && (*slot)->write_protected) {
                invalidate_locked(c->mm, p, p + MM_PAGE_SIZE);
                __atomic_fetch_add(&smc_pages, 1, __ATOMIC_RELAXED);
            }
        }
    } else {
        /* A large buffer (read(fd, buf, 1 GiB) with a short file): visit
         * the code pages instead of every page of the range.  Releasing
         * one removes it from its chain, so the slot then holds the next. */
        for (unsigned i = 0; i < (1u << PAGE_HASH_BITS) && r->nprotected; i++)
            for (struct code_page **slot = &r->pages[i]; *slot;) {
                struct code_page *p = *slot;
                if (p->write_protected && p->page >= first && p->page < end) {
                    invalidate_locked(c->mm, p->page, p->page + MM_PAGE_SIZE);
                    __atomic_fetch_add(&smc_pages, 1, __ATOMIC_RELAXED);
                } else
                    slot = &p->next;
            }
    }
    mm_unlock(c->mm);
}

/* Called from the host fault handler, on the faulting thread, for a write
 * to a page that is read-only on the host. */
static bool code_write_hook(struct mm_space *mm, uint64_t addr)
{
    struct code_registry *r = registry(mm);
    if (!r)
        return false;
    uint64_t page = mm_page_down(addr);
    bool handled = false;
    mm_lock(mm);
    struct code_page **slot = reg_slot(r, page);
    if (*slot && (*slot)->write_protected) {
        invalidate_locked(mm, page, page + MM_PAGE_SIZE);
        __atomic_fetch_add(&smc_pages, 1, __ATOMIC_RELAXED);
        cpu_code_written(addr); /* the block running may hold the bytes */
        handled = true;
    } else if (!*slot && mm_prot_at(mm, page) >= 0 && (mm_prot_at(mm, page) & PROT_WRITE)) {
        /* Another thread dropped the page between our store and this
         * handler: its guest protection is back (make sure), retry. */
        mm_code_unprotect(mm, page);
        handled = true;
    }
    mm_unlock(mm);
    return handled;
}

/* ------------------------------------------------------------ one cache */

static struct page_entry *page_get(struct cpu_cache *k, uint64_t page, bool create)
{
    struct page_entry **slot = &k->pages[hash_page(page)];
    for (struct page_entry *p = *slot; p; p = p->next)
        if (p->page == page)
            return p;
    if (!create)
        return NULL;
    struct page_entry *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->page = page;
    p->next = *slot;
    *slot = p;
    k->npages++;
    return p;
}

static void page_forget(struct cpu_cache *k, struct page_entry *pe)
{
    struct page_entry **slot = &k->pages[hash_page(pe->page)];
    while (*slot != pe)
        slot = &(*slot)->next;
    *slot = pe->next;
    free(pe->v);
    free(pe);
    k->npages--;
}

/* Take b out of the hash and onto the drop list. */
static void drop(struct cpu_cache *k, struct block *b, struct block **list)
{
    if (b->retired)
        return;
    b->retired = true;
    struct block **slot = &k->hash[hash_rip(b->start)];
    while (*slot && *slot != b)
        slot = &(*slot)->hnext;
    if (*slot)
        *slot = b->hnext;
    b->hnext = *list; /* out of the hash: hnext now links the drop list */
    *list = b;
}

static void drop_page(struct cpu_cache *k, struct page_entry *pe, struct block **list)
{
    for (uint32_t i = 0; i < pe->n; i++)
        drop(k, pe->v[i], list);
    page_forget(k, pe);
}

static void drop_range(struct cpu_cache *k, uint64_t start, uint64_t end, struct block **list)
{
    if (k->npages == 0)
        return;
    if ((end - start) / MM_PAGE_SIZE <= 4 * k->npages) {
        for (uint64_t p = start; p < end; p += MM_PAGE_SIZE) {
            struct page_entry *pe = page_get(k, p, false);
            if (pe)
                drop_page(k, pe, list);
        }
        return;
    }
    for (unsigned i = 0; i < (1u << PAGE_HASH_BITS); i++)
        for (struct page_entry *pe = k->pages[i], *next; pe; pe = next) {
            next = pe->next;
            if (pe->page >= start && pe->page < end)
                drop_page(k, pe, list);
        }
}

static void drop_all(struct cpu_cache *k, struct block **list)
{
    for (unsigned i = 0; i < (1u << PAGE_HASH_BITS); i++)
        while (k->pages[i])
            drop_page(k, k->pages[i], list);
}

/* Free dropped blocks, first taking them off the lists of the other pages
 * they span. */
static void free_dropped(struct cpu_cache *k, struct block *list)
{
    while (list) {
        struct block *b = list;
        list = b->hnext;
        for (uint64_t p = mm_page_down(b->start); p < block_end(b); p += MM_PAGE_SIZE) {
            struct page_entry *pe = page_get(k, p, false);
            for (uint32_t i = 0; pe && i < pe->n; i++)
                if (pe->v[i] == b)
                    pe->v[i--] = pe->v[--pe->n];
        }
        free(b);
    }
    k->hot.epoch++;
    k->cpu->chain_epoch = (uint32_t)k->hot.epoch;
    ras_clear(k->cpu); /* its predictions may point into the freed blocks */
    if (UNLIKELY(k->cpu->chain_epoch == 0)) {
        /* Chain slots compare the epoch's low 32 bits: once in 2^32 epochs
         * every block goes, so that no slot of an old epoch survives to
         * match again (the next epoch, low bits 1, is one no slot has). */
        struct block *all = NULL;
        drop_all(k, &all);
        free_dropped(k, all);
    }
}

void cpu_cache_attend(struct cpu *c)
{
    struct cpu_cache *k = c->cache;
    struct range q[QUEUE_MAX];
    mm_lock(c->mm);
    __atomic_fetch_and(&c->attention, ~CPU_ATTN_CODE, __ATOMIC_ACQUIRE);
    unsigned n = k->nqueue;
    bool all = k->flush_all;
    memcpy(q, k->queue, n * sizeof(q[0]));
    k->nqueue = 0;
    k->flush_all = false;
    mm_unlock(c->mm);
    struct block *list = NULL;
    if (all) {
        drop_all(k, &list);
    } else {
        for (unsigned i = 0; i < n; i++)
            drop_range(k, q[i].start, q[i].end, &list);
    }
    free_dropped(k, list);
}

/* ------------------------------------------------------------ decoding */

static void page_add(struct cpu_cache *k, uint64_t page, struct block *b)
{
    struct page_entry *pe = page_get(k, page, true);
    if (!pe)
        return;
    if (pe->n == pe->cap) {
        uint32_t cap = pe->cap ? pe->cap * 2 : 8;
        struct block **v = realloc(pe->v, cap * sizeof(*v));
        if (!v)
            return;
        pe->v = v;
        pe->cap = cap;
    }
    pe->v[pe->n++] = b;
}

/* How many bytes from rip can be fetched (executable), at most 15; the
 * pages they lie on are entered in the registry first, so that a write
 * racing with the decoder either precedes the read or invalidates it.
 * *entered: the end of the pages this decode entered already. */
static unsigned fetchable(struct cpu *c, uint64_t rip, uint64_t *entered)
{
    /* Within pages this decode checked and entered already: no lock. */
    if (entered && rip + 15 <= *entered && rip + 15 > rip)
        return 15;
    unsigned n = 0;
    mm_lock(c->mm);
    while (n < 15) {
        uint64_t a = rip + n;
        if (c->bits == 32 && a >= (1ull << 32))
            break;
        if (!mm_check(c->mm, a, 1, PROT_EXEC))
            break;
        uint64_t page = mm_page_down(a);
        if (entered && page + MM_PAGE_SIZE > *entered) {
            if (!reg_enter(c->mm, page))
                break;
            *entered = page + MM_PAGE_SIZE;
        }
        n += (unsigned)(MM_PAGE_SIZE - (a & (MM_PAGE_SIZE - 1)));
    }
    mm_unlock(c->mm);
    return n > 15 ? 15 : n;
}

/* SEGV_ACCERR where something is mapped, SEGV_MAPERR where nothing is. */
static int segv_code(struct cpu *c, uint64_t addr)
{
    return mm_prot_at(c->mm, addr) >= 0 ? 2 /* SEGV_ACCERR */ : 1 /* SEGV_MAPERR */;
}

/* Flags at a fault.  A fault in the middle of a block shows the guest the
 * flags as they are before the faulting instruction, but only when it has
 * a handler for the signal (with SIG_DFL, SIG_IGN or the signal blocked, a
 * fault kills: force_sig_fault()).  So while no thread could catch one
 * (no handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGTRAP, and a single
 * thread: another could install one while this one runs a block), an
 * instruction that may fault does not keep the flags before it live, and
 * the flag writers of 32-bit code, which sit between loads and stores, may
 * leave out their records.  The first handler or the second thread (both
 * are syscalls, at a block boundary of the one thread there is) drops the
 * code decoded so, and from then on every block is decoded with exact
 * flags at each possible fault.  Hooked blocks are always exact (a fault
 * hook sees the registers at the fault); without hooks, the registers an
 * embedder reads after a fatal fault may show the arithmetic flags of an
 * earlier instruction of the block (README, Known limitations). */
void cpu_faults_observed(struct mm_space *mm)
{
    struct code_registry *r = registry(mm);
    if (!r || __atomic_load_n(&r->faults_observed, __ATOMIC_ACQUIRE))
        return;
    __atomic_store_n(&r->faults_observed, true, __ATOMIC_RELEASE);
    cpu_cache_flush_all(mm);
}

static bool faults_observed(const struct mm_space *mm)
{
    const struct code_registry *r = registry(mm);
    return !r || __atomic_load_n(&r->faults_observed, __ATOMIC_ACQUIRE);
}

/* Dead flags: going backwards through the block, the arithmetic flags that
 * a later instruction (or the next block, the target of a side exit, or a
 * signal handler after a fault) could read are live; an instruction whose
 * written flags are all dead gets OPF_NOFLAGS, and its handler may skip
 * computing them. */
static void mark_dead_flags(struct op *ops, const struct op_meta *meta, unsigned n)
{
    uint32_t live = FL_ARITH;
    for (unsigned i = n; i-- > 0;) {
        if (meta[i].flags_written && !(meta[i].flags_written & live) && !meta[i].flags_read)
            ops[i].flags |= OPF_NOFLAGS;
        live = meta_live_before(&meta[i], live);
    }
}

/* The most a block's end can be past the end of one of its instructions. */
#define RIP_REBASE_MAX (BLOCK_MAX_OPS * 15)

/* A block's ops run with c->rip at the block's end (cpu/cpu.h): a
 * rip-relative operand's displacement, from the end of its instruction,
 * becomes one from the end of the block (the decoder kept those that do
 * not fit out of the block, decode_block()). */
static void rebase_rip_relative(struct op *ops, unsigned n, uint64_t size)
{
    uint64_t end = 0; /* of ops[i], from the block's start */
    for (unsigned i = 0; i < n; i++) {
        end += ops[i].len;
        if (ops[i].base == SLOT_RIP)
            ops[i].disp -= (int32_t)(size - end);
    }
}

/* Superblocks: the side exits of a block (cpu/chain.h) get their exit
 * slots from first on, in order; each branch finds its slot at op->disp. */
static unsigned side_exit_slots(struct op *ops, const struct op_meta *meta, unsigned n,
                                unsigned first)
{
    unsigned k = first;
    for (unsigned i = 0; i + 1 < n; i++)
        if (meta[i].side_exit) {
            chain_slot_init(&ops[k], i + 1, true);
            ops[i].disp = (int32_t)((k - i) * sizeof(struct op));
            k++;
        }
    return k - first;
}

static struct block *decode_block(struct cpu *c, uint64_t rip)
{
    struct op ops[BLOCK_MAX_OPS];
    struct op_meta meta[BLOCK_MAX_OPS];
    unsigned n = 0, exits = 0;
    uint64_t pc = rip, entered = 0;
    bool ends = false;
    unsigned avail = 0;
    /* Conditional branches end blocks only where each instruction must be
     * seen on its own (hooks). */
    bool superblocks = !cpu_hooks_enabled();
    while (n < BLOCK_MAX_OPS) {
        avail = fetchable(c, pc, &entered);
        if (avail == 0)
            break;
        unsigned len = cpu_decode_one(c, pc, c->mm->base + pc, avail, &ops[n], &ends, &meta[n]);
        if (len == 0)
            break; /* the instruction runs into unfetchable bytes */
        if (UNLIKELY(ops[n].base == SLOT_RIP && ops[n].disp < INT32_MIN + RIP_REBASE_MAX)) {
            /* Its displacement from the block's end might not fit: such an
             * instruction ends the block before it, or is alone in one. */
            if (n > 0) {
                ends = false;
                break;
            }
            ends = true;
        }
        pc += len;
        n++;
        if (ends && superblocks && meta[n - 1].side_exit && n < BLOCK_MAX_OPS) {
            ops[n - 1].flags &= (uint8_t)~OPF_BRANCH; /* not the block's end */
            ends = false;
            exits++;
        }
        if (ends)
            break;
    }
    if (n == 0) {
        /* The fetch faults at the first byte that cannot be fetched: rip,
         * or a later one for an instruction that runs into it. */
        cpu_fault(c, SIGSEGV, segv_code(c, rip + avail), rip + avail);
    }
    struct block *b;
    if (UNLIKELY(cpu_hooks_enabled())) {
        /* Hooks may look at the flags between any two instructions. */
        b = hook_block_build(c, ops, n, rip, pc);
    } else {
        if (!faults_observed(c->mm))
            for (unsigned i = 0; i < n; i++)
                meta[i].may_fault = false; /* a fault kills: see above */
        mark_dead_flags(ops, meta, n);
        fuse_block(ops, meta, n);
        pair_block(ops, meta, n);
        bool xmm = false; /* the SSE passes look for handlers one by one */
        for (unsigned i = 0; i < n && !xmm; i++)
            xmm = meta[i].xmm;
        if (xmm)
            sse_fuse_pairs(ops, n);
        stack_fuse_runs(ops, n);
        rebase_rip_relative(ops, n, pc - rip);
        /* After the ops, the block's chain slot (cpu/chain.h), which is
         * also the sentinel the last NEXT reaches in a block cut short or
         * ending with an untaken conditional branch (the last op of any
         * other block has OPF_BRANCH; a fused pair that ends a block ends
         * with the Jcc's op).  A block that ends with a CALL has its return
         * slot after that (cpu/ras.h), and the exit slots of its side exits
         * come last (side_exit_slots). */
        bool ret_slot = ends && ras_call_predicts(&ops[n - 1]);
        b = malloc(sizeof(*b) + (n + 1 + ret_slot + exits) * sizeof(struct op));
        if (!b)
            cpu_fault(c, SIGSEGV, 1, rip); /* out of host memory: nothing better to do */
        memset(b, 0, sizeof(*b));
        b->start = rip;
        b->size = (uint32_t)(pc - rip);
        b->nops = (uint16_t)n;
        memcpy(b->ops, ops, n * sizeof(struct op));
        chain_slot_init(&b->ops[n], n, true);
        if (ret_slot)
            ret_slot_init(&b->ops[n + 1], c->bits == 32 ? (uint32_t)pc : pc);
        side_exit_slots(b->ops, meta, n, n + 1 + ret_slot);
    }
    struct cpu_cache *k = c->cache;
    __atomic_store_n(&k->decoded, k->decoded + 1, __ATOMIC_RELAXED);
    for (uint64_t p = mm_page_down(rip); p < pc; p += MM_PAGE_SIZE)
        page_add(k, p, b);
    unsigned h = hash_rip(rip);
    b->hnext = k->hash[h];
    k->hash[h] = b;
    return b;
}

void cpu_decode_single(struct cpu *c, struct op *op)
{
    unsigned avail = fetchable(c, c->rip, NULL);
    bool ends;
    if (avail == 0 || cpu_decode_one(c, c->rip, c->mm->base + c->rip, avail, op, &ends, NULL) == 0)
        cpu_fault(c, SIGSEGV, segv_code(c, c->rip + avail), c->rip + avail);
}

struct block *cpu_block_lookup(struct cpu *c, uint64_t rip)
{
    struct cpu_cache *k = c->cache;
    for (struct block *b = k->hash[hash_rip(rip)]; b; b = b->hnext)
        if (b->start == rip)
            return b;
    return decode_block(c, rip);
}

/* ------------------------------------------------------------ statistics */

uint64_t cpu_blocks_decoded(struct mm_space *mm)
{
    uint64_t n = __atomic_load_n(&decoded_by_ended, __ATOMIC_RELAXED);
    mm_lock(mm);
    struct code_registry *r = registry(mm);
    for (struct cpu_cache *k = r ? r->caches : NULL; k; k = k->next)
        n += __atomic_load_n(&k->decoded, __ATOMIC_RELAXED);
    mm_unlock(mm);
    return n;
}

uint64_t cpu_smc_invalidations(void)
{
    return __atomic_load_n(&smc_pages, __ATOMIC_RELAXED);
}

uint64_t cpu_code_generation(void)
{
    return __atomic_load_n(&code_generation, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------ lifetime */

int cpu_cache_create(struct cpu *c)
{
    struct cpu_cache *k = calloc(1, sizeof(*k));
    if (!k)
        return -ENOMEM;
    k->mm = c->mm;
    k->cpu = c;
    k->hot.epoch = 1;
    c->chain_epoch = 1;
    ras_clear(c); /* a clone's copy points into its parent's blocks */
    mm_lock(c->mm);
    if (!c->mm->code && !(c->mm->code = calloc(1, sizeof(struct code_registry)))) {
        mm_unlock(c->mm);
        free(k);
        return -ENOMEM;
    }
    struct code_registry *r = registry(c->mm);
    k->next = r->caches;
    r->caches = k;
    mm_unlock(c->mm);
    c->cache = k;
    mm_fault_set_code_hook(code_write_hook);
    return 0;
}

/* Free a cache's blocks and pages (not its registration). */
static void cache_free(struct cpu_cache *k)
{
    for (unsigned i = 0; i < (1u << HASH_BITS); i++)
        for (struct block *b = k->hash[i]; b;) {
            struct block *n = b->hnext;
            free(b);
            b = n;
        }
    for (unsigned i = 0; i < (1u << PAGE_HASH_BITS); i++)
        while (k->pages[i])
            page_forget(k, k->pages[i]);
    free(k);
}

/* The registry itself goes with the last cache (its pages stay as they
 * are: the space is being torn down or re-created). */
static void registry_free(struct mm_space *mm)
{
    struct code_registry *r = registry(mm);
    for (unsigned i = 0; i < (1u << PAGE_HASH_BITS); i++)
        while (r->pages[i]) {
            struct code_page *p = r->pages[i];
            r->pages[i] = p->next;
            free(p);
        }
    free(r);
    mm->code = NULL;
}

void cpu_cache_destroy(struct cpu *c)
{
    struct cpu_cache *k = c->cache;
    if (!k)
        return;
    mm_lock(c->mm);
    struct code_registry *r = registry(c->mm);
    struct cpu_cache **slot = &r->caches;
    while (*slot != k)
        slot = &(*slot)->next;
    *slot = k->next;
    __atomic_fetch_add(&decoded_by_ended, k->decoded, __ATOMIC_RELAXED);
    if (!r->caches)
        registry_free(c->mm);
    mm_unlock(c->mm);
    cache_free(k);
    c->cache = NULL;
}

void cpu_fork_prepare(struct mm_space *mm)
{
    mm_lock(mm);
}

void cpu_fork_parent(struct mm_space *mm)
{
    mm_unlock(mm);
}

void cpu_fork_child(struct cpu *c)
{
    /* Only the calling thread exists here: its lock is reset, and the
     * caches of the threads that did not come along are freed. */
    mm_lock_reset(c->mm);
    struct code_registry *r = registry(c->mm);
    if (!r)
        return;
    for (struct cpu_cache *k = r->caches, *next; k; k = next) {
        next = k->next;
        if (k != c->cache)
            cache_free(k);
    }
    r->caches = c->cache;
    if (c->cache)
        c->cache->next = NULL;
}
