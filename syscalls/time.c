/* Clocks, sleeps and timers for x86_64 guests (struct timespec, timeval,
 * itimerspec and itimerval have the host's layout).  A host sleep that a
 * signal interrupts returns EINTR with the time left, which the guest gets
 * as is: nanosleep and clock_nanosleep are never restarted after a
 * handler, with or without SA_RESTART. */
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

/* The clock is checked before the result is stored (EINVAL over EFAULT). */
int64_t sys_clock_gettime(struct cpu *c, const uint64_t a[6])
{
    struct timespec ts;
    if (syscall(SYS_clock_gettime, (clockid_t)a[0], &ts) != 0)
        return -errno;
    return copy_to_guest(c, a[1], &ts, sizeof(ts));
}

int64_t sys_clock_getres(struct cpu *c, const uint64_t a[6])
{
    struct timespec ts;
    if (syscall(SYS_clock_getres, (clockid_t)a[0], &ts) != 0)
        return -errno;
    return a[1] ? copy_to_guest(c, a[1], &ts, sizeof(ts)) : 0;
}

/* The time is stored before the timezone is looked at. */
int64_t sys_gettimeofday(struct cpu *c, const uint64_t a[6])
{
    struct timeval tv;
    struct timezone tz;
    if (syscall(SYS_gettimeofday, &tv, &tz) != 0)
        return -errno;
    if (a[0] && copy_to_guest(c, a[0], &tv, sizeof(tv)) != 0)
        return -EFAULT;
    if (a[1] && copy_to_guest(c, a[1], &tz, sizeof(tz)) != 0)
        return -EFAULT;
    return 0;
}

int64_t sys_time(struct cpu *c, const uint64_t a[6])
{
    time_t t = time(NULL);
    if (a[0] && copy_to_guest(c, a[0], &t, sizeof(t)) != 0)
        return -EFAULT;
    return t;
}

/* The time left is stored only when a signal cut the sleep short (a bad
 * address for it is no error otherwise). */
static int64_t sleep_left(struct cpu *c, uint64_t rem, const struct timespec *left)
{
    if (rem && copy_to_guest(c, rem, left, sizeof(*left)) != 0)
        return -EFAULT;
    return -EINTR;
}

int64_t sys_nanosleep(struct cpu *c, const uint64_t a[6])
{
    struct timespec req, left;
    if (copy_from_guest(c, &req, a[0], sizeof(req)) != 0)
        return -EFAULT;
    if (syscall(SYS_nanosleep, &req, &left) == 0)
        return 0;
    return errno == EINTR ? sleep_left(c, a[1], &left) : -errno;
}

int64_t sys_clock_nanosleep(struct cpu *c, const uint64_t a[6])
{
    /* The host reads the request itself: a bad clock or flags come first. */
    const void *req = guest_ptr(c, a[2], sizeof(struct timespec), PROT_READ);
    struct timespec left;
    if (syscall(SYS_clock_nanosleep, (clockid_t)a[0], (int)a[1], req, &left) == 0)
        return 0;
    /* An absolute sleep has no time left to report. */
    if (errno == EINTR && !(a[1] & TIMER_ABSTIME))
        return sleep_left(c, a[3], &left);
    return -errno;
}

/* ------------------------------------------------------------ POSIX timers
 * The guest's timers are the host process's timers: the kernel numbers
 * them per process, counts overruns and sends their signal to the process
 * or, with SIGEV_THREAD_ID, to the guest thread (a host thread with the
 * same id); elfemu's signal layer hands the signal to the guest with the
 * timer's siginfo (si_timerid, si_overrun, si_value).  struct sigevent and
 * struct itimerspec have the host's layout; sigev_value is only carried,
 * never dereferenced, so a guest address in it is fine.  glibc's
 * SIGEV_THREAD is built on SIGEV_THREAD_ID in the guest's own libc. */

#define SIGEVENT_SIZE 64 /* the kernel's struct sigevent */

int64_t sys_timer_create(struct cpu *c, const uint64_t a[6])
{
    const void *sev = NULL;
    if (a[1] && !(sev = guest_buf(c, a[1], SIGEVENT_SIZE, PROT_READ)))
        return -EFAULT;
    int id;
    if (syscall(SYS_timer_create, (clockid_t)a[0], sev, &id) != 0)
        return -errno;
    /* do_timer_create(): a timer whose id cannot be stored is released. */
    if (copy_to_guest(c, a[2], &id, sizeof(id)) != 0) {
        syscall(SYS_timer_delete, id);
        return -EFAULT;
    }
    return 0;
}

