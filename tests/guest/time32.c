/* time32: the syscalls whose structures hold times as C longs, called
 * directly (glibc's own wrappers use the time64 calls on i386).  Built with
 * -m32 these are the i386 time32 calls (old_timespec32, old_timeval32, the
 * 32-bit itimerspec/itimerval/timex/sigevent) and the i386-only old calls;
 * built for x86_64 the same source calls the x86_64 ones.  Compared with
 * the native run: only facts are printed (results, errno names, values that
 * do not depend on the moment).  Nothing here sets the clock: the calls
 * that could are made only in ways that fail or change nothing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "show.h"

/* The kernel's structures with C longs: 32-bit words under -m32. */
struct lts {
    long sec, nsec;
};
struct ltv {
    long sec, usec;
};
struct litimerspec {
    struct lts interval, value;
};
struct litimerval {
    struct ltv interval, value;
};
struct ltimex {
    unsigned int modes;
    long offset, freq, maxerror, esterror;
    int status;
    long constant, precision, tolerance;
    struct ltv time;
    long tick, ppsfreq, jitter;
    int shift;
    long stabil, jitcnt, calcnt, errcnt, stbcnt;
    int tai;
    int spare[11];
};

static long now_sec(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (long)t.tv_sec;
}

static long long ns(const struct lts *t) { return t->sec * 1000000000ll + t->nsec; }

/* ------------------------------------------------------------ clocks */

static void clocks(void)
{
    struct lts a, b;
    SHOW("clock_gettime realtime", syscall(SYS_clock_gettime, CLOCK_REALTIME, &a));
    printf("realtime agrees: %d, nsec in range: %d\n", labs(a.sec - now_sec()) <= 2,
           a.nsec >= 0 && a.nsec < 1000000000);
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &a);
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &b);
    printf("monotonic ordered: %d\n", ns(&a) <= ns(&b));
    SHOW("clock_gettime bad clock", syscall(SYS_clock_gettime, 12345, &a));
    SHOW("clock_gettime bad pointer", syscall(SYS_clock_gettime, CLOCK_REALTIME, BAD));
    SHOW("clock_gettime bad clock and pointer", syscall(SYS_clock_gettime, 12345, BAD));
    memset(&a, 0x55, sizeof(a));
    SHOW("clock_getres monotonic", syscall(SYS_clock_getres, CLOCK_MONOTONIC, &a));
    printf("resolution: %ld.%09ld\n", a.sec, a.nsec);
    SHOW("clock_getres coarse", syscall(SYS_clock_getres, CLOCK_MONOTONIC_COARSE, &a));
    printf("coarse resolution positive: %d\n", a.sec == 0 && a.nsec > 0);
    SHOW("clock_getres NULL", syscall(SYS_clock_getres, CLOCK_REALTIME, NULL));
    SHOW("clock_getres bad pointer", syscall(SYS_clock_getres, CLOCK_REALTIME, BAD));
    SHOW("clock_getres bad clock", syscall(SYS_clock_getres, -100, &a));

    /* Setting: only the failures (the clock stays untouched). */
    struct lts v = { 1, -1 };
    SHOW("clock_settime bad pointer", syscall(SYS_clock_settime, CLOCK_REALTIME, BAD));
    SHOW("clock_settime bad clock and pointer", syscall(SYS_clock_settime, 12345, BAD));
    SHOW("clock_settime bad nsec", syscall(SYS_clock_settime, CLOCK_REALTIME, &v));
    v.nsec = 0;
    SHOW("clock_settime monotonic", syscall(SYS_clock_settime, CLOCK_MONOTONIC, &v));

    struct ltv tv = { 0, 0 };
    struct timezone tz;
    SHOW("gettimeofday", syscall(SYS_gettimeofday, &tv, &tz));
    printf("gettimeofday agrees: %d, usec in range: %d\n", labs(tv.sec - now_sec()) <= 2,
           tv.usec >= 0 && tv.usec < 1000000);
    SHOW("gettimeofday NULL NULL", syscall(SYS_gettimeofday, NULL, NULL));
    SHOW("gettimeofday bad tv", syscall(SYS_gettimeofday, BAD, NULL));
    tv.sec = 0;
    SHOW("gettimeofday bad tz", syscall(SYS_gettimeofday, &tv, BAD));
    printf("tv stored before tz: %d\n", tv.sec != 0);
    /* With nothing to set the call only checks the privilege. */
    SHOW("settimeofday NULL NULL", syscall(SYS_settimeofday, NULL, NULL));
    SHOW("settimeofday bad tv", syscall(SYS_settimeofday, BAD, NULL));
    SHOW("settimeofday bad tz", syscall(SYS_settimeofday, NULL, BAD));
    tv = (struct ltv){ 0, 1000001 };
    SHOW("settimeofday usec too big", syscall(SYS_settimeofday, &tv, NULL));
    tv = (struct ltv){ 0, -1 };
    SHOW("settimeofday usec negative", syscall(SYS_settimeofday, &tv, NULL));
    tv = (struct ltv){ 0, 1000000 };
    SHOW("settimeofday usec one second", syscall(SYS_settimeofday, &tv, NULL));

    long t = 0;
    long r = syscall(SYS_time, &t);
    printf("time: result stored %d, agrees %d\n", r == t, labs(r - now_sec()) <= 2);
    printf("time NULL agrees: %d\n", labs(syscall(SYS_time, NULL) - now_sec()) <= 2);
    SHOW("time bad pointer", syscall(SYS_time, BAD));
#ifdef SYS_stime
    SHOW("stime bad pointer", syscall(SYS_stime, BAD));
#endif

    struct ltimex tx;
    memset(&tx, 0, sizeof(tx));
    r = syscall(SYS_adjtimex, &tx);
    printf("adjtimex read: %s, tick %ld, tolerance %ld, time agrees %d, spare clear %d\n",
           r >= 0 ? "ok" : strerrorname_np(errno), tx.tick, tx.tolerance,
           labs(tx.time.sec - now_sec()) <= 2, tx.spare[10] == 0);
    SHOW("adjtimex bad pointer", syscall(SYS_adjtimex, BAD));
    memset(&tx, 0, sizeof(tx));
    r = syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx);
    printf("clock_adjtime read: %s, tick %ld\n", r >= 0 ? "ok" : strerrorname_np(errno), tx.tick);
    memset(&tx, 0, sizeof(tx));
    SHOW("clock_adjtime monotonic", syscall(SYS_clock_adjtime, CLOCK_MONOTONIC, &tx));
    SHOW("clock_adjtime bad clock", syscall(SYS_clock_adjtime, 12345, &tx));
    SHOW("clock_adjtime bad pointer", syscall(SYS_clock_adjtime, CLOCK_REALTIME, BAD));
}

