/* Clocks, sleeps, timers and file times for i386 guests: the calls whose
 * structures hold 32-bit times (old_timespec32, old_timeval32, the 32-bit
 * itimerspec/itimerval, the 32-bit sigevent and struct timex).  Each one
 * converts the guest's structure to the host's, makes the host call and
 * converts the result back, in the order of the kernel's compat handlers
 * (kernel/time/time.c, posix-timers.c, itimer.c, fs/utimes.c,
 * fs/timerfd.c): a structure the call reads is copied in first (-EFAULT
 * before anything else) unless the kernel checks something before it; then
 * the host's own checks on the sign-extended values are the kernel's.
 *
 * The time64 calls of i386 read a __kernel_timespec, the x86_64 layout,
 * but the kernel takes only the low 32 bits of its tv_nsec from a 32-bit
 * process: those that read one have their own handlers here (the others,
 * which only store one, use the x86_64 handlers).
 *
 * 32-bit times stored back are truncated to 32 bits, as the kernel's
 * put_old_timespec32() truncates them. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/fs.h"
#include "syscalls/ia32_time.h"
#include "syscalls/syscalls.h"

/* ------------------------------------------------------------ conversions */

struct ts32 {
    int32_t sec, nsec;
};
struct tv32 {
    int32_t sec, usec;
};

int ia32_get_timespec(struct cpu *c, uint64_t addr, struct timespec *out)
{
    struct ts32 t;
    if (copy_from_guest(c, &t, addr, sizeof(t)) != 0)
        return -EFAULT;
    *out = (struct timespec){ .tv_sec = t.sec, .tv_nsec = t.nsec };
    return 0;
}

int ia32_put_timespec(struct cpu *c, uint64_t addr, const struct timespec *ts)
{
    struct ts32 t = { (int32_t)ts->tv_sec, (int32_t)ts->tv_nsec };
    return copy_to_guest(c, addr, &t, sizeof(t));
}

static int get_timeval(struct cpu *c, uint64_t addr, struct timeval *out)
{
    struct tv32 t;
    if (copy_from_guest(c, &t, addr, sizeof(t)) != 0)
        return -EFAULT;
    *out = (struct timeval){ .tv_sec = t.sec, .tv_usec = t.usec };
    return 0;
}

int ia32_put_timeval(struct cpu *c, uint64_t addr, const struct timeval *tv)
{
    struct tv32 t = { (int32_t)tv->tv_sec, (int32_t)tv->tv_usec };
    return copy_to_guest(c, addr, &t, sizeof(t));
}

int ia32_get_timespec64(struct cpu *c, uint64_t addr, struct timespec *out)
{
    int64_t t[2];
    if (copy_from_guest(c, t, addr, sizeof(t)) != 0)
        return -EFAULT;
    /* get_timespec64() of a compat task: only the low 32 bits of tv_nsec
     * count (glibc leaves the padding above them unset). */
    *out = (struct timespec){ .tv_sec = t[0], .tv_nsec = (uint32_t)t[1] };
    return 0;
}

int ia32_get_ts(struct cpu *c, uint64_t addr, bool t64, struct timespec *out)
{
    return t64 ? ia32_get_timespec64(c, addr, out) : ia32_get_timespec(c, addr, out);
}

int ia32_put_ts(struct cpu *c, uint64_t addr, bool t64, const struct timespec *ts)
{
    return t64 ? copy_to_guest(c, addr, ts, sizeof(*ts)) : ia32_put_timespec(c, addr, ts);
}

/* An array of n timespecs (itimerspec = 2, utimensat = 2). */
static int get_timespecs(struct cpu *c, uint64_t addr, bool t64, struct timespec *out, int n)
{
    for (int i = 0; i < n; i++)
        if (ia32_get_ts(c, addr + (t64 ? 16 : 8) * (uint64_t)i, t64, &out[i]))
            return -EFAULT;
    return 0;
}

static int put_itimerspec(struct cpu *c, uint64_t addr, bool t64, const struct itimerspec *v)
{
    if (t64)
        return copy_to_guest(c, addr, v, sizeof(*v));
    struct ts32 t[2] = { { (int32_t)v->it_interval.tv_sec, (int32_t)v->it_interval.tv_nsec },
                         { (int32_t)v->it_value.tv_sec, (int32_t)v->it_value.tv_nsec } };
    return copy_to_guest(c, addr, t, sizeof(t));
}

