/* --strace formatters for the structures of process, poll, epoll and
 * socket-option calls: clone/clone3 arguments, pollfd arrays, utsname,
 * siginfo and rusage the kernel wrote, timeval, epoll_event; with the
 * tables they need.  As in strace_fmt.c, memory that cannot be read is
 * shown as its address. */
#include <signal.h>
#include <string.h>

#include "syscalls/strace_fmt.h"

#define F(name, val) { val, name }
#define END { 0, NULL }

enum {
    CL_PIDFD = 0x1000, CL_SETTLS = 0x80000, CL_PARENT_SETTID = 0x100000,
    CL_CHILD_CLEARTID = 0x200000, CL_CHILD_SETTID = 0x1000000, CL_INTO_CGROUP = 0x200000000ull,
};

const struct strace_flag strace_madvise[] = {
    F("MADV_NORMAL", 0), F("MADV_RANDOM", 1), F("MADV_SEQUENTIAL", 2), F("MADV_WILLNEED", 3),
    F("MADV_DONTNEED", 4), F("MADV_FREE", 8), F("MADV_REMOVE", 9), F("MADV_DONTFORK", 10),
    F("MADV_DOFORK", 11), F("MADV_MERGEABLE", 12), F("MADV_UNMERGEABLE", 13),
    F("MADV_HUGEPAGE", 14), F("MADV_NOHUGEPAGE", 15), F("MADV_DONTDUMP", 16),
    F("MADV_DODUMP", 17), F("MADV_WIPEONFORK", 18), F("MADV_KEEPONFORK", 19),
    F("MADV_COLD", 20), F("MADV_PAGEOUT", 21), F("MADV_POPULATE_READ", 22),
    F("MADV_POPULATE_WRITE", 23), F("MADV_HWPOISON", 100), END,
};
const struct strace_flag strace_sock_levels[] = {
    F("SOL_IP", 0), F("SOL_SOCKET", 1), F("SOL_TCP", 6), F("SOL_UDP", 17), F("SOL_IPV6", 41),
    END,
};
static const struct strace_flag so_names[] = {
    F("SO_DEBUG", 1), F("SO_REUSEADDR", 2), F("SO_TYPE", 3), F("SO_ERROR", 4),
    F("SO_DONTROUTE", 5), F("SO_BROADCAST", 6), F("SO_SNDBUF", 7), F("SO_RCVBUF", 8),
    F("SO_KEEPALIVE", 9), F("SO_OOBINLINE", 10), F("SO_NO_CHECK", 11), F("SO_PRIORITY", 12),
    F("SO_LINGER", 13), F("SO_BSDCOMPAT", 14), F("SO_REUSEPORT", 15), F("SO_PASSCRED", 16),
    F("SO_PEERCRED", 17), F("SO_RCVLOWAT", 18), F("SO_SNDLOWAT", 19),
    F("SO_RCVTIMEO_OLD", 20), F("SO_SNDTIMEO_OLD", 21), F("SO_ACCEPTCONN", 30),
    F("SO_PEERSEC", 31), F("SO_SNDBUFFORCE", 32), F("SO_RCVBUFFORCE", 33),
    F("SO_PROTOCOL", 38), F("SO_DOMAIN", 39), END,
};
static const struct strace_flag tcp_names[] = {
    F("TCP_NODELAY", 1), F("TCP_MAXSEG", 2), F("TCP_CORK", 3), F("TCP_KEEPIDLE", 4),
    F("TCP_KEEPINTVL", 5), F("TCP_KEEPCNT", 6), F("TCP_SYNCNT", 7), F("TCP_LINGER2", 8),
    F("TCP_DEFER_ACCEPT", 9), F("TCP_WINDOW_CLAMP", 10), F("TCP_INFO", 11),
    F("TCP_QUICKACK", 12), F("TCP_CONGESTION", 13), F("TCP_USER_TIMEOUT", 18),
    F("TCP_FASTOPEN", 23), END,
};
static const struct strace_flag poll_events[] = {
    F("POLLIN", 1), F("POLLPRI", 2), F("POLLOUT", 4), F("POLLERR", 8), F("POLLHUP", 0x10),
    F("POLLNVAL", 0x20), F("POLLRDNORM", 0x40), F("POLLRDBAND", 0x80), F("POLLWRNORM", 0x100),
    F("POLLWRBAND", 0x200), F("POLLMSG", 0x400), F("POLLREMOVE", 0x1000),
    F("POLLRDHUP", 0x2000), END,
};
static const struct strace_flag epoll_events[] = {
    F("EPOLLIN", 1), F("EPOLLPRI", 2), F("EPOLLOUT", 4), F("EPOLLERR", 8), F("EPOLLHUP", 0x10),
    F("EPOLLNVAL", 0x20), F("EPOLLRDNORM", 0x40), F("EPOLLRDBAND", 0x80),
    F("EPOLLWRNORM", 0x100), F("EPOLLWRBAND", 0x200), F("EPOLLMSG", 0x400),
    F("EPOLLRDHUP", 0x2000), F("EPOLLEXCLUSIVE", 1u << 28), F("EPOLLWAKEUP", 1u << 29),
    F("EPOLLONESHOT", 1u << 30), F("EPOLLET", 1u << 31), END,
};