/* ------------------------------------------------------------ sleeps */

static void sleeps(void)
{
    struct lts req = { 0, 1000000 }, rem = { 7, 7 };
    SHOW("nanosleep 1ms", syscall(SYS_nanosleep, &req, &rem));
    printf("rem untouched: %d\n", rem.sec == 7 && rem.nsec == 7);
    SHOW("nanosleep bad rem", syscall(SYS_nanosleep, &req, BAD));
    req = (struct lts){ 0, 1000000000 };
    SHOW("nanosleep nsec too big", syscall(SYS_nanosleep, &req, NULL));
    req = (struct lts){ -1, 0 };
    SHOW("nanosleep negative", syscall(SYS_nanosleep, &req, NULL));
    SHOW("nanosleep bad pointer", syscall(SYS_nanosleep, BAD, NULL));

    req = (struct lts){ 0, 1000000 };
    SHOW("clock_nanosleep monotonic", syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, NULL));
    struct lts abs;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &abs);
    SHOW("clock_nanosleep absolute past",
         syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, BAD));
    abs.nsec += 2000000;
    if (abs.nsec >= 1000000000) {
        abs.sec++;
        abs.nsec -= 1000000000;
    }
    SHOW("clock_nanosleep absolute 2ms",
         syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL));
    SHOW("clock_nanosleep bad clock", syscall(SYS_clock_nanosleep, 12345, 0, &req, NULL));
    SHOW("clock_nanosleep bad clock and pointer", syscall(SYS_clock_nanosleep, 12345, 0, BAD, NULL));
    SHOW("clock_nanosleep thread cputime",
         syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0, BAD, NULL));
    SHOW("clock_nanosleep bad pointer", syscall(SYS_clock_nanosleep, CLOCK_REALTIME, 0, BAD, NULL));
    req.nsec = -5;
    SHOW("clock_nanosleep bad nsec", syscall(SYS_clock_nanosleep, CLOCK_REALTIME, 0, &req, NULL));
}

/* ------------------------------------------------------------ timers */

struct lsigevent {
    int value; /* sival_int (a long-sized union: the rest is padding) */
#if __SIZEOF_LONG__ == 8
    int value_hi;
#endif
    int signo, notify, tid;
    int pad[64 / 4 - 3 - (__SIZEOF_LONG__ / 4)];
};

