/* strace_demo32: a libc-free i386 program for tests/e2e/strace_demo.sh.
 * It makes, through int $0x80, the calls whose i386 structures --strace
 * decodes (sigaction and old_sigaction, stat64, flock and flock64, the
 * 32-bit and time64 timespecs, timeval, iovec, socketcall with sockaddr and
 * msghdr, rlimit, utsname, sysinfo, statfs64, getdents, _llseek, mmap2,
 * user_desc, select's fd sets, sigsets, clone and waitpid), each with values
 * that are the same on every run, so that the trace can be compared with an
 * expected file.  Data the trace shows by address lives at 0x10000000. */
typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned long long u64;

long sc6(long nr, long a, long b, long c, long d, long e, long f);
__asm__(".text\n"
        ".globl sc6\n"
        "sc6:\n"
        "  push %ebp\n  push %edi\n  push %esi\n  push %ebx\n"
        "  mov 20(%esp), %eax\n  mov 24(%esp), %ebx\n  mov 28(%esp), %ecx\n"
        "  mov 32(%esp), %edx\n  mov 36(%esp), %esi\n  mov 40(%esp), %edi\n"
        "  mov 44(%esp), %ebp\n"
        "  int $0x80\n"
        "  pop %ebx\n  pop %esi\n  pop %edi\n  pop %ebp\n"
        "  ret\n"
        ".globl _start\n"
        "_start:\n"
        "  mov (%esp), %eax\n" /* argc */
        "  and $-16, %esp\n"
        "  sub $12, %esp\n"
        "  push %eax\n"
        "  call demo\n"
        "  hlt\n");

#define SC(nr, a, b, c, d, e, f) sc6(nr, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
#define SC0(nr) SC(nr, 0, 0, 0, 0, 0, 0)
#define SC1(nr, a) SC(nr, a, 0, 0, 0, 0, 0)
#define SC2(nr, a, b) SC(nr, a, b, 0, 0, 0, 0)
#define SC3(nr, a, b, c) SC(nr, a, b, c, 0, 0, 0)
#define SC4(nr, a, b, c, d) SC(nr, a, b, c, d, 0, 0)
#define SC5(nr, a, b, c, d, e) SC(nr, a, b, c, d, e, 0)

enum {
    NR_exit = 1, NR_read = 3, NR_write = 4, NR_close = 6, NR_waitpid = 7, NR_mkdir = 39,
    NR_fcntl = 55, NR_sigaction = 67, NR_setrlimit = 75, NR_getrlimit = 76, NR_munmap = 91,
    NR_setitimer = 104, NR_getitimer = 105, NR_stat = 106, NR_sysinfo = 116, NR_clone = 120,
    NR_uname = 122, NR_sigprocmask = 126, NR_llseek = 140, NR_getdents = 141,
    NR_newselect = 142, NR_readv = 145, NR_writev = 146, NR_nanosleep = 162,
    NR_rt_sigaction = 174, NR_rt_sigprocmask = 175, NR_ugetrlimit = 191, NR_mmap2 = 192,
    NR_ftruncate64 = 194, NR_stat64 = 195, NR_lstat64 = 196, NR_fstat64 = 197,
    NR_getdents64 = 220, NR_fcntl64 = 221, NR_futex = 240, NR_set_thread_area = 243,
    NR_get_thread_area = 244, NR_exit_group = 252, NR_clock_getres = 266,
    NR_clock_nanosleep = 267, NR_statfs64 = 268, NR_fstatfs64 = 269, NR_openat = 295,
    NR_fstatat64 = 300, NR_pipe2 = 331, NR_prlimit64 = 340, NR_memfd_create = 356,
    NR_clock_getres_time64 = 406, NR_clock_nanosleep_time64 = 407, NR_futex_time64 = 422,
    NR_socketcall = 102, NR_sigaltstack = 186,
};

#define AT_FDCWD (-100)
#define FIXED ((char *)0x10000000)

static void put(const char *s)
{
    long n = 0;
    while (s[n])
        n++;
    SC3(NR_write, 1, s, n);
}

struct k_sigaction32 { /* the kernel's i386 struct sigaction (rt_sigaction) */
    u32 handler, flags, restorer;
    u32 mask[2];
};
struct old_sigaction32 {
    u32 handler, mask, flags, restorer;
};
struct flock32 {
    short type, whence;
    int start, len, pid;
};
struct flock64_32 {
    short type, whence;
    long long start, len;
    int pid;
} __attribute__((packed));
struct user_desc {
    u32 entry_number, base_addr, limit;
    u32 flags; /* seg_32bit:1 contents:2 read_exec_only:1 limit_in_pages:1 seg_not_present:1 useable:1 */
};
struct iov32 {
    u32 base, len;
};
struct msghdr32 {
    u32 name, namelen, iov, iovlen, control, controllen, flags;
};

