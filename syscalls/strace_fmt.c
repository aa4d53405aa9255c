/* --strace formatters: numbers, flag sets, quoted strings and the
 * structures of the common calls, in strace's notation.  Guest memory is
 * read with mm_read(), so a pointer that cannot be read is shown as its
 * address (what strace does when it cannot fetch an argument). */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "syscalls/strace_fmt.h"

/* ------------------------------------------------------------ the text buffer */

void sb_init(struct sbuf *b, char *mem, size_t cap)
{
    b->p = mem;
    b->cap = cap;
    b->len = 0;
    if (cap)
        mem[0] = '\0';
}

void sb_putc(struct sbuf *b, char ch)
{
    if (b->len + 1 < b->cap) {
        b->p[b->len++] = ch;
        b->p[b->len] = '\0';
    }
}

void sb_puts(struct sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + 1 >= b->cap)
        return;
    if (n > b->cap - b->len - 1)
        n = b->cap - b->len - 1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    if (b->len + 1 >= b->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len = (size_t)n < b->cap - b->len ? b->len + (size_t)n : b->cap - 1;
}

/* ------------------------------------------------------------ flags and names */

const char *flag_name(const struct strace_flag *t, uint64_t v)
{
    for (; t->name; t++)
        if (t->val == v)
            return t->name;
    return NULL;
}

void fmt_enum(struct sbuf *b, const struct strace_flag *t, uint64_t v, const char *fallback)
{
    const char *n = flag_name(t, v);
    if (n)
        sb_puts(b, n);
    else
        sb_printf(b, fallback, (unsigned long long)v);
}

void fmt_flags(struct sbuf *b, const struct strace_flag *t, uint64_t v, const char *zero_name)
{
    if (v == 0) {
        sb_puts(b, zero_name ? zero_name : "0");
        return;
    }
    bool any = false;
    for (; t->name; t++) {
        if (t->val && (v & t->val) == t->val) {
            if (any)
                sb_putc(b, '|');
            sb_puts(b, t->name);
            v &= ~t->val;
            any = true;
        }
    }
    if (v)
        sb_printf(b, "%s%#llx", any ? "|" : "", (unsigned long long)v);
}

#define F(name, val) { val, name }
#define END { 0, NULL }

/* Kernel values, written out: the host C library may define some as 0
 * (O_LARGEFILE on x86_64) or not at all. */