static int get_itimerspec(struct cpu *c, uint64_t addr, bool t64, struct itimerspec *v)
{
    struct timespec t[2];
    if (get_timespecs(c, addr, t64, t, 2))
        return -EFAULT;
    *v = (struct itimerspec){ t[0], t[1] };
    return 0;
}

/* ------------------------------------------------------------ clocks */

/* time(tloc): the seconds truncated to 32 bits, also as the result. */
int64_t sys_time_ia32(struct cpu *c, const uint64_t a[6])
{
    int32_t t = (int32_t)time(NULL);
    if (a[0] && copy_to_guest(c, a[0], &t, sizeof(t)) != 0)
        return -EFAULT;
    return (uint32_t)t;
}

/* stime(tptr): the kernel's settimeofday with whole seconds (EPERM
 * without CAP_SYS_TIME, after reading the value). */
int64_t sys_stime_ia32(struct cpu *c, const uint64_t a[6])
{
    int32_t t;
    if (copy_from_guest(c, &t, a[0], sizeof(t)) != 0)
        return -EFAULT;
    struct timeval tv = { .tv_sec = t, .tv_usec = 0 };
    return host_ret(syscall(SYS_settimeofday, &tv, NULL));
}

/* The time is stored before the timezone is looked at. */
int64_t sys_gettimeofday_ia32(struct cpu *c, const uint64_t a[6])
{
    struct timeval tv;
    struct timezone tz;
    if (syscall(SYS_gettimeofday, &tv, &tz) != 0)
        return -errno;
    if (a[0] && ia32_put_timeval(c, a[0], &tv) != 0)
        return -EFAULT;
    if (a[1] && copy_to_guest(c, a[1], &tz, sizeof(tz)) != 0)
        return -EFAULT;
    return 0;
}

int64_t sys_settimeofday_ia32(struct cpu *c, const uint64_t a[6])
{
    struct timeval tv;
    struct timezone tz;
    if (a[0] && get_timeval(c, a[0], &tv) != 0)
        return -EFAULT;
    if (a[1] && copy_from_guest(c, &tz, a[1], sizeof(tz)) != 0)
        return -EFAULT;
    return host_ret(syscall(SYS_settimeofday, a[0] ? &tv : NULL, a[1] ? &tz : NULL));
}

int64_t sys_clock_gettime_ia32(struct cpu *c, const uint64_t a[6])
{
    struct timespec ts;
    if (syscall(SYS_clock_gettime, (clockid_t)a[0], &ts) != 0)
        return -errno;
    return ia32_put_timespec(c, a[1], &ts);
}

int64_t sys_clock_getres_ia32(struct cpu *c, const uint64_t a[6])
{
    struct timespec ts;
    if (syscall(SYS_clock_getres, (clockid_t)a[0], &ts) != 0)
        return -errno;
    return a[1] ? ia32_put_timespec(c, a[1], &ts) : 0;
}

/* The clock is checked before the time is read: an unreadable time goes
 * to the host as an address it refuses, after its own clock check. */
static int64_t clock_settime32(struct cpu *c, const uint64_t a[6], bool t64)
{
    struct timespec ts;
    const void *p = ia32_get_ts(c, a[1], t64, &ts) ? HOST_FAULT_ADDR : &ts;
    return host_ret(syscall(SYS_clock_settime, (clockid_t)a[0], p));
}

int64_t sys_clock_settime_ia32(struct cpu *c, const uint64_t a[6])
{
    return clock_settime32(c, a, false);
}

int64_t sys_clock_settime64_ia32(struct cpu *c, const uint64_t a[6])
{
    return clock_settime32(c, a, true);
}

/* ------------------------------------------------------------ sleeps */

/* As time.c: the time left is stored only when a signal cut the sleep
 * short, and the sleep is not restarted. */
static int64_t sleep_left(struct cpu *c, uint64_t rem, bool t64, const struct timespec *left)
{
    if (rem && ia32_put_ts(c, rem, t64, left) != 0)
        return -EFAULT;
    return -EINTR;
}

int64_t sys_nanosleep_ia32(struct cpu *c, const uint64_t a[6])
{
    struct timespec req, left;
    if (ia32_get_timespec(c, a[0], &req))
        return -EFAULT;
    if (syscall(SYS_nanosleep, &req, &left) == 0)
        return 0;
    return errno == EINTR ? sleep_left(c, a[1], false, &left) : -errno;
}

/* The clock and its sleep support are checked before the request is read
 * (the host does both when handed an address it refuses). */
