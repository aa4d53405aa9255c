/* What the waits of both ABIs share (syscalls/poll.c, ia32_poll.c). */
#ifndef SYSCALLS_POLL_H
#define SYSCALLS_POLL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "syscalls/syscalls.h"

/* A wait under a temporary guest mask (ppoll, pselect6, epoll_pwait): the
 * mask is in place only around the host call (or stays until the handler
 * when a signal cut it short). */
struct poll_mask {
    bool set;
    sigset_t saved;
    uint64_t host_wait; /* the host sigmask the wait applies (see sig_mask_swap) */
};

/* Read and apply the guest's sigset at addr (size bytes: the kernel wants
 * exactly 8, on both ABIs); 0, -EINVAL, -EFAULT, or -EINTR when a signal
 * the new mask lets through is already waiting.  Nothing to do for addr 0. */
int poll_mask_apply(struct cpu *c, uint64_t addr, uint64_t size, struct poll_mask *t);

/* The sigmask argument for the host wait: the temporary mask, applied by
 * the host kernel atomically with the wait, or NULL. */
const uint64_t *poll_mask_host(const struct poll_mask *t);

/* After the host call: the guest's own mask back. */
void poll_mask_end(struct cpu *c, const struct poll_mask *t);

#endif
