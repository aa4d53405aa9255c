/* procinfo: credentials, resource limits, prctl, uname, scheduling,
 * getrandom, clocks, sleeps and timers, compared with the native run.
 * Prints facts only (no ids, addresses or times), so the native run is the
 * expected output. */
#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/timex.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "show.h"

/* n TiB, or n * 256 MiB where rlim_t has 32 bits (-m32). */
#define BIG_LIMIT(n) ((rlim_t)(n) << (sizeof(rlim_t) == 8 ? 40 : 28))

/* CPUID faulting where the host CPU has it (else ENODEV): in a child, which
 * then dies of the #GP's SIGSEGV at its CPUID. */
static void cpuid_faulting(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        long r = syscall(SYS_arch_prctl, 0x1012, 0);
        printf("ARCH_SET_CPUID 0: %ld\n", r == -1 ? -errno : r);
        printf("ARCH_GET_CPUID after: %ld\n", syscall(SYS_arch_prctl, 0x1011, 0));
        fflush(stdout);
        unsigned a = 0, b, c = 0, d;
        __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
        printf("cpuid ran\n");
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    printf("cpuid child: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

static void creds(void)
{
    uid_t r, e, s;
    gid_t gr, ge, gs;
    SHOW("getresuid", getresuid(&r, &e, &s));
    printf("agrees: %d\n", r == getuid() && e == geteuid());
    SHOW("getresgid", getresgid(&gr, &ge, &gs));
    printf("agrees: %d\n", gr == getgid() && ge == getegid());
    SHOW("getresuid bad pointer", syscall(SYS_getresuid, &r, BAD, &s));
    /* Setting the ids one already has always works. */
    SHOW("setuid(getuid())", syscall(SYS_setuid, getuid()));
    SHOW("setgid(getgid())", syscall(SYS_setgid, getgid()));
    SHOW("setreuid(-1, -1)", syscall(SYS_setreuid, -1, -1));
    SHOW("setregid(-1, -1)", syscall(SYS_setregid, -1, -1));
    SHOW("setresuid(-1, -1, -1)", syscall(SYS_setresuid, -1, -1, -1));
    SHOW("setresgid(-1, -1, -1)", syscall(SYS_setresgid, -1, -1, -1));
    printf("setfsuid(-1) is the euid: %d\n", (uid_t)syscall(SYS_setfsuid, -1) == geteuid());
    printf("setfsgid(-1) is the egid: %d\n", (gid_t)syscall(SYS_setfsgid, -1) == getegid());
    int n = getgroups(0, NULL);
    gid_t *g = calloc((size_t)n + 4, sizeof(*g));
    printf("getgroups count again: %d\n", getgroups(n + 4, g) == n);
    if (n > 0)
        SHOW("getgroups too small", getgroups(n - 1, g));
    SHOW("getgroups bad pointer", syscall(SYS_getgroups, n + 4, BAD));
    SHOW("getgroups negative", syscall(SYS_getgroups, -1, g));
    SHOW("setgroups too many", syscall(SYS_setgroups, 65537, g));
    /* Unprivileged: EPERM; as root it sets the same list. */
    errno = 0;
    long sr = syscall(SYS_setgroups, n, g);
    printf("setgroups(same list): %s\n", sr == 0 || errno == EPERM ? "ok" : strerrorname_np(errno));
    free(g);

    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2];
    SHOW("capget v3", syscall(SYS_capget, &h, d));
    SHOW("capset of the same sets", syscall(SYS_capset, &h, d));
    h.version = 0x12345678;
    SHOW("capget unknown version", syscall(SYS_capget, &h, d));
    printf("capget wrote the version: %#x\n", h.version);
    h.version = 0x12345678;
    SHOW("capget unknown version, no data", syscall(SYS_capget, &h, NULL));
    SHOW("capset unknown version", syscall(SYS_capset, &h, d));
    SHOW("capget bad header", syscall(SYS_capget, BAD, d));
    SHOW("capget bad data", syscall(SYS_capget, &h, BAD));
}

static void limits(void)
{
    struct rlimit rl, old, now;
    getrlimit(RLIMIT_NOFILE, &old);
    rl.rlim_cur = old.rlim_cur > 100 ? 100 : old.rlim_cur;
    rl.rlim_max = old.rlim_max;
    SHOW("setrlimit NOFILE", setrlimit(RLIMIT_NOFILE, &rl));
    getrlimit(RLIMIT_NOFILE, &now);
    printf("NOFILE round trip: %d\n", now.rlim_cur == rl.rlim_cur && now.rlim_max == rl.rlim_max);
    SHOW("prlimit64 back", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &old, &now));
    printf("prlimit64 old value: %d\n", now.rlim_cur == rl.rlim_cur);
    struct rlimit inverted = { 10, 5 };
    SHOW("setrlimit cur > max", setrlimit(RLIMIT_NOFILE, &inverted));
    SHOW("getrlimit bad resource", syscall(SYS_getrlimit, 99, &rl));
    SHOW("setrlimit bad pointer", syscall(SYS_setrlimit, RLIMIT_NOFILE, BAD));
    SHOW("getrlimit bad pointer", syscall(SYS_getrlimit, RLIMIT_NOFILE, BAD));
    SHOW("prlimit64 no such process", syscall(SYS_prlimit64, 0x3fffffff, RLIMIT_NOFILE, NULL, &rl));

    /* The address-space and data limits (emulated under elfemu). */
    int res[] = { RLIMIT_AS, RLIMIT_DATA };
    const char *names[] = { "AS", "DATA" };
    for (int i = 0; i < 2; i++) {
        getrlimit(res[i], &old);
        rl = (struct rlimit){ BIG_LIMIT(1), old.rlim_max };
        if (old.rlim_max != RLIM_INFINITY && old.rlim_max < rl.rlim_cur)
            rl.rlim_cur = old.rlim_max;
        SHOW(names[i], setrlimit(res[i], &rl));
        getrlimit(res[i], &now);
        printf("%s round trip: %d\n", names[i], now.rlim_cur == rl.rlim_cur);
        if (getuid() != 0 && old.rlim_max != RLIM_INFINITY) {
            struct rlimit up = { old.rlim_max, RLIM_INFINITY };
            SHOW("raising the hard limit", setrlimit(res[i], &up));
        } else {
            printf("raising the hard limit: (privileged or unlimited)\n");
        }
        setrlimit(res[i], &old);
    }
    /* A limit set before fork holds in the child, and over execve. */
    getrlimit(RLIMIT_AS, &old);
    rl = (struct rlimit){ BIG_LIMIT(3), old.rlim_max };
    if (old.rlim_max == RLIM_INFINITY || old.rlim_max >= rl.rlim_cur) {
        setrlimit(RLIMIT_AS, &rl);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            getrlimit(RLIMIT_AS, &now);
            printf("AS in the child: %d\n", now.rlim_cur == rl.rlim_cur);
            fflush(stdout);
            execl("/bin/sh", "sh", "-c", "echo AS after execve: $(ulimit -v)", (char *)NULL);
            _exit(1);
        }
        waitpid(pid, NULL, 0);
        setrlimit(RLIMIT_AS, &old);
    }

    struct rusage ru;
    SHOW("getrusage SELF", getrusage(RUSAGE_SELF, &ru));
    SHOW("getrusage CHILDREN", getrusage(RUSAGE_CHILDREN, &ru));
    SHOW("getrusage THREAD", getrusage(RUSAGE_THREAD, &ru));
    SHOW("getrusage bad who", getrusage(7, &ru));
    SHOW("getrusage bad pointer", syscall(SYS_getrusage, RUSAGE_SELF, BAD));
    struct tms t;
    errno = 0;
    long ticks = syscall(SYS_times, &t);
    printf("times: %s\n", errno ? strerrorname_np(errno) : ticks != 0 ? "ticks" : "zero");
    SHOW("times bad pointer", syscall(SYS_times, BAD));
    printf("times(NULL) works: %d\n", syscall(SYS_times, NULL) != -1);
}

