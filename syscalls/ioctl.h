/* ioctl's table of requests (ioctl.c), shared with the i386 conversions
 * (ia32_ioctl.c). */
#ifndef SYSCALLS_IOCTL_H
#define SYSCALLS_IOCTL_H

#include <stdbool.h>
#include <stdint.h>

#include "syscalls/syscalls.h"

/* ioctl(fd, req, arg) for a request of ioctl.c's table: its argument
 * copied in or out through a host buffer by the size the table gives.
 * An i386 guest gets -ENOTTY (and one log line) for the entries whose
 * number or layout differs for it, unless converted says that its caller
 * has turned the guest's request into this x86_64 one, whose argument then
 * has the same layout.  Not in the table: -EBADF or -ENOTTY. */
int64_t ioctl_table_call(struct cpu *c, int fd, uint32_t req, uint64_t arg, bool converted);

/* What the host is given for an argument elfemu cannot read: a null
 * pointer for a null one (some requests answer -EINVAL to that), else an
 * address the host refuses (-EFAULT); either way the kernel's own order
 * decides between -EBADF, -ENOTTY, -EINVAL and -EFAULT, and nothing of the
 * guest is passed. */
void *ioctl_unreadable(uint64_t arg);

#endif
