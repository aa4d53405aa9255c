/* The guest address space: reservation, mappings, protections, copies.
 *
 * Unmapping never gives memory back to the host: the range is replaced by a
 * fresh PROT_NONE reservation, so nothing else in the emulator can ever be
 * placed inside the guest's space. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "mm/space.h"

/* Like Linux's vm.mmap_min_addr: the lowest address mmap hands out. */
#define MM_MMAP_MIN 0x10000ull

/* The host never executes guest code, so guest PROT_EXEC is bookkeeping
 * only; on x86 an executable page is also readable. */
static int host_prot(int prot)
{
    int p = prot & (PROT_READ | PROT_WRITE);
    if (prot & PROT_EXEC)
        p |= PROT_READ;
    return p;
}

/* ------------------------------------------------------------ the lock */

/* A per-thread token: its address tells the threads apart without a
 * syscall, and stays unique while the thread lives. */
static __thread char self_token;

static struct mm_lock *lock_of(const struct mm_space *mm)
{
    return (struct mm_lock *)&mm->lock; /* the lock is mutable even in a const space */
}

void mm_lock(const struct mm_space *mm)
{
    struct mm_lock *l = lock_of(mm);
    if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == &self_token) {
        l->depth++;
        return;
    }
    pthread_mutex_lock(&l->m);
    __atomic_store_n(&l->owner, &self_token, __ATOMIC_RELAXED);
    l->depth = 1;
}

void mm_unlock(const struct mm_space *mm)
{
    struct mm_lock *l = lock_of(mm);
    if (--l->depth == 0) {
        __atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&l->m);
    }
}

void mm_lock_release_all(const struct mm_space *mm)
{
    struct mm_lock *l = lock_of(mm);
    if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == &self_token) {
        l->depth = 1;
        mm_unlock(mm);
    }
}

void mm_lock_reset(struct mm_space *mm)
{
    pthread_mutex_init(&mm->lock.m, NULL);
    mm->lock.owner = NULL;
    mm->lock.depth = 0;
}

/* ------------------------------------------------------------ the space */

