/* The guest address space: one bounded linear reservation per guest.
 *
 * Guest address g lives at host address base + g.  The reservation is
 * 2^32 bytes for ia32 and 2^46 bytes for x86_64, followed by a PROT_NONE
 * guard so that an access of up to MM_GUARD bytes that starts inside the
 * space can never touch emulator memory.  Every guest mapping is a host
 * mmap/mprotect/munmap with MAP_FIXED inside the reservation, so the host
 * MMU enforces the guest's permissions. */
#ifndef MM_SPACE_H
#define MM_SPACE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MM_PAGE_SIZE 4096ull
#define MM_PAGE_MASK (~(MM_PAGE_SIZE - 1))
#define MM_GUARD (1ull << 20)

static inline uint64_t mm_page_down(uint64_t a) { return a & MM_PAGE_MASK; }
static inline uint64_t mm_page_up(uint64_t a) { return (a + MM_PAGE_SIZE - 1) & MM_PAGE_MASK; }

/* VMA flags (ours, not the host's). */
enum {
    MM_VMA_SHARED = 1 << 0,    /* MAP_SHARED file mapping */
    MM_VMA_ANON = 1 << 1,      /* no backing file */
    MM_VMA_GROWSDOWN = 1 << 2, /* the stack */
};

/* One mapping: [start, end), page aligned. */
struct mm_vma {
    uint64_t start, end;
    int prot;         /* PROT_READ | PROT_WRITE | PROT_EXEC */
    int flags;        /* MM_VMA_* */
    uint64_t offset;  /* file offset of start */
    uint64_t dev, ino;
    char *name;       /* owned: file path, "[stack]", "[heap]", "[vdso]" or "" */
};

/* The space's lock (recursive: a holder may call the public functions
 * again).  Guest threads run in parallel on host threads, so the VMA list
 * and brk/mmap_base are only read or changed under it.  Hand-made rather
 * than a PTHREAD_MUTEX_RECURSIVE so that a guest fault that longjmps out of
 * a holder can give it back (mm_lock_release_all) and a fork child can
 * reset it (mm_lock_reset). */
struct mm_lock {
    pthread_mutex_t m;
    const void *owner;  /* the holding thread's token, NULL when free */
    unsigned depth;
};

/* The VMA list: a sorted array of non-overlapping mappings. */
struct mm_vmas {
    struct mm_vma *v;
    size_t n, cap;
};

struct mm_space {
    uint8_t *base;      /* host address of guest address 0 */
    uint64_t size;      /* 2^32 or 2^46: every valid guest address is below */
    size_t reserved;    /* the host region we own: size + MM_GUARD (2 * size for 32-bit) */
    int bits;           /* 32 or 64 */
    struct mm_vmas vmas;
    uint64_t mmap_base; /* top-down allocation starts below this */
    uint64_t brk_start, brk;
    uint64_t start_data, end_data; /* the kernel's mm->start_data/end_data (RLIMIT_DATA of brk) */
    bool read_implies_exec; /* personality READ_IMPLIES_EXEC: PROT_READ adds PROT_EXEC */
    uint64_t vdso_base; /* where the vDSO was mapped (ia32 signal frames return to it), or 0 */
    struct mm_lock lock;
    void *code;         /* the CPU's registry of pages holding decoded code (cpu/block.c) */
};

/* Locking: every public function below takes the lock itself; a caller
 * that must see several calls as one step (find a free range, then map
 * it) holds it around them.  mm_find_vma() returns a pointer into the list
 * and needs the lock held for as long as the pointer is used.  Lock order:
 * the thread registry, then mm, then the CPU's code registry. */
void mm_lock(const struct mm_space *mm);
void mm_unlock(const struct mm_space *mm);
/* Give the lock back entirely if the calling thread holds it (after a
 * guest fault unwound a holder). */
void mm_lock_release_all(const struct mm_space *mm);
/* In a fork child: the lock may be held by a thread that does not exist
 * there; make it free. */
void mm_lock_reset(struct mm_space *mm);

/* Reserve the space for a 32- or 64-bit guest; 0 or -errno. */
int mm_space_init(struct mm_space *mm, int bits);
void mm_space_destroy(struct mm_space *mm);

/* Guest -> host for an access of len bytes at g; NULL when any byte of it
 * lies outside the guest space.  This is the sandbox's floor: whatever the
 * guest value, the result points into the reservation or is NULL. */
static inline void *mm_g2h(const struct mm_space *mm, uint64_t g, uint64_t len)
{
    if (len > mm->size || g > mm->size - len)
        return NULL;
    return mm->base + g;
}

/* Map anonymous zero pages / a file at the fixed guest range [start, start+len),
 * private, or shared with MM_VMA_SHARED in flags.  Existing mappings in the
 * range are replaced.  0 or -errno. */
int mm_map_anon(struct mm_space *mm, uint64_t start, uint64_t len, int prot, int flags,
                const char *name);
