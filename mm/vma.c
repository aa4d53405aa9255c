/* The VMA list: a sorted array of non-overlapping guest mappings.
 *
 * Pure bookkeeping (no host calls), so the splitting and merging rules are
 * unit-tested on their own.  Like Linux's vma_merge(), two neighbours merge
 * when they touch and nothing visible in /proc/self/maps would tell them
 * apart: same protection, flags, name and, for files, contiguous offsets. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm/space.h"

static bool vma_can_merge(const struct mm_vma *a, const struct mm_vma *b)
{
    if (a->end != b->start || a->prot != b->prot || a->flags != b->flags)
        return false;
    if (strcmp(a->name, b->name) != 0 || a->dev != b->dev || a->ino != b->ino)
        return false;
    if (!(a->flags & MM_VMA_ANON) && a->offset + (a->end - a->start) != b->offset)
        return false;
    return true;
}

static int vmas_reserve(struct mm_vmas *l, size_t extra)
{
    if (l->n + extra <= l->cap)
        return 0;
    size_t cap = l->cap ? l->cap * 2 : 32;
    while (cap < l->n + extra)
        cap *= 2;
    struct mm_vma *v = realloc(l->v, cap * sizeof(*v));
    if (!v)
        return -ENOMEM;
    l->v = v;
    l->cap = cap;
    return 0;
}

/* Index of the first VMA whose end is above addr (may be l->n). */
static size_t vmas_lower_bound(const struct mm_vmas *l, uint64_t addr)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->v[mid].end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const struct mm_vma *mm_vmas_find(const struct mm_vmas *l, uint64_t addr)
{
    size_t i = vmas_lower_bound(l, addr);
    if (i < l->n && l->v[i].start <= addr)
        return &l->v[i];
    return NULL;
}

/* Make start and end VMA boundaries, splitting the VMAs that straddle them. */
static int vmas_split_at(struct mm_vmas *l, uint64_t addr)
{
    size_t i = vmas_lower_bound(l, addr);
    if (i >= l->n || l->v[i].start >= addr)
        return 0;
    int err = vmas_reserve(l, 1);
    if (err)
        return err;
    char *name = strdup(l->v[i].name);
    if (!name)
        return -ENOMEM;
    memmove(&l->v[i + 1], &l->v[i], (l->n - i) * sizeof(l->v[0]));
    l->n++;
    struct mm_vma *lo = &l->v[i], *hi = &l->v[i + 1];
    hi->name = name;
    hi->start = addr;
    if (!(hi->flags & MM_VMA_ANON))
        hi->offset += addr - lo->start;
    lo->end = addr;
    return 0;
}

/* Merge l->v[i] with l->v[i+1] when allowed; returns true if merged. */
static bool vmas_merge_next(struct mm_vmas *l, size_t i)
{
    if (i + 1 >= l->n || !vma_can_merge(&l->v[i], &l->v[i + 1]))
        return false;
    l->v[i].end = l->v[i + 1].end;
    free(l->v[i + 1].name);
    memmove(&l->v[i + 1], &l->v[i + 2], (l->n - i - 2) * sizeof(l->v[0]));
    l->n--;
    return true;
}

/* Merge around the range of indexes [first, last] after a change. */
static void vmas_merge_range(struct mm_vmas *l, size_t first, size_t last)
{
    size_t i = first > 0 ? first - 1 : 0;
    size_t stop = last + 1;
    while (i < stop && i + 1 < l->n) {
        if (vmas_merge_next(l, i))
            stop--;
        else
            i++;
    }
}

int mm_vmas_remove(struct mm_vmas *l, uint64_t start, uint64_t end)
{
    if (start >= end)
        return 0;
    int err = vmas_split_at(l, start);
    if (!err)
        err = vmas_split_at(l, end);
    if (err)
        return err;
    size_t i = vmas_lower_bound(l, start), j = i;
    while (j < l->n && l->v[j].end <= end)
        free(l->v[j++].name);
    if (j > i) {
        memmove(&l->v[i], &l->v[j], (l->n - j) * sizeof(l->v[0]));
        l->n -= j - i;
    }
    return 0;
}

int mm_vmas_insert(struct mm_vmas *l, const struct mm_vma *v)
{
    int err = mm_vmas_remove(l, v->start, v->end);
    if (!err)
        err = vmas_reserve(l, 1);
    if (err)
        return err;
    char *name = strdup(v->name ? v->name : "");
    if (!name)
        return -ENOMEM;
    size_t i = vmas_lower_bound(l, v->start);
    memmove(&l->v[i + 1], &l->v[i], (l->n - i) * sizeof(l->v[0]));
    l->n++;
    l->v[i] = *v;
    l->v[i].name = name;
    vmas_merge_range(l, i, i);
    return 0;
}

int mm_vmas_protect(struct mm_vmas *l, uint64_t start, uint64_t end, int prot)
{
    if (start >= end)
        return 0;
    int err = vmas_split_at(l, start);
    if (!err)
        err = vmas_split_at(l, end);
    if (err)
        return err;
    size_t i = vmas_lower_bound(l, start), j = i;
    for (; j < l->n && l->v[j].start < end; j++)
        l->v[j].prot = prot;
    if (j > i)
        vmas_merge_range(l, i, j - 1);
    return 0;
}

void mm_vmas_free(struct mm_vmas *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].name);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}