const struct strace_flag strace_open_flags[] = {
    F("O_CREAT", 0100), F("O_EXCL", 0200), F("O_NOCTTY", 0400), F("O_TRUNC", 01000),
    F("O_APPEND", 02000), F("O_NONBLOCK", 04000), F("O_SYNC", 04010000), F("O_DSYNC", 010000),
    F("O_ASYNC", 020000), F("O_DIRECT", 040000), F("O_LARGEFILE", 0100000),
    F("O_TMPFILE", 020200000), F("O_DIRECTORY", 0200000), F("O_NOFOLLOW", 0400000),
    F("O_NOATIME", 01000000), F("O_CLOEXEC", 02000000), F("O_PATH", 010000000), END,
};
const struct strace_flag strace_prot_flags[] = {
    F("PROT_READ", 1), F("PROT_WRITE", 2), F("PROT_EXEC", 4), F("PROT_SEM", 8),
    F("PROT_GROWSDOWN", 0x01000000), F("PROT_GROWSUP", 0x02000000), END,
};
const struct strace_flag strace_map_flags[] = {
    F("MAP_FIXED", 0x10), F("MAP_ANONYMOUS", 0x20), F("MAP_32BIT", 0x40),
    F("MAP_GROWSDOWN", 0x100), F("MAP_DENYWRITE", 0x800), F("MAP_EXECUTABLE", 0x1000),
    F("MAP_LOCKED", 0x2000), F("MAP_NORESERVE", 0x4000), F("MAP_POPULATE", 0x8000),
    F("MAP_NONBLOCK", 0x10000), F("MAP_STACK", 0x20000), F("MAP_HUGETLB", 0x40000),
    F("MAP_SYNC", 0x80000), F("MAP_FIXED_NOREPLACE", 0x100000),
    F("MAP_UNINITIALIZED", 0x4000000), END,
};
static const struct strace_flag map_types[] = {
    F("MAP_SHARED", 1), F("MAP_PRIVATE", 2), F("MAP_SHARED_VALIDATE", 3), END,
};
const struct strace_flag strace_at_flags[] = {
    F("AT_SYMLINK_NOFOLLOW", 0x100), F("AT_REMOVEDIR", 0x200), F("AT_SYMLINK_FOLLOW", 0x400),
    F("AT_NO_AUTOMOUNT", 0x800), F("AT_EMPTY_PATH", 0x1000), F("AT_STATX_FORCE_SYNC", 0x2000),
    F("AT_STATX_DONT_SYNC", 0x4000), F("AT_RECURSIVE", 0x8000), END,
};
const struct strace_flag strace_whence[] = {
    F("SEEK_SET", 0), F("SEEK_CUR", 1), F("SEEK_END", 2), F("SEEK_DATA", 3), F("SEEK_HOLE", 4),
    END,
};
const struct strace_flag strace_fcntl_cmds[] = {
    F("F_DUPFD", 0), F("F_GETFD", 1), F("F_SETFD", 2), F("F_GETFL", 3), F("F_SETFL", 4),
    F("F_GETLK", 5), F("F_SETLK", 6), F("F_SETLKW", 7), F("F_SETOWN", 8), F("F_GETOWN", 9),
    F("F_SETSIG", 10), F("F_GETSIG", 11), F("F_SETOWN_EX", 15), F("F_GETOWN_EX", 16),
    F("F_GETOWNER_UIDS", 17), F("F_OFD_GETLK", 36), F("F_OFD_SETLK", 37),
    F("F_OFD_SETLKW", 38), F("F_SETLEASE", 1024), F("F_GETLEASE", 1025), F("F_NOTIFY", 1026),
    F("F_DUPFD_CLOEXEC", 1030), F("F_SETPIPE_SZ", 1031), F("F_GETPIPE_SZ", 1032),
    F("F_ADD_SEALS", 1033), F("F_GET_SEALS", 1034), END,
};
const struct strace_flag strace_ioctls[] = {
    F("TCGETS", 0x5401), F("TCSETS", 0x5402), F("TCSETSW", 0x5403), F("TCSETSF", 0x5404),
    F("TCGETA", 0x5405), F("TCSETA", 0x5406), F("TCSETAW", 0x5407), F("TCSETAF", 0x5408),
    F("TCSBRK", 0x5409), F("TCXONC", 0x540a), F("TCFLSH", 0x540b), F("TIOCEXCL", 0x540c),
    F("TIOCNXCL", 0x540d), F("TIOCSCTTY", 0x540e), F("TIOCGPGRP", 0x540f),
    F("TIOCSPGRP", 0x5410), F("TIOCOUTQ", 0x5411), F("TIOCSTI", 0x5412),
    F("TIOCGWINSZ", 0x5413), F("TIOCSWINSZ", 0x5414), F("TIOCMGET", 0x5415),
    F("TIOCMBIS", 0x5416), F("TIOCMBIC", 0x5417), F("TIOCMSET", 0x5418),
    F("FIONREAD", 0x541b), F("TIOCLINUX", 0x541c), F("TIOCCONS", 0x541d),
    F("FIONBIO", 0x5421), F("TIOCNOTTY", 0x5422), F("TIOCSETD", 0x5423),
    F("TIOCGETD", 0x5424), F("TCSBRKP", 0x5425), F("TIOCGSID", 0x5429),
    F("TCGETS2", 0x802c542a), F("TCSETS2", 0x402c542b), F("TIOCGPTN", 0x80045430),
    F("TIOCSPTLCK", 0x40045431), F("TIOCGDEV", 0x80045432), F("TIOCGPKT", 0x80045438),
    F("TIOCGPTLCK", 0x80045439), F("TIOCGPTPEER", 0x5441), F("FIONCLEX", 0x5450),
    F("FIOCLEX", 0x5451), F("FIOASYNC", 0x5452), F("FIOQSIZE", 0x5460),
    F("SIOCGIFCONF", 0x8912), F("SIOCGIFFLAGS", 0x8913), F("SIOCGIFINDEX", 0x8933),
    F("FICLONE", 0x40049409), END,
};
const struct strace_flag strace_clocks[] = {
    F("CLOCK_REALTIME", 0), F("CLOCK_MONOTONIC", 1), F("CLOCK_PROCESS_CPUTIME_ID", 2),
    F("CLOCK_THREAD_CPUTIME_ID", 3), F("CLOCK_MONOTONIC_RAW", 4),
    F("CLOCK_REALTIME_COARSE", 5), F("CLOCK_MONOTONIC_COARSE", 6), F("CLOCK_BOOTTIME", 7),
    F("CLOCK_REALTIME_ALARM", 8), F("CLOCK_BOOTTIME_ALARM", 9), F("CLOCK_TAI", 11), END,
};
const struct strace_flag strace_arch_prctl[] = {
    F("ARCH_SET_GS", 0x1001), F("ARCH_SET_FS", 0x1002), F("ARCH_GET_FS", 0x1003),
    F("ARCH_GET_GS", 0x1004), F("ARCH_GET_CPUID", 0x1011), F("ARCH_SET_CPUID", 0x1012),
    F("ARCH_GET_XCOMP_SUPP", 0x1021), F("ARCH_GET_XCOMP_PERM", 0x1022),
    F("ARCH_REQ_XCOMP_PERM", 0x1023), F("ARCH_MAP_VDSO_X32", 0x2001),
    F("ARCH_MAP_VDSO_32", 0x2002), F("ARCH_MAP_VDSO_64", 0x2003), END,
};
const struct strace_flag strace_clone_flags[] = {
    F("CLONE_VM", 0x100), F("CLONE_FS", 0x200), F("CLONE_FILES", 0x400),
    F("CLONE_SIGHAND", 0x800), F("CLONE_PIDFD", 0x1000), F("CLONE_PTRACE", 0x2000),
    F("CLONE_VFORK", 0x4000), F("CLONE_PARENT", 0x8000), F("CLONE_THREAD", 0x10000),
    F("CLONE_NEWNS", 0x20000), F("CLONE_SYSVSEM", 0x40000), F("CLONE_SETTLS", 0x80000),
    F("CLONE_PARENT_SETTID", 0x100000), F("CLONE_CHILD_CLEARTID", 0x200000),
    F("CLONE_DETACHED", 0x400000), F("CLONE_UNTRACED", 0x800000),
    F("CLONE_CHILD_SETTID", 0x1000000), F("CLONE_NEWCGROUP", 0x2000000),
    F("CLONE_NEWUTS", 0x4000000), F("CLONE_NEWIPC", 0x8000000), F("CLONE_NEWUSER", 0x10000000),
    F("CLONE_NEWPID", 0x20000000), F("CLONE_NEWNET", 0x40000000), F("CLONE_IO", 0x80000000),
    F("CLONE_CLEAR_SIGHAND", 0x100000000), F("CLONE_INTO_CGROUP", 0x200000000), END,
};
const struct strace_flag strace_access_modes[] = {
    F("R_OK", 4), F("W_OK", 2), F("X_OK", 1), END,
};
const struct strace_flag strace_sigmask_how[] = {
    F("SIG_BLOCK", 0), F("SIG_UNBLOCK", 1), F("SIG_SETMASK", 2), END,
};
const struct strace_flag strace_wait_opts[] = {
    F("WNOHANG", 1), F("WUNTRACED", 2), F("WEXITED", 4), F("WCONTINUED", 8),
    F("WNOWAIT", 0x1000000), F("__WNOTHREAD", 0x20000000), F("__WALL", 0x40000000),
    F("__WCLONE", 0x80000000), END,
};
const struct strace_flag strace_sock_domains[] = {
    F("AF_UNSPEC", 0), F("AF_UNIX", 1), F("AF_INET", 2), F("AF_INET6", 10),
    F("AF_NETLINK", 16), F("AF_PACKET", 17), END,
};
const struct strace_flag strace_sock_types[] = {
    F("SOCK_STREAM", 1), F("SOCK_DGRAM", 2), F("SOCK_RAW", 3), F("SOCK_RDM", 4),
    F("SOCK_SEQPACKET", 5), F("SOCK_DCCP", 6), F("SOCK_PACKET", 10), END,
};
static const struct strace_flag sock_type_flags[] = {
    F("SOCK_NONBLOCK", 04000), F("SOCK_CLOEXEC", 02000000), END,
};
const struct strace_flag strace_rlimits[] = {
    F("RLIMIT_CPU", 0), F("RLIMIT_FSIZE", 1), F("RLIMIT_DATA", 2), F("RLIMIT_STACK", 3),
    F("RLIMIT_CORE", 4), F("RLIMIT_RSS", 5), F("RLIMIT_NPROC", 6), F("RLIMIT_NOFILE", 7),
    F("RLIMIT_MEMLOCK", 8), F("RLIMIT_AS", 9), F("RLIMIT_LOCKS", 10),
    F("RLIMIT_SIGPENDING", 11), F("RLIMIT_MSGQUEUE", 12), F("RLIMIT_NICE", 13),
    F("RLIMIT_RTPRIO", 14), F("RLIMIT_RTTIME", 15), END,
};
const struct strace_flag strace_sa_flags[] = {
    F("SA_RESTORER", 0x04000000), F("SA_ONSTACK", 0x08000000), F("SA_RESTART", 0x10000000),
    F("SA_NODEFER", 0x40000000), F("SA_RESETHAND", 0x80000000), F("SA_SIGINFO", 4),
    F("SA_NOCLDSTOP", 1), F("SA_NOCLDWAIT", 2), END,
};
static const struct strace_flag futex_cmds[] = {
    F("FUTEX_WAIT", 0), F("FUTEX_WAKE", 1), F("FUTEX_FD", 2), F("FUTEX_REQUEUE", 3),
    F("FUTEX_CMP_REQUEUE", 4), F("FUTEX_WAKE_OP", 5), F("FUTEX_LOCK_PI", 6),
    F("FUTEX_UNLOCK_PI", 7), F("FUTEX_TRYLOCK_PI", 8), F("FUTEX_WAIT_BITSET", 9),
    F("FUTEX_WAKE_BITSET", 10), F("FUTEX_WAIT_REQUEUE_PI", 11), F("FUTEX_CMP_REQUEUE_PI", 12),
    F("FUTEX_LOCK_PI2", 13), END,
};