static void timers(void)
{
    struct lsigevent sev;
    memset(&sev, 0, sizeof(sev));
    sev.notify = SIGEV_NONE;
    int id = -1;
    SHOW("timer_create", syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &id));
    struct litimerspec nv = { { 0, 0 }, { 10, 0 } }, ov, cur;
    memset(&ov, 0x55, sizeof(ov));
    SHOW("timer_settime", syscall(SYS_timer_settime, id, 0, &nv, &ov));
    printf("old value zero: %d\n", !ov.value.sec && !ov.value.nsec && !ov.interval.sec);
    SHOW("timer_gettime", syscall(SYS_timer_gettime, id, &cur));
    printf("value in (8, 10]: %d, interval 0: %d\n", cur.value.sec >= 8 && ns(&cur.value) <= 10000000000ll,
           ns(&cur.interval) == 0);
    nv = (struct litimerspec){ { 1, 500 }, { 20, 0 } };
    SHOW("timer_settime again", syscall(SYS_timer_settime, id, 0, &nv, &ov));
    printf("old value in (8, 10]: %d\n", ov.value.sec >= 8 && ns(&ov.value) <= 10000000000ll);
    SHOW("timer_gettime again", syscall(SYS_timer_gettime, id, &cur));
    printf("interval %ld.%09ld\n", cur.interval.sec, cur.interval.nsec);
    SHOW("timer_settime NULL", syscall(SYS_timer_settime, id, 0, NULL, NULL));
    SHOW("timer_settime bad new", syscall(SYS_timer_settime, id, 0, BAD, NULL));
    SHOW("timer_settime bad id and new", syscall(SYS_timer_settime, 4321, 0, BAD, NULL));
    SHOW("timer_settime bad id", syscall(SYS_timer_settime, 4321, 0, &nv, NULL));
    SHOW("timer_settime bad old", syscall(SYS_timer_settime, id, 0, &nv, BAD));
    nv.value.nsec = 1000000000;
    SHOW("timer_settime bad nsec", syscall(SYS_timer_settime, id, 0, &nv, NULL));
    SHOW("timer_gettime bad pointer", syscall(SYS_timer_gettime, id, BAD));
    SHOW("timer_gettime bad id", syscall(SYS_timer_gettime, 4321, &cur));
    SHOW("timer_delete", syscall(SYS_timer_delete, id));

    SHOW("timer_create bad sigevent", syscall(SYS_timer_create, CLOCK_MONOTONIC, BAD, &id));
    SHOW("timer_create bad id pointer", syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, BAD));
    SHOW("timer_create bad clock", syscall(SYS_timer_create, 12345, &sev, &id));
    sev.notify = SIGEV_SIGNAL;
    sev.signo = 0;
    SHOW("timer_create signal 0", syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &id));
    sev.notify = SIGEV_THREAD_ID;
    sev.signo = SIGUSR1;
    sev.tid = 1;
    SHOW("timer_create tid of another process", syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &id));

    /* The value reaches the signal: read through a signalfd. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN + 2);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sfd = signalfd(-1, &set, 0);
    memset(&sev, 0, sizeof(sev));
    sev.notify = SIGEV_SIGNAL;
    sev.signo = SIGRTMIN + 2;
    sev.value = 0x12345678;
    SHOW("timer_create signal", syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &id));
    nv = (struct litimerspec){ { 0, 0 }, { 0, 1000000 } };
    SHOW("timer_settime 1ms", syscall(SYS_timer_settime, id, 0, &nv, NULL));
    struct signalfd_siginfo si;
    if (read(sfd, &si, sizeof(si)) == sizeof(si))
        printf("timer signal: signo ok %d, code %d, int 0x%x, ptr high 0x%x, overrun %u\n",
               si.ssi_signo == (unsigned)SIGRTMIN + 2, si.ssi_code, si.ssi_int,
               (unsigned)(si.ssi_ptr >> 32), si.ssi_overrun);
    syscall(SYS_timer_delete, id);
    close(sfd);

    /* timerfd */
    int fd = (int)syscall(SYS_timerfd_create, CLOCK_MONOTONIC, 0);
    nv = (struct litimerspec){ { 0, 0 }, { 10, 0 } };
    memset(&ov, 0x55, sizeof(ov));
    SHOW("timerfd_settime", syscall(SYS_timerfd_settime, fd, 0, &nv, &ov));
    printf("old value zero: %d\n", !ov.value.sec && !ov.value.nsec && !ov.interval.nsec);
    SHOW("timerfd_gettime", syscall(SYS_timerfd_gettime, fd, &cur));
    printf("value in (8, 10]: %d\n", cur.value.sec >= 8 && ns(&cur.value) <= 10000000000ll);
    SHOW("timerfd_settime NULL old", syscall(SYS_timerfd_settime, fd, 0, &nv, NULL));
    SHOW("timerfd_settime bad new", syscall(SYS_timerfd_settime, fd, 0, BAD, NULL));
    SHOW("timerfd_settime bad fd and new", syscall(SYS_timerfd_settime, -1, 0, BAD, NULL));
    SHOW("timerfd_settime bad fd", syscall(SYS_timerfd_settime, -1, 0, &nv, NULL));
    SHOW("timerfd_settime not a timerfd", syscall(SYS_timerfd_settime, 1, 0, &nv, NULL));
    SHOW("timerfd_settime bad old", syscall(SYS_timerfd_settime, fd, 0, &nv, BAD));
    SHOW("timerfd_settime bad flags", syscall(SYS_timerfd_settime, fd, 0x100, &nv, NULL));
    nv.interval.nsec = -1;
    SHOW("timerfd_settime bad nsec", syscall(SYS_timerfd_settime, fd, 0, &nv, NULL));
    SHOW("timerfd_gettime bad pointer", syscall(SYS_timerfd_gettime, fd, BAD));
    SHOW("timerfd_gettime bad fd", syscall(SYS_timerfd_gettime, -1, &cur));
    nv = (struct litimerspec){ { 0, 0 }, { 0, 1000000 } };
    syscall(SYS_timerfd_settime, fd, 0, &nv, NULL);
    uint64_t count = 0;
    printf("timerfd expired: %d\n", read(fd, &count, 8) == 8 && count >= 1);
    close(fd);

    /* Interval timers: ITIMER_VIRTUAL never fires here (100 s of CPU). */
    struct litimerval iv, iov;
    memset(&iv, 0x55, sizeof(iv));
    SHOW("getitimer real", syscall(SYS_getitimer, ITIMER_REAL, &iv));
    printf("disarmed: %d\n", !iv.value.sec && !iv.value.usec && !iv.interval.sec);
    iv = (struct litimerval){ { 3, 250 }, { 100, 0 } };
    SHOW("setitimer virtual", syscall(SYS_setitimer, ITIMER_VIRTUAL, &iv, &iov));
    printf("old zero: %d\n", !iov.value.sec && !iov.value.usec);
    SHOW("getitimer virtual", syscall(SYS_getitimer, ITIMER_VIRTUAL, &iv));
    printf("value near 100 s: %d, interval %ld.%06ld\n", iv.value.sec >= 98 && iv.value.sec <= 100,
           iv.interval.sec, iv.interval.usec);
    memset(&iv, 0, sizeof(iv));
    SHOW("setitimer virtual off", syscall(SYS_setitimer, ITIMER_VIRTUAL, &iv, &iov));
    printf("old value near 100 s: %d\n", iov.value.sec >= 98 && iov.value.sec <= 100);
    SHOW("setitimer bad which", syscall(SYS_setitimer, 99, &iv, NULL));
    SHOW("getitimer bad which", syscall(SYS_getitimer, 99, &iv));
    SHOW("setitimer bad new", syscall(SYS_setitimer, ITIMER_REAL, BAD, NULL));
    SHOW("getitimer bad pointer", syscall(SYS_getitimer, ITIMER_REAL, BAD));
    iv = (struct litimerval){ { 0, 0 }, { 0, 1000000 } };
    SHOW("setitimer usec too big", syscall(SYS_setitimer, ITIMER_REAL, &iv, NULL));
    iv = (struct litimerval){ { 0, 0 }, { 50, 0 } };
    SHOW("setitimer bad old", syscall(SYS_setitimer, ITIMER_REAL, &iv, BAD));
    SHOW("getitimer after", syscall(SYS_getitimer, ITIMER_REAL, &iov));
    printf("armed anyway: %d\n", iov.value.sec >= 48);
    memset(&iv, 0, sizeof(iv));
    syscall(SYS_setitimer, ITIMER_REAL, &iv, NULL);
}

/* ------------------------------------------------------------ sched, futex */