int mm_map_file(struct mm_space *mm, uint64_t start, uint64_t len, int prot, int flags, int fd,
                uint64_t offset, const char *name);
int mm_unmap(struct mm_space *mm, uint64_t start, uint64_t len);
int mm_protect(struct mm_space *mm, uint64_t start, uint64_t len, int prot);

/* mremap's host side (mm/remap.c).  mm_move: move [old, old+old_len), which
 * must lie in one mapping, to [new, new+new_len), replacing what is there
 * (keep_old: the old range stays mapped, MREMAP_DONTUNMAP, sizes equal).
 * mm_expand: grow the mapping that ends at addr+old_len to new_len in place
 * (the caller checked the space after it is free).  0 or -errno. */
int mm_move(struct mm_space *mm, uint64_t old, uint64_t old_len, uint64_t new, uint64_t new_len,
            bool keep_old);
int mm_expand(struct mm_space *mm, uint64_t addr, uint64_t old_len, uint64_t new_len);

/* A free, page-aligned guest range of len bytes, searched top down from
 * below mm->mmap_base and aligned to align (a power of two >= page); 0 when none. */
uint64_t mm_find_free(const struct mm_space *mm, uint64_t len, uint64_t align);

/* The mapping that contains addr, or NULL (the caller holds the lock). */
const struct mm_vma *mm_find_vma(const struct mm_space *mm, uint64_t addr);
/* The guest protection of the mapping at addr, or -1 when unmapped. */
int mm_prot_at(const struct mm_space *mm, uint64_t addr);

/* For the CPU's decoded-code pages: make the host page at page read-only
 * when the guest may write it (true: it was write-protected), and give it
 * its guest protection back. */
bool mm_code_protect(const struct mm_space *mm, uint64_t page);
void mm_code_unprotect(const struct mm_space *mm, uint64_t page);

/* True when [addr, addr+len) is wholly mapped with at least prot. */
bool mm_check(const struct mm_space *mm, uint64_t addr, uint64_t len, int prot);

/* Copy between guest and host memory after mm_check(); 0 or -EFAULT.
 * mm_write() needs PROT_WRITE, mm_read() PROT_READ. */
int mm_read(const struct mm_space *mm, uint64_t addr, void *dst, size_t len);
int mm_write(const struct mm_space *mm, uint64_t addr, const void *src, size_t len);

/* VMA list operations (mm/vma.c): bookkeeping only, no host calls.
 * insert replaces whatever overlaps [start, end) and merges neighbours. */
int mm_vmas_insert(struct mm_vmas *l, const struct mm_vma *v);
int mm_vmas_remove(struct mm_vmas *l, uint64_t start, uint64_t end);
int mm_vmas_protect(struct mm_vmas *l, uint64_t start, uint64_t end, int prot);
const struct mm_vma *mm_vmas_find(const struct mm_vmas *l, uint64_t addr);
void mm_vmas_free(struct mm_vmas *l);

/* ------------------------------------------------------------ faults (mm/fault.c)
 * A host SIGSEGV/SIGBUS whose address lies in the armed space becomes a
 * guest fault record and a siglongjmp to the armed jump buffer; any other
 * fault is an emulator bug and is reported loudly before the process dies. */
#include <setjmp.h>

enum mm_access { MM_ACCESS_READ, MM_ACCESS_WRITE };

struct mm_fault {
    uint64_t addr;        /* guest address */
    enum mm_access access;
    int host_signo;       /* SIGSEGV or SIGBUS */
    uint64_t err;         /* the page-fault error code (SDM vol. 3, 4.7) */
};

/* Install the process-wide handler (idempotent) and an alternate signal
 * stack for the calling thread.  0 or -errno. */
int mm_fault_install(void);

/* Per thread: route faults in mm to jmp; the record goes to *out. */
void mm_fault_arm(const struct mm_space *mm, sigjmp_buf *jmp, struct mm_fault *out);
void mm_fault_disarm(void);

/* memcpy that turns a host fault in the space (a file page past the end of
 * its file: SIGBUS) into -EFAULT instead of a crash; 0 on success. */
int mm_copy_guarded(const struct mm_space *mm, void *dst, const void *src, size_t len);

/* The CPU's hook for writes to pages it write-protected because they hold
 * decoded code: returns true when it handled the fault (the write is then
 * retried). */
void mm_fault_set_code_hook(bool (*hook)(struct mm_space *mm, uint64_t addr));

/* A host thread that ran guest code is about to end: free its alternate
 * signal stack. */
void mm_fault_thread_exit(void);

/* The guest signal layer's handler for a SIGSEGV/SIGBUS that a process
 * sent (si_code <= 0): those are signals for the guest, not faults. */
#include <signal.h>
void mm_fault_set_async_hook(void (*hook)(int sig, siginfo_t *si, void *uc));

#endif
