/* mremap's two host operations on the guest space: moving a mapping and
 * growing one in place.  Both use the host's mremap(2) on the host's
 * mapping of the guest range, which carries the contents, the protection
 * and the file or shared-memory backing along; the VMA list follows.
 *
 * The space is one host reservation, so every guest range is mapped on the
 * host at all times (a guest hole is PROT_NONE reserve).  Moving leaves the
 * old host range unmapped until it is reserved again a few instructions
 * later, and growing in place needs the reserve after the mapping taken
 * away first: in those windows a host mmap(NULL) by another thread of
 * elfemu could in principle land there.  The host kernel places such
 * mappings top-down in the highest free gap, which lies above the
 * reservation, so this does not happen in practice; MREMAP_DONTUNMAP
 * avoids the first window where the sizes allow it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mm/space.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

static int reserve(struct mm_space *mm, uint64_t start, uint64_t len)
{
    void *p = mmap(mm->base + start, len, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return p == MAP_FAILED ? -errno : 0;
}

/* A copy of the VMA at addr with its own name, or -EFAULT. */
static int vma_copy(struct mm_space *mm, uint64_t addr, struct mm_vma *out)
{
    const struct mm_vma *v = mm_vmas_find(&mm->vmas, addr);
    if (!v)
        return -EFAULT;
    *out = *v;
    out->name = strdup(v->name ? v->name : "");
    return out->name ? 0 : -ENOMEM;
}

int mm_move(struct mm_space *mm, uint64_t old, uint64_t old_len, uint64_t new, uint64_t new_len,
            bool keep_old)
{
    mm_lock(mm);
    struct mm_vma v;
    int err = vma_copy(mm, old, &v);
    if (err) {
        mm_unlock(mm);
        return err;
    }
    if (old_len > v.end - old) {
        free(v.name);
        mm_unlock(mm);
        return -EFAULT;
    }
    /* Same size: DONTUNMAP leaves the old host range mapped (emptied, for
     * private anonymous memory), so it never becomes a hole. */
    bool dontunmap = keep_old || old_len == new_len;
    void *p = mremap(mm->base + old, old_len, new_len,
                     MREMAP_MAYMOVE | MREMAP_FIXED | (dontunmap ? MREMAP_DONTUNMAP : 0),
                     mm->base + new);
    if (p == MAP_FAILED && dontunmap && !keep_old) /* a host too old for DONTUNMAP here */
        p = mremap(mm->base + old, old_len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, mm->base + new);
    if (p == MAP_FAILED) {
        err = -errno;
    } else {
        struct mm_vma nv = v;
        nv.offset = v.offset + (old - v.start);
        nv.start = new;
        nv.end = new + new_len;
        err = mm_vmas_insert(&mm->vmas, &nv);
        if (!keep_old) {
            int e = reserve(mm, old, old_len);
            if (!e)
                e = mm_vmas_remove(&mm->vmas, old, old + old_len);
            if (!err)
                err = e;
        }
    }
    free(v.name);
    mm_unlock(mm);
    return err;
}

int mm_expand(struct mm_space *mm, uint64_t addr, uint64_t old_len, uint64_t new_len)
{
    mm_lock(mm);
    struct mm_vma v;
    int err = vma_copy(mm, addr, &v);
    if (err) {
        mm_unlock(mm);
        return err;
    }
    uint64_t grow = new_len - old_len;
    if (v.end != addr + old_len || munmap(mm->base + v.end, grow) != 0) {
        err = v.end != addr + old_len ? -EFAULT : -errno;
    } else if (mremap(mm->base + addr, old_len, new_len, 0) == MAP_FAILED) {
        err = -errno;
        reserve(mm, v.end, grow);
    } else {
        v.end = addr + new_len;
        err = mm_vmas_insert(&mm->vmas, &v);
    }
    free(v.name);
    mm_unlock(mm);
    return err;
}
