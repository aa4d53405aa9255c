/* --strace: one call's line, assembled from the spec of syscalls/list.h.
 *
 * A spec is "R:ARGS": R the result letter, ARGS one token per argument in
 * order.  A token is a letter, or '_' and a letter for the rarer formats
 * (the table is at the top of list.h).  The arguments the call reads are
 * formatted before it runs, up to the first one it writes; the rest after
 * it returned, when the written data can be shown. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syscalls/strace_fmt.h"

/* strace's column for " = result". */
#define RESULT_COLUMN 39

/* Whether spec letter l at the current position is data the call writes
 * (formatted after the call). */
static bool is_written(const struct strace_call *k, int l)
{
    switch (l) {
    case 'B': case 'V': case 'T': case 'h': case 'Q': case 'H': case 'W': case 'U':
    case 'j': case 'L': case 'Y':
    case EXT('j'): case EXT('c'): case EXT('u'): case EXT('s'): case EXT('r'): case EXT('T'):
    case EXT('W'): case EXT('B'): case EXT('Q'): case EXT('H'): case EXT('K'): case EXT('J'):
    case EXT('N'): case EXT('f'): case EXT('F'): case EXT('D'): case EXT('d'): case EXT('8'):
    case EXT('U'): case EXT('Z'): case EXT('n'): case EXT('Y'):
        return true;
    }
    /* The argument of fcntl and ioctl depends on the command. */
    if (k->prev == 'F')
        return k->prev_val == 5 /* F_GETLK */ || k->prev_val == 36 /* F_OFD_GETLK */ ||
               k->prev_val == 16 /* F_GETOWN_EX */ ||
               (k->c->bits == 32 && k->prev_val == 12 /* F_GETLK64 */);
    if (k->prev == 'I')
        switch (k->prev_val) {
        case 0x541b: case 0x540f: case 0x5411: case 0x5413: case 0x80045430: case 0x5429:
            return true;
        }
    return false;
}

/* fcntl's third argument as its command wants it; false: not shown. */
static bool fmt_fcntl_arg(struct strace_call *k, uint64_t cmd, uint64_t v)
{
    struct sbuf *b = &k->sb;
    switch (cmd) {
    case 1: case 3: case 9: case 11: case 1025: case 1032: case 1034: /* the F_GET*s */
        k->suffix = cmd == 1 ? SUF_GETFD : cmd == 3 ? SUF_GETFL : SUF_NONE;
        return false;
    case 2: /* F_SETFD */
        if (v == 1)
            sb_puts(b, "FD_CLOEXEC");
        else
            fmt_hex(b, v);
        return true;
    case 4: /* F_SETFL */
        fmt_open_flags(b, v);
        return true;
    case 5: case 6: case 7: /* i386: struct flock, fcntl64 too */
        fmt_flock(b, k->c, v, k->c->bits == 32 ? FLOCK_32 : FLOCK_64, cmd == 5);
        return true;
    case 36: case 37: case 38: /* the OFD locks: i386's flock64 */
        fmt_flock(b, k->c, v, k->c->bits == 32 ? FLOCK64_32 : FLOCK_64, cmd == 36);
        return true;
    case 12: case 13: case 14: /* i386's F_GETLK64, F_SETLK64, F_SETLKW64 */
        if (k->c->bits != 32)
            break;
        fmt_flock(b, k->c, v, FLOCK64_32, cmd == 12);
        return true;
    case 0: case 1030: case 8: case 10: case 1024: case 1026: case 1031: case 1033:
        sb_printf(b, "%d", (int)v);
        return true;
    }
    fmt_hex(b, v);
    return true;
}

/* ioctl's third argument as its request wants it; false: not shown. */
static bool fmt_ioctl_arg(struct strace_call *k, uint64_t req, uint64_t v)
{
    struct sbuf *b = &k->sb;
    switch (req) {
    case 0x5450: case 0x5451: case 0x5422: /* FIONCLEX FIOCLEX TIOCNOTTY */
        return false;
    case 0x541b: case 0x540f: case 0x5410: case 0x5411: case 0x5421: case 0x5452:
    case 0x80045430: case 0x40045431: case 0x5429:
        fmt_int_ptr(b, k->c, v);
        return true;
    case 0x5413: case 0x5414: /* TIOCGWINSZ TIOCSWINSZ */
        fmt_winsize(b, k->c, v);
        return true;
    }
    fmt_hex(b, v);
    return true;
}