/* ------------------------------------------------------------ scalars */

void fmt_ptr(struct sbuf *b, uint64_t v)
{
    if (v)
        sb_printf(b, "%#llx", (unsigned long long)v);
    else
        sb_puts(b, "NULL");
}

void fmt_hex(struct sbuf *b, uint64_t v)
{
    sb_printf(b, "%#llx", (unsigned long long)v);
}

void fmt_mode(struct sbuf *b, uint64_t mode)
{
    sb_printf(b, "%#03llo", (unsigned long long)mode);
}

void fmt_signame(struct sbuf *b, int sig)
{
    const char *n = strace_signal_name(sig);
    if (n)
        sb_puts(b, n);
    else
        sb_printf(b, "%d", sig);
}

void fmt_open_flags(struct sbuf *b, uint64_t v)
{
    static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
    sb_puts(b, acc[v & 3]);
    if (v & ~3ull) {
        sb_putc(b, '|');
        fmt_flags(b, strace_open_flags, v & ~3ull, NULL);
    }
}

void fmt_mmap_flags(struct sbuf *b, uint64_t v)
{
    const char *type = flag_name(map_types, v & 0xf);
    if (!type) {
        fmt_flags(b, strace_map_flags, v, NULL);
        return;
    }
    sb_puts(b, type);
    if (v & ~0xfull) {
        sb_putc(b, '|');
        fmt_flags(b, strace_map_flags, v & ~0xfull, NULL);
    }
}

