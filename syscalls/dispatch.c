/* Syscall dispatch for both ABIs, and the guest-memory helpers.
 *
 * x86_64: number in rax, arguments in rdi rsi rdx r10 r8 r9, result in rax.
 * i386 (int $0x80): number in eax, arguments in ebx ecx edx esi edi ebp,
 * result in eax; arguments are 32-bit and never sign-extended. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "syscalls/strace.h"
#include "syscalls/syscalls.h"

static sys_handler table_64[SYS_TABLE_SIZE], table_32[SYS_TABLE_SIZE];
const char *sys_spec_64[SYS_TABLE_SIZE], *sys_spec_32[SYS_TABLE_SIZE];

/* Both tables from the one list. */
__attribute__((constructor)) static void build_tables(void)
{
#define SYSCALL(name, nr64, nr32, spec)                                                 \
    if ((nr64) >= 0) {                                                                  \
        table_64[(nr64)] = sys_##name;                                                  \
        sys_spec_64[(nr64)] = spec;                                                     \
    }                                                                                   \
    if ((nr32) >= 0) {                                                                  \
        table_32[(nr32)] = sys_##name;                                                  \
        sys_spec_32[(nr32)] = spec;                                                     \
    }
#include "syscalls/list.h"
#undef SYSCALL
}

/* An unknown syscall gets -ENOSYS and one log line naming it. */
static __attribute__((cold)) int64_t sys_unknown(struct cpu *c, uint64_t nr,
                                                 const char *const *names)
{
    /* Once per process, whichever thread asks first. */
    static unsigned char logged[SYS_TABLE_SIZE + 1];
    unsigned slot = nr < SYS_TABLE_SIZE ? (unsigned)nr : SYS_TABLE_SIZE;
    if (c->log_unimplemented && !__atomic_exchange_n(&logged[slot], 1, __ATOMIC_RELAXED)) {
        const char *name = nr < SYS_TABLE_SIZE && names[nr] ? names[nr] : "unknown";
        fprintf(stderr, "elfemu: unsupported syscall %s (%llu)%s\n", name,
                (unsigned long long)nr, c->bits == 32 ? " for i386" : "");
    }
    return -ENOSYS;
}

/* --strace's path: the same call between the hook's two halves. */
static __attribute__((cold, noinline)) int64_t traced(struct cpu *c, uint64_t nr,
                                                      const uint64_t a[6], sys_handler h,
                                                      const char *const *names)
{
    strace_enter(c, nr, a);
    int64_t r = h ? h(c, a) : sys_unknown(c, nr, names);
    strace_leave(c, r);
    return r;
}

/* Syscall hooks of the embedding API (api/hooks.c). */
static const struct sys_hook_ops *hook_ops;
bool sys_hooks_on;

void sys_hooks_init(const struct sys_hook_ops *ops)
{
    hook_ops = ops;
}

void sys_hooks_switch(bool on)
{
    __atomic_store_n(&sys_hooks_on, on, __ATOMIC_RELEASE);
}

/* The hooks' path: the before hooks may change the number and the
 * arguments or answer the call themselves, the after hooks the result. */
static __attribute__((cold, noinline)) int64_t hooked(struct cpu *c, uint64_t *nr, uint64_t a[6],
                                                      const sys_handler *table,
                                                      const char *const *names)
{
    int64_t r = 0;
    if (!hook_ops->before(c, nr, a, &r)) {
        sys_handler h = *nr < SYS_TABLE_SIZE ? table[*nr] : NULL;
        if (UNLIKELY(strace_on))
            r = traced(c, *nr, a, h, names);
        else
            r = h ? h(c, a) : sys_unknown(c, *nr, names);
    }
    hook_ops->after(c, *nr, a, &r);
    return r;
}

void sys_dispatch_64(struct cpu *c)
{
    uint64_t nr = c->r[R_AX];
    uint64_t a[6] = { c->r[R_DI], c->r[R_SI], c->r[R_DX], c->r[R_10], c->r[R_8], c->r[R_9] };
    sys_handler h = nr < SYS_TABLE_SIZE ? table_64[nr] : NULL;
    int64_t r;
    if (UNLIKELY(sys_hooks_on))
        r = hooked(c, &nr, a, table_64, sys_names_64);
    else if (UNLIKELY(strace_on))
        r = traced(c, nr, a, h, sys_names_64);
    else
        r = h ? h(c, a) : sys_unknown(c, nr, sys_names_64);
    /* A host signal for the guest interrupted the call: the kernel would
     * restart it or fail it with EINTR, decided when the signal is
     * delivered at the next block boundary (syscalls/signal.c). */
    if (UNLIKELY(r == -EINTR) && (c->attention & CPU_ATTN_SIGNAL))
        sig_interrupted(c, nr, a);
    c->r[R_AX] = (uint64_t)r;
}