static void sched_futex(void)
{
    struct lts t = { -1, -1 };
    SHOW("sched_rr_get_interval", syscall(SYS_sched_rr_get_interval, 0, &t));
    printf("interval sane: %d\n", t.sec >= 0 && t.nsec >= 0 && t.nsec < 1000000000);
    SHOW("sched_rr_get_interval bad pointer", syscall(SYS_sched_rr_get_interval, 0, BAD));
    SHOW("sched_rr_get_interval bad pid", syscall(SYS_sched_rr_get_interval, -1, &t));
    SHOW("sched_rr_get_interval no pid", syscall(SYS_sched_rr_get_interval, 0x7fffffff, &t));

    static uint32_t word;
    struct lts to = { 0, 1000000 };
    SHOW("futex wait timeout", syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &to, NULL, 0));
    SHOW("futex wait other value", syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, &to, NULL, 0));
    SHOW("futex wait bad timeout", syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, BAD, NULL, 0));
    to.nsec = -1;
    SHOW("futex wait invalid timeout", syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &to, NULL, 0));
    SHOW("futex wait invalid timeout bad word", syscall(SYS_futex, BAD, FUTEX_WAIT_PRIVATE, 0, &to, NULL, 0));
    struct lts abs;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &abs);
    SHOW("futex wait_bitset past", syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE, 0, &abs, NULL,
                                           FUTEX_BITSET_MATCH_ANY));
    SHOW("futex wake", syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
    /* REQUEUE: the fourth argument is a count, not a pointer. */
    static uint32_t other;
    SHOW("futex cmp_requeue", syscall(SYS_futex, &word, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)5, &other, 0));
}

/* ------------------------------------------------------------ file times */

static void file_times(void)
{
    char dir[] = "/tmp/time32.XXXXXX";
    if (!mkdtemp(dir))
        return;
    char path[64];
    snprintf(path, sizeof(path), "%s/f", dir);
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    struct statx sx;
#define STAMP(what)                                                                            \
    (statx(AT_FDCWD, path, 0, STATX_ATIME | STATX_MTIME, &sx),                                 \
     printf("%s: atime %lld.%09u mtime %lld.%09u\n", what, (long long)sx.stx_atime.tv_sec,     \
            sx.stx_atime.tv_nsec, (long long)sx.stx_mtime.tv_sec, sx.stx_mtime.tv_nsec))

    long ut[2] = { 1000, 2000 };
    SHOW("utime", syscall(SYS_utime, path, ut));
    STAMP("after utime");
    SHOW("utime NULL", syscall(SYS_utime, path, NULL));
    statx(AT_FDCWD, path, 0, STATX_MTIME, &sx);
    printf("utime NULL is now: %d\n", labs((long)sx.stx_mtime.tv_sec - now_sec()) <= 2);
    SHOW("utime bad times", syscall(SYS_utime, path, BAD));
    SHOW("utime bad path", syscall(SYS_utime, BAD, ut));
    SHOW("utime missing", syscall(SYS_utime, "/nonexistent/x", ut));
    ut[0] = -1;
    SHOW("utime negative", syscall(SYS_utime, path, ut));
    STAMP("after utime negative");

    struct ltv tv[2] = { { 3000, 5 }, { 4000, 999999 } };
    SHOW("utimes", syscall(SYS_utimes, path, tv));
    STAMP("after utimes");
    tv[1].usec = 1000000;
    SHOW("utimes usec too big", syscall(SYS_utimes, path, tv));
    tv[1].usec = -1;
    SHOW("utimes usec negative", syscall(SYS_utimes, path, tv));
    SHOW("utimes bad times", syscall(SYS_utimes, path, BAD));
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    tv[0] = (struct ltv){ 3100, 1 };
    tv[1] = (struct ltv){ 4100, 2 };
    SHOW("futimesat", syscall(SYS_futimesat, dfd, "f", tv));
    STAMP("after futimesat");
    tv[0].sec = 3200;
    SHOW("futimesat fd", syscall(SYS_futimesat, fd, NULL, tv));
    STAMP("after futimesat fd");
    SHOW("futimesat bad dirfd", syscall(SYS_futimesat, -1, "f", tv));
    SHOW("futimesat bad times", syscall(SYS_futimesat, dfd, "f", BAD));

    struct lts ts[2] = { { 5000, 123 }, { 0, UTIME_OMIT } };
    SHOW("utimensat", syscall(SYS_utimensat, AT_FDCWD, path, ts, 0));
    STAMP("after utimensat");
    ts[0] = (struct lts){ 0, UTIME_OMIT };
    SHOW("utimensat both omitted, bad path", syscall(SYS_utimensat, -1, BAD, ts, 0));
    ts[1] = (struct lts){ 6000, 999999999 };
    SHOW("utimensat fd", syscall(SYS_utimensat, fd, NULL, ts, 0));
    STAMP("after utimensat fd");
    ts[1].nsec = 1000000000;
    SHOW("utimensat bad nsec", syscall(SYS_utimensat, AT_FDCWD, path, ts, 0));
    SHOW("utimensat bad times", syscall(SYS_utimensat, AT_FDCWD, path, BAD, 0));
    SHOW("utimensat bad dirfd", syscall(SYS_utimensat, -1, "f", NULL, 0));
    SHOW("utimensat bad flags", syscall(SYS_utimensat, AT_FDCWD, path, NULL, 0x4000));
    ts[1] = (struct lts){ 0, UTIME_NOW };
    SHOW("utimensat now", syscall(SYS_utimensat, dfd, "f", ts, AT_SYMLINK_NOFOLLOW));
    statx(AT_FDCWD, path, 0, STATX_MTIME, &sx);
    printf("UTIME_NOW is now: %d\n", labs((long)sx.stx_mtime.tv_sec - now_sec()) <= 2);
    close(fd);
    close(dfd);
    unlink(path);
    rmdir(dir);
}

/* ------------------------------------------------------------ select, poll */

#define BIT(fd) (1u << ((fd) % 32))

/* select in the ABI's own forms: on i386 the old one (a struct of the
 * five arguments) and _newselect, on x86_64 select. */
static long sel(int form, int n, void *r, void *w, void *e, struct ltv *tv)
{
#ifdef SYS__newselect
    if (form == 1)
        return syscall(SYS__newselect, n, r, w, e, tv);
    struct { long n; void *r, *w, *e; struct ltv *tv; } args = { n, r, w, e, tv };
    return syscall(SYS_select, &args);
#else
    (void)form;
    return syscall(SYS_select, n, r, w, e, tv);
#endif
}