void fmt_sockopt_name(struct sbuf *b, int level, int name)
{
    const struct strace_flag *t = level == 1 ? so_names : level == 6 ? tcp_names : NULL;
    if (t)
        fmt_enum(b, t, (uint32_t)name, "%llu");
    else
        sb_printf(b, "%d", name);
}

/* An int the kernel stored at addr, as [N]. */
static void written_int(struct sbuf *b, struct cpu *c, uint64_t addr, bool failed)
{
    if (failed)
        fmt_ptr(b, addr);
    else
        fmt_int_ptr(b, c, addr);
}

bool fmt_clone_rest(struct sbuf *b, struct cpu *c, const uint64_t a[6], bool failed)
{
    /* x86_64 clone(flags, stack, parent_tid, child_tid, tls), i386
     * clone(flags, stack, parent_tid, tls, child_tid); strace names the
     * pointers only when a flag makes the kernel use them. */
    uint64_t flags = a[0];
    uint64_t tls = c->bits == 32 ? a[3] : a[4], child_tid = c->bits == 32 ? a[4] : a[3];
    bool any = false;
    if (flags & (CL_PARENT_SETTID | CL_PIDFD)) {
        sb_puts(b, "parent_tid=");
        written_int(b, c, a[2], failed);
        any = true;
    }
    if (flags & CL_SETTLS) {
        sb_puts(b, any ? ", tls=" : "tls=");
        fmt_ptr(b, tls);
        any = true;
    }
    if (flags & (CL_CHILD_SETTID | CL_CHILD_CLEARTID)) {
        sb_puts(b, any ? ", child_tidptr=" : "child_tidptr=");
        fmt_ptr(b, child_tid);
        any = true;
    }
    return any;
}

