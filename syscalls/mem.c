/* Memory: brk, mmap, munmap, mprotect, madvise, mremap, mincore, msync and
 * the mlock family -- all inside the guest
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Linux's limit for an address a mmap may return: TASK_SIZE, one page below
 * the top of the space, or for a 32-bit process IA32_PAGE_OFFSET, two pages
 * below 4 GiB. */
static uint64_t task_size(const struct cpu *c)
{
    return c->bits == 32 ? 0xffffe000ull : c->mm->size - MM_PAGE_SIZE;
}

static bool range_free(const struct mm_space *mm, uint64_t start, uint64_t len)
{
    for (size_t i = 0; i < mm->vmas.n; i++)
        if (mm->vmas.v[i].start < start + len && mm->vmas.v[i].end > start)
            return false;
    return true;
}

/* is_data_mapping(): private, writable, not the stack. */
static bool is_data(const struct mm_vma *v)
{
    return (v->prot & PROT_WRITE) && !(v->flags & (MM_VMA_SHARED | MM_VMA_GROWSDOWN));
}

/* Bytes of the guest's mappings inside [start, end); with data_only, of
 * the private writable ones that are not the stack (is_data_mapping()). */
static uint64_t mapped_bytes(const struct mm_space *mm, uint64_t start, uint64_t end, bool data_only)
{
    uint64_t n = 0;
    for (size_t i = 0; i < mm->vmas.n; i++) {
        const struct mm_vma *v = &mm->vmas.v[i];
        if (data_only && !is_data(v))
            continue;
        uint64_t lo = v->start > start ? v->start : start, hi = v->end < end ? v->end : end;
        if (lo < hi)
            n += hi - lo;
    }
    return n;
}

/* may_expand_vm(): can the guest map len more bytes (data: a private
 * writable mapping) of which `replaced` bytes of old mappings go away,
 * within its RLIMIT_AS and RLIMIT_DATA?  (The guest's limits are elfemu's
 * own: the host process runs without them, see resource.c.)  A soft
 * RLIMIT_DATA of 0 is compared with the hard limit instead, Linux's
 * exception for Valgrind. */
static bool may_expand(struct cpu *c, uint64_t len, uint64_t replaced, uint64_t replaced_data,
                       bool data)
{
    const struct mm_space *mm = c->mm;
    uint64_t as = sys_guest_rlimit(RLIMIT_AS);
    if (as != RLIM_INFINITY &&
        (mapped_bytes(mm, 0, UINT64_MAX, false) - replaced + len) / MM_PAGE_SIZE > as / MM_PAGE_SIZE)
        return false;
    uint64_t dl = sys_guest_rlimit(RLIMIT_DATA);
    if (!data || dl == RLIM_INFINITY)
        return true;
    uint64_t pages = (mapped_bytes(mm, 0, UINT64_MAX, true) - replaced_data + len) / MM_PAGE_SIZE;
    if (pages <= dl / MM_PAGE_SIZE)
        return true;
    uint64_t dmax = sys_guest_rlimit_max(RLIMIT_DATA);
    return dl == 0 && (dmax == RLIM_INFINITY || pages <= dmax / MM_PAGE_SIZE);
}

/* A file's name for /proc/self/maps: the path the descriptor refers to. */
static void fd_name(int fd, char *buf, size_t size)
{
    char link[64];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, size - 1);
    buf[n > 0 ? n : 0] = 0;
}

/* Whether the host takes a mapping type elfemu maps as a private one: the
 * MAP_DROPPABLE of Linux 6.11 (its pages may be dropped under memory
 * pressure, so keeping them is a valid implementation), and what newer
 * kernels add.  The guest sees what the host kernel accepts. */
static bool host_takes_type(int flags)
{
    void *p = mmap(NULL, MM_PAGE_SIZE, PROT_NONE, (flags & MAP_TYPE) | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return false;
    munmap(p, MM_PAGE_SIZE);
    return true;
}

/* MAP_HUGETLB of an anonymous mapping: the host decides whether the page
 * size exists (EINVAL) and whether huge pages are free (ENOMEM); when it
 * has them, the guest gets ordinary pages, which no program can tell
 * apart but by alignment.  0 or -errno. */
static int host_hugetlb(uint64_t len, int flags)
{
    int huge = MAP_HUGETLB | (flags & (0x3f << MAP_HUGE_SHIFT));
    void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | huge, -1, 0);
    if (p == MAP_FAILED)
        return -errno;
    munmap(p, len);
    return 0;
}

/* The checks of mmap in the order of Linux's ksys_mmap_pgoff() and
 * do_mmap(), so a call with several bad arguments fails as natively:
 * offset alignment (x86_64 mmap only: mmap2 counts pages), the descriptor,
 * huge pages, the length, the offset's overflow, the address range, an
 * occupied MAP_FIXED_NOREPLACE range, and the mapping type last.  Unknown
 * prot bits are ignored, as the kernel does. */