static void selects(int form, int rfd, int wfd, int empty)
{
    const char *f = form ? "_newselect" : "select";
    char what[96];
#define SEL(text, call) (snprintf(what, sizeof(what), "%s %s", f, text), SHOW(what, call))
    uint32_t rs[40], ws[40];
    memset(rs, 0, sizeof(rs));
    memset(ws, 0, sizeof(ws));
    rs[0] = BIT(rfd) | BIT(empty);
    ws[0] = BIT(wfd);
    rs[1] = ws[1] = 0xdeadbeef; /* past the sets of n <= 32: never touched */
    struct ltv tv = { 1, 0 };
    int n = (wfd > empty ? wfd : empty) + 1;
    SEL("ready", sel(form, n, rs, ws, NULL, &tv));
    printf("  read %d write %d, words after intact %d, time left <= 1 s %d\n", rs[0] == BIT(rfd),
           ws[0] == BIT(wfd), rs[1] == 0xdeadbeef && ws[1] == 0xdeadbeef,
           tv.sec * 1000000 + tv.usec <= 1000000 && tv.sec >= 0);
    rs[0] = BIT(empty);
    tv = (struct ltv){ 0, 10000 };
    SEL("nothing ready", sel(form, n, rs, NULL, NULL, &tv));
    printf("  set cleared %d, time left %ld.%06ld\n", rs[0] == 0, tv.sec, tv.usec);
    tv = (struct ltv){ 0, 1500000 };
    rs[0] = BIT(rfd);
    SEL("usec over a second", sel(form, n, rs, NULL, NULL, &tv));
    printf("  time left in (0.5, 1.5] s: %d\n", tv.sec == 1 || (tv.sec == 0 && tv.usec > 500000));
    tv.sec = 0;
    tv.usec = 0;
    SEL("zero timeout", sel(form, n, rs, NULL, NULL, &tv));

    /* A set of one 32-bit word ending a page: the compat kernel reads
     * and writes exactly 4 bytes. */
    long page = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(m + page, (size_t)page, PROT_NONE);
    uint32_t *edge = (uint32_t *)(m + page - 4);
    *edge = BIT(rfd);
    SEL("set ending a page", sel(form, rfd + 1, edge, NULL, NULL, &tv));
    printf("  bit kept %d\n", *edge == BIT(rfd));
    SEL("set ending a page, two words", sel(form, 40, edge, NULL, NULL, &tv));
    munmap(m, (size_t)page * 2);

    /* Higher descriptors: 2 words (n = 41) and 3 words (n = 71). */
    int hi[] = { 40, 70, 1000 };
    for (int i = 0; i < 3; i++) {
        dup2(rfd, hi[i]);
        memset(rs, 0, sizeof(rs));
        rs[hi[i] / 32] = BIT(hi[i]);
        int words = (hi[i] + 1 + 31) / 32;
        rs[words] = 0xdeadbeef;
        snprintf(what, sizeof(what), "%s fd %d", f, hi[i]);
        SHOW(what, sel(form, hi[i] + 1, rs, NULL, NULL, &tv));
        printf("  bit set %d, word after intact %d\n", rs[hi[i] / 32] == BIT(hi[i]),
               rs[words] == 0xdeadbeef);
        close(hi[i]);
    }
    memset(rs, 0, sizeof(rs));
    rs[1] = BIT(60);
    SEL("closed fd", sel(form, 61, rs, NULL, NULL, &tv));
    SEL("bad set", sel(form, n, BAD, NULL, NULL, &tv));
    SEL("bad timeout", sel(form, n, rs, NULL, NULL, BAD));
    SEL("negative n", sel(form, -1, NULL, NULL, NULL, &tv));
    tv.usec = -1;
    SEL("negative usec", sel(form, n, NULL, NULL, NULL, &tv));
    tv.usec = 0;
    SEL("bad set, bad timeout", sel(form, n, BAD, NULL, NULL, BAD));
#undef SEL
}

static void polls(void)
{
    int p[2], q[2];
    pipe(p);
    pipe(q); /* q stays empty */
    write(p[1], "x", 1);
    selects(0, p[0], p[1], q[0]);
#ifdef SYS__newselect
    selects(1, p[0], p[1], q[0]);
    SHOW("old select bad arguments", syscall(SYS_select, BAD));
#endif

    /* pselect6: the timeout as the ABI's long timespec. */
    sigset_t none;
    sigemptyset(&none);
    struct { sigset_t *ss; size_t len; } sig = { &none, 8 };
    uint32_t rs[2] = { BIT(p[0]) | BIT(q[0]), 0xdeadbeef };
    struct lts ts = { 1, 0 };
    int n = (p[0] > q[0] ? p[0] : q[0]) + 1;
    SHOW("pselect6 ready", syscall(SYS_pselect6, n, rs, NULL, NULL, &ts, &sig));
    printf("  read %d, word after intact %d, time left <= 1 s %d\n", rs[0] == BIT(p[0]),
           rs[1] == 0xdeadbeef, ns(&ts) <= 1000000000ll && ns(&ts) >= 0);
    rs[0] = BIT(q[0]);
    ts = (struct lts){ 0, 10000000 };
    SHOW("pselect6 nothing ready", syscall(SYS_pselect6, n, rs, NULL, NULL, &ts, &sig));
    printf("  set cleared %d, time left %ld.%09ld\n", rs[0] == 0, ts.sec, ts.nsec);
    SHOW("pselect6 no sig", syscall(SYS_pselect6, n, rs, NULL, NULL, &ts, NULL));
    sig.len = 4;
    SHOW("pselect6 bad sigset size", syscall(SYS_pselect6, n, rs, NULL, NULL, &ts, &sig));
    sig.len = 8;
    SHOW("pselect6 bad sig", syscall(SYS_pselect6, n, rs, NULL, NULL, &ts, BAD));
    SHOW("pselect6 bad timeout", syscall(SYS_pselect6, n, rs, NULL, NULL, BAD, &sig));
    SHOW("pselect6 bad set", syscall(SYS_pselect6, n, BAD, NULL, NULL, &ts, &sig));
    ts.nsec = -1;
    SHOW("pselect6 bad nsec", syscall(SYS_pselect6, n, rs, NULL, NULL, &ts, &sig));
    SHOW("pselect6 bad nsec, bad sig", syscall(SYS_pselect6, n, rs, NULL, NULL, &ts, BAD));
    SHOW("pselect6 bad timeout, bad sig", syscall(SYS_pselect6, n, rs, NULL, NULL, BAD, BAD));

    struct pollfd pf[2] = { { p[0], POLLIN, 0 }, { q[0], POLLIN, 0 } };
    ts = (struct lts){ 1, 0 };
    SHOW("ppoll ready", syscall(SYS_ppoll, pf, 2, &ts, &none, 8));
    printf("  revents %d %d, time left <= 1 s %d\n", pf[0].revents, pf[1].revents,
           ns(&ts) <= 1000000000ll && ns(&ts) >= 0);
    ts = (struct lts){ 0, 10000000 };
    SHOW("ppoll nothing ready", syscall(SYS_ppoll, &pf[1], 1, &ts, NULL, 8));
    printf("  time left %ld.%09ld\n", ts.sec, ts.nsec);
    SHOW("ppoll bad timeout", syscall(SYS_ppoll, pf, 2, BAD, NULL, 8));
    SHOW("ppoll bad sigset size", syscall(SYS_ppoll, pf, 2, &ts, &none, 4));
    SHOW("ppoll bad fds", syscall(SYS_ppoll, BAD, 2, &ts, NULL, 8));
    ts.nsec = 1000000000;
    SHOW("ppoll bad nsec", syscall(SYS_ppoll, pf, 2, &ts, NULL, 8));

#ifdef SYS_pselect6_time64
    /* The time64 calls of i386: the kernel reads tv_nsec as 32 bits for a
     * 32-bit process, so what is above them does not matter. */
    struct { long long sec; long nsec, pad; } t64 = { 0, 10000000, 0x5a5a5a5a };
    rs[0] = BIT(q[0]);
    SHOW("pselect6_time64 padded", syscall(SYS_pselect6_time64, n, rs, NULL, NULL, &t64, &sig));
    printf("  time left %lld.%09ld\n", t64.sec, t64.nsec);
    t64.sec = 0;
    t64.nsec = 10000000;
    t64.pad = 0x5a5a5a5a;
    SHOW("ppoll_time64 padded", syscall(SYS_ppoll_time64, &pf[1], 1, &t64, NULL, 8));
    t64.nsec = -1;
    SHOW("ppoll_time64 bad nsec", syscall(SYS_ppoll_time64, &pf[1], 1, &t64, NULL, 8));
#endif
    close(p[0]);
    close(p[1]);
    close(q[0]);
    close(q[1]);
}

