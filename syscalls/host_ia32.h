/* Calls into the host kernel's own i386 ABI (int $0x80 from elfemu, a
 * 64-bit process), for the few answers that depend on which ABI asks:
 * filesystems give a 32-bit caller other directory positions (ext4's
 * htree gives 31-bit hashes to in_compat_syscall() callers, 63-bit ones to
 * 64-bit callers), and a 32-bit program's readdir and seekdir must see
 * those; and only the i386 open/openat entries open a file without
 * O_LARGEFILE (with its 2 GiB limits).  Pointers passed this way must lie below 4 GiB: the per-thread
 * bounce buffer does. */
#ifndef SYSCALLS_HOST_IA32_H
#define SYSCALLS_HOST_IA32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the host serves int $0x80 for a 64-bit process (IA32 emulation
 * configured and enabled); found out once per process, in a child. */
bool host_ia32_available(void);

/* One i386 syscall on the host with up to five 32-bit arguments; the
 * result as the kernel returns it (-errno on failure, no errno set). */
int64_t host_ia32_call(uint32_t nr, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                       uint32_t a4);

/* This thread's buffer below 4 GiB (HOST_IA32_BOUNCE bytes), NULL if it
 * cannot be mapped.  Freed when the thread ends. */
#define HOST_IA32_BOUNCE 65536
void *host_ia32_bounce(void);

/* openat through the host's i386 entry, which unlike the x86_64 one does
 * not add O_LARGEFILE; -ENOSYS when the host has no i386 ABI (or the path
 * does not fit the bounce buffer): the caller then opens as x86_64 does. */
int64_t host_ia32_openat(int dirfd, const char *path, int flags, unsigned mode);

#endif
