/* Waiting for descriptors and the event descriptors for x86_64 guests:
 * poll, ppoll, select, pselect6, the epoll calls, eventfd, timerfd,
 * signalfd and inotify.
 *
 * Guest fds are host fds and every structure here (pollfd, fd_set, the
 * packed epoll_event, itimerspec, timespec, timeval) has the host's layout,
 * so the waits are the host kernel's own, on buffers handed over with
 * guest_ptr(): readiness, the results written back (revents, fd_sets, the
 * remaining timeout of ppoll/select) and every error come from it.  What
 * needs elfemu:
 * - the temporary signal masks of ppoll, pselect6 and epoll_pwait(2), which
 *   are guest masks (sig_mask_swap/sig_mask_restore, syscalls/signal.h);
 * - pselect6's sixth argument, a guest structure holding a guest pointer;
 * - signalfd: the host's mask of a guest thread mirrors the guest's, so the
 *   signals a guest blocks to read them through a signalfd stay pending in
 *   the host kernel, where a host signalfd with the same mask finds them
 *   with all their siginfo;
 * - inotify watch paths, which go through the -L root like every path.
 * An interrupted wait is restarted or fails with EINTR by the kernel's
 * rules (syscalls/signal.c's restart_kind). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/fs.h"
#include "syscalls/poll.h"
#include "syscalls/syscalls.h"

/* The kernel's sizes: the packed x86_64 epoll_event, a 64-bit sigset. */
#define EPOLL_EVENT_SIZE 12
#define KSIGSET_SIZE 8

static void *opt_ptr(struct cpu *c, uint64_t addr, uint64_t len, int prot)
{
    return addr ? guest_ptr(c, addr, len, prot) : NULL;
}

/* ------------------------------------------------------------ poll */

int64_t sys_poll(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_poll, guest_ptr(c, a[0], a[1] * sizeof(struct pollfd),
                                                PROT_READ | PROT_WRITE),
                            (nfds_t)a[1], (int)a[2]));
}

/* The temporary guest masks (syscalls/poll.h). */
int poll_mask_apply(struct cpu *c, uint64_t addr, uint64_t size, struct poll_mask *t)
{
    t->set = false;
    if (!addr)
        return 0;
    if (size != KSIGSET_SIZE)
        return -EINVAL;
    uint64_t m;
    if (copy_from_guest(c, &m, addr, sizeof(m)) != 0)
        return -EFAULT;
    t->set = true;
    int e = sig_mask_swap(c, m, &t->saved, &t->host_wait);
    if (e)
        sig_mask_restore(c, &t->saved);
    return e;
}

const uint64_t *poll_mask_host(const struct poll_mask *t)
{
    return t->set ? &t->host_wait : NULL;
}

void poll_mask_end(struct cpu *c, const struct poll_mask *t)
{
    if (t->set)
        sig_mask_restore(c, &t->saved);
}

/* A timeout the call reads first: -EFAULT or -EINVAL as the kernel's
 * poll_select_set_timeout() (the host then reads it again itself). */
static int check_timespec(struct cpu *c, uint64_t addr)
{
    struct timespec ts;
    if (!addr)
        return 0;
    if (copy_from_guest(c, &ts, addr, sizeof(ts)) != 0)
        return -EFAULT;
    if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L)
        return -EINVAL;
    return 0;
}

/* ppoll(fds, nfds, tsp, sigmask, sigsetsize): the timeout, then the mask,
 * then the wait; the host writes the time left back into *tsp. */
int64_t sys_ppoll(struct cpu *c, const uint64_t a[6])
{
    int e = check_timespec(c, a[2]);
    if (e)
        return e;
    struct poll_mask t;
    if ((e = poll_mask_apply(c, a[3], a[4], &t)))
        return e;
    int64_t r = host_ret(syscall(SYS_ppoll,
                                 guest_ptr(c, a[0], a[1] * sizeof(struct pollfd),
                                           PROT_READ | PROT_WRITE),
                                 (nfds_t)a[1],
                                 opt_ptr(c, a[2], sizeof(struct timespec), PROT_READ | PROT_WRITE),
                                 poll_mask_host(&t), KSIGSET_SIZE));
    poll_mask_end(c, &t);
    return r;
}

/* ------------------------------------------------------------ select */

/* The bytes of an fd_set for nfds descriptors (the kernel caps nfds at
 * the size of the descriptor table; 2^20 is Linux's NR_OPEN). */
static uint64_t fdset_bytes(int64_t nfds)
{
    if (nfds <= 0)
        return 0;
    if (nfds > (1 << 20))
        nfds = 1 << 20;
    return ((uint64_t)nfds + 63) / 64 * 8;
}

int64_t sys_select(struct cpu *c, const uint64_t a[6])
{
    uint64_t n = fdset_bytes((int)a[0]);
    return host_ret(syscall(SYS_select, (int)a[0], opt_ptr(c, a[1], n, PROT_READ | PROT_WRITE),
                            opt_ptr(c, a[2], n, PROT_READ | PROT_WRITE),
                            opt_ptr(c, a[3], n, PROT_READ | PROT_WRITE),
                            opt_ptr(c, a[4], sizeof(struct timeval), PROT_READ | PROT_WRITE)));
}

/* pselect6(nfds, r, w, e, tsp, sig): sig points to { const sigset_t *ss;
 * size_t ss_len; }, both guest values. */