/* ------------------------------------------------------------ limits, usage, names */

struct lsysinfo {
    long uptime;
    unsigned long loads[3];
    unsigned long totalram, freeram, sharedram, bufferram, totalswap, freeswap;
    unsigned short procs, pad;
    unsigned long totalhigh, freehigh;
    unsigned int mem_unit;
    char f[20 - 2 * sizeof(long) - sizeof(int)];
};

static void limits(void)
{
    static const struct { int res; const char *name; } lim[] = {
        { RLIMIT_NOFILE, "NOFILE" }, { RLIMIT_STACK, "STACK" }, { RLIMIT_AS, "AS" },
        { RLIMIT_CORE, "CORE" }, { RLIMIT_CPU, "CPU" }, { RLIMIT_NPROC, "NPROC" },
    };
    unsigned long rl[2];
    for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
        long r = syscall(SYS_getrlimit, lim[i].res, rl);
        printf("getrlimit %s: %ld, %#lx %#lx\n", lim[i].name, r, rl[0], rl[1]);
#ifdef SYS_ugetrlimit
        r = syscall(SYS_ugetrlimit, lim[i].res, rl);
        printf("ugetrlimit %s: %ld, %#lx %#lx\n", lim[i].name, r, rl[0], rl[1]);
#endif
    }
    SHOW("getrlimit bad resource", syscall(SYS_getrlimit, 99, rl));
    SHOW("getrlimit bad pointer", syscall(SYS_getrlimit, RLIMIT_NOFILE, BAD));
    fflush(stdout);
    if (fork() == 0) { /* changes only in a child */
        syscall(SYS_getrlimit, RLIMIT_NOFILE, rl);
        unsigned long nl[2] = { 32, rl[1] };
        SHOW("setrlimit NOFILE 32", syscall(SYS_setrlimit, RLIMIT_NOFILE, nl));
        syscall(SYS_getrlimit, RLIMIT_NOFILE, rl);
        printf("  now %lu\n", rl[0]);
        nl[0] = nl[1] = (unsigned long)-1;
        SHOW("setrlimit CORE all ones", syscall(SYS_setrlimit, RLIMIT_CORE, nl));
        struct rlimit64 r64;
        prlimit64(0, RLIMIT_CORE, NULL, &r64);
        printf("  CORE unlimited: %d %d\n", r64.rlim_cur == RLIM64_INFINITY, r64.rlim_max == RLIM64_INFINITY);
        nl[0] = 10;
        nl[1] = 5;
        SHOW("setrlimit cur > max", syscall(SYS_setrlimit, RLIMIT_NOFILE, nl));
        SHOW("setrlimit bad resource", syscall(SYS_setrlimit, 99, nl));
        SHOW("setrlimit bad pointer", syscall(SYS_setrlimit, RLIMIT_NOFILE, BAD));
        SHOW("setrlimit bad resource and pointer", syscall(SYS_setrlimit, 99, BAD));
        fflush(stdout);
        _exit(0);
    }
    wait(NULL);

    struct { struct ltv utime, stime; long rest[14]; } ru;
    memset(&ru, 0x55, sizeof(ru));
    SHOW("getrusage self", syscall(SYS_getrusage, RUSAGE_SELF, &ru));
    printf("  maxrss positive %d, usec in range %d, nswap %ld\n", ru.rest[0] > 0,
           ru.utime.usec >= 0 && ru.utime.usec < 1000000 && ru.stime.usec >= 0 && ru.stime.usec < 1000000,
           ru.rest[6]);
    SHOW("getrusage children", syscall(SYS_getrusage, RUSAGE_CHILDREN, &ru));
    printf("  child's maxrss positive %d\n", ru.rest[0] > 0);
    SHOW("getrusage thread", syscall(SYS_getrusage, RUSAGE_THREAD, &ru));
    SHOW("getrusage bad who", syscall(SYS_getrusage, 5, &ru));
    SHOW("getrusage bad pointer", syscall(SYS_getrusage, RUSAGE_SELF, BAD));

    long t[4] = { -1, -1, -1, -1 };
    long r1 = syscall(SYS_times, t);
    long r2 = syscall(SYS_times, NULL);
    printf("times: ticks go on %d, fields set %d\n", r1 != -1 && r2 - r1 >= 0 && r2 - r1 < 1000,
           t[0] >= 0 && t[1] >= 0 && t[2] >= 0 && t[3] >= 0);
    SHOW("times bad pointer", syscall(SYS_times, BAD));
    /* The children's user time, fixed once they are reaped, against the
     * same time from getrusage: a 32-bit process gets it converted to
     * jiffies and back (clock_t_to_compat_clock_t()), HZ being the tick
     * of the coarse clocks. */
    fflush(stdout);
    if (fork() == 0) {
        struct timespec cpu;
        volatile unsigned long spin = 0;
        do {
            for (int i = 0; i < 1000000; i++)
                spin += (unsigned long)i;
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
        } while (cpu.tv_sec == 0 && cpu.tv_nsec < 130000000);
        _exit(0);
    }
    wait(NULL);
    syscall(SYS_times, t);
    syscall(SYS_getrusage, RUSAGE_CHILDREN, &ru);
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC_COARSE, &res);
    unsigned long long hz = (1000000000ull + (unsigned long long)res.tv_nsec / 2) / (unsigned long long)res.tv_nsec;
    int same = 1;
    for (int i = 0; i < 2; i++) {
        struct ltv *tv = i ? &ru.stime : &ru.utime;
        unsigned long long x = ((unsigned long long)tv->sec * 1000000 + (unsigned long long)tv->usec) / 10000;
        unsigned long long want = x;
        if (sizeof(long) == 4) {
            unsigned long long j = hz % 100 == 0 ? x * (hz / 100) : x * hz / 100;
            want = j * 100 / hz;
        }
        same &= (unsigned long long)t[2 + i] == want;
    }
    printf("times: children's times as the kernel converts them: %d\n", same);

    struct lsysinfo si;
    memset(&si, 0x55, sizeof(si));
    SHOW("sysinfo", syscall(SYS_sysinfo, &si));
    struct timespec boot;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    printf("  mem_unit %u totalram %lu totalswap %lu totalhigh %lu freehigh %lu\n", si.mem_unit,
           si.totalram, si.totalswap, si.totalhigh, si.freehigh);
    printf("  free <= total %d, procs %d, uptime agrees %d\n",
           si.freeram <= si.totalram && si.freeswap <= si.totalswap, si.procs > 0,
           labs(si.uptime - (long)boot.tv_sec) <= 2);
    SHOW("sysinfo bad pointer", syscall(SYS_sysinfo, BAD));
}