static int64_t do_mmap(struct cpu *c, const uint64_t a[6])
{
    uint64_t addr = a[0], len = a[1], off = a[5];
    int prot = (int)a[2] & (PROT_READ | PROT_WRITE | PROT_EXEC), flags = (int)a[3];
    int fd = (int)a[4];
    if (off & (MM_PAGE_SIZE - 1))
        return -EINVAL;
    bool anon = flags & MAP_ANONYMOUS;
    struct stat st;
    if (!anon && fstat(fd, &st) != 0)
        return -EBADF;
    if (!anon && (flags & MAP_HUGETLB))
        return -EINVAL; /* elfemu maps no hugetlbfs files */
    if (anon && (flags & MAP_HUGETLB)) {
        int e = host_hugetlb(len ? len : MM_PAGE_SIZE, flags);
        if (e)
            return e;
    }
    if (len == 0)
        return -EINVAL;
    uint64_t plen = mm_page_up(len);
    if (plen < len)
        return -ENOMEM;
    uint64_t pgoff = off / MM_PAGE_SIZE;
    if (pgoff + plen / MM_PAGE_SIZE < pgoff)
        return -EOVERFLOW;
    if (plen > task_size(c))
        return -ENOMEM;
    /* MAP_FIXED_NOREPLACE is a MAP_FIXED that refuses occupied ranges. */
    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
        if (addr > task_size(c) - plen)
            return -ENOMEM;
        if (addr & (MM_PAGE_SIZE - 1))
            return -EINVAL;
        if ((flags & MAP_FIXED_NOREPLACE) && !range_free(c->mm, addr, plen))
            return -EEXIST;
    }
    int type = flags & MAP_TYPE;
    if (type != MAP_PRIVATE && type != MAP_SHARED &&
        (type != MAP_SHARED_VALIDATE || anon) && !(anon && host_takes_type(flags)))
        return -EINVAL;
    if (type != MAP_PRIVATE && type != MAP_SHARED && type != MAP_SHARED_VALIDATE)
        type = MAP_PRIVATE;

    uint64_t start;
    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
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
    /* mmap_region(): the pages a MAP_FIXED mapping replaces are not counted twice. */
    if (!may_expand(c, plen, mapped_bytes(c->mm, start, start + plen, false),
                    mapped_bytes(c->mm, start, start + plen, true),
                    type == MAP_PRIVATE && (prot & PROT_WRITE)))
        return -ENOMEM;
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
    /* mprotect_fixup(): making private read-only memory writable turns it
     * into data, which RLIMIT_DATA must allow (checked for the whole range
     * here; Linux checks VMA by VMA and keeps the ones done before). */
    if (prot & PROT_WRITE) {
        uint64_t ro = 0;
        for (size_t i = 0; i < c->mm->vmas.n; i++) {
            const struct mm_vma *v = &c->mm->vmas.v[i];
            uint64_t lo = v->start > addr ? v->start : addr;
            uint64_t hi = v->end < addr + len ? v->end : addr + len;
            if (lo < hi && !(v->prot & PROT_WRITE) && !(v->flags & (MM_VMA_SHARED | MM_VMA_GROWSDOWN)))
                ro += hi - lo;
        }
        if (ro && may_expand(c, ro, 0, 0, false) && !may_expand(c, ro, 0, 0, true))
            return -ENOMEM;
    }
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
    /* check_data_rlimit(): the heap and the data segment together. */
    uint64_t dl = sys_guest_rlimit(RLIMIT_DATA);
    if (dl != RLIM_INFINITY && want > mm->brk &&
        (want - mm->brk_start) + (mm->end_data - mm->start_data) > dl)
        return (int64_t)mm->brk;
    uint64_t old_top = mm_page_up(mm->brk), new_top = mm_page_up(want);
    if (new_top > old_top) {
        if (!range_free(mm, old_top, new_top - old_top))
            return (int64_t)mm->brk;
        if (!may_expand(c, new_top - old_top, 0, 0, true))
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

/* ------------------------------------------------------------ mremap */

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

/* Forget the decoded code of a range and give the range back to the
 * reservation (munmap's work inside mremap). */
static int unmap_range(struct cpu *c, uint64_t addr, uint64_t len)
{
    if (!len)
        return 0;
    cpu_invalidate(c, addr, addr + len);
    return mm_unmap(c->mm, addr, len);
}

static int64_t move_to(struct cpu *c, uint64_t addr, uint64_t old_len, uint64_t new_addr,
                       uint64_t new_len, bool dontunmap)
{
    cpu_invalidate(c, addr, addr + old_len);
    cpu_invalidate(c, new_addr, new_addr + new_len);
    int e = mm_move(c->mm, addr, old_len, new_addr, new_len, dontunmap);
    return e ? e : (int64_t)new_addr;
}

/* mremap_to(): to the guest's address (MREMAP_FIXED) or, with
 * MREMAP_DONTUNMAP alone, to one we pick. */
static int64_t mremap_to(struct cpu *c, uint64_t addr, uint64_t old_len, uint64_t new_addr,
                         uint64_t new_len, int flags)
{
    if (flags & MREMAP_FIXED) {
        if (new_addr & (MM_PAGE_SIZE - 1))
            return -EINVAL;
        if (new_len > task_size(c) || new_addr > task_size(c) - new_len)
            return -EINVAL;
        if (new_addr < addr + old_len && addr < new_addr + new_len)
            return -EINVAL; /* the ranges overlap */
        int e = unmap_range(c, new_addr, new_len);
        if (e)
            return e;
    }
    if (old_len > new_len) {
        int e = unmap_range(c, addr + new_len, old_len - new_len);
        if (e)
            return e;
        old_len = new_len;
    }
    const struct mm_vma *v = mm_find_vma(c->mm, addr);
    if (!v || old_len > v->end - addr)
        return -EFAULT;
    /* vma_to_resize() and the kept old range of MREMAP_DONTUNMAP. */
    if ((new_len > old_len && !may_expand(c, new_len - old_len, 0, 0, is_data(v))) ||
        ((flags & MREMAP_DONTUNMAP) && !may_expand(c, old_len, 0, 0, is_data(v))))
        return -ENOMEM;
    if (!(flags & MREMAP_FIXED)) {
        new_addr = mm_find_free(c->mm, new_len, MM_PAGE_SIZE);
        if (!new_addr)
            return -ENOMEM;
    }
    return move_to(c, addr, old_len, new_addr, new_len, flags & MREMAP_DONTUNMAP);
}

/* mremap(addr, old_len, new_len, flags, new_addr), in the kernel's order. */
static int64_t do_mremap(struct cpu *c, const uint64_t a[6])
{
    uint64_t addr = a[0], old_len = a[1], new_len = a[2], new_addr = a[4];
    int flags = (int)a[3];
    if (flags & ~(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
        return -EINVAL;
    if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
        return -EINVAL;
    if ((flags & MREMAP_DONTUNMAP) && (!(flags & MREMAP_MAYMOVE) || old_len != new_len))
        return -EINVAL;
    if (addr & (MM_PAGE_SIZE - 1))
        return -EINVAL;
    old_len = mm_page_up(old_len);
    new_len = mm_page_up(new_len);
    if (new_len == 0 || new_len < a[2])
        return -EINVAL;
    if (old_len == 0 && a[1] != 0)
        return -EINVAL; /* overflowed */
    const struct mm_vma *v = mm_find_vma(c->mm, addr);
    if (!v)
        return -EFAULT;
    /* An old size of 0 duplicates a shared mapping: not served. */
    if (old_len == 0)
        return (v->flags & MM_VMA_SHARED) ? -ENOSYS : -EINVAL;
    if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP))
        return mremap_to(c, addr, old_len, new_addr, new_len, flags);
    if (old_len >= new_len) { /* shrinking: the tail goes */
        int e = unmap_range(c, addr + new_len, old_len - new_len);
        return e ? e : (int64_t)addr;
    }
    if (old_len > v->end - addr)
        return -EFAULT;
    if (!may_expand(c, new_len - old_len, 0, 0, is_data(v)))
        return -ENOMEM;
    /* Growing: in place when the mapping ends there and the space after it
     * is free, else moved if allowed. */
    uint64_t grow = new_len - old_len;
    if (old_len == v->end - addr && v->end <= task_size(c) - grow &&
        range_free(c->mm, v->end, grow)) {
        cpu_invalidate(c, addr, addr + new_len);
        int e = mm_expand(c->mm, addr, old_len, new_len);
        return e ? e : (int64_t)addr;
    }
    if (!(flags & MREMAP_MAYMOVE))
        return -ENOMEM;
    uint64_t to = mm_find_free(c->mm, new_len, MM_PAGE_SIZE);
    if (!to)
        return -ENOMEM;
    return move_to(c, addr, old_len, to, new_len, false);
}

/* ------------------------------------------------------------ residency, sync, locks */

/* Is [addr, addr+len) covered by mappings with no hole? */
static bool range_mapped(struct cpu *c, uint64_t addr, uint64_t len)
{
    for (uint64_t p = addr; p < addr + len;) {
        const struct mm_vma *v = mm_find_vma(c->mm, p);
        if (!v)
            return false;
        p = v->end;
    }
    return true;
}

/* mincore(addr, len, vec): one byte per page; the host's answer for the
 * host pages that are the guest's. */
static int64_t do_mincore(struct cpu *c, const uint64_t a[6])
{
    uint64_t addr = a[0], len = mm_page_up(a[1]);
    if (addr & (MM_PAGE_SIZE - 1))
        return -EINVAL;
    if (len < a[1] || addr > task_size(c) || len > task_size(c) - addr)
        return -ENOMEM;
    if (len == 0)
        return 0;
    if (!range_mapped(c, addr, len))
        return -ENOMEM;
    return host_ret(mincore(c->mm->base + addr, len,
                            guest_ptr(c, a[2], len / MM_PAGE_SIZE, PROT_WRITE)));
}

/* msync(addr, len, flags): the host syncs its mapping; a hole in the range
 * is -ENOMEM after the rest was synced, as the kernel reports it. */
static int64_t do_msync(struct cpu *c, const uint64_t a[6])
{
    uint64_t addr = a[0], len = mm_page_up(a[1]);
    int flags = (int)a[2];
    if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC))
        return -EINVAL;
    if (addr & (MM_PAGE_SIZE - 1))
        return -EINVAL;
    if ((flags & MS_ASYNC) && (flags & MS_SYNC))
        return -EINVAL;
    if (len < a[1] || addr + len < addr)
        return -ENOMEM;
    if (len == 0)
        return 0;
    if (addr > task_size(c) || len > task_size(c) - addr)
        return -ENOMEM;
    int64_t r = host_ret(msync(c->mm->base + addr, len, flags));
    return r == 0 && !range_mapped(c, addr, len) ? -ENOMEM : r;
}

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif
#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif

