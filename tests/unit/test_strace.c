/* --strace's formatter: whole lines from the real list.h specs over guest
 * memory (flag decoding, strings and their truncation, structures, error
 * lines, alignment), and the smaller formatters directly. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu/cpu.h"
#include "mm/space.h"
#include "syscalls/strace_fmt.h"
#include "syscalls/syscalls.h"

#define MEM 0x100000ull /* a guest page for the test's data */

static struct mm_space mm;
static struct cpu *cpu;
static uint64_t brk_at; /* next free byte of MEM */
static char line[8192];

static void setup(void)
{
    ck_assert_int_eq(mm_space_init(&mm, 64), 0);
    ck_assert_int_eq(mm_map_anon(&mm, MEM, 0x4000, PROT_READ | PROT_WRITE, 0, "t"), 0);
    cpu = calloc(1, sizeof(*cpu));
    ck_assert_ptr_nonnull(cpu);
    cpu_init(cpu, &mm, 64);
    brk_at = MEM;
}

static void teardown(void)
{
    free(cpu);
    mm_space_destroy(&mm);
}

/* Copy n bytes into the guest; their guest address. */
static uint64_t put(const void *p, size_t n)
{
    uint64_t at = brk_at;
    ck_assert_int_eq(mm_write(&mm, at, p, n), 0);
    brk_at += (n + 15) & ~15ull;
    return at;
}

static uint64_t str(const char *s)
{
    return put(s, strlen(s) + 1);
}

/* The line of syscall name (its x86_64 spec from list.h) without "\n". */
static const char *fmt(const char *name, int64_t r, const uint64_t a[6])
{
    const char *spec = NULL;
    for (int nr = 0; nr < SYS_TABLE_SIZE && !spec; nr++)
        if (sys_names_64[nr] && !strcmp(sys_names_64[nr], name))
            spec = sys_spec_64[nr];
    ck_assert_msg(spec != NULL, "no spec for %s", name);
    size_t n = strace_format_line(line, sizeof(line), cpu, name, spec, a, r);
    ck_assert_uint_gt(n, 0);
    ck_assert_int_eq(line[n - 1], '\n');
    line[n - 1] = '\0';
    return line;
}
#define LINE(name, r, ...) fmt(name, r, (const uint64_t[6]){ __VA_ARGS__ })
/* A formatter into a fresh buffer. */
#define SB(call)                                                                           \
    ({                                                                                     \
        struct sbuf b_;                                                                    \
        sb_init(&b_, line, sizeof(line));                                                  \
        struct sbuf *b = &b_;                                                              \
        call;                                                                              \
        (const char *)line;                                                                \
    })

START_TEST(open_flags_and_mode)
{
    uint64_t p = str("/etc/passwd");
    ck_assert_str_eq(LINE("openat", 3, (uint64_t)-100, p, 02000000),
                     "openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY|O_CLOEXEC) = 3");
    /* the mode only with O_CREAT, in octal */
    ck_assert_str_eq(LINE("openat", 4, 5, p, 01101, 0644),
                     "openat(5, \"/etc/passwd\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4");
    ck_assert_str_eq(LINE("open", 3, p, 2 | 0200000 | 0100000),
                     "open(\"/etc/passwd\", O_RDWR|O_LARGEFILE|O_DIRECTORY) = 3");
    /* bits without a name stay visible */
    ck_assert_str_eq(SB(fmt_open_flags(b, 040000000000ull | 04000)),
                     "O_RDONLY|O_NONBLOCK|0x100000000");
}
END_TEST