static void names(const char *when)
{
    struct utsname u;
    SHOW("uname", syscall(SYS_uname, &u));
    printf("  %s: %s %s\n", when, u.sysname, u.machine);
#ifdef SYS_olduname
    char old[5][65];
    memset(old, 0x55, sizeof(old));
    SHOW("olduname", syscall(SYS_olduname, old));
    printf("  %s: %s %s, release same %d\n", when, old[0], old[4], !strcmp(old[2], u.release));
    char oldold[5][9];
    memset(oldold, 0x55, sizeof(oldold));
    SHOW("oldolduname", syscall(SYS_oldolduname, oldold));
    printf("  %s: %s, release same %d, machine bytes", when, oldold[0],
           !strncmp(oldold[2], u.release, 8) && !oldold[2][8]);
    for (int i = 0; i < 9; i++)
        printf(" %02x", (unsigned char)oldold[4][i]);
    printf("\n");
    SHOW("olduname bad pointer", syscall(SYS_olduname, BAD));
    SHOW("oldolduname NULL", syscall(SYS_oldolduname, NULL));
#endif
    SHOW("uname bad pointer", syscall(SYS_uname, BAD));
}

/* ------------------------------------------------------------ i386 time64 */

#ifdef SYS_clock_nanosleep_time64
#include <sys/epoll.h>
/* __kernel_timespec as glibc's i386 struct __timespec64 lays it out: the
 * padding above tv_nsec is not cleared; a 32-bit process's kernel reads
 * tv_nsec as 32 bits. */
struct ts64 {
    long long sec;
    long nsec, pad;
};
#define PADDED(s, n) ((struct ts64){ (s), (n), 0x5a5a5a5a })