static int64_t sval(const struct strace_call *k, uint64_t v)
{
    return k->c->bits == 32 ? (int64_t)(int32_t)v : (int64_t)v;
}

/* futex: which arguments follow the op, by command (strace shows only the
 * ones the command uses): v val, t timeout, n val2 as a number, p uaddr2,
 * x val3, b val3 as a bitset, o val3 as a wake-op. */
static const char *futex_layout(uint64_t op)
{
    switch (op & 127) {
    case 0: return "vt";          /* WAIT */
    case 1: case 2: return "v";   /* WAKE, FD */
    case 3: return "vnp";         /* REQUEUE */
    case 4: return "vnpx";        /* CMP_REQUEUE */
    case 5: return "vnpo";        /* WAKE_OP */
    case 6: case 13: return "t";  /* LOCK_PI, LOCK_PI2 */
    case 7: case 8: return "";    /* UNLOCK_PI, TRYLOCK_PI */
    case 9: return "vtb";         /* WAIT_BITSET */
    case 10: return "vb";         /* WAKE_BITSET */
    case 11: return "vtp";        /* WAIT_REQUEUE_PI */
    case 12: return "vnpx";       /* CMP_REQUEUE_PI */
    }
    return "vtpx";
}

static void fmt_futex_rest(struct strace_call *k, uint64_t op)
{
    struct sbuf *b = &k->sb;
    const uint64_t *a = k->a;
    for (const char *l = futex_layout(op); *l; l++) {
        sb_puts(b, ", ");
        switch (*l) {
        case 'v': sb_printf(b, "%u", (unsigned)a[2]); break;
        case 't':
            if (k->time32)
                fmt_timespec32(b, k->c, a[3]);
            else
                fmt_timespec(b, k->c, a[3]);
            break;
        case 'n': sb_printf(b, "%u", (unsigned)a[3]); break;
        case 'p': fmt_ptr(b, a[4]); break;
        case 'x': sb_printf(b, "%u", (unsigned)a[5]); break;
        case 'b':
            if ((uint32_t)a[5] == 0xffffffffu)
                sb_puts(b, "FUTEX_BITSET_MATCH_ANY");
            else
                fmt_hex(b, (uint32_t)a[5]);
            break;
        case 'o': {
            static const char *const ops[] = { "SET", "ADD", "OR", "ANDN", "XOR" };
            static const char *const cmps[] = { "EQ", "NE", "LT", "LE", "GT", "GE" };
            uint32_t w = (uint32_t)a[5];
            unsigned o = (w >> 28) & 7, cmp = (w >> 24) & 15;
            sb_puts(b, "{");
            if (o & 8)
                sb_puts(b, "FUTEX_OP_OPARG_SHIFT|");
            if (o < 5)
                sb_printf(b, "FUTEX_OP_%s", ops[o]);
            else
                sb_printf(b, "%u", o);
            sb_printf(b, ", %d, ", ((int32_t)(w << 8)) >> 20);
            if (cmp < 6)
                sb_printf(b, "FUTEX_OP_CMP_%s", cmps[cmp]);
            else
                sb_printf(b, "%u", cmp);
            sb_printf(b, ", %d}", ((int32_t)(w << 20)) >> 20);
            break;
        }
        }
    }
}

/* futex's op and what the op uses of the arguments after it. */
static bool fmt_arg_futex(struct strace_call *k, uint64_t op)
{
    fmt_futex_op(&k->sb, op);
    fmt_futex_rest(k, op);
    k->pos = (int)strlen(k->spec); /* the op decides the rest */
    k->arg = 6;
    return true;
}

