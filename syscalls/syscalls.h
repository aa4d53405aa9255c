/* The syscall layer: one table per ABI, generated from syscalls/list.h. */
#ifndef SYSCALLS_SYSCALLS_H
#define SYSCALLS_SYSCALLS_H

#include <stdint.h>

#include "cpu/cpu.h"

#define SYS_TABLE_SIZE 512

/* Every handler: the guest's six arguments (zero-extended for ia32);
 * returns the result or -errno, as the kernel does. */
typedef int64_t (*sys_handler)(struct cpu *c, const uint64_t a[6]);

#define SYSCALL(name, nr64, nr32) int64_t sys_##name(struct cpu *c, const uint64_t a[6]);
#include "syscalls/list.h"
#undef SYSCALL

extern const char *const sys_names_64[SYS_TABLE_SIZE];
extern const char *const sys_names_32[SYS_TABLE_SIZE];

#endif