static void prctls(void)
{
    char name[16] = "", long_name[] = "a-name-longer-than-15-bytes";
    SHOW("PR_GET_NAME", prctl(PR_GET_NAME, name));
    printf("initial name: %s\n", name);
    SHOW("PR_SET_NAME", prctl(PR_SET_NAME, "renamed"));
    prctl(PR_GET_NAME, name);
    printf("name: %s\n", name);
    prctl(PR_SET_NAME, long_name);
    prctl(PR_GET_NAME, name);
    printf("long name: %s\n", name);
    SHOW("PR_SET_NAME bad pointer", prctl(PR_SET_NAME, BAD));
    SHOW("PR_GET_NAME bad pointer", prctl(PR_GET_NAME, BAD));
    int sig = -1;
    SHOW("PR_SET_PDEATHSIG", prctl(PR_SET_PDEATHSIG, SIGUSR1));
    SHOW("PR_GET_PDEATHSIG", prctl(PR_GET_PDEATHSIG, &sig));
    printf("pdeathsig: %d\n", sig);
    SHOW("PR_SET_PDEATHSIG bad signal", prctl(PR_SET_PDEATHSIG, 99));
    SHOW("PR_GET_PDEATHSIG bad pointer", prctl(PR_GET_PDEATHSIG, BAD));
    prctl(PR_SET_PDEATHSIG, 0);
    SHOW("PR_GET_DUMPABLE", prctl(PR_GET_DUMPABLE));
    SHOW("PR_SET_DUMPABLE 0", prctl(PR_SET_DUMPABLE, 0));
    SHOW("PR_GET_DUMPABLE", prctl(PR_GET_DUMPABLE));
    SHOW("PR_SET_DUMPABLE 5", prctl(PR_SET_DUMPABLE, 5));
    prctl(PR_SET_DUMPABLE, 1);
    SHOW("PR_GET_NO_NEW_PRIVS", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
    SHOW("PR_SET_CHILD_SUBREAPER", prctl(PR_SET_CHILD_SUBREAPER, 1));
    int sub = -1;
    SHOW("PR_GET_CHILD_SUBREAPER", prctl(PR_GET_CHILD_SUBREAPER, &sub));
    printf("subreaper: %d\n", sub);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    SHOW("PR_GET_KEEPCAPS", prctl(PR_GET_KEEPCAPS));
    SHOW("PR_GET_TIMING", prctl(PR_GET_TIMING));
    SHOW("PR_CAPBSET_READ CAP_CHOWN", prctl(PR_CAPBSET_READ, CAP_CHOWN) >= 0);
    int tsc = -1;
    SHOW("PR_GET_TSC", prctl(PR_GET_TSC, &tsc));
    printf("tsc: %d\n", tsc);
    SHOW("PR_GET_UNALIGN (not x86)", prctl(PR_GET_UNALIGN, &tsc));
    SHOW("unknown option", prctl(0x7fff0000, 0, 0, 0, 0));
    SHOW("ARCH_GET_CPUID", syscall(SYS_arch_prctl, 0x1011, 0));
    SHOW("ARCH_SET_CPUID 1", syscall(SYS_arch_prctl, 0x1012, 1));
    cpuid_faulting();
    SHOW("arch_prctl unknown", syscall(SYS_arch_prctl, 0x9999, 0));
    uint64_t fs = 0;
    SHOW("ARCH_GET_FS", syscall(SYS_arch_prctl, 0x1003, &fs));
    printf("fs base set: %d\n", fs != 0);
    SHOW("ARCH_GET_FS bad pointer", syscall(SYS_arch_prctl, 0x1003, BAD));
    SHOW("ARCH_SET_GS kernel address", syscall(SYS_arch_prctl, 0x1001, 0xffff800000000000ull));

    /* With no NEW_PRIVS set, a child's exec still works; set in a child. */
    fflush(stdout);
    if (fork() == 0) {
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        printf("no_new_privs in the child: %d\n", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
        fflush(stdout);
        execl("/bin/echo", "echo", "exec with no_new_privs", (char *)NULL);
        _exit(1);
    }
    wait(NULL);
}

static void system_info(void)
{
    struct utsname u;
    SHOW("uname", uname(&u));
    printf("machine: %s, sysname: %s\n", u.machine, u.sysname);
    SHOW("uname bad pointer", syscall(SYS_uname, BAD));
    int p = personality(0xffffffff);
    printf("personality: %#x\n", p);
    SHOW("personality(PER_LINUX32)", personality(PER_LINUX32) == p);
    uname(&u);
    printf("machine under PER_LINUX32: %s\n", u.machine);
    personality(p);
    uname(&u);
    printf("machine again: %s\n", u.machine);
    struct sysinfo si;
    SHOW("sysinfo", sysinfo(&si));
    printf("sysinfo sane: %d\n", si.totalram > 0 && si.mem_unit > 0 && si.procs > 0);
    SHOW("sysinfo bad pointer", syscall(SYS_sysinfo, BAD));

    unsigned char buf[600];
    size_t lens[] = { 0, 1, 16, 256, 600 };
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        char what[40];
        snprintf(what, sizeof(what), "getrandom %zu", lens[i]);
        SHOW(what, getrandom(buf, lens[i], 0));
    }
    SHOW("getrandom GRND_NONBLOCK", getrandom(buf, 32, GRND_NONBLOCK));
    SHOW("getrandom bad flags", getrandom(buf, 8, 0x100));
    SHOW("getrandom bad pointer", syscall(SYS_getrandom, BAD, 8, 0));
    memset(buf, 0, sizeof(buf));
    getrandom(buf, 64, 0);
    int nonzero = 0;
    for (int i = 0; i < 64; i++)
        nonzero += buf[i] != 0;
    printf("getrandom filled the buffer: %d\n", nonzero > 40);
    SHOW("membarrier QUERY has PRIVATE_EXPEDITED",
         (syscall(SYS_membarrier, 0, 0, 0) & 8) != 0);
    SHOW("membarrier bad cmd", syscall(SYS_membarrier, 12345, 0, 0));
    SHOW("rseq", syscall(SYS_rseq, NULL, 0, 0, 0) == -1 && (errno == ENOSYS || errno == EINVAL));
}

static void scheduling(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    long r = syscall(SYS_sched_getaffinity, 0, sizeof(set), &set);
    printf("sched_getaffinity: %s, count > 0: %d\n", r > 0 ? "size" : "fail", CPU_COUNT(&set) > 0);
    SHOW("sched_getaffinity odd size", syscall(SYS_sched_getaffinity, 0, 7, &set));
    SHOW("sched_getaffinity too small", syscall(SYS_sched_getaffinity, 0, 0, &set));
    SHOW("sched_getaffinity bad pointer", syscall(SYS_sched_getaffinity, 0, sizeof(set), BAD));
    /* A huge length: only the kernel's mask size is written. */
    printf("sched_getaffinity huge length: %d\n",
           syscall(SYS_sched_getaffinity, 0, 1 << 20, &set) == r);
    SHOW("sched_setaffinity same", sched_setaffinity(0, sizeof(set), &set));
    SHOW("sched_setaffinity short", syscall(SYS_sched_setaffinity, 0, 8, &set) == 0 ||
                                            errno == EINVAL);
    SHOW("sched_setaffinity bad pointer", syscall(SYS_sched_setaffinity, 0, sizeof(set), BAD));
    cpu_set_t empty;
    CPU_ZERO(&empty);
    SHOW("sched_setaffinity empty", sched_setaffinity(0, sizeof(empty), &empty));
    SHOW("sched_setaffinity no such process",
         syscall(SYS_sched_setaffinity, 0x3fffffff, sizeof(set), &set));

    struct sched_param sp = { 5 };
    SHOW("sched_getscheduler", sched_getscheduler(0));
    SHOW("sched_getparam", sched_getparam(0, &sp));
    printf("priority: %d\n", sp.sched_priority);
    SHOW("sched_getparam NULL", syscall(SYS_sched_getparam, 0, NULL));
    SHOW("sched_getparam bad pointer", syscall(SYS_sched_getparam, 0, BAD));
    SHOW("sched_getparam negative pid", syscall(SYS_sched_getparam, -1, &sp));
    SHOW("sched_setparam", sched_setparam(0, &sp));
    SHOW("sched_setparam bad pointer", syscall(SYS_sched_setparam, 0, BAD));
    SHOW("sched_setscheduler OTHER", sched_setscheduler(0, SCHED_OTHER, &sp));
    SHOW("sched_setscheduler bad policy", syscall(SYS_sched_setscheduler, 0, -5, &sp));
    SHOW("sched_setscheduler OTHER prio 3",
         sched_setscheduler(0, SCHED_OTHER, &(struct sched_param){ 3 }));
    SHOW("sched_get_priority_max FIFO", sched_get_priority_max(SCHED_FIFO));
    SHOW("sched_get_priority_min FIFO", sched_get_priority_min(SCHED_FIFO));
    SHOW("sched_get_priority_max OTHER", sched_get_priority_max(SCHED_OTHER));
    SHOW("sched_get_priority_max bad", sched_get_priority_max(77));
    struct timespec ts;
    SHOW("sched_rr_get_interval", sched_rr_get_interval(0, &ts));
    SHOW("sched_rr_get_interval bad pointer", syscall(SYS_sched_rr_get_interval, 0, BAD));
    SHOW("sched_yield", sched_yield());
    unsigned cpu = 99999, node = 99999;
    SHOW("getcpu", syscall(SYS_getcpu, &cpu, &node, NULL));
    printf("cpu in the affinity mask: %d, node set: %d\n", cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set),
           node != 99999);
    SHOW("getcpu NULL, NULL", syscall(SYS_getcpu, NULL, NULL, NULL));
    SHOW("getcpu bad pointer", syscall(SYS_getcpu, BAD, NULL, NULL));
    printf("sched_getcpu: %d\n", sched_getcpu() >= 0);

    uint32_t attr[32] = { 0 };
    SHOW("sched_getattr", syscall(SYS_sched_getattr, 0, attr, sizeof(attr), 0));
    printf("sched_attr size: %u, policy: %u\n", attr[0], attr[1]);
    SHOW("sched_getattr too small", syscall(SYS_sched_getattr, 0, attr, 40, 0));
    SHOW("sched_getattr flags", syscall(SYS_sched_getattr, 0, attr, sizeof(attr), 1));
    SHOW("sched_getattr bad pointer", syscall(SYS_sched_getattr, 0, BAD, sizeof(attr), 0));
    attr[0] = 48;
    SHOW("sched_setattr the same", syscall(SYS_sched_setattr, 0, attr, 0));
    attr[0] = 8192;
    SHOW("sched_setattr too big", syscall(SYS_sched_setattr, 0, attr, 0));
    printf("size written back: %u\n", attr[0]);
    SHOW("sched_setattr bad pointer", syscall(SYS_sched_setattr, 0, BAD, 0));
    SHOW("ioprio_get", syscall(SYS_ioprio_get, 1, 0) >= 0);
    SHOW("ioprio_set best-effort 7", syscall(SYS_ioprio_set, 1, 0, (2 << 13) | 7));
    SHOW("ioprio_get", syscall(SYS_ioprio_get, 1, 0));
    SHOW("ioprio_get bad which", syscall(SYS_ioprio_get, 9, 0));

    errno = 0;
    int nice0 = getpriority(PRIO_PROCESS, 0);
    printf("getpriority: %s\n", errno ? strerrorname_np(errno) : "ok");
    SHOW("raw getpriority is 20 - nice", syscall(SYS_getpriority, PRIO_PROCESS, 0) == 20 - nice0);
    SHOW("setpriority +1", setpriority(PRIO_PROCESS, 0, nice0 + 1));
    printf("nice went up by one: %d\n", getpriority(PRIO_PROCESS, 0) == nice0 + 1);
    SHOW("setpriority bad which", setpriority(9, 0, 0));
    SHOW("getpriority no such process", getpriority(PRIO_PROCESS, 0x3fffffff));
}