/* Values of the '_' tokens' small enumerations. */
static const struct strace_flag idtypes[] = {
    { 0, "P_ALL" }, { 1, "P_PID" }, { 2, "P_PGID" }, { 3, "P_PIDFD" }, { 0, NULL },
};
static const struct strace_flag rusage_who[] = {
    { 0, "RUSAGE_SELF" }, { (uint64_t)-1, "RUSAGE_CHILDREN" }, { 1, "RUSAGE_THREAD" },
    { 0, NULL },
};
static const struct strace_flag shut_how[] = {
    { 0, "SHUT_RD" }, { 1, "SHUT_WR" }, { 2, "SHUT_RDWR" }, { 0, NULL },
};
static const struct strace_flag grnd_flags[] = {
    { 1, "GRND_NONBLOCK" }, { 2, "GRND_RANDOM" }, { 4, "GRND_INSECURE" }, { 0, NULL },
};
static const struct strace_flag epoll_ops[] = {
    { 1, "EPOLL_CTL_ADD" }, { 2, "EPOLL_CTL_DEL" }, { 3, "EPOLL_CTL_MOD" }, { 0, NULL },
};
/* The i386 fcntl commands x86_64 does not have. */
static const struct strace_flag fcntl64_cmds[] = {
    { 12, "F_GETLK64" }, { 13, "F_SETLK64" }, { 14, "F_SETLKW64" }, { 0, NULL },
};
static const struct strace_flag itimers[] = {
    { 0, "ITIMER_REAL" }, { 1, "ITIMER_VIRTUAL" }, { 2, "ITIMER_PROF" }, { 0, NULL },
};
static const struct strace_flag ip_protos[] = {
    { 0, "IPPROTO_IP" }, { 1, "IPPROTO_ICMP" }, { 6, "IPPROTO_TCP" }, { 17, "IPPROTO_UDP" },
    { 41, "IPPROTO_IPV6" }, { 58, "IPPROTO_ICMPV6" }, { 132, "IPPROTO_SCTP" },
    { 255, "IPPROTO_RAW" }, { 0, NULL },
};

/* A '_' token (l is the letter after the '_'); false when not shown. */
static bool fmt_ext_arg(struct strace_call *k, int i, int l, int64_t r)
{
    struct sbuf *b = &k->sb;
    struct cpu *c = k->c;
    uint64_t v = k->a[i], next = i < 5 ? k->a[i + 1] : 0;
    switch (l) {
    case 'p': /* pollfd array, count next; revents follow the result */
        fmt_pollfds(b, c, v, next);
        k->suffix = SUF_POLL;
        k->suffix_val = v;
        break;
    case 'u': fmt_utsname(b, c, v); break;
    case 'i': fmt_enum(b, idtypes, (uint32_t)v, "%llu"); break;
    case 's': fmt_guest_siginfo(b, c, v); break;
    case 'r': fmt_rusage(b, c, v); break;
    case 'R': fmt_enum(b, rusage_who, (uint64_t)(int64_t)(int32_t)v, "%lld"); break;
    case 't': case 'T': fmt_timeval(b, c, v); break;
    case 'h': fmt_enum(b, shut_how, (uint32_t)v, "%llu"); break;
    case 'g': fmt_flags(b, grnd_flags, v, NULL); break;
    case 'a': fmt_enum(b, strace_madvise, (uint32_t)v, "%llu"); break;
    case 'e': fmt_enum(b, epoll_ops, (uint32_t)v, "%llu"); break;
    case 'E': fmt_epoll_event(b, c, v); break;
    case 'W': fmt_epoll_events(b, c, v, (uint64_t)r); break;
    case 'P': /* socket protocol: named for the IP families */
        if (k->a[0] == 2 || k->a[0] == 10)
            fmt_enum(b, ip_protos, (uint32_t)v, "%llu");
        else
            sb_printf(b, "%d", (int)v);
        break;
    case 'l': fmt_enum(b, strace_sock_levels, (uint32_t)v, "%llu"); break;
    case 'o': fmt_sockopt_name(b, (int)k->prev_val, (int)v); break;
    case 'w': fmt_enum(b, itimers, (uint32_t)v, "%llu"); break;
    case 'I': case 'J': fmt_itimerval(b, c, v); break;
    case 'M': fmt_msghdr(b, c, v, UINT64_MAX); break;
    case 'm': fmt_msg_flags(b, v); break;
    case 'N': fmt_msghdr(b, c, v, (uint64_t)r); break;
    case 'S': /* select's fd_sets: what was ready follows the result */
        fmt_fdset(b, c, v, k->a[0]);
        k->suffix = SUF_SELECT;
        break;
    case 'f': fmt_statfs(b, c, v, false); break;
    case 'x': case 'Y': fmt_stack_t(b, c, v); break;
    case 'n': fmt_sysinfo(b, c, v); break;
    case 'D': fmt_dirents(b, c, v, r, 16); break; /* linux_dirent64 */
    case 'd': fmt_dirents(b, c, v, r, c->bits == 32 ? 8 : 16); break; /* linux_dirent */
    /* i386 only */
    case 'A': case 'B': fmt_old_sigaction(b, c, v); break;
    case 'q': case 'Q': fmt_old_sigset(b, c, v); break;
    case 'H': fmt_stat32(b, c, v); break;
    case 'F': fmt_statfs(b, c, v, true); break;
    case 'k': case 'K': fmt_timespec32(b, c, v); break;
    case 'z': case 'Z': fmt_rlimit32(b, c, v); break;
    case 'X': /* futex with an old_timespec32 timeout */
        k->time32 = true;
        return fmt_arg_futex(k, v);
    case 'L': /* _llseek's offset, high and low halves; _0 hides the low one */
        sb_printf(b, "%lld", (long long)(((uint64_t)(uint32_t)v << 32) | (uint32_t)next));
        break;
    case '6': /* a 64-bit value in two arguments, low half first; _0 hides the high one */
        sb_printf(b, "%lld", (long long)(((uint64_t)(uint32_t)next << 32) | (uint32_t)v));
        break;
    case '0': return false;
    case '8': { /* a loff_t written */
        int64_t off;
        if (guest_read_some(c, v, &off, sizeof(off)) != sizeof(off))
            fmt_ptr(b, v);
        else
            sb_printf(b, "[%lld]", (long long)off);
        break;
    }
    case 'O': fmt_hex(b, (uint64_t)(uint32_t)v << 12); break; /* mmap2's page offset */
    case 'G': /* set_thread_area: the entry it chose follows the result */
        fmt_user_desc(b, c, v);
        {
            int32_t entry;
            if (guest_read_some(c, v, &entry, 4) == 4 && entry == -1) {
                k->suffix = SUF_TLS;
                k->suffix_val = v;
            }
        }
        break;
    case 'U': fmt_user_desc(b, c, v); break;
    default:
        (void)r;
        fmt_hex(b, v);
        break;
    }
    return true;
}