int64_t sys_pselect6(struct cpu *c, const uint64_t a[6])
{
    /* The sig argument is read before the timeout (sys_pselect6()). */
    struct {
        uint64_t ss, len;
    } sig = { 0, 0 };
    if (a[5] && copy_from_guest(c, &sig, a[5], sizeof(sig)) != 0)
        return -EFAULT;
    int e = check_timespec(c, a[4]);
    if (e)
        return e;
    struct poll_mask t;
    if ((e = poll_mask_apply(c, sig.ss, sig.len, &t)))
        return e;
    uint64_t n = fdset_bytes((int)a[0]);
    int64_t r = host_ret(syscall(SYS_pselect6, (int)a[0],
                                 opt_ptr(c, a[1], n, PROT_READ | PROT_WRITE),
                                 opt_ptr(c, a[2], n, PROT_READ | PROT_WRITE),
                                 opt_ptr(c, a[3], n, PROT_READ | PROT_WRITE),
                                 opt_ptr(c, a[4], sizeof(struct timespec), PROT_READ | PROT_WRITE),
                                 t.set ? (void *)&(struct { const uint64_t *ss; uint64_t len; }){
                                             &t.host_wait, KSIGSET_SIZE } : NULL));
    poll_mask_end(c, &t);
    return r;
}

/* ------------------------------------------------------------ epoll */

int64_t sys_epoll_create(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_epoll_create, (int)a[0]));
}

int64_t sys_epoll_create1(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_epoll_create1, (int)a[0]));
}

/* The event's data is the guest's own 64 bits: returned untouched. */
int64_t sys_epoll_ctl(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_epoll_ctl, (int)a[0], (int)a[1], (int)a[2],
                            opt_ptr(c, a[3], EPOLL_EVENT_SIZE, PROT_READ)));
}

/* The events array for maxevents: the host checks the count first. */
static void *events_ptr(struct cpu *c, uint64_t addr, int maxevents)
{
    uint64_t n = maxevents > 0 ? (uint64_t)maxevents : 1;
    return guest_ptr(c, addr, n * EPOLL_EVENT_SIZE, PROT_WRITE);
}

int64_t sys_epoll_wait(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_epoll_wait, (int)a[0], events_ptr(c, a[1], (int)a[2]), (int)a[2],
                            (int)a[3]));
}

int64_t sys_epoll_pwait(struct cpu *c, const uint64_t a[6])
{
    struct poll_mask t;
    int e = poll_mask_apply(c, a[4], a[5], &t);
    if (e)
        return e;
    int64_t r = host_ret(syscall(SYS_epoll_pwait, (int)a[0], events_ptr(c, a[1], (int)a[2]),
                                 (int)a[2], (int)a[3], poll_mask_host(&t), KSIGSET_SIZE));
    poll_mask_end(c, &t);
    return r;
}

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

int64_t sys_epoll_pwait2(struct cpu *c, const uint64_t a[6])
{
    int e = check_timespec(c, a[3]);
    if (e)
        return e;
    struct poll_mask t;
    if ((e = poll_mask_apply(c, a[4], a[5], &t)))
        return e;
    int64_t r = host_ret(syscall(SYS_epoll_pwait2, (int)a[0], events_ptr(c, a[1], (int)a[2]),
                                 (int)a[2], opt_ptr(c, a[3], sizeof(struct timespec), PROT_READ),
                                 poll_mask_host(&t), KSIGSET_SIZE));
    poll_mask_end(c, &t);
    return r;
}

/* ------------------------------------------------------------ event fds */

int64_t sys_eventfd(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_eventfd, (unsigned)a[0]));
}

int64_t sys_eventfd2(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_eventfd2, (unsigned)a[0], (int)a[1]));
}

int64_t sys_timerfd_create(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_timerfd_create, (int)a[0], (int)a[1]));
}

int64_t sys_timerfd_settime(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_timerfd_settime, (int)a[0], (int)a[1],
                            guest_ptr(c, a[2], sizeof(struct itimerspec), PROT_READ),
                            opt_ptr(c, a[3], sizeof(struct itimerspec), PROT_WRITE)));
}

int64_t sys_timerfd_gettime(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_timerfd_gettime, (int)a[0],
                            guest_ptr(c, a[1], sizeof(struct itimerspec), PROT_WRITE)));
}

/* signalfd4(fd, mask, sizemask, flags): the host's signalfd sees what the
 * guest blocks (see the top of this file).  The mask is the guest's: the
 * host's signals 32 and 33 are the guest's too (raw calls, no glibc). */
int64_t sys_signalfd4(struct cpu *c, const uint64_t a[6])
{
    if (a[2] != KSIGSET_SIZE)
        return -EINVAL;
    uint64_t m;
    if (copy_from_guest(c, &m, a[1], sizeof(m)) != 0)
        return -EFAULT;
    return host_ret(syscall(SYS_signalfd4, (int)a[0], &m, KSIGSET_SIZE, (int)a[3]));
}

int64_t sys_signalfd(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { a[0], a[1], a[2], 0, 0, 0 };
    return sys_signalfd4(c, b);
}

/* ------------------------------------------------------------ inotify */

int64_t sys_inotify_init(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_inotify_init));
}

int64_t sys_inotify_init1(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_inotify_init1, (int)a[0]));
}

/* The watched path is a guest path (the -L root applies); events name
 * files relative to it, so nothing comes back to translate. */
int64_t sys_inotify_add_watch(struct cpu *c, const uint64_t a[6])
{
    struct host_path hp;
    int err = fs_path_arg(c, AT_FDCWD, a[1], (a[2] & IN_DONT_FOLLOW) ? PATH_NOFOLLOW : 0, &hp);
    if (err)
        return err;
    /* No *at form: for AT_FDCWD path_resolve() keeps hp.dirfd AT_FDCWD. */
    return host_ret(syscall(SYS_inotify_add_watch, (int)a[0], hp.path, (uint32_t)a[2]));
}

int64_t sys_inotify_rm_watch(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_inotify_rm_watch, (int)a[0], (int)a[1]));
}