void fmt_clone3(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t size, int64_t r)
{
    /* struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal,
     * stack, stack_size, tls, set_tid, set_tid_size, cgroup (u64 each). */
    uint64_t f[11] = { 0 };
    size_t n = size < sizeof(f) ? (size_t)size : sizeof(f);
    if (!addr || n < 64 || guest_read_some(c, addr, f, n) != n) {
        fmt_ptr(b, addr);
        return;
    }
    uint64_t flags = f[0];
    sb_puts(b, "{flags=");
    fmt_flags(b, strace_clone_flags, flags, NULL);
    if (flags & CL_PIDFD)
        sb_printf(b, ", pidfd=%#llx", (unsigned long long)f[1]);
    if (flags & (CL_CHILD_SETTID | CL_CHILD_CLEARTID)) {
        sb_puts(b, ", child_tid=");
        fmt_ptr(b, f[2]);
    }
    if (flags & CL_PARENT_SETTID) {
        sb_puts(b, ", parent_tid=");
        fmt_ptr(b, f[3]);
    }
    sb_puts(b, ", exit_signal=");
    fmt_signame(b, (int)f[4]);
    sb_puts(b, ", stack=");
    fmt_ptr(b, f[5]);
    sb_printf(b, ", stack_size=%#llx", (unsigned long long)f[6]);
    if (flags & CL_SETTLS) {
        sb_puts(b, ", tls=");
        fmt_ptr(b, f[7]);
    }
    if (f[9]) {
        sb_puts(b, ", set_tid=");
        fmt_ptr(b, f[8]);
        sb_printf(b, ", set_tid_size=%llu", (unsigned long long)f[9]);
    }
    if (flags & CL_INTO_CGROUP)
        sb_printf(b, ", cgroup=%llu", (unsigned long long)f[10]);
    sb_putc(b, '}');
    /* What the kernel stored, once it succeeded. */
    if (r > 0 && (flags & (CL_PIDFD | CL_PARENT_SETTID))) {
        sb_puts(b, " => {");
        if (flags & CL_PIDFD) {
            sb_puts(b, "pidfd=");
            fmt_int_ptr(b, c, f[1]);
        }
        if (flags & CL_PARENT_SETTID) {
            sb_puts(b, (flags & CL_PIDFD) ? ", parent_tid=" : "parent_tid=");
            fmt_int_ptr(b, c, f[3]);
        }
        sb_putc(b, '}');
    }
}

/* At most this many elements of an array are shown, then "...". */
#define MAX_ELEMS STRACE_MAX_STR

void fmt_pollfds(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t n)
{
    if (!n) {
        sb_puts(b, "[]");
        return;
    }
    int32_t pf[2];
    if (!addr || guest_read_some(c, addr, pf, 8) != 8) {
        fmt_ptr(b, addr);
        return;
    }
    sb_putc(b, '[');
    for (uint64_t i = 0; i < n; i++) {
        if (i)
            sb_puts(b, ", ");
        if (i == MAX_ELEMS || guest_read_some(c, addr + 8 * i, pf, 8) != 8) {
            sb_puts(b, "...");
            break;
        }
        sb_printf(b, "{fd=%d, events=", pf[0]);
        fmt_flags(b, poll_events, (uint16_t)pf[1], NULL);
        sb_putc(b, '}');
    }
    sb_putc(b, ']');
}

void fmt_pollfd_revents(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t n)
{
    /* Only the entries with events to report, as strace lists them. */
    sb_putc(b, '[');
    bool any = false;
    int32_t pf[2];
    for (uint64_t i = 0; i < n && guest_read_some(c, addr + 8 * i, pf, 8) == 8; i++) {
        uint16_t rev = (uint16_t)((uint32_t)pf[1] >> 16);
        if (!rev)
            continue;
        sb_printf(b, "%s{fd=%d, revents=", any ? ", " : "", pf[0]);
        fmt_flags(b, poll_events, rev, NULL);
        sb_putc(b, '}');
        any = true;
    }
    sb_putc(b, ']');
}

void fmt_utsname(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    /* struct utsname: six fields of 65 bytes; strace shows the first two. */
    uint8_t u[2 * 65];
    if (!addr || guest_read_some(c, addr, u, sizeof(u)) != sizeof(u)) {
        fmt_ptr(b, addr);
        return;
    }
    sb_puts(b, "{sysname=");
    fmt_quoted(b, u, strnlen((const char *)u, 65), false);
    sb_puts(b, ", nodename=");
    fmt_quoted(b, u + 65, strnlen((const char *)u + 65, 65), false);
    sb_puts(b, ", ...}");
}

