/* Waiting for descriptors, i386 guests: select (the old one taking a
 * struct of arguments, and _newselect), pselect6 (time32 and time64) and
 * ppoll (time32 and time64).  poll and epoll have the same structures on
 * both ABIs and use the x86_64 handlers (poll.c); epoll_pwait2 is here for
 * its __kernel_timespec (tv_nsec: 32 bits for a compat task).
 *
 * What differs from x86_64:
 * - An i386 fd_set is an array of 32-bit words: the kernel's compat select
 *   reads and writes ceil(n / 32) words of each set, the host's select
 *   ceil(n / 64) 64-bit words.  Where that is 4 bytes more (an odd number of
 *   32-bit words), the sets go through host buffers, so the host never
 *   reads or writes the 4 bytes after the guest's set; elsewhere the host
 *   works on the guest's sets in place.  Both kernels first cap n at the
 *   size of the descriptor table (fdt->max_fds, a multiple of 64), which
 *   /proc/self/status shows as FDSize: above it the sizes agree again.
 * - The timeouts are old_timeval32/old_timespec32 (or, for pselect6_time64,
 *   a __kernel_timespec whose tv_nsec the kernel reads as 32 bits for a
 *   compat task).  The host waits on a host copy; the time left, which the
 *   kernel stores back (poll_select_finish(), failure ignored), is then
 *   stored in the guest's format.
 * - pselect6's sixth argument is { u32 sigset pointer, u32 size }, read
 *   before the timeout as in the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/ia32_time.h"
#include "syscalls/poll.h"
#include "syscalls/syscalls.h"

#define KSIGSET_SIZE 8
#define NR_OPEN_MAX (1 << 20) /* the kernel's cap on any descriptor table */

/* The host's descriptor table size, or -1 when it cannot be read. */
static int host_max_fds(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return -1;
    char line[256];
    int n = -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "FDSize: %d", &n) == 1)
            break;
    fclose(f);
    return n;
}

/* The three fd_set arguments as the host gets them. */
struct fdsets {
    uint64_t addr[3];
    void *arg[3];
    uint64_t gbytes, hbytes; /* bytes of a guest set and of a host buffer */
    unsigned char *buf;      /* the host buffers (when bounced), or NULL */
    unsigned char small[3 * 128];
};

/* Prepare the sets for select of n descriptors; 0 or -ENOMEM.  A guest set
 * that cannot be read becomes an address the host refuses, so the host
 * fails the call with EFAULT in its own order (after the timeout). */
static int fdsets_in(struct cpu *c, struct fdsets *s, int n, uint64_t in, uint64_t out,
                     uint64_t ex)
{
    const uint64_t addr[3] = { in, out, ex };
    s->buf = NULL;
    int capped = n > NR_OPEN_MAX ? NR_OPEN_MAX : n;
    uint64_t whole = capped > 0 ? ((uint64_t)capped + 63) / 64 * 8 : 0;
    for (int i = 0; i < 3; i++) {
        s->addr[i] = addr[i];
        s->arg[i] = addr[i] ? guest_ptr(c, addr[i], whole, PROT_READ | PROT_WRITE) : NULL;
    }
    uint64_t words = n > 0 ? ((uint64_t)n + 31) / 32 : 0;
    if (words % 2 == 0)
        return 0; /* the same bytes as the host's 64-bit words */
    if (n > 64) {
        int max = host_max_fds();
        if (max > 0 && n > max)
            return 0; /* capped at max_fds: whole 64-bit words again */
    }
    s->gbytes = words * 4;
    s->hbytes = s->gbytes + 4;
    s->buf = 3 * s->hbytes <= sizeof(s->small) ? s->small : calloc(3, s->hbytes);
    if (!s->buf)
        return -ENOMEM;
    memset(s->buf, 0, 3 * s->hbytes);
    for (int i = 0; i < 3; i++) {
        if (!addr[i])
            continue;
        unsigned char *h = s->buf + i * s->hbytes;
        s->arg[i] = copy_from_guest(c, h, addr[i], s->gbytes) ? HOST_FAULT_ADDR : h;
    }
    return 0;
}

/* After the host call: the result sets back into the guest (only when the
 * wait succeeded; -EFAULT if one cannot be stored). */
static int64_t fdsets_out(struct cpu *c, struct fdsets *s, int64_t r)
{
    if (!s->buf)
        return r;
    for (int i = 0; i < 3 && r >= 0; i++)
        if (s->addr[i] && copy_to_guest(c, s->addr[i], s->buf + i * s->hbytes, s->gbytes) != 0)
            r = -EFAULT;
    if (s->buf != s->small)
        free(s->buf);
    return r;
}

/* ------------------------------------------------------------ select */

/* do_compat_select(): the timeout is read first (an unreadable one goes to
 * the host as an address it refuses, so it fails first there too). */
static int64_t select32(struct cpu *c, int n, uint64_t in, uint64_t out, uint64_t ex,
                        uint64_t tvp)
{
    struct timeval tv;
    void *targ = NULL;
    if (tvp) {
        int32_t t[2];
        if (copy_from_guest(c, t, tvp, sizeof(t)) != 0) {
            targ = HOST_FAULT_ADDR;
        } else {
            tv = (struct timeval){ .tv_sec = t[0], .tv_usec = t[1] };
            targ = &tv;
        }
    }
    struct fdsets s;
    int e = fdsets_in(c, &s, n, in, out, ex);
    if (e)
        return e;
    int64_t r = host_ret(syscall(SYS_select, n, s.arg[0], s.arg[1], s.arg[2], targ));
    r = fdsets_out(c, &s, r);
    if (targ == &tv)
        ia32_put_timeval(c, tvp, &tv); /* the time left; a failure is ignored */
    return r;
}

