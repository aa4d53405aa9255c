/* The decoded-block cache (see cpu/block.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu/block.h"

#define HASH_BITS 16
#define PAGE_HASH_BITS 12

/* Which blocks have instructions on a page (for invalidation). */
struct page_entry {
    uint64_t page;
    struct block **v;
    uint32_t n, cap;
    bool write_protected;  /* we made it read-only on the host */
    struct page_entry *next;
};

struct cpu_cache {
    struct cpu_cache_hot hot; /* first: read by the dispatch loop (block.h) */
    struct block *hash[1u << HASH_BITS];
    struct page_entry *pages[1u << PAGE_HASH_BITS];
    uint64_t npages;       /* entries in pages[] */
    struct mm_space *mm;
};

static unsigned hash_rip(uint64_t rip) { return (unsigned)((rip * 0x9e3779b97f4a7c15ull) >> (64 - HASH_BITS)); }
static unsigned hash_page(uint64_t page) { return (unsigned)((page * 0x9e3779b97f4a7c15ull) >> (64 - PAGE_HASH_BITS)); }

static struct cpu_cache *current_cache; /* for the write-fault hook; one space per process */

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

static void retire(struct cpu_cache *k, struct block *b)
{
    if (b->retired)
        return;
    b->retired = true;
    struct block **slot = &k->hash[hash_rip(b->start)];
    while (*slot && *slot != b)
        slot = &(*slot)->hnext;
    if (*slot)
        *slot = b->hnext;
    b->rnext = k->hot.retired;
    k->hot.retired = b;
}

/* Retire every block on page; give the page its guest protection back. */
static void invalidate_page(struct cpu_cache *k, uint64_t page)
{
    struct page_entry *pe = page_get(k, page, false);
    if (!pe)
        return;
    for (uint32_t i = 0; i < pe->n; i++)
        retire(k, pe->v[i]);
    if (pe->write_protected) {
        const struct mm_vma *v = mm_find_vma(k->mm, page);
        if (v && (v->prot & PROT_WRITE))
            mprotect(k->mm->base + page, MM_PAGE_SIZE, PROT_READ | PROT_WRITE);
    }
    page_forget(k, pe);
    k->hot.epoch++;
}

/* Called from the host fault handler for a write to a page we protected. */
static bool code_write_hook(uint64_t addr)
{
    struct cpu_cache *k = current_cache;
    if (!k)
        return false;
    struct page_entry *pe = page_get(k, mm_page_down(addr), false);
    if (!pe || !pe->write_protected)
        return false;
    invalidate_page(k, mm_page_down(addr));
    return true;
}

void cpu_invalidate(struct cpu *c, uint64_t start, uint64_t end)
{
    struct cpu_cache *k = c->cache;
    if (!k || k->npages == 0 || end <= start)
        return;
    uint64_t first = mm_page_down(start);
    if ((end - first) / MM_PAGE_SIZE <= 4 * k->npages) {
        for (uint64_t p = first; p < end; p += MM_PAGE_SIZE)
            invalidate_page(k, p);
        return;
    }
    /* A large range (a big munmap or mmap): visit the code pages instead. */
    for (unsigned i = 0; i < (1u << PAGE_HASH_BITS); i++)
        for (struct page_entry *pe = k->pages[i], *next; pe; pe = next) {
            next = pe->next;
            if (pe->page >= first && pe->page < end)
                invalidate_page(k, pe->page);
        }
}