void fmt_guest_siginfo(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    /* The x86_64 guest's siginfo is the host's layout; i386's is not. */
    siginfo_t si;
    if (c->bits != 64 || !addr || guest_read_some(c, addr, &si, sizeof(si)) != sizeof(si)) {
        fmt_ptr(b, addr);
        return;
    }
    if (si.si_signo == 0)
        sb_puts(b, "{}"); /* waitid WNOHANG and no child ready: zeroed */
    else
        fmt_siginfo(b, &si);
}

static void timeval_at(struct sbuf *b, const int64_t tv[2])
{
    sb_printf(b, "{tv_sec=%lld, tv_usec=%lld}", (long long)tv[0], (long long)tv[1]);
}

void fmt_timeval(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    int64_t tv[2];
    if (c->bits == 32) {
        int32_t t[2];
        if (!addr || guest_read_some(c, addr, t, sizeof(t)) != sizeof(t)) {
            fmt_ptr(b, addr);
            return;
        }
        tv[0] = t[0], tv[1] = t[1];
    } else if (!addr || guest_read_some(c, addr, tv, sizeof(tv)) != sizeof(tv)) {
        fmt_ptr(b, addr);
        return;
    }
    timeval_at(b, tv);
}

void fmt_rusage(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    /* ru_utime and ru_stime: timevals of the ABI's longs */
    int64_t t[4];
    if (c->bits == 32) {
        int32_t t32[4];
        if (!addr || guest_read_some(c, addr, t32, sizeof(t32)) != sizeof(t32)) {
            fmt_ptr(b, addr);
            return;
        }
        for (int i = 0; i < 4; i++)
            t[i] = t32[i];
    } else if (!addr || guest_read_some(c, addr, t, sizeof(t)) != sizeof(t)) {
        fmt_ptr(b, addr);
        return;
    }
    sb_puts(b, "{ru_utime=");
    timeval_at(b, t);
    sb_puts(b, ", ru_stime=");
    timeval_at(b, t + 2);
    sb_puts(b, ", ...}");
}

static void epoll_event_at(struct sbuf *b, const uint8_t e[12])
{
    /* x86_64's struct epoll_event is packed: u32 events, u64 data. */
    uint32_t events;
    uint64_t data;
    memcpy(&events, e, 4);
    memcpy(&data, e + 4, 8);
    sb_puts(b, "{events=");
    fmt_flags(b, epoll_events, events, NULL);
    sb_printf(b, ", data={u32=%u, u64=%llu}}", (unsigned)data, (unsigned long long)data);
}

void fmt_epoll_event(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    uint8_t e[12];
    if (c->bits != 64 || !addr || guest_read_some(c, addr, e, sizeof(e)) != sizeof(e)) {
        fmt_ptr(b, addr);
        return;
    }
    epoll_event_at(b, e);
}

void fmt_epoll_events(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t n)
{
    uint8_t e[12];
    if (c->bits != 64 || !addr || (n && guest_read_some(c, addr, e, sizeof(e)) != sizeof(e))) {
        fmt_ptr(b, addr);
        return;
    }
    sb_putc(b, '[');
    for (uint64_t i = 0; i < n; i++) {
        if (i)
            sb_puts(b, ", ");
        if (i == MAX_ELEMS || guest_read_some(c, addr + 12 * i, e, sizeof(e)) != sizeof(e)) {
            sb_puts(b, "...");
            break;
        }
        epoll_event_at(b, e);
    }
    sb_putc(b, ']');
}

/* ------------------------------------------------------------ both ABIs, by c->bits */

/* Guest words: 4 or 8 bytes as the ABI's long. */
static bool read_longs(struct cpu *c, uint64_t addr, uint64_t *out, unsigned n)
{
    unsigned w = (unsigned)c->bits / 8;
    uint8_t raw[8 * 16];
    if (!addr || n > 16 || guest_read_some(c, addr, raw, (size_t)n * w) != (size_t)n * w)
        return false;
    for (unsigned i = 0; i < n; i++) {
        out[i] = 0;
        memcpy(&out[i], raw + i * w, w);
    }
    return true;
}