int64_t sys_select_ia32(struct cpu *c, const uint64_t a[6])
{
    return select32(c, (int)a[0], a[1], a[2], a[3], a[4]);
}

/* The old select (i386 number 82): one pointer to the five arguments. */
int64_t sys_old_select_ia32(struct cpu *c, const uint64_t a[6])
{
    uint32_t w[5];
    if (copy_from_guest(c, w, a[0], sizeof(w)) != 0)
        return -EFAULT;
    return select32(c, (int)w[0], w[1], w[2], w[3], w[4]);
}

/* A timeout read by the call itself before anything else but pselect6's
 * sigset argument: 0, -EFAULT or -EINVAL (poll_select_set_timeout()). */
static int get_timeout(struct cpu *c, uint64_t addr, bool time64, struct timespec *ts)
{
    if (ia32_get_ts(c, addr, time64, ts))
        return -EFAULT;
    if (ts->tv_sec < 0 || (uint64_t)ts->tv_nsec >= 1000000000u)
        return -EINVAL;
    return 0;
}

/* pselect6(n, in, out, ex, tsp, sig) with sig -> { u32 ss, u32 ss_len }. */
static int64_t pselect32(struct cpu *c, const uint64_t a[6], bool time64)
{
    uint32_t sig[2] = { 0, 0 };
    if (a[5] && copy_from_guest(c, sig, a[5], sizeof(sig)) != 0)
        return -EFAULT;
    struct timespec ts;
    int e;
    if (a[4] && (e = get_timeout(c, a[4], time64, &ts)))
        return e;
    struct poll_mask t;
    if ((e = poll_mask_apply(c, sig[0], sig[1], &t)))
        return e;
    struct fdsets s;
    if ((e = fdsets_in(c, &s, (int)a[0], a[1], a[2], a[3]))) {
        poll_mask_end(c, &t);
        return e;
    }
    struct {
        const uint64_t *ss;
        uint64_t len;
    } hsig = { poll_mask_host(&t), KSIGSET_SIZE };
    int64_t r = host_ret(syscall(SYS_pselect6, (int)a[0], s.arg[0], s.arg[1], s.arg[2],
                                 a[4] ? &ts : NULL, t.set ? &hsig : NULL));
    r = fdsets_out(c, &s, r);
    poll_mask_end(c, &t);
    if (a[4])
        ia32_put_ts(c, a[4], time64, &ts);
    return r;
}

int64_t sys_pselect6_ia32(struct cpu *c, const uint64_t a[6])
{
    return pselect32(c, a, false);
}

int64_t sys_pselect6_time64_ia32(struct cpu *c, const uint64_t a[6])
{
    return pselect32(c, a, true);
}

/* ------------------------------------------------------------ ppoll */

/* ppoll(fds, nfds, tsp, sigmask, sigsetsize): struct pollfd and the 64-bit
 * sigset are the same on both ABIs; the timeout is read first. */
static int64_t ppoll32(struct cpu *c, const uint64_t a[6], bool time64)
{
    struct timespec ts;
    int e;
    if (a[2] && (e = get_timeout(c, a[2], time64, &ts)))
        return e;
    struct poll_mask t;
    if ((e = poll_mask_apply(c, a[3], a[4], &t)))
        return e;
    int64_t r = host_ret(syscall(SYS_ppoll,
                                 guest_ptr(c, a[0], a[1] * sizeof(struct pollfd),
                                           PROT_READ | PROT_WRITE),
                                 (nfds_t)a[1], a[2] ? &ts : NULL, poll_mask_host(&t),
                                 KSIGSET_SIZE));
    poll_mask_end(c, &t);
    if (a[2])
        ia32_put_ts(c, a[2], time64, &ts);
    return r;
}

int64_t sys_ppoll_ia32(struct cpu *c, const uint64_t a[6])
{
    return ppoll32(c, a, false);
}

int64_t sys_ppoll_time64_ia32(struct cpu *c, const uint64_t a[6])
{
    return ppoll32(c, a, true);
}

/* ------------------------------------------------------------ epoll_pwait2 */

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif
#define EPOLL_EVENT_SIZE 12 /* i386's struct epoll_event is x86_64's packed one */

/* epoll_pwait2(epfd, events, maxevents, timeout, sigmask, sigsetsize): the
 * timeout is a __kernel_timespec, read (tv_nsec as 32 bits) and checked
 * before the mask is applied. */
int64_t sys_epoll_pwait2_ia32(struct cpu *c, const uint64_t a[6])
{
    struct timespec ts;
    int e;
    if (a[3] && (e = get_timeout(c, a[3], true, &ts)))
        return e;
    struct poll_mask t;
    if ((e = poll_mask_apply(c, a[4], a[5], &t)))
        return e;
    int max = (int)a[2];
    uint64_t n = max > 0 ? (uint64_t)max : 1;
    int64_t r = host_ret(syscall(SYS_epoll_pwait2, (int)a[0],
                                 guest_ptr(c, a[1], n * EPOLL_EVENT_SIZE, PROT_WRITE), max,
                                 a[3] ? &ts : NULL, poll_mask_host(&t), KSIGSET_SIZE));
    poll_mask_end(c, &t);
    return r;
}
