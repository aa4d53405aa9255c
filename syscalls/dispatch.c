/* Syscall dispatch for both ABIs.
 *
 * x86_64: number in rax, arguments in rdi rsi rdx r10 r8 r9, result in rax.
 * i386 (int $0x80): number in eax, arguments in ebx ecx edx esi edi ebp,
 * result in eax; arguments are 32-bit and never sign-extended. */
#include <errno.h>
#include <stdio.h>

#include "syscalls/syscalls.h"

static const sys_handler table_64[SYS_TABLE_SIZE] = {
#define SYSCALL(name, nr64, nr32) [(nr64) < 0 ? SYS_TABLE_SIZE - 1 : (nr64)] = sys_##name,
#include "syscalls/list.h"
#undef SYSCALL
};

static const sys_handler table_32[SYS_TABLE_SIZE] = {
#define SYSCALL(name, nr32_unused, nr32) [(nr32) < 0 ? SYS_TABLE_SIZE - 1 : (nr32)] = sys_##name,
#include "syscalls/list.h"
#undef SYSCALL
};

/* An unknown syscall gets -ENOSYS and one log line naming it. */
static __attribute__((cold)) int64_t sys_unknown(struct cpu *c, uint64_t nr,
                                                 const char *const *names)
{
    static __thread unsigned char logged[SYS_TABLE_SIZE + 1];
    unsigned slot = nr < SYS_TABLE_SIZE ? (unsigned)nr : SYS_TABLE_SIZE;
    if (c->log_unimplemented && !logged[slot]) {
        logged[slot] = 1;
        const char *name = nr < SYS_TABLE_SIZE && names[nr] ? names[nr] : "unknown";
        fprintf(stderr, "elfemu: unimplemented %s syscall %s (%llu): -ENOSYS\n",
                c->bits == 64 ? "x86_64" : "i386", name, (unsigned long long)nr);
    }
    return -ENOSYS;
}

void sys_dispatch_64(struct cpu *c)
{
    uint64_t nr = c->r[R_AX];
    const uint64_t a[6] = { c->r[R_DI], c->r[R_SI], c->r[R_DX], c->r[R_10], c->r[R_8], c->r[R_9] };
    sys_handler h = nr < SYS_TABLE_SIZE - 1 ? table_64[nr] : NULL;
    c->r[R_AX] = (uint64_t)(h ? h(c, a) : sys_unknown(c, nr, sys_names_64));
}

void sys_dispatch_32(struct cpu *c)
{
    uint64_t nr = (uint32_t)c->r[R_AX];
    const uint64_t a[6] = { (uint32_t)c->r[R_BX], (uint32_t)c->r[R_CX], (uint32_t)c->r[R_DX],
                            (uint32_t)c->r[R_SI], (uint32_t)c->r[R_DI], (uint32_t)c->r[R_BP] };
    sys_handler h = nr < SYS_TABLE_SIZE - 1 ? table_32[nr] : NULL;
    int64_t r = h ? h(c, a) : sys_unknown(c, nr, sys_names_32);
    c->r[R_AX] = (uint32_t)r;
}