static int64_t clock_nanosleep32(struct cpu *c, const uint64_t a[6], bool t64)
{
    struct timespec req, left;
    const void *p = ia32_get_ts(c, a[2], t64, &req) ? HOST_FAULT_ADDR : &req;
    if (syscall(SYS_clock_nanosleep, (clockid_t)a[0], (int)a[1], p, &left) == 0)
        return 0;
    if (errno == EINTR && !(a[1] & TIMER_ABSTIME))
        return sleep_left(c, a[3], t64, &left);
    return -errno;
}

int64_t sys_clock_nanosleep_ia32(struct cpu *c, const uint64_t a[6])
{
    return clock_nanosleep32(c, a, false);
}

int64_t sys_clock_nanosleep_time64_ia32(struct cpu *c, const uint64_t a[6])
{
    return clock_nanosleep32(c, a, true);
}

/* ------------------------------------------------------------ POSIX timers */

/* struct compat_sigevent: a 4-byte sigval, signo, notify, then the union
 * whose first int is the thread id; the kernel's get_compat_sigevent()
 * reads those four ints only (the other 48 bytes need not be readable). */
struct sigevent32 {
    int32_t value, signo, notify, tid;
};

/* The host's struct sigevent: an 8-byte sigval, signo, notify, the union
 * (thread id first), 64 bytes in all. */
struct host_sigevent {
    uint64_t value;
    int32_t signo, notify, tid;
    int32_t pad[11];
};
_Static_assert(sizeof(struct host_sigevent) == 64, "kernel sigevent");

int64_t sys_timer_create_ia32(struct cpu *c, const uint64_t a[6])
{
    struct sigevent32 g;
    struct host_sigevent h;
    if (a[1]) {
        if (copy_from_guest(c, &g, a[1], sizeof(g)) != 0)
            return -EFAULT;
        memset(&h, 0, sizeof(h));
        /* sival_int: the guest's 32 bits come back in its 32-bit siginfo. */
        h.value = (uint32_t)g.value;
        h.signo = g.signo;
        h.notify = g.notify;
        h.tid = g.tid;
    }
    int id;
    if (syscall(SYS_timer_create, (clockid_t)a[0], a[1] ? &h : NULL, &id) != 0)
        return -errno;
    if (copy_to_guest(c, a[2], &id, sizeof(id)) != 0) {
        syscall(SYS_timer_delete, id);
        return -EFAULT;
    }
    return 0;
}

static int64_t timer_settime32(struct cpu *c, const uint64_t a[6], bool t64)
{
    struct itimerspec nv, ov;
    if (!a[2])
        return -EINVAL;
    if (get_itimerspec(c, a[2], t64, &nv))
        return -EFAULT;
    if (syscall(SYS_timer_settime, (int)a[0], (int)a[1], &nv, a[3] ? &ov : NULL) != 0)
        return -errno;
    if (a[3] && put_itimerspec(c, a[3], t64, &ov) != 0)
        return -EFAULT;
    return 0;
}

int64_t sys_timer_settime_ia32(struct cpu *c, const uint64_t a[6])
{
    return timer_settime32(c, a, false);
}

int64_t sys_timer_settime64_ia32(struct cpu *c, const uint64_t a[6])
{
    return timer_settime32(c, a, true);
}

int64_t sys_timer_gettime_ia32(struct cpu *c, const uint64_t a[6])
{
    struct itimerspec v;
    if (syscall(SYS_timer_gettime, (int)a[0], &v) != 0)
        return -errno;
    return put_itimerspec(c, a[1], false, &v);
}

/* timerfd_settime: the new value is read before the descriptor is looked
 * at; the old one stored after the timer was set. */
static int64_t timerfd_settime32(struct cpu *c, const uint64_t a[6], bool t64)
{
    struct itimerspec nv, ov;
    if (get_itimerspec(c, a[2], t64, &nv))
        return -EFAULT;
    if (syscall(SYS_timerfd_settime, (int)a[0], (int)a[1], &nv, &ov) != 0)
        return -errno;
    if (a[3] && put_itimerspec(c, a[3], t64, &ov) != 0)
        return -EFAULT;
    return 0;
}

int64_t sys_timerfd_settime_ia32(struct cpu *c, const uint64_t a[6])
{
    return timerfd_settime32(c, a, false);
}

int64_t sys_timerfd_settime64_ia32(struct cpu *c, const uint64_t a[6])
{
    return timerfd_settime32(c, a, true);
}

int64_t sys_timerfd_gettime_ia32(struct cpu *c, const uint64_t a[6])
{
    struct itimerspec v;
    if (syscall(SYS_timerfd_gettime, (int)a[0], &v) != 0)
        return -errno;
    return put_itimerspec(c, a[1], false, &v);
}

