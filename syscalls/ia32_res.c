/* Limits, usage, system information and names for i386 guests: the old
 * getrlimit/setrlimit (numbers 76 and 75), getrusage, times and sysinfo
 * with their 32-bit structures, and the old uname structures (olduname,
 * oldolduname).  Values that do not fit 32 bits are clamped or scaled the
 * way the kernel's compat code does it (kernel/sys.c, kernel/compat.c).
 * ugetrlimit is in resource.c, uname (new_utsname) in proc.c. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/syscalls.h"

/* ------------------------------------------------------------ limits */

/* The old getrlimit (compat old_getrlimit): a value above 0x7fffffff,
 * RLIM_INFINITY included, reads as 0x7fffffff (COMPAT_RLIM_OLD_INFINITY). */
int64_t sys_getrlimit_ia32(struct cpu *c, const uint64_t a[6])
{
    struct rlimit rl;
    int r = rlimit_self((int)a[0], NULL, &rl);
    if (r != 0)
        return r;
    uint32_t out[2] = { rl.rlim_cur > 0x7fffffff ? 0x7fffffff : (uint32_t)rl.rlim_cur,
                        rl.rlim_max > 0x7fffffff ? 0x7fffffff : (uint32_t)rl.rlim_max };
    return copy_to_guest(c, a[1], out, sizeof(out));
}

/* setrlimit (compat): the limit is read first; 0xffffffff is RLIM_INFINITY. */
int64_t sys_setrlimit_ia32(struct cpu *c, const uint64_t a[6])
{
    uint32_t in[2];
    if (copy_from_guest(c, in, a[1], sizeof(in)) != 0)
        return -EFAULT;
    struct rlimit rl = { in[0] == 0xffffffffu ? RLIM_INFINITY : in[0],
                         in[1] == 0xffffffffu ? RLIM_INFINITY : in[1] };
    if ((uint32_t)a[0] >= RLIM_NLIMITS)
        return -EINVAL;
    return rlimit_self((int)a[0], &rl, NULL);
}

/* ------------------------------------------------------------ usage */

int64_t sys_getrusage_ia32(struct cpu *c, const uint64_t a[6])
{
    struct rusage ru;
    if (syscall(SYS_getrusage, (int)a[0], &ru) != 0)
        return -errno;
    return ia32_put_rusage(c, a[1], &ru);
}

/* The kernel's HZ: the coarse clocks tick once a jiffy, and their
 * resolution is TICK_NSEC = (NSEC_PER_SEC + HZ/2) / HZ. */
static uint64_t kernel_hz(void)
{
    struct timespec r;
    if (syscall(SYS_clock_getres, CLOCK_MONOTONIC_COARSE, &r) != 0 || r.tv_sec || r.tv_nsec <= 0)
        return 100;
    return (1000000000ull + (uint64_t)r.tv_nsec / 2) / (uint64_t)r.tv_nsec;
}

/* clock_t_to_compat_clock_t(): USER_HZ ticks to jiffies and back to
 * COMPAT_USER_HZ ticks, which loses a tick of an odd count where HZ is not
 * a multiple of 100 (HZ 250: 1 -> 2 jiffies -> 0). */
static uint32_t compat_clock(uint64_t x, uint64_t hz)
{
    uint64_t j;
    if (hz % 100 == 0)
        j = x >= UINT64_MAX / (hz / 100) ? UINT64_MAX : x * (hz / 100);
    else
        j = x >= UINT64_MAX / hz * 100 ? UINT64_MAX : x * hz / 100;
    return (uint32_t)(j * 100 / hz);
}

/* times: struct tms of four 32-bit clock_t converted as above, and the tick
 * count truncated to 32 bits as the result (never an error, whatever its
 * sign; the kernel's jiffies * 100 / HZ is the host's own value). */
int64_t sys_times_ia32(struct cpu *c, const uint64_t a[6])
{
    struct tms t;
    errno = 0;
    long r = syscall(SYS_times, &t);
    if (r == -1 && errno)
        return -errno;
    if (a[0]) {
        uint64_t hz = kernel_hz();
        uint32_t out[4] = { compat_clock((uint64_t)t.tms_utime, hz),
                            compat_clock((uint64_t)t.tms_stime, hz),
                            compat_clock((uint64_t)t.tms_cutime, hz),
                            compat_clock((uint64_t)t.tms_cstime, hz) };
        if (copy_to_guest(c, a[0], out, sizeof(out)) != 0)
            return -EFAULT;
    }
    return (uint32_t)r;
}