static const struct strace_flag msg_flags[] = {
    F("MSG_OOB", 1), F("MSG_PEEK", 2), F("MSG_DONTROUTE", 4), F("MSG_CTRUNC", 8),
    F("MSG_PROXY", 0x10), F("MSG_TRUNC", 0x20), F("MSG_DONTWAIT", 0x40), F("MSG_EOR", 0x80),
    F("MSG_WAITALL", 0x100), F("MSG_FIN", 0x200), F("MSG_SYN", 0x400),
    F("MSG_CONFIRM", 0x800), F("MSG_RST", 0x1000), F("MSG_ERRQUEUE", 0x2000),
    F("MSG_NOSIGNAL", 0x4000), F("MSG_MORE", 0x8000), F("MSG_WAITFORONE", 0x10000),
    F("MSG_BATCH", 0x40000), F("MSG_ZEROCOPY", 0x4000000), F("MSG_FASTOPEN", 0x20000000),
    F("MSG_CMSG_CLOEXEC", 0x40000000), F("MSG_CMSG_COMPAT", 0x80000000), END,
};

void fmt_msg_flags(struct sbuf *b, uint64_t flags)
{
    fmt_flags(b, msg_flags, (uint32_t)flags, NULL);
}

void fmt_msghdr(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t total)
{
    /* name, namelen, iov, iovlen, control, controllen, flags: pointers and
     * sizes are longs, namelen and flags ints (padded on x86_64). */
    uint64_t m[7];
    if (c->bits == 32) {
        if (!read_longs(c, addr, m, 7)) {
            fmt_ptr(b, addr);
            return;
        }
    } else {
        uint64_t raw[7];
        if (!read_longs(c, addr, raw, 7)) {
            fmt_ptr(b, addr);
            return;
        }
        m[0] = raw[0], m[1] = (uint32_t)raw[1], m[2] = raw[2], m[3] = raw[3];
        m[4] = raw[4], m[5] = raw[5], m[6] = (uint32_t)raw[6];
    }
    sb_puts(b, "{msg_name=");
    if (m[0])
        fmt_sockaddr(b, c, m[0], (uint32_t)m[1]);
    else
        sb_puts(b, "NULL");
    sb_printf(b, ", msg_namelen=%d, msg_iov=", (int)m[1]);
    fmt_iovec(b, c, m[2], m[3], total);
    sb_printf(b, ", msg_iovlen=%llu", (unsigned long long)m[3]);
    if (m[5]) {
        sb_puts(b, ", msg_control=");
        fmt_ptr(b, m[4]);
    }
    sb_printf(b, ", msg_controllen=%llu, msg_flags=", (unsigned long long)m[5]);
    fmt_flags(b, msg_flags, (uint32_t)m[6], NULL);
    sb_putc(b, '}');
}

/* The set bits below nfds of the fd_set at addr, [3 4]; false when it
 * cannot be read. */
static bool fdset_bits(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t nfds, bool *any)
{
    uint8_t set[1024 / 8];
    if (nfds > 1024)
        nfds = 1024;
    size_t n = (size_t)(nfds + 7) / 8;
    if (!addr || guest_read_some(c, addr, set, n) != n)
        return false;
    sb_putc(b, '[');
    *any = false;
    for (uint64_t fd = 0; fd < nfds; fd++) {
        if (!(set[fd / 8] & (1u << (fd % 8))))
            continue;
        sb_printf(b, *any ? " %d" : "%d", (int)fd);
        *any = true;
    }
    sb_putc(b, ']');
    return true;
}

void fmt_fdset(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t nfds)
{
    bool any;
    if (!fdset_bits(b, c, addr, (uint32_t)nfds, &any))
        fmt_ptr(b, addr);
}