static void signals(void)
{
    struct k_sigaction32 act = { 1 /* SIG_IGN */, 0x10000000 /* SA_RESTART */, 0, { 1u << 1, 0 } };
    struct k_sigaction32 old;
    SC4(NR_rt_sigaction, 10 /* SIGUSR1 */, &act, &old, 8);
    struct old_sigaction32 oact = { 1, (1u << 1) | (1u << 14), 0x10000000, 0 }, oold;
    SC3(NR_sigaction, 12 /* SIGUSR2 */, &oact, &oold);
    SC3(NR_sigaction, 12, 0, &oold);
    u32 set[2] = { (1u << 9) | (1u << 16), 0 }, oset[2]; /* USR1 CHLD */
    SC4(NR_rt_sigprocmask, 0 /* SIG_BLOCK */, set, oset, 8);
    u32 set1 = 1u << 11, oset1; /* USR2 */
    SC3(NR_sigprocmask, 0, &set1, &oset1);
    SC3(NR_sigprocmask, 1 /* SIG_UNBLOCK */, &set1, 0);
    u32 ss[3] = { 0x10001000, 0, 4096 }, oss[3];
    SC2(NR_sigaltstack, ss, oss);
    SC2(NR_sigaltstack, 0, oss);
}

static void files(void)
{
    char st[144];
    SC2(NR_stat64, "/dev/null", st);
    SC2(NR_lstat64, "/nonexistent/elfemu-strace-demo", FIXED);
    int fd = (int)SC3(NR_openat, AT_FDCWD, "/dev/null", 0);
    SC2(NR_fstat64, fd, st);
    SC4(NR_fstatat64, AT_FDCWD, "/dev/null", st, 0x100 /* AT_SYMLINK_NOFOLLOW */);
    SC2(NR_stat, "/dev/null", st);
    SC1(NR_close, fd);

    int mfd = (int)SC2(NR_memfd_create, "demo", 0);
    SC3(NR_ftruncate64, mfd, 8192, 0);
    struct flock64_32 l64 = { 1 /* F_WRLCK */, 0, 0, 10, 0 };
    SC3(NR_fcntl64, mfd, 13 /* F_SETLK64 */, &l64);
    l64.type = 0 /* F_RDLCK */;
    SC3(NR_fcntl64, mfd, 12 /* F_GETLK64 */, &l64);
    struct flock32 l = { 2 /* F_UNLCK */, 1 /* SEEK_CUR */, 100, 20, 0 };
    SC3(NR_fcntl64, mfd, 6 /* F_SETLK */, &l);
    SC3(NR_fcntl, mfd, 7 /* F_SETLKW */, &l);
    l.type = 1;
    SC3(NR_fcntl, mfd, 5 /* F_GETLK */, &l);
    long long pos;
    SC5(NR_llseek, mfd, 0, 4100, &pos, 0 /* SEEK_SET */);
    SC5(NR_llseek, mfd, -1, -1, &pos, 1 /* SEEK_CUR */);

    /* mmap2's offset is in pages. */
    SC(NR_mmap2, FIXED + 0x4000, 4096, 1, 0x11 /* MAP_SHARED|MAP_FIXED */, mfd, 1);
    SC2(NR_munmap, FIXED + 0x4000, 4096);
    SC1(NR_close, mfd);

    /* statfs64 of a pipe: the same fields on every host but f_fsid */
    char sf[84];
    int p[2];
    SC2(NR_pipe2, p, 0);
    SC3(NR_fstatfs64, p[0], sizeof(sf), sf);
    SC3(NR_statfs64, "/proc/self/fd/3", sizeof(sf), sf);
    SC1(NR_close, p[0]);
    SC1(NR_close, p[1]);

    SC2(NR_mkdir, "d", 0755);
    int dfd = (int)SC3(NR_openat, AT_FDCWD, "d", 0x10000);
    SC3(NR_getdents64, dfd, FIXED, 1024);
    SC3(NR_getdents64, dfd, FIXED, 1024);
    SC5(NR_llseek, dfd, 0, 0, &pos, 0);
    SC3(NR_getdents, dfd, FIXED, 1024);
    SC1(NR_close, dfd);
}

static void times(void)
{
    int ts32[2];
    SC2(NR_clock_getres, 1 /* CLOCK_MONOTONIC */, ts32);
    long long ts64[2];
    SC2(NR_clock_getres_time64, 1, ts64);
    int req32[2] = { 0, 1000 };
    SC2(NR_nanosleep, req32, 0);
    SC4(NR_clock_nanosleep, 1, 0, req32, 0);
    long long req64[2] = { 0, 2000 };
    SC4(NR_clock_nanosleep_time64, 1, 0, req64, 0);
    /* FUTEX_WAIT on a word that does not hold val: EAGAIN at once. */
    *(volatile int *)FIXED = 1;
    SC4(NR_futex, FIXED, 0 /* FUTEX_WAIT */, 0, req32);
    SC4(NR_futex_time64, FIXED, 0x80 /* FUTEX_WAIT_PRIVATE */, 0, req64);

    int itv[4] = { 0, 0, 0, 0 }, oitv[4];
    SC3(NR_setitimer, 0 /* ITIMER_REAL */, itv, oitv);
    SC2(NR_getitimer, 0, oitv);
}