static long long ns(const struct timespec *t)
{
    return t->tv_sec * 1000000000ll + t->tv_nsec;
}

static void clocks(void)
{
    struct timespec a, b, res;
    clockid_t ids[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
                        CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME };
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        char what[48];
        snprintf(what, sizeof(what), "clock %d gettime/getres", ids[i]);
        SHOW(what, syscall(SYS_clock_gettime, ids[i], &a) | syscall(SYS_clock_getres, ids[i], &res));
    }
    SHOW("clock_gettime bad clock", syscall(SYS_clock_gettime, 77, &a));
    SHOW("clock_gettime bad clock, bad pointer", syscall(SYS_clock_gettime, 77, BAD));
    SHOW("clock_gettime bad pointer", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, BAD));
    SHOW("clock_getres NULL", syscall(SYS_clock_getres, CLOCK_MONOTONIC, NULL));
    int mono = 1;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &a);
    for (int i = 0; i < 1000; i++) {
        syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &b);
        mono &= ns(&b) >= ns(&a);
        a = b;
    }
    printf("monotonic: %d\n", mono);
    struct timeval tv;
    SHOW("gettimeofday", syscall(SYS_gettimeofday, &tv, NULL));
    SHOW("gettimeofday bad pointer", syscall(SYS_gettimeofday, BAD, NULL));
    time_t t1 = syscall(SYS_time, NULL), t2 = 0;
    syscall(SYS_time, &t2);
    printf("time agrees: %d\n", t2 - t1 >= 0 && t2 - t1 <= 2 && llabs(t1 - tv.tv_sec) <= 2);
    SHOW("time bad pointer", syscall(SYS_time, BAD));

    struct timespec req = { 0, 20 * 1000 * 1000 }, rem;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &a);
    SHOW("nanosleep 20ms", syscall(SYS_nanosleep, &req, &rem));
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &b);
    printf("slept at least 20ms: %d\n", ns(&b) - ns(&a) >= 20000000);
    SHOW("nanosleep, bad rem unused", syscall(SYS_nanosleep, &req, BAD));
    SHOW("nanosleep bad req", syscall(SYS_nanosleep, BAD, NULL));
    struct timespec inval = { 0, 1000000000 };
    SHOW("nanosleep invalid", syscall(SYS_nanosleep, &inval, NULL));
    /* An absolute sleep until 30ms from now. */
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &a);
    struct timespec until = a;
    until.tv_nsec += 30000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    long e = syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &b);
    printf("clock_nanosleep TIMER_ABSTIME: %ld, reached: %d\n", e, ns(&b) >= ns(&until));
    printf("clock_nanosleep in the past: %d\n",
           clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &a, NULL));
    printf("clock_nanosleep relative: %d\n", clock_nanosleep(CLOCK_REALTIME, 0, &req, NULL));
    printf("clock_nanosleep THREAD_CPUTIME: %s\n",
           strerrorname_np(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &req, NULL)));
    printf("clock_nanosleep bad clock: %s\n", strerrorname_np(clock_nanosleep(77, 0, &req, NULL)));
    SHOW("clock_nanosleep bad req", syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, BAD, NULL));

    /* Setting the clocks: only calls that fail whatever the privilege. */
    SHOW("clock_settime MONOTONIC", syscall(SYS_clock_settime, CLOCK_MONOTONIC, &a));
    SHOW("clock_settime bad pointer", syscall(SYS_clock_settime, CLOCK_REALTIME, BAD));
    struct timeval badtv = { 0, 2000000 };
    SHOW("settimeofday invalid", syscall(SYS_settimeofday, &badtv, NULL));
    SHOW("settimeofday bad pointer", syscall(SYS_settimeofday, BAD, NULL));
    struct timex tx = { .modes = 0 };
    errno = 0;
    long state = syscall(SYS_adjtimex, &tx);
    printf("adjtimex query: %s, tick set: %d\n", state >= 0 ? "state" : strerrorname_np(errno),
           tx.tick > 0);
    SHOW("adjtimex bad pointer", syscall(SYS_adjtimex, BAD));
    struct timex tx2 = { .modes = 0 };
    SHOW("clock_adjtime query agrees", syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx2) == state);
    SHOW("clock_adjtime bad clock", syscall(SYS_clock_adjtime, 77, &tx2));
}

