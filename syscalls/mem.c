/* Memory: brk, mmap, munmap, mprotect, madvise -- all inside the guest
 * space through mm/, never outside it.  Decoded code in a range that
 * changes is forgotten first (cpu_invalidate).
 *
 * Guest threads call these in parallel: each call runs whole under the
 * space's lock, so finding a free range and mapping it, or checking a
 * range and changing it, is one step (and a thread decoding code cannot
 * slip in between the invalidation and the change). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Linux's limit for an address a mmap may return: TASK_SIZE, one page below
 * the top of the space. */
static uint64_t task_size(const struct cpu *c)
{
    return c->mm->size - MM_PAGE_SIZE;
}

static bool range_free(const struct mm_space *mm, uint64_t start, uint64_t len)
{
    for (size_t i = 0; i < mm->vmas.n; i++)
        if (mm->vmas.v[i].start < start + len && mm->vmas.v[i].end > start)
            return false;
    return true;
}

/* A file's name for /proc/self/maps: the path the descriptor refers to. */
static void fd_name(int fd, char *buf, size_t size)
{
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, size - 1);
    buf[n > 0 ? n : 0] = 0;
}

static int64_t do_mmap(struct cpu *c, const uint64_t a[6])
{
    uint64_t addr = a[0], len = a[1], off = a[5];
    int prot = (int)a[2], flags = (int)a[3], fd = (int)a[4];
    if (len == 0 || (off & (MM_PAGE_SIZE - 1)))
        return -EINVAL;
    uint64_t plen = mm_page_up(len);
    if (plen < len || plen > task_size(c))
        return -ENOMEM;
    int type = flags & MAP_TYPE;
    if (type != MAP_PRIVATE && type != MAP_SHARED && type != MAP_SHARED_VALIDATE)
        return -EINVAL;
    if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))
        return -EINVAL;
    bool anon = flags & MAP_ANONYMOUS;
    struct stat st;
    if (!anon && fstat(fd, &st) != 0)
        return -EBADF;

    uint64_t start;
    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
        if (addr & (MM_PAGE_SIZE - 1))
            return -EINVAL;
        if (addr > task_size(c) || plen > task_size(c) - addr)
            return -ENOMEM;
        if ((flags & MAP_FIXED_NOREPLACE) && !(flags & MAP_FIXED) && !range_free(c->mm, addr, plen))
            return -EEXIST;
        start = addr;
    } else {
        /* A hint is honoured when the range is free, as get_unmapped_area() does. */
        addr = mm_page_down(addr);
        if (addr && addr <= task_size(c) - plen && addr >= 0x10000 && range_free(c->mm, addr, plen))
            start = addr;
        else if ((flags & MAP_32BIT) && c->bits == 64) {
            uint64_t saved = c->mm->mmap_base;
            c->mm->mmap_base = 0x80000000;
            start = mm_find_free(c->mm, plen, MM_PAGE_SIZE);
            c->mm->mmap_base = saved;
        } else
            start = mm_find_free(c->mm, plen, MM_PAGE_SIZE);
        if (!start)
            return -ENOMEM;
    }
    cpu_invalidate(c, start, start + plen);
    int vflags = (type == MAP_PRIVATE) ? 0 : MM_VMA_SHARED;
    int e;
    if (anon) {
        e = mm_map_anon(c->mm, start, plen, prot, vflags, "");
    } else {
        char name[4096];
        fd_name(fd, name, sizeof(name));
        e = mm_map_file(c->mm, start, plen, prot, vflags, fd, off, name);
    }
    return e ? e : (int64_t)start;
}

static int64_t do_munmap(struct cpu *c, const uint64_t a[6])
{
    uint64_t addr = a[0], len = mm_page_up(a[1]);
    if ((addr & (MM_PAGE_SIZE - 1)) || len == 0 || addr > task_size(c) ||
        len > task_size(c) - addr)
        return -EINVAL;
    cpu_invalidate(c, addr, addr + len);
    return mm_unmap(c->mm, addr, len);
}

static int64_t do_mprotect(struct cpu *c, const uint64_t a[6])
{
    uint64_t addr = a[0], len = mm_page_up(a[1]);
    int prot = (int)a[2];
    if (addr & (MM_PAGE_SIZE - 1))
        return -EINVAL;
    if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_GROWSDOWN | PROT_GROWSUP))
        return -EINVAL;
    if (len == 0)
        return 0;
    if (addr > task_size(c) || len > task_size(c) - addr)
        return -ENOMEM;
    cpu_invalidate(c, addr, addr + len);
    return mm_protect(c->mm, addr, len, prot & (PROT_READ | PROT_WRITE | PROT_EXEC));
}

/* brk: grows and shrinks the [heap] after the program's BSS; a request that
 * would collide with another mapping leaves brk where it was (do_brk()). */
static int64_t do_brk(struct cpu *c, const uint64_t a[6])
{
    struct mm_space *mm = c->mm;
    uint64_t want = a[0];
    if (want < mm->brk_start || want > task_size(c))
        return (int64_t)mm->brk;
    uint64_t old_top = mm_page_up(mm->brk), new_top = mm_page_up(want);
    if (new_top > old_top) {
        if (!range_free(mm, old_top, new_top - old_top))
            return (int64_t)mm->brk;
        if (mm_map_anon(mm, old_top, new_top - old_top, PROT_READ | PROT_WRITE, 0, "[heap]") != 0)
            return (int64_t)mm->brk;
    } else if (new_top < old_top) {
        cpu_invalidate(c, new_top, old_top);
        mm_unmap(mm, new_top, old_top - new_top);
    }
    mm->brk = want;
    return (int64_t)want;
}

static int64_t do_madvise(struct cpu *c, const uint64_t a[6])
{
    uint64_t addr = a[0], len = mm_page_up(a[1]);
    int advice = (int)a[2];
    if (addr & (MM_PAGE_SIZE - 1))
        return -EINVAL;
    if (len == 0)
        return 0;
    if (addr > task_size(c) || len > task_size(c) - addr)
        return -ENOMEM;
    for (uint64_t p = addr; p < addr + len;) {
        const struct mm_vma *v = mm_find_vma(c->mm, p);
        if (!v)
            return -ENOMEM;
        p = v->end;
    }
    /* Guest memory is host memory: the host applies the advice (MADV_DONTNEED
     * really zeroes private anonymous pages, as the guest expects). */
    if (advice == MADV_DONTNEED || advice == MADV_FREE)
        cpu_invalidate(c, addr, addr + len);
    return host_ret(madvise(c->mm->base + addr, len, advice));
}

/* Each call as one step under the space's lock (see the top). */
#define LOCKED(name)                                                \
    int64_t sys_##name(struct cpu *c, const uint64_t a[6])          \
    {                                                               \
        mm_lock(c->mm);                                             \
        int64_t r = do_##name(c, a);                                \
        mm_unlock(c->mm);                                           \
        return r;                                                   \
    }
LOCKED(mmap)
LOCKED(munmap)
LOCKED(mprotect)
LOCKED(brk)
LOCKED(madvise)
