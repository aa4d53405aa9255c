/* --strace internals: a bounded text buffer, the argument and structure
 * formatters (strace_fmt.c) and the name tables (strace_names.c).
 *
 * Formatters that take a guest address read the guest through mm_read(),
 * so an unmapped or unreadable pointer is shown as its address (as strace
 * shows a pointer it could not read) and never faults. */
#ifndef SYSCALLS_STRACE_FMT_H
#define SYSCALLS_STRACE_FMT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"

/* strace's default -s 32: strings and buffers show at most this many bytes,
 * arrays at most this many elements. */
#define STRACE_MAX_STR 32
#define STRACE_MAX_PATH 4096

/* A text buffer that silently stops growing at its capacity. */
struct sbuf {
    char *p;
    size_t len, cap;
};

void sb_init(struct sbuf *b, char *mem, size_t cap);
void sb_putc(struct sbuf *b, char ch);
void sb_puts(struct sbuf *b, const char *s);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A table of flag bits or enumerated values, ended by a NULL name. */
struct strace_flag {
    uint64_t val;
    const char *name;
};

/* Bits of v named from t in table order (a name may cover several bits;
 * it matches when all its bits are set), the rest as hex: `A|B|0x40`.
 * v == 0 prints zero_name, or "0" when it is NULL. */
void fmt_flags(struct sbuf *b, const struct strace_flag *t, uint64_t v, const char *zero_name);
/* The name of v in t, or v in the fallback printf format (e.g. "%#llx"). */
void fmt_enum(struct sbuf *b, const struct strace_flag *t, uint64_t v, const char *fallback);
const char *flag_name(const struct strace_flag *t, uint64_t v);

/* Flag tables (strace_fmt.c). */
extern const struct strace_flag strace_open_flags[], strace_prot_flags[], strace_map_flags[],
    strace_at_flags[], strace_whence[], strace_fcntl_cmds[], strace_ioctls[], strace_clocks[],
    strace_arch_prctl[], strace_clone_flags[], strace_access_modes[], strace_sigmask_how[],
    strace_wait_opts[], strace_sock_domains[], strace_sock_types[], strace_rlimits[],
    strace_sa_flags[], strace_madvise[], strace_sock_levels[];

/* The quoted, escaped bytes s[0..n) the way strace prints them: printable
 * ASCII as is, \t \n \v \f \r \" \\ escaped, other bytes in octal with as
 * few digits as are unambiguous; "..." follows when more is true. */
void fmt_quoted(struct sbuf *b, const uint8_t *s, size_t n, bool more);

/* Numbers and pointers. */
void fmt_ptr(struct sbuf *b, uint64_t v);          /* NULL or 0x... */
void fmt_hex(struct sbuf *b, uint64_t v);          /* 0 or 0x... */
void fmt_mode(struct sbuf *b, uint64_t mode);      /* 0644, 000 */
void fmt_signame(struct sbuf *b, int sig);         /* SIGINT, SIGRT_3, or the number */
void fmt_open_flags(struct sbuf *b, uint64_t v);   /* O_RDONLY|O_CLOEXEC */
void fmt_mmap_flags(struct sbuf *b, uint64_t v);   /* MAP_PRIVATE|MAP_ANONYMOUS */
void fmt_clone_flags(struct sbuf *b, uint64_t v);  /* CLONE_VM|...|SIGCHLD */
void fmt_sock_type(struct sbuf *b, uint64_t v);    /* SOCK_STREAM|SOCK_CLOEXEC */
void fmt_sigset_val(struct sbuf *b, uint64_t set); /* [INT TERM], ~[KILL], [] */
void fmt_sigset_bits(struct sbuf *b, uint64_t set, unsigned nbits); /* a set of nbits signals */
void fmt_futex_op(struct sbuf *b, uint64_t op);    /* FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME */
void fmt_wstatus_val(struct sbuf *b, int status);  /* {WIFEXITED(s) && WEXITSTATUS(s) == 0} */
void fmt_rlim_val(struct sbuf *b, uint64_t v);     /* RLIM64_INFINITY, 8192*1024, 5 */