void fmt_clone_flags(struct sbuf *b, uint64_t v)
{
    /* The low byte is the signal sent to the parent when the child ends. */
    int sig = (int)(v & 0xff);
    if (v & ~0xffull) {
        fmt_flags(b, strace_clone_flags, v & ~0xffull, NULL);
        if (sig)
            sb_putc(b, '|');
    } else if (!sig) {
        sb_puts(b, "0");
    }
    if (sig)
        fmt_signame(b, sig);
}

void fmt_sock_type(struct sbuf *b, uint64_t v)
{
    fmt_enum(b, strace_sock_types, v & 0xf, "%#llx");
    if (v & ~0xfull) {
        sb_putc(b, '|');
        fmt_flags(b, sock_type_flags, v & ~0xfull, NULL);
    }
}

void fmt_sigset_val(struct sbuf *b, uint64_t set)
{
    fmt_sigset_bits(b, set, 64);
}

void fmt_sigset_bits(struct sbuf *b, uint64_t set, unsigned nbits)
{
    /* strace shows the shorter side: more than half set prints ~[the rest]. */
    if (nbits < 64)
        set &= (1ull << nbits) - 1;
    if (__builtin_popcountll(set) > (int)nbits / 2) {
        sb_putc(b, '~');
        set = ~set & (nbits < 64 ? (1ull << nbits) - 1 : ~0ull);
    }
    sb_putc(b, '[');
    bool first = true;
    for (int sig = 1; sig <= 64; sig++) {
        if (!(set & (1ull << (sig - 1))))
            continue;
        if (!first)
            sb_putc(b, ' ');
        first = false;
        const char *n = strace_signal_name(sig);
        if (n)
            sb_puts(b, n + 3); /* without "SIG" */
        else
            sb_printf(b, "%d", sig);
    }
    sb_putc(b, ']');
}

void fmt_futex_op(struct sbuf *b, uint64_t op)
{
    const char *n = flag_name(futex_cmds, op & 127);
    if (!n) {
        fmt_hex(b, op);
        return;
    }
    sb_puts(b, n);
    if (op & 128)
        sb_puts(b, "_PRIVATE");
    if (op & 256)
        sb_puts(b, "|FUTEX_CLOCK_REALTIME");
    if (op & ~(uint64_t)(127 | 128 | 256))
        sb_printf(b, "|%#llx", (unsigned long long)(op & ~(uint64_t)(127 | 128 | 256)));
}