static int page_add(struct cpu_cache *k, uint64_t page, struct block *b)
{
    struct page_entry *pe = page_get(k, page, true);
    if (!pe)
        return -ENOMEM;
    if (pe->n == pe->cap) {
        uint32_t cap = pe->cap ? pe->cap * 2 : 8;
        struct block **v = realloc(pe->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        pe->v = v;
        pe->cap = cap;
    }
    pe->v[pe->n++] = b;
    if (!pe->write_protected) {
        const struct mm_vma *v = mm_find_vma(k->mm, page);
        if (v && (v->prot & PROT_WRITE)) {
            mprotect(k->mm->base + page, MM_PAGE_SIZE, PROT_READ);
            pe->write_protected = true;
        }
    }
    return 0;
}

/* How many bytes from rip can be fetched (executable), at most 15. */
static unsigned fetchable(struct cpu *c, uint64_t rip)
{
    unsigned n = 0;
    while (n < 15) {
        uint64_t a = rip + n;
        if (c->bits == 32 && a >= (1ull << 32))
            break;
        if (!mm_check(c->mm, a, 1, PROT_EXEC))
            break;
        n += (unsigned)(MM_PAGE_SIZE - (a & (MM_PAGE_SIZE - 1)));
    }
    return n > 15 ? 15 : n;
}

/* Dead flags: going backwards through the block, the arithmetic flags that
 * a later instruction (or the next block, or a signal handler after a
 * fault) could read are live; an instruction whose written flags are all
 * dead gets OPF_NOFLAGS, and its handler may skip computing them. */
static void mark_dead_flags(struct op *ops, const struct op_meta *meta, unsigned n)
{
    uint32_t live = FL_ARITH;
    for (unsigned i = n; i-- > 0;) {
        if (meta[i].flags_written && !(meta[i].flags_written & live) && !meta[i].flags_read)
            ops[i].flags |= OPF_NOFLAGS;
        live = meta[i].may_fault ? FL_ARITH : ((live & ~meta[i].flags_written) | meta[i].flags_read);
    }
}

static struct block *decode_block(struct cpu *c, uint64_t rip)
{
    struct op ops[BLOCK_MAX_OPS];
    struct op_meta meta[BLOCK_MAX_OPS];
    unsigned n = 0;
    uint64_t pc = rip;
    while (n < BLOCK_MAX_OPS) {
        unsigned avail = fetchable(c, pc);
        if (avail == 0)
            break;
        bool ends = false;
        unsigned len = cpu_decode_one(c, pc, c->mm->base + pc, avail, &ops[n], &ends, &meta[n]);
        if (len == 0)
            break; /* the instruction runs into unfetchable bytes */
        pc += len;
        n++;
        if (ends)
            break;
    }
    if (n == 0)
        cpu_fault(c, SIGSEGV, mm_find_vma(c->mm, rip) ? 2 /* SEGV_ACCERR */ : 1, rip);
    mark_dead_flags(ops, meta, n);
    /* One more op: the sentinel the last NEXT of a cut-short block reaches. */
    struct block *b = malloc(sizeof(*b) + (n + 1) * sizeof(struct op));
    if (!b)
        cpu_fault(c, SIGSEGV, 1, rip); /* out of host memory: nothing better to do */
    memset(b, 0, sizeof(*b));
    b->start = rip;
    b->end = pc;
    b->nops = n;
    memcpy(b->ops, ops, n * sizeof(struct op));
    memset(&b->ops[n], 0, sizeof(struct op));
    b->ops[n].fn = op_block_end;
    struct cpu_cache *k = c->cache;
    for (uint64_t p = mm_page_down(rip); p < pc; p += MM_PAGE_SIZE)
        page_add(k, p, b);
    unsigned h = hash_rip(rip);
    b->hnext = k->hash[h];
    k->hash[h] = b;
    return b;
}

void cpu_decode_single(struct cpu *c, struct op *op)
{
    unsigned avail = fetchable(c, c->rip);
    bool ends;
    if (avail == 0 || cpu_decode_one(c, c->rip, c->mm->base + c->rip, avail, op, &ends, NULL) == 0)
        cpu_fault(c, SIGSEGV, mm_find_vma(c->mm, c->rip + avail) ? 2 : 1, c->rip + avail);
}

struct block *cpu_block_lookup(struct cpu *c, uint64_t rip)
{
    struct cpu_cache *k = c->cache;
    for (struct block *b = k->hash[hash_rip(rip)]; b; b = b->hnext)
        if (b->start == rip)
            return b;
    return decode_block(c, rip);
}

void cpu_cache_free_retired(struct cpu *c)
{
    struct cpu_cache *k = c->cache;
    while (k->hot.retired) {
        struct block *b = k->hot.retired;
        k->hot.retired = b->rnext;
        /* Drop it from the page lists of other pages it spans. */
        for (uint64_t p = mm_page_down(b->start); p < b->end; p += MM_PAGE_SIZE) {
            struct page_entry *pe = page_get(k, p, false);
            for (uint32_t i = 0; pe && i < pe->n; i++)
                if (pe->v[i] == b)
                    pe->v[i--] = pe->v[--pe->n];
        }
        free(b);
    }
}


int cpu_cache_create(struct cpu *c)
{
    struct cpu_cache *k = calloc(1, sizeof(*k));
    if (!k)
        return -ENOMEM;
    k->mm = c->mm;
    k->hot.epoch = 1;
    c->cache = k;
    current_cache = k;
    mm_fault_set_code_hook(code_write_hook);
    return 0;
}

void cpu_cache_destroy(struct cpu *c)
{
    struct cpu_cache *k = c->cache;
    if (!k)
        return;
    for (unsigned i = 0; i < (1u << HASH_BITS); i++)
        for (struct block *b = k->hash[i]; b;) {
            struct block *n = b->hnext;
            free(b);
            b = n;
        }
    cpu_cache_free_retired(c);
    for (unsigned i = 0; i < (1u << PAGE_HASH_BITS); i++)
        while (k->pages[i])
            page_forget(k, k->pages[i]);
    if (current_cache == k)
        current_cache = NULL;
    free(k);
    c->cache = NULL;
}