int mm_space_init(struct mm_space *mm, int bits)
{
    memset(mm, 0, sizeof(*mm));
    mm_lock_reset(mm);
    mm->bits = bits;
    mm->size = bits == 32 ? (1ull << 32) : (1ull << 46);
    /* A 32-bit guest's pointer plus length stays below 8 GiB: reserving
     * that much lets the host kernel fault on what lies past 4 GiB exactly
     * where a 32-bit process faults (nothing is mapped there), instead of
     * refusing the whole range up front (see guest_ptr). */
    mm->reserved = bits == 32 ? 2 * mm->size : mm->size + MM_GUARD;
    void *p = mmap(NULL, mm->reserved, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -errno;
    mm->base = p;
    return 0;
}

void mm_space_destroy(struct mm_space *mm)
{
    if (mm->base)
        munmap(mm->base, mm->reserved);
    mm_vmas_free(&mm->vmas);
    mm->base = NULL;
}

static bool range_ok(const struct mm_space *mm, uint64_t start, uint64_t len)
{
    return len > 0 && (start & ~MM_PAGE_MASK) == 0 && mm_g2h(mm, start, len) != NULL;
}

static int reserve_again(struct mm_space *mm, uint64_t start, uint64_t len)
{
    void *p = mmap(mm->base + start, len, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return p == MAP_FAILED ? -errno : 0;
}

/* do_mmap()/mprotect(): under READ_IMPLIES_EXEC a readable mapping is executable. */
static int guest_prot(const struct mm_space *mm, int prot)
{
    return (mm->read_implies_exec && (prot & PROT_READ)) ? prot | PROT_EXEC : prot;
}

int mm_map_anon(struct mm_space *mm, uint64_t start, uint64_t len, int prot, int flags,
                const char *name)
{
    prot = guest_prot(mm, prot);
    len = mm_page_up(len);
    if (!range_ok(mm, start, len))
        return -EINVAL;
    int share = (flags & MM_VMA_SHARED) ? MAP_SHARED : MAP_PRIVATE;
    mm_lock(mm);
    void *p = mmap(mm->base + start, len, host_prot(prot),
                   share | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    int err = p == MAP_FAILED ? -errno : 0;
    if (!err) {
        struct mm_vma v = { .start = start, .end = start + len, .prot = prot,
                            .flags = flags | MM_VMA_ANON, .name = (char *)name };
        err = mm_vmas_insert(&mm->vmas, &v);
        if (err)
            reserve_again(mm, start, len);
    }
    mm_unlock(mm);
    return err;
}

int mm_map_file(struct mm_space *mm, uint64_t start, uint64_t len, int prot, int flags, int fd,
                uint64_t offset, const char *name)
{
    prot = guest_prot(mm, prot);
    len = mm_page_up(len);
    if (!range_ok(mm, start, len) || (offset & ~MM_PAGE_MASK))
        return -EINVAL;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    int share = (flags & MM_VMA_SHARED) ? MAP_SHARED : MAP_PRIVATE;
    mm_lock(mm);
    void *p = mmap(mm->base + start, len, host_prot(prot), share | MAP_FIXED, fd, (off_t)offset);
    int err = p == MAP_FAILED ? -errno : 0;
    if (!err) {
        struct mm_vma v = { .start = start, .end = start + len, .prot = prot, .flags = flags,
                            .offset = offset, .dev = st.st_dev, .ino = st.st_ino,
                            .name = (char *)name };
        err = mm_vmas_insert(&mm->vmas, &v);
        if (err)
            reserve_again(mm, start, len);
    }
    mm_unlock(mm);
    return err;
}

int mm_unmap(struct mm_space *mm, uint64_t start, uint64_t len)
{
    len = mm_page_up(len);
    if (!range_ok(mm, start, len))
        return -EINVAL;
    mm_lock(mm);
    int err = reserve_again(mm, start, len);
    if (!err)
        err = mm_vmas_remove(&mm->vmas, start, start + len);
    mm_unlock(mm);
    return err;
}

int mm_protect(struct mm_space *mm, uint64_t start, uint64_t len, int prot)
{
    prot = guest_prot(mm, prot);
    len = mm_page_up(len);
    if (!range_ok(mm, start, len))
        return -EINVAL;
    mm_lock(mm);
    int err = 0;
    /* Like mprotect(2): every page of the range must be mapped. */
    for (uint64_t a = start; a < start + len && !err;) {
        const struct mm_vma *v = mm_vmas_find(&mm->vmas, a);
        if (!v)
            err = -ENOMEM;
        else
            a = v->end;
    }
    if (!err && mprotect(mm->base + start, len, host_prot(prot)) != 0)
        err = -errno;
    if (!err)
        err = mm_vmas_protect(&mm->vmas, start, start + len, prot);
    mm_unlock(mm);
    return err;
}

uint64_t mm_find_free(const struct mm_space *mm, uint64_t len, uint64_t align)
{
    len = mm_page_up(len);
    if (align < MM_PAGE_SIZE)
        align = MM_PAGE_SIZE;
    uint64_t hi = mm->mmap_base ? mm->mmap_base : mm->size;
    if (len == 0 || len > hi)
        return 0;
    uint64_t found = 0;
    mm_lock(mm);
    /* Walk the gaps from the top down, like the kernel's top-down
     * unmapped_area_topdown(). */
    for (size_t i = mm->vmas.n + 1; i-- > 0;) {
        uint64_t gap_lo = i > 0 ? mm->vmas.v[i - 1].end : MM_MMAP_MIN;
        uint64_t gap_hi = i < mm->vmas.n ? mm->vmas.v[i].start : mm->size;
        if (gap_hi > hi)
            gap_hi = hi;
        if (gap_lo >= gap_hi || gap_hi - gap_lo < len)
            continue;
        uint64_t a = (gap_hi - len) & ~(align - 1);
        if (a >= gap_lo) {
            found = a;
            break;
        }
    }
    mm_unlock(mm);
    return found;
}

const struct mm_vma *mm_find_vma(const struct mm_space *mm, uint64_t addr)
{
    return mm_vmas_find(&mm->vmas, addr);
}

int mm_prot_at(const struct mm_space *mm, uint64_t addr)
{
    mm_lock(mm);
    const struct mm_vma *v = mm_vmas_find(&mm->vmas, addr);
    int prot = v ? v->prot : -1;
    mm_unlock(mm);
    return prot;
}

bool mm_code_protect(const struct mm_space *mm, uint64_t page)
{
    mm_lock(mm);
    const struct mm_vma *v = mm_vmas_find(&mm->vmas, page);
    bool done = v && (v->prot & PROT_WRITE) &&
                mprotect(mm->base + page, MM_PAGE_SIZE, host_prot(v->prot) & ~PROT_WRITE) == 0;
    mm_unlock(mm);
    return done;
}

void mm_code_unprotect(const struct mm_space *mm, uint64_t page)
{
    mm_lock(mm);
    const struct mm_vma *v = mm_vmas_find(&mm->vmas, page);
    if (v)
        mprotect(mm->base + page, MM_PAGE_SIZE, host_prot(v->prot));
    mm_unlock(mm);
}

bool mm_check(const struct mm_space *mm, uint64_t addr, uint64_t len, int prot)
{
    if (len == 0)
        return true;
    if (!mm_g2h(mm, addr, len))
        return false;
    uint64_t end = addr + len;
    bool ok = true;
    mm_lock(mm);
    while (addr < end) {
        const struct mm_vma *v = mm_vmas_find(&mm->vmas, addr);
        if (!v) {
            ok = false;
            break;
        }
        /* On x86 a writable or executable page is also readable. */
        int have = v->prot;
        if (have & (PROT_WRITE | PROT_EXEC))
            have |= PROT_READ;
        if ((have & prot) != prot) {
            ok = false;
            break;
        }
        addr = v->end;
    }
    mm_unlock(mm);
    return ok;
}

int mm_read(const struct mm_space *mm, uint64_t addr, void *dst, size_t len)
{
    if (!mm_check(mm, addr, len, PROT_READ))
        return -EFAULT;
    return mm_copy_guarded(mm, dst, mm->base + addr, len);
}

int mm_write(const struct mm_space *mm, uint64_t addr, const void *src, size_t len)
{
    if (!mm_check(mm, addr, len, PROT_WRITE))
        return -EFAULT;
    return mm_copy_guarded(mm, mm->base + addr, src, len);
}