int64_t sys_timer_settime(struct cpu *c, const uint64_t a[6])
{
    struct itimerspec nv, ov;
    if (!a[2])
        return -EINVAL;
    if (copy_from_guest(c, &nv, a[2], sizeof(nv)) != 0)
        return -EFAULT;
    if (syscall(SYS_timer_settime, (int)a[0], (int)a[1], &nv, a[3] ? &ov : NULL) != 0)
        return -errno;
    /* The old value is stored after the timer has been set. */
    if (a[3] && copy_to_guest(c, a[3], &ov, sizeof(ov)) != 0)
        return -EFAULT;
    return 0;
}

int64_t sys_timer_gettime(struct cpu *c, const uint64_t a[6])
{
    struct itimerspec v;
    if (syscall(SYS_timer_gettime, (int)a[0], &v) != 0)
        return -errno;
    return copy_to_guest(c, a[1], &v, sizeof(v));
}

int64_t sys_timer_getoverrun(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_timer_getoverrun, (int)a[0]));
}

int64_t sys_timer_delete(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_timer_delete, (int)a[0]));
}

/* ------------------------------------------------ interval timers, alarm
 * Also the host process's: ITIMER_REAL and alarm() send SIGALRM, and
 * ITIMER_VIRTUAL/ITIMER_PROF count the process's CPU time -- the time the
 * emulator spends running the guest, which is the guest's time here. */

int64_t sys_setitimer(struct cpu *c, const uint64_t a[6])
{
    struct itimerval nv, ov;
    /* A NULL new value disarms the timer (the kernel still accepts it). */
    if (a[1] && copy_from_guest(c, &nv, a[1], sizeof(nv)) != 0)
        return -EFAULT;
    if (syscall(SYS_setitimer, (int)a[0], a[1] ? &nv : NULL, a[2] ? &ov : NULL) != 0)
        return -errno;
    if (a[2] && copy_to_guest(c, a[2], &ov, sizeof(ov)) != 0)
        return -EFAULT;
    return 0;
}

int64_t sys_getitimer(struct cpu *c, const uint64_t a[6])
{
    struct itimerval v;
    if (syscall(SYS_getitimer, (int)a[0], &v) != 0)
        return -errno;
    return copy_to_guest(c, a[1], &v, sizeof(v));
}

int64_t sys_alarm(struct cpu *c, const uint64_t a[6])
{
    return syscall(SYS_alarm, (unsigned)a[0]);
}

/* ------------------------------------------------------ setting the clock
 * The host's clocks are the guest's: setting them needs the same privilege
 * (CAP_SYS_TIME) and has the same effect as natively.  struct timex has
 * the host's layout; adjtimex reads and writes it. */

/* The host reads the time itself, after checking the clock. */
int64_t sys_clock_settime(struct cpu *c, const uint64_t a[6])
{
    return host_ret(syscall(SYS_clock_settime, (clockid_t)a[0],
                            guest_ptr(c, a[1], sizeof(struct timespec), PROT_READ)));
}

int64_t sys_settimeofday(struct cpu *c, const uint64_t a[6])
{
    struct timeval tv;
    struct timezone tz;
    if (a[0] && copy_from_guest(c, &tv, a[0], sizeof(tv)) != 0)
        return -EFAULT;
    if (a[1] && copy_from_guest(c, &tz, a[1], sizeof(tz)) != 0)
        return -EFAULT;
    return host_ret(syscall(SYS_settimeofday, a[0] ? &tv : NULL, a[1] ? &tz : NULL));
}

int64_t sys_adjtimex(struct cpu *c, const uint64_t a[6])
{
    struct timex tx;
    if (copy_from_guest(c, &tx, a[0], sizeof(tx)) != 0)
        return -EFAULT;
    /* The result is the clock state (TIME_OK...) or -errno; the structure
     * is stored back in either case. */
    int64_t r = host_ret(syscall(SYS_adjtimex, &tx));
    return copy_to_guest(c, a[0], &tx, sizeof(tx)) ? -EFAULT : r;
}

int64_t sys_clock_adjtime(struct cpu *c, const uint64_t a[6])
{
    struct timex tx;
    if (copy_from_guest(c, &tx, a[1], sizeof(tx)) != 0)
        return -EFAULT;
    int64_t r = host_ret(syscall(SYS_clock_adjtime, (clockid_t)a[0], &tx));
    if (r < 0)
        return r; /* do_clock_adjtime() failed: nothing is stored */
    return copy_to_guest(c, a[1], &tx, sizeof(tx)) ? -EFAULT : r;
}