void fmt_select_result(struct sbuf *b, struct cpu *c, const uint64_t a[6], int64_t r)
{
    if (r == 0) {
        sb_puts(b, " (Timeout)");
        return;
    }
    static const char *const what[3] = { "in", "out", "except" };
    sb_puts(b, " (");
    bool first = true;
    for (int i = 0; i < 3; i++) {
        if (!a[1 + i])
            continue;
        /* Only the sets with a descriptor ready are named. */
        size_t mark = b->len;
        sb_printf(b, "%s%s ", first ? "" : ", ", what[i]);
        bool any = false;
        if (!fdset_bits(b, c, a[1 + i], (uint32_t)a[0], &any) || !any) {
            b->len = mark;
            b->p[mark] = '\0';
            continue;
        }
        first = false;
    }
    if (a[4]) {
        sb_puts(b, first ? "left " : ", left ");
        fmt_timeval(b, c, a[4]);
    }
    sb_putc(b, ')');
}

void fmt_itimerval(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    uint64_t t[4];
    if (!read_longs(c, addr, t, 4)) {
        fmt_ptr(b, addr);
        return;
    }
    int64_t v[4];
    for (int i = 0; i < 4; i++)
        v[i] = c->bits == 32 ? (int32_t)t[i] : (int64_t)t[i];
    sb_puts(b, "{it_interval=");
    timeval_at(b, v);
    sb_puts(b, ", it_value=");
    timeval_at(b, v + 2);
    sb_putc(b, '}');
}

static const struct strace_flag fs_magics[] = {
    F("EXT2_SUPER_MAGIC", 0xef53), F("TMPFS_MAGIC", 0x01021994), F("PROC_SUPER_MAGIC", 0x9fa0),
    F("SYSFS_MAGIC", 0x62656572), F("DEVPTS_SUPER_MAGIC", 0x1cd1), F("PIPEFS_MAGIC", 0x50495045),
    F("SOCKFS_MAGIC", 0x534f434b), F("OVERLAYFS_SUPER_MAGIC", 0x794c7630),
    F("BTRFS_SUPER_MAGIC", 0x9123683e), F("XFS_SUPER_MAGIC", 0x58465342),
    F("CGROUP2_SUPER_MAGIC", 0x63677270), F("NFS_SUPER_MAGIC", 0x6969),
    F("FUSE_SUPER_MAGIC", 0x65735546), F("ANON_INODE_FS_MAGIC", 0x09041934), END,
};
static const struct strace_flag st_flags[] = {
    F("ST_RDONLY", 1), F("ST_NOSUID", 2), F("ST_NODEV", 4), F("ST_NOEXEC", 8),
    F("ST_SYNCHRONOUS", 16), F("ST_VALID", 32), F("ST_MANDLOCK", 64), F("ST_NOATIME", 1024),
    F("ST_NODIRATIME", 2048), F("ST_RELATIME", 4096), END,
};

