/* Calls only the i386 ABI has, for 32-bit guests: the TLS descriptors of
 * set_thread_area/get_thread_area, mmap2 and the old mmap
 * (ugetrlimit is in resource.c).  The calls both ABIs share go to the
 * x86_64 handlers where every argument means the same (ints, descriptors,
 * paths, byte buffers, and the structures whose layout is the same on both:
 * statx, pollfd, the 64-bit-time ones); see the i386 numbers in list.h. */
#include <asm/prctl.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

/* ------------------------------------------------------------ TLS descriptors */

/* struct user_desc: entry_number, base_addr, limit, then a word of bit
 * fields (seg_32bit:1 contents:2 read_exec_only:1 limit_in_pages:1
 * seg_not_present:1 useable:1; an x86_64 kernel's lm:1 is ignored). */
struct user_desc32 {
    uint32_t entry, base, limit, flags;
};
#define UD_SEG_32BIT (1u << 0)
#define UD_READ_EXEC_ONLY (1u << 3)
#define UD_SEG_NOT_PRESENT (1u << 5)
#define UD_CONTENTS(f) (((f) >> 1) & 3)
/* The bits a descriptor keeps (fill_ldt(); lm never: no 64-bit segments). */
#define UD_KEPT 0x7fu

/* LDT_empty()/LDT_zero(): a descriptor that clears the entry. */
static bool desc_clears(const struct user_desc32 *u)
{
    /* lm is not looked at for a 32-bit caller (measured). */
    bool empty = u->base == 0 && u->limit == 0 &&
                 (u->flags & UD_KEPT) == (UD_READ_EXEC_ONLY | UD_SEG_NOT_PRESENT);
    bool zero = u->base == 0 && u->limit == 0 && (u->flags & UD_KEPT) == 0;
    return empty || zero;
}

/* tls_desc_okay(): besides the clearing ones, only present 32-bit data
 * segments (no code, no 16-bit segments). */
static bool desc_okay(const struct user_desc32 *u)
{
    if (desc_clears(u))
        return true;
    return (u->flags & UD_SEG_32BIT) && UD_CONTENTS(u->flags) <= 1 &&
           !(u->flags & UD_SEG_NOT_PRESENT);
}

/* A segment register holding the entry's selector sees its new base at
 * once (the kernel reloads it: "force a reload" in do_set_thread_area()). */
static void tls_reload(struct cpu *c, int idx)
{
    for (int s = SEG_FS; s <= SEG_GS; s++)
        if ((c->sreg[s] >> 3) == (unsigned)idx && !cpu_load_sreg(c, s, c->sreg[s]))
            cpu_load_sreg(c, s, 0);
}

/* do_set_thread_area() once the descriptor is read, in its order: the
 * descriptor's checks, then the entry it goes to (entry -1 picks the first
 * free one of c when can_allocate, as set_thread_area does; clone's
 * CLONE_SETTLS may not).  Returns the GDT index or -errno; *d is what the
 * entry becomes. */
static int tls_check(const struct cpu *c, const struct user_desc32 *u, bool can_allocate,
                     struct cpu_tls_desc *d)
{
    if (!desc_okay(u))
        return -EINVAL;
    int idx = (int)u->entry;
    if (idx == -1 && can_allocate) {
        for (int i = 0; i < CPU_TLS_COUNT && idx == -1; i++)
            if (!c->tls[i].present)
                idx = CPU_TLS_FIRST + i;
        if (idx == -1)
            return -ESRCH;
    }
    if (idx < CPU_TLS_FIRST || idx >= CPU_TLS_FIRST + CPU_TLS_COUNT)
        return -EINVAL;
    memset(d, 0, sizeof(*d));
    if (!desc_clears(u)) {
        /* What the GDT descriptor holds: a 20-bit limit, the kept bits. */
        d->base = u->base;
        d->limit = u->limit & 0xfffff;
        d->flags = u->flags & UD_KEPT;
        d->present = true;
    }
    return idx;
}