/* mlock2(addr, len, flags) and friends on the page-rounded range: the host
 * locks the host pages that are the guest's (its RLIMIT_MEMLOCK and
 * permission checks are the guest's, the process being the same). */
static int64_t lock_range(struct cpu *c, uint64_t addr, uint64_t len, int flags, bool lock)
{
    /* do_mlock(): the length grows by the offset in the first page and is
     * rounded up, both modulo 2^64; a range that wraps is -EINVAL. */
    uint64_t start = mm_page_down(addr);
    uint64_t end = start + mm_page_up(len + (addr - start));
    if (end < start)
        return -EINVAL;
    if (end == start)
        return 0;
    if (end > task_size(c) || !range_mapped(c, start, end - start))
        return -ENOMEM;
    void *p = c->mm->base + start;
    if (!lock)
        return host_ret(munlock(p, end - start));
    return host_ret(syscall(SYS_mlock2, p, end - start, flags));
}

static int64_t do_mlock(struct cpu *c, const uint64_t a[6])
{
    return lock_range(c, a[0], a[1], 0, true);
}

static int64_t do_mlock2(struct cpu *c, const uint64_t a[6])
{
    if ((unsigned)a[2] & ~(unsigned)MLOCK_ONFAULT)
        return -EINVAL;
    return lock_range(c, a[0], a[1], (int)a[2], true);
}