START_TEST(mmap_access_clone_wait_flags)
{
    ck_assert_str_eq(LINE("mmap", 0x7f0000001000, 0, 8192, 3, 0x22, (uint64_t)-1, 0),
                     "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) "
                     "= 0x7f0000001000");
    ck_assert_str_eq(LINE("mprotect", 0, 0x1000, 4096, 0),
                     "mprotect(0x1000, 4096, PROT_NONE)       = 0");
    uint64_t p = str("/x");
    ck_assert_str_eq(LINE("access", 0, p, 0), "access(\"/x\", F_OK)                      = 0");
    ck_assert_str_eq(LINE("faccessat2", 0, (uint64_t)-100, p, 5, 0x200),
                     "faccessat2(AT_FDCWD, \"/x\", R_OK|X_OK, AT_EACCESS) = 0");
    ck_assert_str_eq(LINE("newfstatat", -ENOENT, 3, p, 0, 0x100),
                     "newfstatat(3, \"/x\", NULL, AT_SYMLINK_NOFOLLOW) = -1 ENOENT (No such file "
                     "or directory)");
    ck_assert_str_eq(SB(fmt_clone_flags(b, 0x1200000 | SIGCHLD)),
                     "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
    uint64_t tid = put(&(int32_t){ 1234 }, 4);
    ck_assert_str_eq(LINE("clone", 1234, 0x1200000 | SIGCHLD, 0, 0, tid, 0),
                     "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|"
                     "SIGCHLD, child_tidptr=0x100010) = 1234");
    ck_assert_str_eq(LINE("clone", 77, 0x100000 | 0x80000 | 0x10f00, 0x5000, tid, 0, 0x6000),
                     "clone(child_stack=0x5000, flags=CLONE_VM|CLONE_FS|CLONE_FILES|"
                     "CLONE_SIGHAND|CLONE_THREAD|CLONE_SETTLS|CLONE_PARENT_SETTID, "
                     "parent_tid=[1234], tls=0x6000) = 77");
    uint64_t st = put(&(int32_t){ 3 << 8 }, 4);
    ck_assert_str_eq(LINE("wait4", 99, (uint64_t)-1, st, 1 | 0x40000000, 0),
                     "wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], WNOHANG|__WALL, NULL) "
                     "= 99");
    /* nothing reaped: the status is not shown */
    ck_assert_str_eq(LINE("wait4", 0, (uint64_t)-1, st, 1, 0),
                     "wait4(-1, 0x100020, WNOHANG, NULL)      = 0");
    ck_assert_str_eq(SB(fmt_wstatus_val(b, SIGKILL)), "{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL}");
    ck_assert_str_eq(SB(fmt_wstatus_val(b, SIGSEGV | 0x80)),
                     "{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV && WCOREDUMP(s)}");
}
END_TEST

START_TEST(strings_truncated_and_escaped)
{
    const char *s40 = "0123456789abcdefghijklmnopqrstuvwxyzABCD";
    uint64_t p = str(s40);
    ck_assert_str_eq(LINE("write", 40, 1, p, 40),
                     "write(1, \"0123456789abcdefghijklmnopqrstuv\"..., 40) = 40");
    /* exactly 32 bytes: whole, no "..." */
    ck_assert_str_eq(LINE("write", 32, 1, p, 32),
                     "write(1, \"0123456789abcdefghijklmnopqrstuv\", 32) = 32");
    /* a read shows what was read: the result's length */
    ck_assert_str_eq(LINE("read", 3, 0, p, 100), "read(0, \"012\", 100)                     = 3");
    ck_assert_str_eq(LINE("read", -EAGAIN, 0, p, 100),
                     "read(0, 0x100000, 100)                  = -1 EAGAIN (Resource "
                     "temporarily unavailable)");
    static const uint8_t odd[] = "a\t\"\\\n\0" "1\001x\377";
    uint64_t q = put(odd, sizeof(odd) - 1);
    ck_assert_str_eq(LINE("write", 10, 2, q, 10),
                     "write(2, \"a\\t\\\"\\\\\\n\\0001\\1x\\377\", 10)   = 10");
    /* a path is shown whole, a non-path string at 32 bytes */
    char longpath[80];
    memset(longpath, 'p', sizeof(longpath) - 1);
    longpath[sizeof(longpath) - 1] = '\0';
    uint64_t lp = str(longpath);
    ck_assert_uint_eq(strlen(LINE("chdir", 0, lp)), strlen("chdir(\"\")") + 79 + 4);
    ck_assert_str_eq(LINE("getxattr", -ENODATA, lp, lp, 0, 0),
                     "getxattr(\"ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
                     "pppppppppppppppp\", \"pppppppppppppppppppppppppppppppp\"..., NULL, 0) = "
                     "-1 ENODATA (No data available)");
}
END_TEST

START_TEST(bad_pointers_and_errors)
{
    ck_assert_str_eq(LINE("write", -EFAULT, 1, 0x10, 5),
                     "write(1, 0x10, 5)                       = -1 EFAULT (Bad address)");
    ck_assert_str_eq(LINE("openat", -EFAULT, (uint64_t)-100, 0x10, 0),
                     "openat(AT_FDCWD, 0x10, O_RDONLY)        = -1 EFAULT (Bad address)");
    ck_assert_str_eq(LINE("close", -EBADF, 99),
                     "close(99)                               = -1 EBADF (Bad file descriptor)");
    /* the kernel's restart codes, as strace shows an interrupted call */
    ck_assert_str_eq(LINE("close", -512, 3),
                     "close(3)                                = ? ERESTARTSYS (To be restarted "
                     "if SA_RESTART is set)");
    ck_assert_str_eq(LINE("exit_group", 0, 7), "exit_group(7)                           = ?");
    ck_assert_str_eq(strace_errno_name(ENOENT), "ENOENT");
    ck_assert_str_eq(strace_errno_text(ENOENT), "No such file or directory");
    ck_assert_ptr_null(strace_errno_name(4000));
}
END_TEST

START_TEST(fcntl_ioctl_lseek)
{
    ck_assert_str_eq(LINE("fcntl", 0x802, 3, 3), "fcntl(3, F_GETFL)                       = "
                                                 "0x802 (flags O_RDWR|O_NONBLOCK)");
    ck_assert_str_eq(LINE("fcntl", 1, 3, 1), "fcntl(3, F_GETFD)                       = 0x1 "
                                             "(flags FD_CLOEXEC)");
    ck_assert_str_eq(LINE("fcntl", 0, 3, 2, 1), "fcntl(3, F_SETFD, FD_CLOEXEC)           = 0");
    ck_assert_str_eq(LINE("fcntl", 10, 3, 1030, 10), "fcntl(3, F_DUPFD_CLOEXEC, 10)           = 10");
    uint64_t ws = put((uint16_t[]){ 24, 80, 0, 0 }, 8);
    ck_assert_str_eq(LINE("ioctl", 0, 1, 0x5413, ws),
                     "ioctl(1, TIOCGWINSZ, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0");
    ck_assert_str_eq(LINE("ioctl", -ENOTTY, 1, 0x5401, 0x2000),
                     "ioctl(1, TCGETS, 0x2000)                = -1 ENOTTY (Inappropriate ioctl "
                     "for device)");
    ck_assert_str_eq(LINE("lseek", -ESPIPE, 3, (uint64_t)-5, 2),
                     "lseek(3, -5, SEEK_END)                  = -1 ESPIPE (Illegal seek)");
}
END_TEST

START_TEST(structures)
{
    /* stat: a character device and a regular file */
    uint8_t st[144] = { 0 };
    uint32_t mode = 020666;
    uint64_t rdev = 0x103;
    memcpy(st + 24, &mode, 4);
    memcpy(st + 40, &rdev, 8);
    uint64_t sp = put(st, sizeof(st));
    ck_assert_str_eq(LINE("fstat", 0, 0, sp),
                     "fstat(0, {st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}) = 0");
    mode = 0100755;
    int64_t size = 12345;
    memcpy(st + 24, &mode, 4);
    memcpy(st + 48, &size, 8);
    sp = put(st, sizeof(st));
    ck_assert_str_eq(LINE("fstat", 0, 3, sp), "fstat(3, {st_mode=S_IFREG|0755, st_size=12345, ...}) = 0");

    uint64_t ts = put((int64_t[]){ 1, 500 }, 16);
    ck_assert_str_eq(LINE("nanosleep", 0, ts, 0), "nanosleep({tv_sec=1, tv_nsec=500}, NULL) = 0");

    uint64_t iov_data = str("hello world");
    uint64_t iov = put((uint64_t[]){ iov_data, 5, iov_data + 5, 6 }, 32);
    ck_assert_str_eq(LINE("writev", 11, 1, iov, 2),
                     "writev(1, [{iov_base=\"hello\", iov_len=5}, {iov_base=\" world\", iov_len=6}], "
                     "2) = 11");
    /* readv shows only what was read */
    ck_assert_str_eq(LINE("readv", 7, 0, iov, 2),
                     "readv(0, [{iov_base=\"hello\", iov_len=5}, {iov_base=\" w\", iov_len=6}], 2) "
                     "= 7");

    uint64_t rl = put((uint64_t[]){ 8192 * 1024, ~0ull }, 16);
    ck_assert_str_eq(LINE("prlimit64", 0, 0, 3, 0, rl),
                     "prlimit64(0, RLIMIT_STACK, NULL, {rlim_cur=8192*1024, "
                     "rlim_max=RLIM64_INFINITY}) = 0");

    char uts[6 * 65] = { 0 };
    strcpy(uts, "Linux");
    strcpy(uts + 65, "box");
    uint64_t up = put(uts, sizeof(uts));
    ck_assert_str_eq(LINE("uname", 0, up), "uname({sysname=\"Linux\", nodename=\"box\", ...}) = 0");

    /* sigaction: kernel layout handler, flags, restorer, mask */
    uint64_t sa = put((uint64_t[]){ 0x401000, 0x04000000 | 0x10000000, 0x402000,
                                    (1ull << (SIGINT - 1)) | (1ull << (SIGTERM - 1)) },
                      32);
    ck_assert_str_eq(SB(fmt_sigaction(b, cpu, sa)),
                     "{sa_handler=0x401000, sa_mask=[INT TERM], sa_flags=SA_RESTORER|SA_RESTART, "
                     "sa_restorer=0x402000}");
    ck_assert_str_eq(SB(fmt_sigset_val(b, ~(1ull << (SIGKILL - 1)))), "~[KILL]");
    ck_assert_str_eq(SB(fmt_sigset_val(b, 0)), "[]");

    /* sockaddr: AF_INET and a path in AF_UNIX */
    uint8_t sin[16] = { 2, 0, 0x1f, 0x90, 127, 0, 0, 1 };
    uint64_t sinp = put(sin, sizeof(sin));
    ck_assert_str_eq(SB(fmt_sockaddr(b, cpu, sinp, 16)),
                     "{sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr(\"127.0.0.1\")}");
    uint8_t sun[2 + 6] = { 1, 0, '/', 't', 'm', 'p', '/', 's' };
    uint64_t sunp = put(sun, sizeof(sun));
    ck_assert_str_eq(SB(fmt_sockaddr(b, cpu, sunp, sizeof(sun))),
                     "{sa_family=AF_UNIX, sun_path=\"/tmp/s\"}");

    /* pollfd: the result lists the revents */
    uint64_t pfd = put((int32_t[]){ 3, 1 | (1 << 16), 4, 4 }, 16);
    ck_assert_str_eq(SB(fmt_pollfds(b, cpu, pfd, 2)),
                     "[{fd=3, events=POLLIN}, {fd=4, events=POLLOUT}]");
    ck_assert_str_eq(SB(fmt_pollfd_revents(b, cpu, pfd, 2)), "[{fd=3, revents=POLLIN}]");

    /* pipe fds written */
    uint64_t fds = put((int32_t[]){ 3, 4 }, 8);
    ck_assert_str_eq(LINE("pipe2", 0, fds, 02000000), "pipe2([3, 4], O_CLOEXEC)                = 0");
}
END_TEST

START_TEST(signals)
{
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    si.si_signo = SIGSEGV;
    si.si_code = SEGV_MAPERR;
    si.si_addr = (void *)0x10;
    ck_assert_str_eq(SB(fmt_siginfo(b, &si)),
                     "{si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x10}");
    memset(&si, 0, sizeof(si));
    si.si_signo = SIGUSR1;
    si.si_code = SI_USER;
    si.si_pid = 42;
    si.si_uid = 1000;
    ck_assert_str_eq(SB(fmt_siginfo(b, &si)),
                     "{si_signo=SIGUSR1, si_code=SI_USER, si_pid=42, si_uid=1000}");
    ck_assert_str_eq(LINE("kill", 0, 42, SIGTERM), "kill(42, SIGTERM)                       = 0");
    ck_assert_str_eq(strace_signal_name(SIGRTMIN), "SIGRT_2"); /* the C library keeps two */
    ck_assert_str_eq(strace_signal_name(32), "SIGRTMIN");
    ck_assert_ptr_null(strace_signal_name(65));
    ck_assert_str_eq(strace_si_code_name(SIGBUS, BUS_ADRERR), "BUS_ADRERR");
    ck_assert_str_eq(strace_si_code_name(SIGSEGV, SI_KERNEL), "SI_KERNEL");
}
END_TEST

START_TEST(buffer_bounds)
{
    /* a text buffer never overflows and stays terminated */
    char small[8];
    struct sbuf b;
    sb_init(&b, small, sizeof(small));
    sb_puts(&b, "0123456789");
    sb_printf(&b, "%d", 12345);
    sb_putc(&b, 'x');
    ck_assert_uint_eq(b.len, 7);
    ck_assert_str_eq(small, "0123456");
    /* an unknown call number's spec shows six raw arguments */
    const uint64_t a[6] = { 1, 2, 3, 4, 5, 6 };
    strace_format_line(line, sizeof(line), cpu, "syscall_0x1ff", NULL, a, -ENOSYS);
    ck_assert_str_eq(line, "syscall_0x1ff(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) = -1 ENOSYS (Function "
                           "not implemented)\n");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("strace");
    TCase *t = tcase_create("format");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, open_flags_and_mode);
    tcase_add_test(t, mmap_access_clone_wait_flags);
    tcase_add_test(t, strings_truncated_and_escaped);
    tcase_add_test(t, bad_pointers_and_errors);
    tcase_add_test(t, fcntl_ioctl_lseek);
    tcase_add_test(t, structures);
    tcase_add_test(t, signals);
    tcase_add_test(t, buffer_bounds);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