/* ------------------------------------------------------------ interval timers */

/* struct old_itimerval32: interval then value, each two 32-bit words. */
static int put_itimerval(struct cpu *c, uint64_t addr, const struct itimerval *v)
{
    struct tv32 t[2] = { { (int32_t)v->it_interval.tv_sec, (int32_t)v->it_interval.tv_usec },
                         { (int32_t)v->it_value.tv_sec, (int32_t)v->it_value.tv_usec } };
    return copy_to_guest(c, addr, t, sizeof(t));
}

int64_t sys_getitimer_ia32(struct cpu *c, const uint64_t a[6])
{
    struct itimerval v;
    if (syscall(SYS_getitimer, (int)a[0], &v) != 0)
        return -errno;
    return put_itimerval(c, a[1], &v);
}

/* A NULL new value disarms the timer, as for x86_64. */
int64_t sys_setitimer_ia32(struct cpu *c, const uint64_t a[6])
{
    struct itimerval nv, ov;
    if (a[1] && (get_timeval(c, a[1], &nv.it_interval) || get_timeval(c, a[1] + 8, &nv.it_value)))
        return -EFAULT;
    if (syscall(SYS_setitimer, (int)a[0], a[1] ? &nv : NULL, a[2] ? &ov : NULL) != 0)
        return -errno;
    if (a[2] && put_itimerval(c, a[2], &ov) != 0)
        return -EFAULT;
    return 0;
}

/* ------------------------------------------------------------ scheduling, futex */

int64_t sys_sched_rr_get_interval_ia32(struct cpu *c, const uint64_t a[6])
{
    struct timespec ts;
    if (syscall(SYS_sched_rr_get_interval, (pid_t)a[0], &ts) != 0)
        return -errno;
    return ia32_put_timespec(c, a[1], &ts);
}

int64_t sys_futex_ia32(struct cpu *c, const uint64_t a[6])
{
    return futex_call(c, a, FUTEX_TS_OLD32);
}

int64_t sys_futex_time64_ia32(struct cpu *c, const uint64_t a[6])
{
    return futex_call(c, a, FUTEX_TS_COMPAT64);
}

/* ------------------------------------------------------------ struct timex */

/* struct old_timex32 (128 bytes): modes, then 32-bit longs and ints in the
 * order of struct timex, the time as an old_timeval32, eleven spare ints. */
struct timex32 {
    uint32_t modes;
    int32_t offset, freq, maxerror, esterror, status, constant, precision, tolerance;
    struct tv32 time;
    int32_t tick, ppsfreq, jitter, shift, stabil, jitcnt, calcnt, errcnt, stbcnt, tai;
    int32_t spare[11];
};
_Static_assert(sizeof(struct timex32) == 128, "old_timex32");

static int get_timex(struct cpu *c, uint64_t addr, struct timex *t)
{
    struct timex32 g;
    if (copy_from_guest(c, &g, addr, sizeof(g)) != 0)
        return -EFAULT;
    memset(t, 0, sizeof(*t));
    t->modes = g.modes;
    t->offset = g.offset;
    t->freq = g.freq;
    t->maxerror = g.maxerror;
    t->esterror = g.esterror;
    t->status = g.status;
    t->constant = g.constant;
    t->precision = g.precision;
    t->tolerance = g.tolerance;
    t->time.tv_sec = g.time.sec;
    t->time.tv_usec = g.time.usec;
    t->tick = g.tick;
    t->ppsfreq = g.ppsfreq;
    t->jitter = g.jitter;
    t->shift = g.shift;
    t->stabil = g.stabil;
    t->jitcnt = g.jitcnt;
    t->calcnt = g.calcnt;
    t->errcnt = g.errcnt;
    t->stbcnt = g.stbcnt;
    t->tai = g.tai;
    return 0;
}

static int put_timex(struct cpu *c, uint64_t addr, const struct timex *t)
{
    struct timex32 g;
    memset(&g, 0, sizeof(g));
    g.modes = t->modes;
    g.offset = (int32_t)t->offset;
    g.freq = (int32_t)t->freq;
    g.maxerror = (int32_t)t->maxerror;
    g.esterror = (int32_t)t->esterror;
    g.status = t->status;
    g.constant = (int32_t)t->constant;
    g.precision = (int32_t)t->precision;
    g.tolerance = (int32_t)t->tolerance;
    g.time.sec = (int32_t)t->time.tv_sec;
    g.time.usec = (int32_t)t->time.tv_usec;
    g.tick = (int32_t)t->tick;
    g.ppsfreq = (int32_t)t->ppsfreq;
    g.jitter = (int32_t)t->jitter;
    g.shift = t->shift;
    g.stabil = (int32_t)t->stabil;
    g.jitcnt = (int32_t)t->jitcnt;
    g.calcnt = (int32_t)t->calcnt;
    g.errcnt = (int32_t)t->errcnt;
    g.stbcnt = (int32_t)t->stbcnt;
    g.tai = t->tai;
    return copy_to_guest(c, addr, &g, sizeof(g));
}