static int64_t do_munlock(struct cpu *c, const uint64_t a[6])
{
    return lock_range(c, a[0], a[1], 0, false);
}

/* mlockall(flags): MCL_CURRENT locks each guest mapping (not the whole
 * reservation, which is elfemu's); MCL_FUTURE is the host's, so what the
 * guest maps later is locked by the host kernel as it is mapped. */
static int64_t do_mlockall(struct cpu *c, const uint64_t a[6])
{
    int flags = (int)a[0];
    if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || flags == MCL_ONFAULT)
        return -EINVAL;
    if (flags & MCL_FUTURE) {
        int64_t r = host_ret(mlockall(MCL_FUTURE | (flags & MCL_ONFAULT)));
        if (r)
            return r;
    }
    if (flags & MCL_CURRENT) {
        int lf = (flags & MCL_ONFAULT) ? MLOCK_ONFAULT : 0;
        for (size_t i = 0; i < c->mm->vmas.n; i++) {
            const struct mm_vma *v = &c->mm->vmas.v[i];
            if (!(v->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
                continue; /* the kernel skips inaccessible mappings too */
            int64_t r = host_ret(syscall(SYS_mlock2, c->mm->base + v->start, v->end - v->start, lf));
            if (r)
                return r;
        }
    }
    return 0;
}

static int64_t do_munlockall(struct cpu *c, const uint64_t a[6])
{
    (void)a;
    (void)c;
    return host_ret(munlockall());
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
LOCKED(mremap)
LOCKED(mincore)
LOCKED(msync)
LOCKED(mlock)
LOCKED(mlock2)
LOCKED(munlock)
LOCKED(mlockall)
LOCKED(munlockall)