void fmt_statfs(struct sbuf *b, struct cpu *c, uint64_t addr, bool wide)
{
    /* f_type, f_bsize, five counts, f_fsid (two ints), f_namelen, f_frsize,
     * f_flags: each a long, but the counts 64-bit in i386's statfs64 and
     * f_fsid two ints everywhere. */
    unsigned w = (unsigned)c->bits / 8, cw = wide ? 8 : w;
    uint8_t raw[120];
    size_t fsid_at = 2 * w + 5 * cw, size = fsid_at + 8 + 3 * w;
    if (!addr || guest_read_some(c, addr, raw, size) != size) {
        fmt_ptr(b, addr);
        return;
    }
    uint64_t f[12] = { 0 }; /* type bsize counts[5] fsid[2] namelen frsize flags */
    memcpy(&f[0], raw, w);
    memcpy(&f[1], raw + w, w);
    for (unsigned i = 0; i < 5; i++)
        memcpy(&f[2 + i], raw + 2 * w + i * cw, cw);
    memcpy(&f[7], raw + fsid_at, 4);
    memcpy(&f[8], raw + fsid_at + 4, 4);
    for (unsigned i = 0; i < 3; i++)
        memcpy(&f[9 + i], raw + fsid_at + 8 + i * w, w);
    sb_puts(b, "{f_type=");
    fmt_enum(b, fs_magics, f[0], "%#llx");
    sb_printf(b, ", f_bsize=%llu, f_blocks=%llu, f_bfree=%llu, f_bavail=%llu, f_files=%llu, "
                 "f_ffree=%llu, f_fsid={val=[",
              (unsigned long long)f[1], (unsigned long long)f[2], (unsigned long long)f[3],
              (unsigned long long)f[4], (unsigned long long)f[5], (unsigned long long)f[6]);
    fmt_hex(b, (uint32_t)f[7]);
    sb_puts(b, ", ");
    fmt_hex(b, (uint32_t)f[8]);
    sb_printf(b, "]}, f_namelen=%llu, f_frsize=%llu, f_flags=", (unsigned long long)f[9],
              (unsigned long long)f[10]);
    fmt_flags(b, st_flags, f[11], NULL);
    sb_putc(b, '}');
}

void fmt_sysinfo(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    /* uptime, loads[3], totalram, freeram, sharedram, bufferram, totalswap,
     * freeswap: longs; procs (an unsigned short in a long's room),
     * totalhigh, freehigh; mem_unit (an int). */
    uint64_t v[14];
    if (!read_longs(c, addr, v, 14)) {
        fmt_ptr(b, addr);
        return;
    }
    sb_printf(b, "{uptime=%lld, loads=[%llu, %llu, %llu], totalram=%llu, freeram=%llu, "
                 "sharedram=%llu, bufferram=%llu, totalswap=%llu, freeswap=%llu, procs=%u, "
                 "totalhigh=%llu, freehigh=%llu, mem_unit=%u}",
              c->bits == 32 ? (long long)(int32_t)v[0] : (long long)v[0],
              (unsigned long long)v[1], (unsigned long long)v[2], (unsigned long long)v[3],
              (unsigned long long)v[4], (unsigned long long)v[5], (unsigned long long)v[6],
              (unsigned long long)v[7], (unsigned long long)v[8], (unsigned long long)v[9],
              (unsigned)(uint16_t)v[10], (unsigned long long)v[11], (unsigned long long)v[12],
              (unsigned)(uint32_t)v[13]);
}

void fmt_dirents(struct sbuf *b, struct cpu *c, uint64_t addr, int64_t len, unsigned reclen_at)
{
    fmt_ptr(b, addr);
    unsigned n = 0;
    for (int64_t off = 0; off < len; n++) {
        uint16_t reclen;
        if (guest_read_some(c, addr + (uint64_t)off + reclen_at, &reclen, 2) != 2 || !reclen)
            return; /* strace shows the address alone when it cannot walk them */
        off += reclen;
    }
    sb_printf(b, " /* %u entries */", n);
}

void fmt_stack_t(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    /* ss_sp (a pointer), ss_flags (an int, padded on x86_64), ss_size */
    static const struct strace_flag ss_flags[] = {
        F("SS_ONSTACK", 1), F("SS_DISABLE", 2), F("SS_AUTODISARM", 1u << 31), END,
    };
    uint64_t s[3];
    if (!read_longs(c, addr, s, 3)) {
        fmt_ptr(b, addr);
        return;
    }
    sb_puts(b, "{ss_sp=");
    fmt_ptr(b, s[0]);
    sb_puts(b, ", ss_flags=");
    fmt_flags(b, ss_flags, (uint32_t)s[1], NULL);
    sb_printf(b, ", ss_size=%llu}", (unsigned long long)s[2]);
}