static void io(void)
{
    int p[2];
    SC2(NR_pipe2, p, 0);
    struct iov32 out[2] = { { (u32)"ping ", 5 }, { (u32)"pong\n", 5 } };
    SC3(NR_writev, p[1], out, 2);
    /* select with 32-bit fd_set words: the pipe's ends, a zero timeout */
    u32 rd[1] = { (1u << 3) | (1u << 4) }, wr[1] = { 1u << 4 };
    int tv[2] = { 0, 0 };
    SC5(NR_newselect, 5, rd, wr, 0, tv);
    char a[4], b[16];
    struct iov32 in[2] = { { (u32)a, 4 }, { (u32)b, 16 } };
    SC3(NR_readv, p[0], in, 2);
    rd[0] = 1u << 3;
    SC5(NR_newselect, 4, rd, 0, 0, tv);
    SC1(NR_close, p[0]);
    SC1(NR_close, p[1]);
}

static void sockets(void)
{
    u32 args[6];
    args[0] = 1 /* AF_UNIX */, args[1] = 2 /* SOCK_DGRAM */, args[2] = 0;
    int s = (int)SC2(NR_socketcall, 1 /* SOCKET */, args);
    struct {
        u16 family;
        char path[30];
    } un = { 1, "/nonexistent/elfemu-strace" };
    args[0] = (u32)s, args[1] = (u32)&un, args[2] = 2 + 27;
    SC2(NR_socketcall, 3 /* CONNECT */, args);
    SC1(NR_close, s);

    args[0] = 2 /* AF_INET */, args[1] = 2, args[2] = 0;
    s = (int)SC2(NR_socketcall, 1, args);
    struct {
        u16 family, port;
        unsigned char addr[4];
        char zero[8];
    } in = { 2, 0, { 127, 0, 0, 1 }, { 0 } };
    args[0] = (u32)s, args[1] = (u32)&in, args[2] = sizeof(in);
    SC2(NR_socketcall, 2 /* BIND */, args);
    SC1(NR_close, s);

    int sv[2];
    args[0] = 1, args[1] = 2, args[2] = 0, args[3] = (u32)sv;
    SC2(NR_socketcall, 8 /* SOCKETPAIR */, args);
    struct iov32 iov = { (u32)"hello", 5 };
    struct msghdr32 m = { 0, 0, (u32)&iov, 1, 0, 0, 0 };
    args[0] = (u32)sv[0], args[1] = (u32)&m, args[2] = 0;
    SC2(NR_socketcall, 16 /* SENDMSG */, args);
    char buf[8];
    struct iov32 riov = { (u32)buf, sizeof(buf) };
    struct msghdr32 rm = { 0, 0, (u32)&riov, 1, 0, 0, 0 };
    args[0] = (u32)sv[1], args[1] = (u32)&rm, args[2] = 0;
    SC2(NR_socketcall, 17 /* RECVMSG */, args);
    SC1(NR_close, sv[0]);
    SC1(NR_close, sv[1]);
}

static void limits(void)
{
    u32 rl[2] = { 0, 4096 };
    SC2(NR_setrlimit, 4 /* RLIMIT_CORE */, rl);
    SC2(NR_ugetrlimit, 4, rl);
    SC2(NR_getrlimit, 4, rl);
    u64 r64[2];
    SC4(NR_prlimit64, 0, 4, 0, r64);
    char uts[6 * 65];
    SC1(NR_uname, uts);
    char si[64];
    SC1(NR_sysinfo, si);
}

static void thread_area(void)
{
    struct user_desc d = { (u32)-1, 0x10000000, 0xfffff, 1 | (1 << 4) | (1 << 6) };
    SC1(NR_set_thread_area, &d);
    struct user_desc g = { d.entry_number, 0, 0, 0 };
    SC1(NR_get_thread_area, &g);
}

static void child(void)
{
    /* With SIGCHLD blocked the child's end sends no signal line that could
     * come before or after the parent's waitpid line. */
    u32 chld[2] = { 1u << 16, 0 };
    SC4(NR_rt_sigprocmask, 0 /* SIG_BLOCK */, chld, 0, 8);
    long pid = SC5(NR_clone, 17 /* SIGCHLD */, 0, 0, 0, 0);
    if (pid == 0)
        SC1(NR_exit, 3);
    int status;
    SC3(NR_waitpid, pid, &status, 0);
}

/* No argument: every structure; any argument: clone and waitpid, whose
 * lines carry the pids of two processes. */
void demo(int argc)
{
    if (argc > 1) {
        child();
        SC1(NR_exit_group, 0);
    }
    SC(NR_mmap2, FIXED, 8192, 3, 0x32 /* MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS */, -1, 0);
    signals();
    files();
    times();
    io();
    sockets();
    limits();
    thread_area();
    put("done\n");
    SC1(NR_exit_group, 0);
}