/* A child whose SIGALRM (default action) ends it: how it ended. */
static void dies_by(const char *what, void (*arm)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        arm();
        for (;;)
            sleep(10);
    }
    int st;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st))
        printf("%s: killed by %s\n", what, sigabbrev_np(WTERMSIG(st)));
    else
        printf("%s: exited %d\n", what, WEXITSTATUS(st));
}

static void arm_timer(void)
{
    timer_t id;
    struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
    struct itimerspec its = { .it_value = { 0, 10000000 } };
    if (timer_create(CLOCK_MONOTONIC, &sev, &id) == 0)
        timer_settime(id, 0, &its, NULL);
}

static void arm_itimer(void)
{
    struct itimerval v = { .it_value = { 0, 10000 } };
    setitimer(ITIMER_REAL, &v, NULL);
}

static void arm_alarm(void)
{
    alarm(1);
}

static void timers(void)
{
    timer_t id;
    struct sigevent sev = { .sigev_notify = SIGEV_NONE };
    SHOW("timer_create SIGEV_NONE", timer_create(CLOCK_MONOTONIC, &sev, &id));
    printf("first timer id: %ld\n", (long)(intptr_t)id);
    struct itimerspec its = { .it_value = { 100, 0 }, .it_interval = { 1, 0 } }, cur, old;
    SHOW("timer_settime", timer_settime(id, 0, &its, NULL));
    SHOW("timer_gettime", timer_gettime(id, &cur));
    printf("armed: value in (99,100] s: %d, interval 1 s: %d\n",
           cur.it_value.tv_sec >= 99 && ns(&cur.it_value) <= 100000000000ll,
           cur.it_interval.tv_sec == 1 && cur.it_interval.tv_nsec == 0);
    struct itimerspec stop = { 0 };
    SHOW("timer_settime disarm with old", timer_settime(id, 0, &stop, &old));
    printf("old value returned: %d\n", old.it_value.tv_sec >= 99);
    SHOW("timer_getoverrun", timer_getoverrun(id));
    /* A one-shot SIGEV_NONE timer that has expired reads as disarmed. */
    struct itimerspec shot = { .it_value = { 0, 1000000 } };
    timer_settime(id, 0, &shot, NULL);
    usleep(20000);
    timer_gettime(id, &cur);
    printf("expired: %d\n", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);
    SHOW("timer_settime NULL value", syscall(SYS_timer_settime, id, 0, NULL, NULL));
    SHOW("timer_settime bad value", syscall(SYS_timer_settime, id, 0, BAD, NULL));
    SHOW("timer_settime invalid value",
         timer_settime(id, 0, &(struct itimerspec){ .it_value = { 0, -1 } }, NULL));
    SHOW("timer_gettime bad pointer", syscall(SYS_timer_gettime, id, BAD));
    SHOW("timer_delete", timer_delete(id));
    SHOW("timer_delete again", syscall(SYS_timer_delete, id));
    SHOW("timer_gettime deleted", syscall(SYS_timer_gettime, id, &cur));
    int kid;
    SHOW("timer_create bad clock", syscall(SYS_timer_create, 77, NULL, &kid));
    SHOW("timer_create bad sigevent", syscall(SYS_timer_create, CLOCK_MONOTONIC, BAD, &kid));
    struct sigevent badsig = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = 200 };
    SHOW("timer_create bad signal", syscall(SYS_timer_create, CLOCK_MONOTONIC, &badsig, &kid));
    struct sigevent tid = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGALRM };
    tid._sigev_un._tid = (int)syscall(SYS_gettid);
    SHOW("timer_create SIGEV_THREAD_ID", syscall(SYS_timer_create, CLOCK_MONOTONIC, &tid, &kid));
    syscall(SYS_timer_delete, kid);
    tid._sigev_un._tid = 0x3fffffff;
    SHOW("timer_create SIGEV_THREAD_ID bad tid",
         syscall(SYS_timer_create, CLOCK_MONOTONIC, &tid, &kid));
    /* The id cannot be stored: no timer is left behind. */
    SHOW("timer_create bad id pointer", syscall(SYS_timer_create, CLOCK_MONOTONIC, NULL, BAD));
    SHOW("timer_create default sigevent", syscall(SYS_timer_create, CLOCK_REALTIME, NULL, &kid));
    printf("next id reuses the first: %d\n", kid == 0);
    syscall(SYS_timer_delete, kid);
    dies_by("timer_create+settime SIGALRM", arm_timer);

    struct itimerval iv = { .it_value = { 50, 0 } }, ov;
    SHOW("setitimer REAL", setitimer(ITIMER_REAL, &iv, NULL));
    SHOW("getitimer REAL", getitimer(ITIMER_REAL, &ov));
    printf("itimer value in (49,50] s: %d\n", ov.it_value.tv_sec >= 49 && ov.it_value.tv_sec <= 50);
    printf("alarm returns the seconds left: %u\n", alarm(0));
    SHOW("getitimer after alarm(0)", getitimer(ITIMER_REAL, &ov));
    printf("disarmed: %d\n", ov.it_value.tv_sec == 0 && ov.it_value.tv_usec == 0);
    unsigned before = alarm(7);
    printf("alarm(7): %u, ", before);
    printf("alarm(0): %u\n", alarm(0));
    SHOW("setitimer VIRTUAL", setitimer(ITIMER_VIRTUAL, &iv, &ov));
    setitimer(ITIMER_VIRTUAL, &(struct itimerval){ 0 }, NULL);
    SHOW("setitimer bad which", setitimer(9, &iv, &ov));
    SHOW("setitimer bad pointer", syscall(SYS_setitimer, ITIMER_REAL, BAD, NULL));
    SHOW("setitimer NULL value", syscall(SYS_setitimer, ITIMER_REAL, NULL, &ov));
    SHOW("getitimer bad pointer", syscall(SYS_getitimer, ITIMER_REAL, BAD));
    SHOW("setitimer invalid usec",
         setitimer(ITIMER_REAL, &(struct itimerval){ .it_value = { 0, 1000000 } }, NULL));
    dies_by("setitimer ITIMER_REAL", arm_itimer);
    dies_by("alarm(1)", arm_alarm);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    creds();
    limits();
    prctls();
    system_info();
    scheduling();
    clocks();
    timers();
    return 0;
}
