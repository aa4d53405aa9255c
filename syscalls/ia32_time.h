/* 32-bit times of i386 guests (syscalls/ia32_time.c), for the other ia32
 * handlers: struct old_timespec32 and old_timeval32 at a guest address,
 * read sign-extended into the host's structures or stored truncated.
 * 0 or -EFAULT. */
#ifndef SYSCALLS_IA32_TIME_H
#define SYSCALLS_IA32_TIME_H

#include <stdbool.h>
#include <sys/time.h>
#include <time.h>

#include "syscalls/syscalls.h"

int ia32_get_timespec(struct cpu *c, uint64_t addr, struct timespec *out);
int ia32_put_timespec(struct cpu *c, uint64_t addr, const struct timespec *ts);
int ia32_put_timeval(struct cpu *c, uint64_t addr, const struct timeval *tv);
/* The __kernel_timespec of the i386 time64 calls as the kernel reads it
 * from a 32-bit process: tv_nsec is its low 32 bits. */
int ia32_get_timespec64(struct cpu *c, uint64_t addr, struct timespec *out);
/* A timespec of either kind: t64 for the __kernel_timespec of the time64
 * calls (read as above, stored back whole as the kernel's
 * put_timespec64() does), else an old_timespec32.  0 or -EFAULT. */
int ia32_get_ts(struct cpu *c, uint64_t addr, bool t64, struct timespec *out);
int ia32_put_ts(struct cpu *c, uint64_t addr, bool t64, const struct timespec *ts);

#endif