/* adjtimex: the result is the clock state or -errno; the structure is
 * stored back in either case. */
int64_t sys_adjtimex_ia32(struct cpu *c, const uint64_t a[6])
{
    struct timex t;
    if (get_timex(c, a[0], &t))
        return -EFAULT;
    int64_t r = host_ret(syscall(SYS_adjtimex, &t));
    return put_timex(c, a[0], &t) ? -EFAULT : r;
}

/* clock_adjtime32: stored back only when the call worked. */
int64_t sys_clock_adjtime_ia32(struct cpu *c, const uint64_t a[6])
{
    struct timex t;
    if (get_timex(c, a[1], &t))
        return -EFAULT;
    int64_t r = host_ret(syscall(SYS_clock_adjtime, (clockid_t)a[0], &t));
    if (r < 0)
        return r;
    return put_timex(c, a[1], &t) ? -EFAULT : r;
}

/* ------------------------------------------------------------ file times
 * The times are read before the path is looked at (fs/utimes.c). */

/* utime(path, struct { int32 actime, modtime; }). */
int64_t sys_utime_ia32(struct cpu *c, const uint64_t a[6])
{
    int32_t g[2];
    if (a[1] && copy_from_guest(c, g, a[1], sizeof(g)) != 0)
        return -EFAULT;
    struct host_path hp;
    int err = fs_path_arg(c, AT_FDCWD, a[0], 0, &hp);
    if (err)
        return err;
    struct timespec ts[2] = { { .tv_sec = a[1] ? g[0] : 0 }, { .tv_sec = a[1] ? g[1] : 0 } };
    return host_ret(syscall(SYS_utimensat, hp.dirfd, hp.path, a[1] ? ts : NULL, 0));
}

/* futimesat(dirfd, path, struct old_timeval32 times[2]); a NULL path is
 * the descriptor itself.  The microseconds are checked by the host. */
int64_t sys_futimesat_ia32(struct cpu *c, const uint64_t a[6])
{
    struct timeval tv[2];
    if (a[2] && (get_timeval(c, a[2], &tv[0]) || get_timeval(c, a[2] + 8, &tv[1])))
        return -EFAULT;
    struct host_path hp = { .dirfd = (int)a[0], .path = NULL };
    if (a[1]) {
        int err = fs_path_arg(c, (int)a[0], a[1], 0, &hp);
        if (err)
            return err;
    }
    return host_ret(syscall(SYS_futimesat, hp.dirfd, hp.path, a[2] ? tv : NULL));
}

int64_t sys_utimes_ia32(struct cpu *c, const uint64_t a[6])
{
    const uint64_t b[6] = { (uint64_t)AT_FDCWD, a[0], a[1], 0, 0, 0 };
    return sys_futimesat_ia32(c, b);
}

/* utimensat: two timespecs; when both are UTIME_OMIT nothing is done and
 * the path is not even looked at. */
static int64_t utimensat32(struct cpu *c, const uint64_t a[6], bool t64)
{
    struct timespec ts[2];
    if (a[2]) {
        if (get_timespecs(c, a[2], t64, ts, 2))
            return -EFAULT;
        if (ts[0].tv_nsec == UTIME_OMIT && ts[1].tv_nsec == UTIME_OMIT)
            return 0;
    }
    struct host_path hp = { .dirfd = (int)a[0], .path = NULL };
    if (a[1]) {
        int err = fs_path_arg(c, (int)a[0], a[1],
                              (a[3] & AT_SYMLINK_NOFOLLOW) ? PATH_NOFOLLOW : 0, &hp);
        if (err)
            return err;
    }
    return host_ret(syscall(SYS_utimensat, hp.dirfd, hp.path, a[2] ? ts : NULL, (int)a[3]));
}

int64_t sys_utimensat_ia32(struct cpu *c, const uint64_t a[6])
{
    return utimensat32(c, a, false);
}

int64_t sys_utimensat_time64_ia32(struct cpu *c, const uint64_t a[6])
{
    return utimensat32(c, a, true);
}