/* Guest data: each shows the address instead when it cannot be read. */
size_t guest_read_some(struct cpu *c, uint64_t addr, void *dst, size_t n);
/* A NUL-terminated string, at most max bytes shown ("..." after more). */
void fmt_gstr(struct sbuf *b, struct cpu *c, uint64_t addr, size_t max);
/* len bytes of a buffer, at most STRACE_MAX_STR shown. */
void fmt_gbuf(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t len);
void fmt_argv(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_envp(struct sbuf *b, struct cpu *c, uint64_t addr);
/* iovec array of n entries; data shows at most total bytes in all
 * (the result of a readv), or each iov_len when total is UINT64_MAX. */
void fmt_iovec(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t n, uint64_t total);
void fmt_timespec(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_stat(struct sbuf *b, struct cpu *c, uint64_t addr);
/* What fmt_stat shows, from the fields read (any layout). */
void fmt_stat_fields(struct sbuf *b, uint32_t mode, uint64_t rdev, int64_t size);
void fmt_sigset(struct sbuf *b, struct cpu *c, uint64_t addr);
/* What fmt_sigaction shows, from the fields read (any layout). */
void fmt_sigaction_fields(struct sbuf *b, uint64_t handler, uint64_t mask, unsigned mask_bits,
                          uint64_t flags, uint64_t restorer);
void fmt_sigaction(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_sockaddr(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t len);
void fmt_int_ptr(struct sbuf *b, struct cpu *c, uint64_t addr);  /* [5] */
void fmt_int_pair(struct sbuf *b, struct cpu *c, uint64_t addr); /* [3, 4] */
void fmt_wstatus(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_rlimit(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_winsize(struct sbuf *b, struct cpu *c, uint64_t addr);
/* {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x10} */
void fmt_siginfo(struct sbuf *b, const siginfo_t *si);

/* strace_struct.c.  clone's arguments after flags: parent_tid=[N] (what
 * the kernel stored; the address when failed), tls=, child_tidptr=, each
 * only when a flag uses it; false when none is shown. */
bool fmt_clone_rest(struct sbuf *b, struct cpu *c, const uint64_t a[6], bool failed);
/* struct clone_args of size bytes; r > 0: the call's result, and what the
 * kernel stored follows (" => {parent_tid=[N]}"). */
void fmt_clone3(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t size, int64_t r);
void fmt_pollfds(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t n);
/* [{fd=3, revents=POLLIN}]: the entries poll reported. */
void fmt_pollfd_revents(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t n);
void fmt_utsname(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_guest_siginfo(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_timeval(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_rusage(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_epoll_event(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_epoll_events(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t n);
void fmt_sockopt_name(struct sbuf *b, int level, int name);

/* strace_struct.c, structures of both ABIs (by c->bits). */
/* msghdr: data shows at most total bytes (recvmsg's result), or each
 * iov_len when total is UINT64_MAX (sendmsg). */
void fmt_msghdr(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t total);
void fmt_msg_flags(struct sbuf *b, uint64_t flags); /* MSG_DONTWAIT|MSG_NOSIGNAL */
/* select's fd_set of nfds bits (the same bytes in 32- and 64-bit longs). */
void fmt_fdset(struct sbuf *b, struct cpu *c, uint64_t addr, uint64_t nfds);
/* What select reported: " (in [3], out [4], left {...})" or " (Timeout)". */
void fmt_select_result(struct sbuf *b, struct cpu *c, const uint64_t a[6], int64_t r);
void fmt_itimerval(struct sbuf *b, struct cpu *c, uint64_t addr);
/* struct statfs (wide false: x86_64's or i386's compat_statfs) or i386's
 * packed statfs64 (wide true). */
void fmt_statfs(struct sbuf *b, struct cpu *c, uint64_t addr, bool wide);
void fmt_sysinfo(struct sbuf *b, struct cpu *c, uint64_t addr);
/* sigaltstack's stack_t: {ss_sp=..., ss_flags=SS_DISABLE, ss_size=N} */
void fmt_stack_t(struct sbuf *b, struct cpu *c, uint64_t addr);
/* getdents' buffer of len bytes: its address and how many entries it
 * holds; reclen_at: where d_reclen is in an entry. */
void fmt_dirents(struct sbuf *b, struct cpu *c, uint64_t addr, int64_t len, unsigned reclen_at);

/* strace_ia32.c: the structures only i386 has. */
void fmt_old_sigset(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_old_sigaction(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_stat32(struct sbuf *b, struct cpu *c, uint64_t addr);
enum flock_kind { FLOCK_64, FLOCK_32, FLOCK64_32 };
void fmt_flock(struct sbuf *b, struct cpu *c, uint64_t addr, enum flock_kind kind,
               bool with_pid);
void fmt_timespec32(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_rlimit32(struct sbuf *b, struct cpu *c, uint64_t addr);
void fmt_user_desc(struct sbuf *b, struct cpu *c, uint64_t addr);
/* " (entry_number=12)": the entry set_thread_area chose. */
void fmt_user_desc_entry(struct sbuf *b, struct cpu *c, uint64_t addr);
/* socketcall(call, args): the name, spec and arguments of the call it
 * multiplexes, from the guest's argument block; false when the block
 * cannot be read or the call is unknown (then it shows as socketcall). */
bool strace_socketcall(struct cpu *c, const uint64_t a[6], const char **name,
                       const char **spec, uint64_t args[6]);

/* What a result needs explained after it: fcntl's F_GETFD/F_GETFL flags,
 * poll's revents, select's ready sets, set_thread_area's chosen entry. */
enum { SUF_NONE, SUF_GETFD, SUF_GETFL, SUF_POLL, SUF_SELECT, SUF_TLS };

/* A spec token: a letter, or EXT(letter) for '_' and a letter. */
#define EXT(l) (0x100 | (l))

/* One call being formatted (syscalls/strace_args.c). */
struct strace_call {
    bool active, done, suppress;
    bool prefixed; /* the line begins with [pid N] */
    struct cpu *c;
    uint64_t a[6];
    const char *name, *spec; /* spec: the argument tokens */
    char result;             /* result letter */
    int pos;                 /* next character of spec to format */
    int arg;                 /* the argument that token formats */
    int prev;                /* the token formatted last */
    uint64_t prev_val;       /* and its argument */
    bool time32;             /* futex's timeout is an old_timespec32 (_X) */
    int suffix;              /* what the result needs explained (strace_args.c) */
    uint64_t suffix_val;
    char name_buf[32];
    struct sbuf sb;
    char text[8192];
};

/* Begin the line of call name with spec ("R:ARGS") and arguments a into
 * k->sb (after whatever k->sb holds: the prefix); a spec that is NULL or
 * malformed shows six raw arguments. */
void strace_call_start(struct strace_call *k, struct cpu *c, const char *name,
                       const char *spec, const uint64_t a[6]);
/* Format the arguments not yet shown: before the call (after false) up to
 * the first one the call writes; after it (after true, result r) all. */
void strace_call_args(struct strace_call *k, bool after, int64_t r);
/* ") = result\n", aligned as strace aligns it. */
void strace_call_result(struct strace_call *k, int64_t r);

/* The whole line (without prefix) of a call name with spec ("R:ARGS" as in
 * list.h), arguments a and result r, as strace_enter()/strace_leave()
 * would write it; for tests.  Returns the length written to out. */
size_t strace_format_line(char *out, size_t cap, struct cpu *c, const char *name,
                          const char *spec, const uint64_t a[6], int64_t r);

/* Names (strace_names.c). */
const char *strace_errno_name(int err);  /* "ENOENT", NULL when unknown */
const char *strace_errno_text(int err);  /* "No such file or directory" */
const char *strace_signal_name(int sig); /* "SIGSEGV", "SIGRTMIN", "SIGRT_2", NULL */
const char *strace_si_code_name(int sig, int code); /* "SEGV_MAPERR", "SI_USER", NULL */

#endif