/* Format argument i (letter l); false when the argument is not shown. */
static bool fmt_arg(struct strace_call *k, int i, int l, bool after, int64_t r)
{
    struct sbuf *b = &k->sb;
    struct cpu *c = k->c;
    uint64_t v = k->a[i], next = i < 5 ? k->a[i + 1] : 0;
    bool failed = after && r < 0 && r >= -4095;
    if (failed && l == 'V') {
        fmt_iovec(b, c, v, next, 0); /* the buffers' addresses */
        return true;
    }
    if (l == EXT('c')) {
        fmt_clone3(b, c, v, next, after && !failed ? r : -1);
        return true;
    }
    if (l == EXT('j'))
        return fmt_clone_rest(b, c, k->a, failed);
    if (l == 'W' && after && r == 0) {
        fmt_ptr(b, v); /* WNOHANG and no child ready: nothing was written */
        return true;
    }
    if (failed && is_written(k, l)) {
        fmt_ptr(b, v); /* the call wrote nothing: its address */
        return true;
    }
    if (k->prev == 'F')
        return fmt_fcntl_arg(k, k->prev_val, v);
    if (k->prev == 'I')
        return fmt_ioctl_arg(k, k->prev_val, v);
    switch (l) {
    case 'd': sb_printf(b, "%d", (int)v); break;
    case 'l': sb_printf(b, "%lld", (long long)sval(k, v)); break;
    case 'u':
        sb_printf(b, "%llu", (unsigned long long)(c->bits == 32 ? (uint32_t)v : v));
        break;
    case 'p': fmt_ptr(b, v); break;
    case 'f': sb_printf(b, "%d", (int)v); break;
    case 'D':
        if ((int)v == -100)
            sb_puts(b, "AT_FDCWD");
        else
            sb_printf(b, "%d", (int)v);
        break;
    case 's': fmt_gstr(b, c, v, STRACE_MAX_PATH); break;
    case 'z': fmt_gstr(b, c, v, STRACE_MAX_STR); break;
    case 'b': fmt_gbuf(b, c, v, c->bits == 32 ? (uint32_t)next : next); break;
    case 'B': fmt_gbuf(b, c, v, (uint64_t)r); break;
    case 'v': fmt_iovec(b, c, v, next, UINT64_MAX); break;
    case 'V': fmt_iovec(b, c, v, next, (uint64_t)r); break;
    case 'o': fmt_open_flags(b, v); break;
    case 'C': fmt_flags(b, strace_open_flags, v, NULL); break;
    case 'm':
        /* open's mode only matters (and strace only shows it) with O_CREAT
         * or O_TMPFILE. */
        if (k->prev == 'o' && !(k->prev_val & (0100 | 020000000)))
            return false;
        fmt_mode(b, v);
        break;
    case 'P': fmt_flags(b, strace_prot_flags, v, "PROT_NONE"); break;
    case 'M': fmt_mmap_flags(b, v); break;
    case 'a':
        if (!strncmp(k->name, "faccessat", 9)) {
            static const struct strace_flag eaccess[] = {
                { 0x100, "AT_SYMLINK_NOFOLLOW" }, { 0x200, "AT_EACCESS" },
                { 0x1000, "AT_EMPTY_PATH" }, { 0, NULL },
            };
            fmt_flags(b, eaccess, v, NULL);
        } else
            fmt_flags(b, strace_at_flags, v, NULL);
        break;
    case 'w': fmt_enum(b, strace_whence, v, "%llu"); break;
    case 'S': fmt_signame(b, (int)v); break;
    case 'c': fmt_clone_flags(b, v); break;
    case 'F':
        if (c->bits == 32 && flag_name(fcntl64_cmds, (uint32_t)v))
            fmt_enum(b, fcntl64_cmds, (uint32_t)v, "%#llx");
        else
            fmt_enum(b, strace_fcntl_cmds, (uint32_t)v, "%#llx");
        break;
    case 'I': fmt_enum(b, strace_ioctls, (uint32_t)v, "%#llx"); break;
    case 'k': fmt_enum(b, strace_clocks, (uint32_t)v, "%llu"); break;
    case 'X': return fmt_arg_futex(k, v);
    case 'R':
        if (!flag_name(strace_arch_prctl, v))
            sb_printf(b, "%#llx /* ARCH_??? */", (unsigned long long)v);
        else
            fmt_enum(b, strace_arch_prctl, v, "%#llx");
        break;
    case 'e': fmt_argv(b, c, v); break;
    case 'E': fmt_envp(b, c, v); break;
    case 't': case 'T': fmt_timespec(b, c, v); break;
    case 'h': fmt_stat(b, c, v); break;
    case 'A': case 'H': fmt_sigaction(b, c, v); break;
    case 'q': case 'Q': fmt_sigset(b, c, v); break;
    case 'y': fmt_sockaddr(b, c, v, c->bits == 32 ? (uint32_t)next : next); break;
    case 'Y': {
        uint32_t len = 0;
        if (next && guest_read_some(c, next, &len, 4) != 4)
            len = 0;
        fmt_sockaddr(b, c, v, len);
        break;
    }
    case 'i': case 'U': fmt_int_ptr(b, c, v); break;
    case 'j': fmt_int_pair(b, c, v); break;
    case 'K': fmt_flags(b, strace_access_modes, v, "F_OK"); break;
    case 'g': fmt_enum(b, strace_sigmask_how, v, "%#llx"); break;
    case 'W': fmt_wstatus(b, c, v); break;
    case 'O': fmt_flags(b, strace_wait_opts, v, NULL); break;
    case 'N': fmt_enum(b, strace_sock_domains, v, "%llu"); break;
    case 'G': fmt_sock_type(b, v); break;
    case 'r': fmt_enum(b, strace_rlimits, v, "%llu"); break;
    case 'Z': case 'L': fmt_rlimit(b, c, v); break;
    case 'J':
        /* clone(flags, stack, parent_tid, child_tid, tls) as strace names
         * it; the rest follows the call (_j). */
        sb_puts(b, "child_stack=");
        fmt_ptr(b, next);
        sb_puts(b, ", flags=");
        fmt_clone_flags(b, v);
        break;
    default:
        if (l & 0x100)
            return fmt_ext_arg(k, i, l & 0xff, r);
        fmt_hex(b, v); /* 'x' and letters this file does not know */
        break;
    }
    return true;
}