void fmt_wstatus_val(struct sbuf *b, int s)
{
    if ((s & 0x7f) == 0)
        sb_printf(b, "{WIFEXITED(s) && WEXITSTATUS(s) == %d}", (s >> 8) & 0xff);
    else if ((s & 0xff) == 0x7f) {
        sb_puts(b, "{WIFSTOPPED(s) && WSTOPSIG(s) == ");
        fmt_signame(b, (s >> 8) & 0xff);
        sb_putc(b, '}');
    } else if (s == 0xffff)
        sb_puts(b, "{WIFCONTINUED(s)}");
    else {
        sb_puts(b, "{WIFSIGNALED(s) && WTERMSIG(s) == ");
        fmt_signame(b, s & 0x7f);
        sb_puts(b, (s & 0x80) ? " && WCOREDUMP(s)}" : "}");
    }
}

void fmt_rlim_val(struct sbuf *b, uint64_t v)
{
    if (v == ~0ull)
        sb_puts(b, "RLIM64_INFINITY");
    else if (v && v % 1024 == 0)
        sb_printf(b, "%llu*1024", (unsigned long long)(v / 1024));
    else
        sb_printf(b, "%llu", (unsigned long long)v);
}

/* ------------------------------------------------------------ strings */

void fmt_quoted(struct sbuf *b, const uint8_t *s, size_t n, bool more)
{
    sb_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        uint8_t ch = s[i];
        switch (ch) {
        case '"': sb_puts(b, "\\\""); continue;
        case '\\': sb_puts(b, "\\\\"); continue;
        case '\f': sb_puts(b, "\\f"); continue;
        case '\n': sb_puts(b, "\\n"); continue;
        case '\r': sb_puts(b, "\\r"); continue;
        case '\t': sb_puts(b, "\\t"); continue;
        case '\v': sb_puts(b, "\\v"); continue;
        }
        if (ch >= ' ' && ch < 0x7f) {
            sb_putc(b, (char)ch);
            continue;
        }
        /* Octal with the fewest digits, unless an octal digit follows
         * (then all three, so the escape cannot swallow it). */
        sb_putc(b, '\\');
        bool digit_next = i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7';
        if (digit_next || ch >> 6)
            sb_putc(b, (char)('0' + (ch >> 6)));
        if (digit_next || ch >> 3)
            sb_putc(b, (char)('0' + ((ch >> 3) & 7)));
        sb_putc(b, (char)('0' + (ch & 7)));
    }
    sb_putc(b, '"');
    if (more)
        sb_puts(b, "...");
}

size_t guest_read_some(struct cpu *c, uint64_t addr, void *dst, size_t n)
{
    size_t done = 0;
    while (done < n) {
        uint64_t a = addr + done;
        if (c->bits == 32 && a >= (1ull << 32))
            break;
        size_t chunk = MM_PAGE_SIZE - (a & (MM_PAGE_SIZE - 1));
        if (chunk > n - done)
            chunk = n - done;
        if (mm_read(c->mm, a, (char *)dst + done, chunk) != 0)
            break;
        done += chunk;
    }
    return done;
}

void fmt_gstr(struct sbuf *b, struct cpu *c, uint64_t addr, size_t max)
{
    if (!addr) {
        sb_puts(b, "NULL");
        return;
    }
    uint8_t buf[STRACE_MAX_PATH + 1];
    if (max > STRACE_MAX_PATH)
        max = STRACE_MAX_PATH;
    size_t got = guest_read_some(c, addr, buf, max + 1);
    const uint8_t *nul = memchr(buf, 0, got);
    if (nul)
        fmt_quoted(b, buf, (size_t)(nul - buf), false);
    else if (got == max + 1)
        fmt_quoted(b, buf, max, true);
    else
        fmt_ptr(b, addr);
}

void fmt_gbuf(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t len)
{
    if (!addr) {
        sb_puts(b, "NULL");
        return;
    }
    uint8_t buf[STRACE_MAX_STR];
    size_t n = len < STRACE_MAX_STR ? (size_t)len : STRACE_MAX_STR;
    if (guest_read_some(c, addr, buf, n) != n)
        fmt_ptr(b, addr);
    else
        fmt_quoted(b, buf, n, len > STRACE_MAX_STR);
}