void sys_dispatch_32(struct cpu *c)
{
    uint64_t nr = (uint32_t)c->r[R_AX];
    uint64_t a[6] = { (uint32_t)c->r[R_BX], (uint32_t)c->r[R_CX], (uint32_t)c->r[R_DX],
                      (uint32_t)c->r[R_SI], (uint32_t)c->r[R_DI], (uint32_t)c->r[R_BP] };
    sys_handler h = nr < SYS_TABLE_SIZE ? table_32[nr] : NULL;
    int64_t r = UNLIKELY(sys_hooks_on) ? hooked(c, &nr, a, table_32, sys_names_32)
                : UNLIKELY(strace_on)  ? traced(c, nr, a, h, sys_names_32)
                : h                    ? h(c, a)
                                       : sys_unknown(c, nr, sys_names_32);
    if (UNLIKELY(r == -EINTR) && (c->attention & CPU_ATTN_SIGNAL))
        sig_interrupted32(c, nr, a);
    c->r[R_AX] = (uint32_t)r;
}

void *guest_buf(struct cpu *c, uint64_t addr, uint64_t len, int prot)
{
    if (len == 0)
        return c->mm->base; /* never dereferenced for 0 bytes; a valid host address */
    if (c->bits == 32 && (addr >= (1ull << 32) || len > (1ull << 32) - addr))
        return NULL;
    if (!mm_check(c->mm, addr, len, prot))
        return NULL;
    if (prot & PROT_WRITE)
        cpu_code_writable(c, addr, addr + len); /* the host must be able to write it */
    return c->mm->base + addr;
}

void *guest_ptr(struct cpu *c, uint64_t addr, uint64_t len, int prot)
{
    /* 32-bit: a range may run past 4 GiB into the PROT_NONE rest of the
     * reservation, where the host faults at the same byte as natively
     * (Linux's access_ok() does not stop a 32-bit process at 4 GiB). */
    uint64_t limit = c->bits == 32 ? c->mm->reserved : c->mm->size;
    if ((c->bits == 32 && addr >= (1ull << 32)) || len > limit || addr > limit - len)
        return HOST_FAULT_ADDR;
    if (prot & PROT_WRITE)
        cpu_code_writable(c, addr, addr + len);
    return c->mm->base + addr;
}

const char *guest_str(struct cpu *c, uint64_t addr, uint64_t max, int *err)
{
    *err = -EFAULT;
    uint64_t a = addr;
    while (a - addr < max) {
        if (!mm_check(c->mm, a, 1, PROT_READ))
            return NULL;
        /* Scan to the end of this page at most. */
        uint64_t page_end = mm_page_down(a) + MM_PAGE_SIZE;
        uint64_t n = page_end - a;
        if (n > max - (a - addr))
            n = max - (a - addr);
        const char *p = memchr(c->mm->base + a, 0, n);
        if (p) {
            *err = 0;
            return (const char *)c->mm->base + addr;
        }
        a += n;
    }
    *err = -ENAMETOOLONG;
    return NULL;
}

int copy_to_guest(struct cpu *c, uint64_t addr, const void *src, uint64_t len)
{
    void *p = guest_buf(c, addr, len, PROT_WRITE);
    if (!p)
        return -EFAULT;
    memcpy(p, src, len);
    return 0;
}

int copy_from_guest(struct cpu *c, void *dst, uint64_t addr, uint64_t len)
{
    void *p = guest_buf(c, addr, len, PROT_READ);
    if (!p)
        return -EFAULT;
    memcpy(dst, p, len);
    return 0;
}

static char exe_path[4096];

void sys_set_exe(const char *path)
{
    snprintf(exe_path, sizeof(exe_path), "%s", path);
}

const char *sys_exe(void)
{
    return exe_path;
}