/* The token at k->pos (0 at the end of the spec), without moving. */
static int peek_token(const struct strace_call *k)
{
    char ch = k->spec[k->pos];
    if (ch == '_')
        return k->spec[k->pos + 1] ? EXT(k->spec[k->pos + 1]) : 0;
    return ch;
}

void strace_call_args(struct strace_call *k, bool after, int64_t r)
{
    int l;
    while (k->arg < 6 && (l = peek_token(k)) != 0) {
        int i = k->arg;
        if (!after && is_written(k, l))
            return;
        size_t mark = k->sb.len;
        if (i > 0)
            sb_puts(&k->sb, ", ");
        k->pos += l & 0x100 ? 2 : 1;
        k->arg++;
        if (!fmt_arg(k, i, l, after, r)) {
            k->sb.len = mark; /* not shown: take the separator back */
            k->sb.p[mark] = '\0';
        }
        k->prev = l;
        k->prev_val = k->a[i];
    }
}

/* What the result means, for the calls strace explains it for. */
static void fmt_suffix(struct strace_call *k, int64_t r)
{
    struct sbuf *b = &k->sb;
    switch (k->suffix) {
    case SUF_GETFD:
        if (r > 0) {
            sb_puts(b, " (flags ");
            fmt_flags(b, (const struct strace_flag[]){ { 1, "FD_CLOEXEC" }, { 0, NULL } },
                      (uint64_t)r, NULL);
            sb_putc(b, ')');
        }
        break;
    case SUF_GETFL:
        sb_puts(b, " (flags ");
        fmt_open_flags(b, (uint64_t)r);
        sb_putc(b, ')');
        break;
    case SUF_SELECT:
        fmt_select_result(b, k->c, k->a, r);
        break;
    case SUF_TLS:
        if (r == 0)
            fmt_user_desc_entry(b, k->c, k->suffix_val);
        break;
    case SUF_POLL:
        if (r == 0) {
            sb_puts(b, " (Timeout)");
        } else {
            sb_puts(b, " (");
            fmt_pollfd_revents(b, k->c, k->suffix_val, k->a[1]);
            sb_putc(b, ')');
        }
        break;
    }
}