/* One pointer-sized guest word; false when unreadable. */
static bool read_word(struct cpu *c, uint64_t addr, uint64_t *out)
{
    if (c->bits == 32) {
        uint32_t w;
        if (guest_read_some(c, addr, &w, 4) != 4)
            return false;
        *out = w;
        return true;
    }
    return guest_read_some(c, addr, out, 8) == 8;
}

void fmt_argv(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    uint64_t w;
    if (!addr || !read_word(c, addr, &w)) {
        fmt_ptr(b, addr);
        return;
    }
    unsigned word = (unsigned)c->bits / 8;
    sb_putc(b, '[');
    for (unsigned i = 0;; i++) {
        if (!read_word(c, addr + (uint64_t)i * word, &w)) {
            sb_puts(b, i ? ", ...]" : "...]");
            return;
        }
        if (!w)
            break;
        if (i)
            sb_puts(b, ", ");
        if (i == STRACE_MAX_STR) {
            sb_puts(b, "...");
            break;
        }
        fmt_gstr(b, c, w, STRACE_MAX_STR);
    }
    sb_putc(b, ']');
}

void fmt_envp(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    fmt_ptr(b, addr);
    if (!addr)
        return;
    unsigned word = (unsigned)c->bits / 8;
    uint64_t w = 1;
    unsigned n = 0;
    while (n < 1u << 20 && read_word(c, addr + (uint64_t)n * word, &w) && w)
        n++;
    if (!w)
        sb_printf(b, " /* %u var%s */", n, n == 1 ? "" : "s");
}

void fmt_iovec(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t n, uint64_t total)
{
    unsigned word = (unsigned)c->bits / 8;
    uint64_t base, len;
    if (!addr || !n || !read_word(c, addr, &base)) {
        if (!addr || n)
            fmt_ptr(b, addr);
        else
            sb_puts(b, "[]");
        return;
    }
    sb_putc(b, '[');
    for (uint64_t i = 0; i < n; i++) {
        if (i)
            sb_puts(b, ", ");
        if (i == STRACE_MAX_STR) {
            sb_puts(b, "...");
            break;
        }
        uint64_t e = addr + i * 2 * word;
        if (!read_word(c, e, &base) || !read_word(c, e + word, &len)) {
            sb_puts(b, "...");
            break;
        }
        sb_puts(b, "{iov_base=");
        if (total == 0 && len)
            fmt_ptr(b, base); /* nothing was transferred: the address */
        else {
            uint64_t show = total < len ? total : len;
            fmt_gbuf(b, c, base, show);
            if (total != UINT64_MAX)
                total -= show;
        }
        sb_printf(b, ", iov_len=%llu}", (unsigned long long)len);
    }
    sb_putc(b, ']');
}

/* ------------------------------------------------------------ structures */

/* The i386 rows that show a timespec are the time64 calls: a
 * __kernel_timespec, of whose tv_nsec Linux reads the low 32 bits for a
 * 32-bit process (the time32 rows of ia32_time.c show a pointer). */
void fmt_timespec(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    int64_t sec, nsec;
    if (c->bits == 32) {
        int64_t t[2];
        if (!addr || guest_read_some(c, addr, t, sizeof(t)) != sizeof(t)) {
            fmt_ptr(b, addr);
            return;
        }
        sec = t[0], nsec = (uint32_t)t[1];
    } else {
        int64_t t[2];
        if (!addr || guest_read_some(c, addr, t, sizeof(t)) != sizeof(t)) {
            fmt_ptr(b, addr);
            return;
        }
        sec = t[0], nsec = t[1];
    }
    sb_printf(b, "{tv_sec=%lld, tv_nsec=%lld}", (long long)sec, (long long)nsec);
}

static void fmt_file_mode(struct sbuf *b, uint32_t mode)
{
    static const struct strace_flag types[] = {
        F("S_IFREG", S_IFREG), F("S_IFDIR", S_IFDIR), F("S_IFCHR", S_IFCHR),
        F("S_IFBLK", S_IFBLK), F("S_IFIFO", S_IFIFO), F("S_IFLNK", S_IFLNK),
        F("S_IFSOCK", S_IFSOCK), END,
    };
    fmt_enum(b, types, mode & S_IFMT, "%#llo");
    if (mode & S_ISUID)
        sb_puts(b, "|S_ISUID");
    if (mode & S_ISGID)
        sb_puts(b, "|S_ISGID");
    if (mode & S_ISVTX)
        sb_puts(b, "|S_ISVTX");
    sb_printf(b, "|%#03o", mode & 0777);
}