static void time64_calls(void)
{
    struct ts64 t = PADDED(0, 1000000), rem = PADDED(7, 7);
    SHOW("clock_nanosleep_time64 padded", syscall(SYS_clock_nanosleep_time64, CLOCK_MONOTONIC, 0, &t, &rem));
    printf("  rem untouched %d\n", rem.sec == 7 && rem.nsec == 7);
    SHOW("clock_nanosleep_time64 bad clock", syscall(SYS_clock_nanosleep_time64, 12345, 0, BAD, NULL));
    t.nsec = -1;
    SHOW("clock_nanosleep_time64 bad nsec", syscall(SYS_clock_nanosleep_time64, CLOCK_MONOTONIC, 0, &t, NULL));
    t = PADDED(0, 0);
    SHOW("clock_settime64 monotonic", syscall(SYS_clock_settime64, CLOCK_MONOTONIC, &t));
    SHOW("clock_settime64 bad clock and pointer", syscall(SYS_clock_settime64, 12345, BAD));
    SHOW("clock_settime64 bad pointer", syscall(SYS_clock_settime64, CLOCK_REALTIME, BAD));

    int id;
    struct lsigevent sev;
    memset(&sev, 0, sizeof(sev));
    sev.notify = SIGEV_NONE;
    syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &id);
    struct ts64 its[2] = { PADDED(0, 500), PADDED(10, 0) }, old[2];
    memset(old, 0x55, sizeof(old));
    SHOW("timer_settime64 padded", syscall(SYS_timer_settime64, id, 0, its, old));
    printf("  old zero %d\n", !old[1].sec && !old[1].nsec && !old[0].nsec && !old[0].pad);
    SHOW("timer_gettime64", syscall(SYS_timer_gettime64, id, old));
    printf("  interval %lld.%09ld, value in (8, 10] %d\n", old[0].sec, old[0].nsec,
           old[1].sec >= 8 && old[1].sec <= 10);
    SHOW("timer_settime64 bad new", syscall(SYS_timer_settime64, id, 0, BAD, NULL));
    syscall(SYS_timer_delete, id);

    int fd = (int)syscall(SYS_timerfd_create, CLOCK_MONOTONIC, 0);
    its[0] = PADDED(0, 0);
    its[1] = PADDED(10, 1);
    SHOW("timerfd_settime64 padded", syscall(SYS_timerfd_settime64, fd, 0, its, old));
    SHOW("timerfd_gettime64", syscall(SYS_timerfd_gettime64, fd, old));
    printf("  value in (8, 10] %d\n", old[1].sec >= 8 && old[1].sec <= 10);
    its[1].nsec = 1000000000;
    SHOW("timerfd_settime64 bad nsec", syscall(SYS_timerfd_settime64, fd, 0, its, NULL));
    close(fd);

    char path[] = "/tmp/time64.XXXXXX";
    fd = mkstemp(path);
    struct ts64 ut[2] = { PADDED(7000, 5), PADDED(8000, UTIME_OMIT) };
    SHOW("utimensat_time64 padded", syscall(SYS_utimensat_time64, AT_FDCWD, path, ut, 0));
    struct statx sx;
    statx(AT_FDCWD, path, 0, STATX_ATIME, &sx);
    printf("  atime %lld.%09u\n", (long long)sx.stx_atime.tv_sec, sx.stx_atime.tv_nsec);
    ut[0] = PADDED(0, UTIME_OMIT);
    SHOW("utimensat_time64 both omitted", syscall(SYS_utimensat_time64, -1, BAD, ut, 0));
    close(fd);
    unlink(path);

    static uint32_t word;
    t = PADDED(0, 1000000);
    SHOW("futex_time64 padded", syscall(SYS_futex_time64, &word, FUTEX_WAIT_PRIVATE, 0, &t, NULL, 0));
    t.nsec = -1;
    SHOW("futex_time64 bad nsec", syscall(SYS_futex_time64, &word, FUTEX_WAIT_PRIVATE, 0, &t, NULL, 0));

    int ep = epoll_create1(0);
    struct epoll_event ev[2];
    t = PADDED(0, 1000000);
    SHOW("epoll_pwait2 padded", syscall(SYS_epoll_pwait2, ep, ev, 2, &t, NULL, 8));
    t.nsec = 1000000000;
    SHOW("epoll_pwait2 bad nsec", syscall(SYS_epoll_pwait2, ep, ev, 2, &t, NULL, 8));
    SHOW("epoll_pwait2 bad timeout", syscall(SYS_epoll_pwait2, ep, ev, 2, BAD, NULL, 8));
    close(ep);
}
#endif

/* ------------------------------------------------------------ interrupted */

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) { (void)sig; alarms++; }

/* A sleep or wait cut short by a handled signal (no SA_RESTART): EINTR,
 * with the time left stored where the call stores it. */
static void interrupted(void)
{
    struct sigaction sa = { .sa_handler = on_alarm };
    sigaction(SIGALRM, &sa, NULL);
    struct litimerval in = { { 0, 0 }, { 0, 100000 } }, off = { { 0, 0 }, { 0, 0 } };

    struct lts req = { 3, 0 }, rem = { -1, -1 };
    syscall(SYS_setitimer, ITIMER_REAL, &in, NULL);
    SHOW("nanosleep interrupted", syscall(SYS_nanosleep, &req, &rem));
    printf("  handler ran %d, time left in (2, 3) s %d\n", (int)alarms, rem.sec == 2 && rem.nsec > 0);

    rem = (struct lts){ -1, -1 };
    syscall(SYS_setitimer, ITIMER_REAL, &in, NULL);
    SHOW("clock_nanosleep interrupted", syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, &rem));
    printf("  time left in (2, 3) s %d\n", rem.sec == 2 && rem.nsec > 0);

    int p[2];
    pipe(p);
    uint32_t rs[2] = { BIT(p[0]), 0xdeadbeef };
    struct ltv tv = { 3, 0 };
    syscall(SYS_setitimer, ITIMER_REAL, &in, NULL);
    SHOW("select interrupted", sel(0, p[0] + 1, rs, NULL, NULL, &tv));
    printf("  set untouched %d, time left in (2, 3) s %d\n", rs[0] == BIT(p[0]) && rs[1] == 0xdeadbeef,
           tv.sec == 2 && tv.usec > 0);

    struct pollfd pf = { p[0], POLLIN, 0 };
    struct lts ts = { 3, 0 };
    syscall(SYS_setitimer, ITIMER_REAL, &in, NULL);
    SHOW("ppoll interrupted", syscall(SYS_ppoll, &pf, 1, &ts, NULL, 8));
    printf("  time left in (2, 3) s %d\n", ts.sec == 2 && ts.nsec > 0);
#ifdef SYS_clock_nanosleep_time64
    struct ts64 r64 = { 3, 0, 0 }, left64 = { -1, -1, -1 };
    syscall(SYS_setitimer, ITIMER_REAL, &in, NULL);
    SHOW("clock_nanosleep_time64 interrupted",
         syscall(SYS_clock_nanosleep_time64, CLOCK_MONOTONIC, 0, &r64, &left64));
    printf("  time left in (2, 3) s %d, padding cleared %d\n", left64.sec == 2 && left64.nsec > 0,
           left64.pad == 0);
#endif
    syscall(SYS_setitimer, ITIMER_REAL, &off, NULL);
    printf("alarms: %d\n", (int)alarms);
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("long is %d bytes\n", (int)sizeof(long));
    clocks();
    sleeps();
    timers();
    sched_futex();
    file_times();
    polls();
#ifdef SYS_clock_nanosleep_time64
    time64_calls();
#endif
    interrupted();
    limits();
    names("default");
    fflush(stdout);
    if (fork() == 0) {
        SHOW("personality LINUX32", syscall(SYS_personality, PER_LINUX32) & PER_MASK);
        names("PER_LINUX32");
        _exit(0);
    }
    wait(NULL);
    return 0;
}