void strace_call_result(struct strace_call *k, int64_t r)
{
    struct sbuf *b = &k->sb;
    sb_putc(b, ')');
    while (b->len < RESULT_COLUMN)
        sb_putc(b, ' ');
    sb_puts(b, " = ");
    if (k->result == 'n') {
        sb_putc(b, '?');
    } else if (r < 0 && r >= -4095) {
        int e = (int)-r;
        const char *name = strace_errno_name(e);
        /* A call interrupted by a signal, to be restarted: strace does not
         * know its result yet. */
        bool restart = e >= 512 && e <= 516 && e != 515;
        sb_puts(b, restart ? "? " : "-1 ");
        if (name)
            sb_puts(b, name);
        else
            sb_printf(b, "%d", e);
        sb_printf(b, " (%s)", strace_errno_text(e));
    } else if (k->result == 'x' || k->suffix == SUF_GETFD || k->suffix == SUF_GETFL) {
        fmt_hex(b, (uint64_t)r);
        fmt_suffix(k, r);
    } else if (k->result == 'o') {
        sb_printf(b, "%#llo", (unsigned long long)r);
    } else {
        sb_printf(b, "%lld", (long long)r);
        fmt_suffix(k, r);
    }
    sb_putc(b, '\n');
}

void strace_call_start(struct strace_call *k, struct cpu *c, const char *name,
                       const char *spec, const uint64_t a[6])
{
    k->active = true;
    k->done = k->suppress = false;
    k->c = c;
    memcpy(k->a, a, sizeof(k->a));
    k->pos = k->arg = 0;
    k->prev = 0;
    k->prev_val = 0;
    k->suffix = SUF_NONE;
    k->suffix_val = 0;
    k->time32 = false;
    /* socketcall shows as the call it makes, with that call's arguments. */
    const char *sub_name, *sub_spec;
    if (c->bits == 32 && !strcmp(name, "socketcall") &&
        strace_socketcall(c, a, &sub_name, &sub_spec, k->a)) {
        name = sub_name;
        spec = sub_spec;
    }
    k->name = name;
    if (spec && spec[0] && spec[1] == ':') {
        k->result = spec[0];
        k->spec = spec + 2;
    } else {
        k->result = 'd';
        k->spec = "xxxxxx"; /* not served: all six raw, as strace shows unknown calls */
    }
    sb_puts(&k->sb, name);
    sb_putc(&k->sb, '(');
}

size_t strace_format_line(char *out, size_t cap, struct cpu *c, const char *name,
                          const char *spec, const uint64_t a[6], int64_t r)
{
    struct strace_call *k = malloc(sizeof(*k));
    if (!k)
        return 0;
    sb_init(&k->sb, k->text, sizeof(k->text));
    strace_call_start(k, c, name, spec, a);
    strace_call_args(k, false, 0);
    strace_call_args(k, true, r);
    strace_call_result(k, r);
    struct sbuf o;
    sb_init(&o, out, cap);
    sb_puts(&o, k->text);
    free(k);
    return o.len;
}