/* ------------------------------------------------------------ sysinfo */

/* struct compat_sysinfo: 64 bytes. */
struct sysinfo32 {
    int32_t uptime;
    uint32_t loads[3];
    uint32_t totalram, freeram, sharedram, bufferram, totalswap, freeswap;
    uint16_t procs, pad;
    uint32_t totalhigh, freehigh, mem_unit;
    char reserved[8];
};
_Static_assert(sizeof(struct sysinfo32) == 64, "compat_sysinfo");

/* compat sysinfo: when the RAM or swap size does not fit 32 bits, the unit
 * grows to the page size and the memory values shrink with it. */
int64_t sys_sysinfo_ia32(struct cpu *c, const uint64_t a[6])
{
    struct sysinfo s;
    if (syscall(SYS_sysinfo, &s) != 0)
        return -errno;
    if ((s.totalram >> 32) || (s.totalswap >> 32)) {
        int shift = 0;
        long page = sysconf(_SC_PAGESIZE);
        while (s.mem_unit < (unsigned long)page) {
            s.mem_unit <<= 1;
            shift++;
        }
        s.totalram >>= shift;
        s.freeram >>= shift;
        s.sharedram >>= shift;
        s.bufferram >>= shift;
        s.totalswap >>= shift;
        s.freeswap >>= shift;
        s.totalhigh >>= shift;
        s.freehigh >>= shift;
    }
    struct sysinfo32 g;
    memset(&g, 0, sizeof(g));
    g.uptime = (int32_t)s.uptime;
    for (int i = 0; i < 3; i++)
        g.loads[i] = (uint32_t)s.loads[i];
    g.totalram = (uint32_t)s.totalram;
    g.freeram = (uint32_t)s.freeram;
    g.sharedram = (uint32_t)s.sharedram;
    g.bufferram = (uint32_t)s.bufferram;
    g.totalswap = (uint32_t)s.totalswap;
    g.freeswap = (uint32_t)s.freeswap;
    g.procs = s.procs;
    g.totalhigh = (uint32_t)s.totalhigh;
    g.freehigh = (uint32_t)s.freehigh;
    g.mem_unit = s.mem_unit;
    return copy_to_guest(c, a[0], &g, sizeof(g));
}

/* ------------------------------------------------------------ old uname */

/* The host's names as the guest's kernel gives them: machine "x86_64",
 * or "i686" under PER_LINUX32, the rest of the field zero (as Linux 6
 * leaves it, measured). */
static int guest_utsname(struct utsname *u)
{
    if (uname(u) != 0)
        return -errno;
    int persona = (int)syscall(SYS_personality, 0xffffffffu);
    memset(u->machine, 0, sizeof(u->machine));
    strcpy(u->machine, (persona & PER_MASK) == PER_LINUX32 ? "i686" : "x86_64");
    return 0;
}

/* olduname (i386 number 109): struct old_utsname, the first five 65-byte
 * fields of struct utsname. */
int64_t sys_olduname_ia32(struct cpu *c, const uint64_t a[6])
{
    struct utsname u;
    int e = guest_utsname(&u);
    if (e)
        return e;
    char out[5][65];
    memcpy(out[0], u.sysname, 65);
    memcpy(out[1], u.nodename, 65);
    memcpy(out[2], u.release, 65);
    memcpy(out[3], u.version, 65);
    memcpy(out[4], u.machine, 65);
    return copy_to_guest(c, a[0], out, sizeof(out));
}

/* oldolduname (i386 number 59): five 9-byte fields, 8 bytes of each name
 * and a NUL. */
int64_t sys_oldolduname_ia32(struct cpu *c, const uint64_t a[6])
{
    struct utsname u;
    int e = guest_utsname(&u);
    if (e)
        return e;
    char out[5][9];
    memset(out, 0, sizeof(out));
    memcpy(out[0], u.sysname, 8);
    memcpy(out[1], u.nodename, 8);
    memcpy(out[2], u.release, 8);
    memcpy(out[3], u.version, 8);
    memcpy(out[4], u.machine, 8);
    return copy_to_guest(c, a[0], out, sizeof(out));
}