void fmt_stat(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    /* x86_64 struct stat; i386 struct stat64 (st_mode at 16, st_rdev at 32,
     * st_size at 44, packed). */
    uint8_t raw[144];
    size_t need = c->bits == 32 ? 96 : 144;
    if (!addr || guest_read_some(c, addr, raw, need) != need) {
        fmt_ptr(b, addr);
        return;
    }
    uint32_t mode;
    uint64_t rdev;
    int64_t size;
    memcpy(&mode, raw + (c->bits == 32 ? 16 : 24), 4);
    memcpy(&rdev, raw + (c->bits == 32 ? 32 : 40), 8);
    memcpy(&size, raw + (c->bits == 32 ? 44 : 48), 8);
    fmt_stat_fields(b, mode, rdev, size);
}

void fmt_stat_fields(struct sbuf *b, uint32_t mode, uint64_t rdev, int64_t size)
{
    sb_puts(b, "{st_mode=");
    fmt_file_mode(b, mode);
    if (S_ISCHR(mode) || S_ISBLK(mode)) {
        unsigned maj = (unsigned)(((rdev >> 8) & 0xfff) | ((rdev >> 32) & ~0xfffull));
        unsigned min = (unsigned)((rdev & 0xff) | ((rdev >> 12) & ~0xffull));
        sb_printf(b, ", st_rdev=makedev(%#x, %#x), ...}", maj, min);
    } else {
        sb_printf(b, ", st_size=%lld, ...}", (long long)size);
    }
}

void fmt_sigset(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    uint64_t set;
    if (!addr || guest_read_some(c, addr, &set, 8) != 8)
        fmt_ptr(b, addr);
    else
        fmt_sigset_val(b, set);
}

void fmt_sigaction(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    /* The kernel's struct sigaction: handler, flags, restorer, then the
     * 64-bit mask (x86_64: 8-byte words; i386 rt_sigaction: 4-byte words). */
    uint64_t handler, flags, restorer, mask;
    unsigned word = (unsigned)c->bits / 8;
    if (!addr || !read_word(c, addr, &handler) || !read_word(c, addr + word, &flags) ||
        !read_word(c, addr + 2 * word, &restorer) ||
        guest_read_some(c, addr + 3 * word, &mask, 8) != 8) {
        fmt_ptr(b, addr);
        return;
    }
    fmt_sigaction_fields(b, handler, mask, 64, flags, restorer);
}

void fmt_sigaction_fields(struct sbuf *b, uint64_t handler, uint64_t mask, unsigned mask_bits,
                          uint64_t flags, uint64_t restorer)
{
    sb_puts(b, "{sa_handler=");
    if (handler == 0)
        sb_puts(b, "SIG_DFL");
    else if (handler == 1)
        sb_puts(b, "SIG_IGN");
    else
        fmt_hex(b, handler);
    sb_puts(b, ", sa_mask=");
    fmt_sigset_bits(b, mask, mask_bits);
    sb_puts(b, ", sa_flags=");
    fmt_flags(b, strace_sa_flags, flags, NULL);
    if (flags & 0x04000000) {
        sb_puts(b, ", sa_restorer=");
        fmt_ptr(b, restorer);
    }
    sb_putc(b, '}');
}

void fmt_sockaddr(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t len)
{
    uint8_t sa[128] = { 0 };
    if (len > sizeof(sa))
        len = sizeof(sa);
    if (!addr || len < 2 || guest_read_some(c, addr, sa, (size_t)len) != len) {
        fmt_ptr(b, addr);
        return;
    }
    uint16_t family;
    memcpy(&family, sa, 2);
    sb_puts(b, "{sa_family=");
    fmt_enum(b, strace_sock_domains, family, "%llu");
    char text[INET6_ADDRSTRLEN];
    if (family == 1 /* AF_UNIX */) {
        size_t n = (size_t)len - 2;
        if (n > 0) {
            bool abstract = sa[2] == 0;
            const uint8_t *p = sa + 2 + abstract;
            n -= abstract;
            const uint8_t *nul = abstract ? NULL : memchr(p, 0, n);
            sb_puts(b, abstract ? ", sun_path=@" : ", sun_path=");
            fmt_quoted(b, p, nul ? (size_t)(nul - p) : n, false);
        }
    } else if (family == 2 /* AF_INET */ && len >= 8) {
        uint16_t port;
        memcpy(&port, sa + 2, 2);
        inet_ntop(AF_INET, sa + 4, text, sizeof(text));
        sb_printf(b, ", sin_port=htons(%u), sin_addr=inet_addr(\"%s\")", ntohs(port), text);
    } else if (family == 10 /* AF_INET6 */ && len >= 24) {
        uint16_t port;
        uint32_t flow, scope = 0;
        memcpy(&port, sa + 2, 2);
        memcpy(&flow, sa + 4, 4);
        if (len >= 28)
            memcpy(&scope, sa + 24, 4);
        inet_ntop(AF_INET6, sa + 8, text, sizeof(text));
        sb_printf(b, ", sin6_port=htons(%u), sin6_flowinfo=htonl(%u), "
                     "inet_pton(AF_INET6, \"%s\", &sin6_addr), sin6_scope_id=%u",
                  ntohs(port), ntohl(flow), text, scope);
    } else if (len > 2) {
        sb_puts(b, ", sa_data=");
        fmt_quoted(b, sa + 2, (size_t)len - 2, false);
    }
    sb_putc(b, '}');
}