int64_t sys_set_thread_area(struct cpu *c, const uint64_t a[6])
{
    struct user_desc32 u;
    if (copy_from_guest(c, &u, a[0], sizeof(u)) != 0)
        return -EFAULT;
    struct cpu_tls_desc d;
    int idx = tls_check(c, &u, true, &d);
    if (idx < 0)
        return idx;
    if ((int)u.entry == -1) {
        /* The entry picked is written back before the range check. */
        uint32_t e = (uint32_t)idx;
        if (copy_to_guest(c, a[0], &e, sizeof(e)) != 0)
            return -EFAULT;
    }
    c->tls[idx - CPU_TLS_FIRST] = d;
    tls_reload(c, idx);
    return 0;
}

int ia32_clone_tls(struct cpu *c, uint64_t uaddr, struct ia32_tls *out)
{
    struct user_desc32 u;
    if (copy_from_guest(c, &u, uaddr, sizeof(u)) != 0)
        return -EFAULT;
    int idx = tls_check(c, &u, false, &out->desc);
    if (idx < 0)
        return idx;
    out->idx = idx;
    return 0;
}

void ia32_clone_tls_install(struct cpu *child, const struct ia32_tls *t)
{
    child->tls[t->idx - CPU_TLS_FIRST] = t->desc;
    tls_reload(child, t->idx);
}

int64_t sys_get_thread_area(struct cpu *c, const uint64_t a[6])
{
    struct user_desc32 u;
    if (copy_from_guest(c, &u, a[0], sizeof(u)) != 0)
        return -EFAULT;
    int idx = (int)u.entry;
    if (idx < CPU_TLS_FIRST || idx >= CPU_TLS_FIRST + CPU_TLS_COUNT)
        return -EINVAL;
    const struct cpu_tls_desc *t = &c->tls[idx - CPU_TLS_FIRST];
    u.base = t->base;
    u.limit = t->limit;
    /* An empty entry reads back as read_exec_only + seg_not_present. */
    u.flags = t->present ? t->flags : (UD_READ_EXEC_ONLY | UD_SEG_NOT_PRESENT);
    return copy_to_guest(c, a[0], &u, sizeof(u));
}

/* ------------------------------------------------------------ memory */

/* mmap2(addr, len, prot, flags, fd, pgoff): the offset in 4096-byte pages. */
int64_t sys_mmap2(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], a[3], (uint64_t)(int64_t)(int32_t)a[4],
                            a[5] * 4096 };
    return sys_mmap(c, b);
}

/* old_mmap(struct mmap_arg_struct *): six 32-bit words; the offset in
 * bytes must be page aligned. */
int64_t sys_old_mmap(struct cpu *c, const uint64_t a[6])
{
    uint32_t w[6];
    if (copy_from_guest(c, w, a[0], sizeof(w)) != 0)
        return -EFAULT;
    if (w[5] & 4095)
        return -EINVAL;
    const uint64_t b[6] = { w[0], w[1], w[2], w[3], (uint64_t)(int64_t)(int32_t)w[4], w[5] };
    return sys_mmap(c, b);
}

/* ------------------------------------------------------------ files */

/* _llseek is in ia32_fs.c (directory positions of 32-bit callers). */

/* ------------------------------------------------------------ processes */

/* clone(flags, stack, parent_tid, tls, child_tid): i386's order
 * (CONFIG_CLONE_BACKWARDS); the x86_64 handler serves it, which takes a
 * 32-bit guest's CLONE_SETTLS tls as a struct user_desc * (ia32_clone_tls). */
int64_t sys_clone_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], a[4], a[3], 0 };
    return sys_clone(c, b);
}

/* waitpid(pid, status, options): i386's older call, wait4 without the
 * rusage (kernel_wait4(pid, status, options, NULL)). */
int64_t sys_waitpid_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], 0, 0, 0 };
    return sys_wait4_ia32(c, b);
}

/* arch_prctl of i386 (384; compat: do_arch_prctl_common()): the options
 * both ABIs share; the FS and GS bases are 64-bit only (EINVAL). */
int64_t sys_arch_prctl_ia32(struct cpu *c, const uint64_t a[6])
{
    switch (a[0]) {
    case ARCH_SET_FS:
    case ARCH_GET_FS:
    case ARCH_SET_GS:
    case ARCH_GET_GS:
        return -EINVAL;
    default:
        return sys_arch_prctl(c, a);
    }
}