void fmt_int_ptr(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    int32_t v;
    if (!addr || guest_read_some(c, addr, &v, 4) != 4)
        fmt_ptr(b, addr);
    else
        sb_printf(b, "[%d]", v);
}

void fmt_int_pair(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    int32_t v[2];
    if (!addr || guest_read_some(c, addr, v, 8) != 8)
        fmt_ptr(b, addr);
    else
        sb_printf(b, "[%d, %d]", v[0], v[1]);
}

void fmt_wstatus(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    int32_t s;
    if (!addr || guest_read_some(c, addr, &s, 4) != 4) {
        fmt_ptr(b, addr);
        return;
    }
    sb_putc(b, '[');
    fmt_wstatus_val(b, s);
    sb_putc(b, ']');
}

void fmt_rlimit(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    uint64_t r[2];
    if (!addr || guest_read_some(c, addr, r, sizeof(r)) != sizeof(r)) {
        fmt_ptr(b, addr);
        return;
    }
    sb_puts(b, "{rlim_cur=");
    fmt_rlim_val(b, r[0]);
    sb_puts(b, ", rlim_max=");
    fmt_rlim_val(b, r[1]);
    sb_putc(b, '}');
}

void fmt_winsize(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    uint16_t w[4];
    if (!addr || guest_read_some(c, addr, w, sizeof(w)) != sizeof(w))
        fmt_ptr(b, addr);
    else
        sb_printf(b, "{ws_row=%u, ws_col=%u, ws_xpixel=%u, ws_ypixel=%u}", w[0], w[1], w[2],
                  w[3]);
}

void fmt_siginfo(struct sbuf *b, const siginfo_t *si)
{
    int sig = si->si_signo, code = si->si_code;
    sb_puts(b, "{si_signo=");
    fmt_signame(b, sig);
    sb_puts(b, ", si_code=");
    const char *cn = strace_si_code_name(sig, code);
    if (cn)
        sb_puts(b, cn);
    else
        sb_printf(b, "%d", code);
    if (code == SI_USER || code == SI_TKILL) {
        sb_printf(b, ", si_pid=%d, si_uid=%u", (int)si->si_pid, (unsigned)si->si_uid);
    } else if (code == SI_QUEUE || code == SI_MESGQ) {
        sb_printf(b, ", si_pid=%d, si_uid=%u, si_int=%d, si_ptr=", (int)si->si_pid,
                  (unsigned)si->si_uid, si->si_int);
        fmt_ptr(b, (uint64_t)(uintptr_t)si->si_ptr);
    } else if (code == SI_TIMER) {
        sb_printf(b, ", si_timerid=%#x, si_overrun=%d, si_int=%d, si_ptr=",
                  (unsigned)si->si_timerid, si->si_overrun, si->si_int);
        fmt_ptr(b, (uint64_t)(uintptr_t)si->si_ptr);
    } else if (sig == SIGCHLD && code > 0) {
        sb_printf(b, ", si_pid=%d, si_uid=%u, si_status=", (int)si->si_pid,
                  (unsigned)si->si_uid);
        if (code == CLD_EXITED)
            sb_printf(b, "%d", si->si_status);
        else
            fmt_signame(b, si->si_status);
        sb_printf(b, ", si_utime=%lld, si_stime=%lld", (long long)si->si_utime,
                  (long long)si->si_stime);
    } else if (sig == SIGIO && code > 0) {
        sb_printf(b, ", si_band=%ld, si_fd=%d", (long)si->si_band, si->si_fd);
    } else if ((sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) &&
               (code > 0 || code == SI_KERNEL)) {
        sb_puts(b, ", si_addr=");
        fmt_ptr(b, (uint64_t)(uintptr_t)si->si_addr);
    } else if (sig == SIGTRAP && code > 0 && code != SI_KERNEL) {
        sb_puts(b, ", si_addr=");
        fmt_ptr(b, (uint64_t)(uintptr_t)si->si_addr);
    }
    sb_putc(b, '}');
}
