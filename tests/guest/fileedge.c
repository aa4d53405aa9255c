/* File I/O edge cases compared with the native run (fileio covers the
 * ordinary paths): open flags and symlinks, NULL paths with AT_EMPTY_PATH,
 * O_PATH descriptors, short transfers at an unreadable page, holes, pipes
 * and FIFOs, more fcntl commands and locks held by another process, seals,
 * *at calls relative to directory descriptors, times, and the terminal
 * ioctls as a session leader.  Everything happens in a fresh directory
 * under /tmp; nothing printed depends on inode numbers, times or paths. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "show.h"

static void put_file(const char *name, const char *text)
{
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        if (write(fd, text, strlen(text)) < 0)
            printf("write %s failed\n", name);
        close(fd);
    }
}

/* ------------------------------------------------------------ open flags */

static void open_flags(void)
{
    show("umask 077 (old value)", umask(077));
    int fd = show_ok("open O_CREAT 0666 under umask 077", open("u", O_WRONLY | O_CREAT, 0666));
    struct stat st;
    fstat(fd, &st);
    printf("  mode %o\n", st.st_mode & 07777);
    close(fd);
    show("umask 022 (old value)", umask(022));

    put_file("a", "0123456789");
    fd = open("a", O_WRONLY | O_APPEND);
    show("lseek 2 on O_APPEND", lseek(fd, 2, SEEK_SET));
    show("write on O_APPEND", write(fd, "xy", 2));
    show("  position", lseek(fd, 0, SEEK_CUR));
    show("pwrite at 0 on O_APPEND (appends)", pwrite(fd, "zz", 2, 0));
    close(fd);
    stat("a", &st);
    printf("  size %lld\n", (long long)st.st_size);
    fd = open("a", O_RDWR | O_TRUNC);
    fstat(fd, &st);
    printf("O_TRUNC: size %lld\n", (long long)st.st_size);
    close(fd);

    symlink("a", "sl");
    symlink("nowhere", "dangling");
    show_ok("open O_NOFOLLOW of a symlink", open("sl", O_RDONLY | O_NOFOLLOW));
    show_ok("open O_CREAT|O_EXCL of a dangling symlink", open("dangling", O_RDWR | O_CREAT | O_EXCL, 0600));
    fd = show_ok("open O_CREAT through a dangling symlink", open("dangling", O_RDWR | O_CREAT, 0600));
    close(fd);
    show("  the target exists now", access("nowhere", F_OK));
    show_ok("open trailing slash on a file", open("a/", O_RDONLY));
    show_ok("open O_CREAT with a trailing slash", open("newdir/", O_RDWR | O_CREAT, 0600));
    show_ok("open O_WRONLY|O_RDWR", open("a", O_WRONLY | O_RDWR));
    show_ok("open empty path", open("", O_RDONLY));
    show_ok("open O_TMPFILE without write access", open(".", O_TMPFILE | O_RDONLY, 0600));
    show_ok("open O_TMPFILE on a file", open("a", O_TMPFILE | O_RDWR, 0600));

    /* O_PATH: the descriptor names the file but cannot read it. */
    int p = show_ok("open O_PATH", open("a", O_PATH));
    char c;
    show("  read", read(p, &c, 1));
    show("  fstat", fstat(p, &st));
    show("  F_GETFL has O_PATH", (fcntl(p, F_GETFL) & O_PATH) != 0);
    show("  F_SETLK", fcntl(p, F_SETLK, &(struct flock){ .l_type = F_RDLCK }));
    show("  F_SETLK with a bad pointer", fcntl(p, F_SETLK, BAD));
    show("  F_GETLK with a bad pointer", fcntl(p, F_GETLK, BAD));
    show("  F_GETOWN_EX with a bad pointer", fcntl(p, F_GETOWN_EX, BAD));
    show("  ioctl FIONREAD", ioctl(p, FIONREAD, &(int){ 0 }));
    show("  ioctl FIOCLEX", ioctl(p, FIOCLEX));
    show("  fchmod", fchmod(p, 0644));
    show("  fsync", fsync(p));
    show("  flock", flock(p, LOCK_SH));
    close(p);
    int ps = show_ok("open O_PATH|O_NOFOLLOW of a symlink", open("sl", O_PATH | O_NOFOLLOW));
    char buf[64] = { 0 };
    show("  readlinkat(fd, \"\")", readlinkat(ps, "", buf, sizeof(buf)));
    printf("  -> %s\n", buf);
    show("  fstatat AT_EMPTY_PATH is a symlink",
         fstatat(ps, "", &st, AT_EMPTY_PATH) == 0 && S_ISLNK(st.st_mode));
    show("  fchownat AT_EMPTY_PATH to myself", fchownat(ps, "", getuid(), getgid(), AT_EMPTY_PATH));
    show("  linkat AT_EMPTY_PATH", linkat(ps, "", AT_FDCWD, "sl-hard", AT_EMPTY_PATH));
    show("  lstat of the new link is a symlink", lstat("sl-hard", &st) == 0 && S_ISLNK(st.st_mode));
    close(ps);
}

/* ------------------------------------------------------------ openat2 */

static long open2(int dirfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve, size_t size)
{
    struct {
        uint64_t flags, mode, resolve, extra;
    } how = { flags, mode, resolve, 0 };
    long r = syscall(SYS_openat2, dirfd, path, &how, size);
    if (r >= 0) {
        close((int)r);
        return 0;
    }
    return r;
}

static void openat2_cases(void)
{
    mkdir("o2", 0755);
    put_file("o2/f", "x");
    symlink("f", "o2/rel");
    symlink("/etc/passwd", "o2/abs");
    int d = open("o2", O_RDONLY | O_DIRECTORY);
    show("openat2 plain", open2(d, "f", O_RDONLY, 0, 0, 24));
    show("openat2 size 32 with zero tail", open2(d, "f", O_RDONLY, 0, 0, 32));
    show("openat2 size 16", open2(d, "f", O_RDONLY, 0, 0, 16));
    show("openat2 size 5000", open2(d, "f", O_RDONLY, 0, 0, 5000));
    struct {
        uint64_t flags, mode, resolve, extra;
    } tail = { O_RDONLY, 0, 0, 1 };
    show("openat2 nonzero tail", syscall(SYS_openat2, d, "f", &tail, 32));
    show("openat2 bad how pointer", syscall(SYS_openat2, d, "f", BAD, 24));
    show("openat2 mode without O_CREAT", open2(d, "f", O_RDONLY, 0644, 0, 24));
    show("openat2 unknown flag bits", open2(d, "f", O_RDONLY | (1ULL << 40), 0, 0, 24));
    show("openat2 unknown resolve bits", open2(d, "f", O_RDONLY, 0, 0x100, 24));
    show("openat2 bad flags and a bad path", syscall(SYS_openat2, d, BAD, &(struct open_how_v0 {
                                                         uint64_t f, m, r;
                                                     }){ O_RDONLY | (1ULL << 40), 0, 0 }, 24));
    show("openat2 bad path", syscall(SYS_openat2, d, BAD, &(struct open_how_v0){ O_RDONLY, 0, 0 }, 24));
    show("openat2 closed dirfd", open2(999, "f", O_RDONLY, 0, 0, 24));
    show("openat2 RESOLVE_BENEATH ..", open2(d, "../a", O_RDONLY, 0, 0x08, 24));
    show("openat2 RESOLVE_BENEATH absolute", open2(d, "/etc/passwd", O_RDONLY, 0, 0x08, 24));
    show("openat2 RESOLVE_NO_SYMLINKS", open2(d, "rel", O_RDONLY, 0, 0x04, 24));
    show("openat2 RESOLVE_NO_MAGICLINKS on a plain link", open2(d, "rel", O_RDONLY, 0, 0x02, 24));
    show("openat2 RESOLVE_NO_MAGICLINKS on /proc/self/exe", open2(AT_FDCWD, "/proc/self/exe", O_RDONLY, 0, 0x02, 24));
    show("openat2 RESOLVE_IN_ROOT absolute link", open2(d, "abs", O_RDONLY, 0, 0x10, 24));
    show("openat2 RESOLVE_IN_ROOT /f", open2(d, "/f", O_RDONLY, 0, 0x10, 24));
    show("openat2 RESOLVE_NO_XDEV into /proc", open2(AT_FDCWD, "/proc/self/status", O_RDONLY, 0, 0x01, 24));
    show("openat2 O_CREAT|O_EXCL", open2(d, "new", O_RDWR | O_CREAT | O_EXCL, 0600, 0, 24));
    struct stat st;
    fstatat(d, "new", &st, 0);
    printf("  mode %o\n", st.st_mode & 07777);
    show("openat2 O_TMPFILE", open2(d, ".", O_RDWR | O_TMPFILE, 0600, 0, 24));
    show("openat2 /proc/self/status", open2(AT_FDCWD, "/proc/self/status", O_RDONLY, 0, 0, 24));
    show("openat2 /proc/self/status with bad flags", open2(AT_FDCWD, "/proc/self/status", O_RDONLY | (1ULL << 40), 0, 0, 24));
    unlinkat(d, "new", 0);
    unlinkat(d, "f", 0);
    unlinkat(d, "rel", 0);
    unlinkat(d, "abs", 0);
    close(d);
    rmdir("o2");
}

/* ------------------------------------------------------------ NULL and empty paths */

static void empty_paths(void)
{
    int fd = open("a", O_RDWR);
    /* Room for either ABI's structure (i386: fstatat64's struct stat64). */
    struct stat st;
    union { struct stat st; char room[256]; } raw;
    struct statx sx;
#ifdef __i386__
#define SYS_newfstatat SYS_fstatat64
#endif
    show("newfstatat(fd, NULL, AT_EMPTY_PATH)", syscall(SYS_newfstatat, fd, NULL, &raw, AT_EMPTY_PATH));
    show("newfstatat(fd, NULL, 0)", syscall(SYS_newfstatat, fd, NULL, &raw, 0));
    show("statx(fd, NULL, AT_EMPTY_PATH)", syscall(SYS_statx, fd, NULL, AT_EMPTY_PATH, STATX_SIZE, &sx));
    show("statx(AT_FDCWD, NULL, AT_EMPTY_PATH)",
         syscall(SYS_statx, AT_FDCWD, NULL, AT_EMPTY_PATH, STATX_SIZE, &sx));
    show("statx(fd, \"\", 0)", syscall(SYS_statx, fd, "", 0, STATX_SIZE, &sx));
    show("statx bad mask bit", syscall(SYS_statx, fd, "", AT_EMPTY_PATH, 0x80000000u, &sx));
    show("statx bad flags", syscall(SYS_statx, fd, "", 0x4000000, STATX_SIZE, &sx));
    show("statx bad buffer", syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_SIZE, BAD));
    struct timespec ts[2] = { { 100, 0 }, { 200, 0 } };
    show("utimensat(fd, NULL)", syscall(SYS_utimensat, fd, NULL, ts, 0));
    show("utimensat(AT_FDCWD, NULL)", syscall(SYS_utimensat, AT_FDCWD, NULL, ts, 0));
    show("utimensat(fd, \"\", AT_EMPTY_PATH)", syscall(SYS_utimensat, fd, "", ts, AT_EMPTY_PATH));
    show("utimensat bad flags", syscall(SYS_utimensat, fd, "", ts, 0x1234));
    fstat(fd, &st);
    printf("  mtime %lld\n", (long long)st.st_mtim.tv_sec);
    show("utimensat NOW/OMIT", utimensat(AT_FDCWD, "a", (struct timespec[]){ { 0, UTIME_NOW }, { 0, UTIME_OMIT } }, 0));
    fstat(fd, &st);
    printf("  mtime %lld, atime recent %s\n", (long long)st.st_mtim.tv_sec,
           st.st_atim.tv_sec > 1000000000 ? "yes" : "no");
    show("futimesat(fd, NULL)", syscall(SYS_futimesat, fd, NULL,
                                        (struct timeval[]){ { 300, 0 }, { 400, 0 } }));
    fstat(fd, &st);
    printf("  mtime %lld\n", (long long)st.st_mtim.tv_sec);
    show("utimes bad usec", utimes("a", (struct timeval[]){ { 0, 1000000 }, { 0, 0 } }));
    show("utimes NULL (now)", utimes("a", NULL));
    show("utime NULL (now)", syscall(SYS_utime, "a", NULL));
    show("utime bad pointer", syscall(SYS_utime, "a", BAD));
    show("utime missing", syscall(SYS_utime, "nope", NULL));
    fstat(fd, &st);
    printf("  mtime recent %s\n", st.st_mtim.tv_sec > 1000000000 ? "yes" : "no");
    show("faccessat2 AT_EMPTY_PATH", syscall(SYS_faccessat2, fd, "", R_OK, AT_EMPTY_PATH));
    show("faccessat2 bad flags", syscall(SYS_faccessat2, AT_FDCWD, "a", R_OK, 0x1));
    show("faccessat2 bad mode", syscall(SYS_faccessat2, AT_FDCWD, "a", 8, 0));
    show("faccessat ignores flags", syscall(SYS_faccessat, AT_FDCWD, "a", R_OK, 0x4321));
    show("fchmodat2 AT_SYMLINK_NOFOLLOW on a symlink", syscall(452, AT_FDCWD, "sl", 0600, AT_SYMLINK_NOFOLLOW));
    show("fchmodat2 bad flags", syscall(452, AT_FDCWD, "a", 0600, 0x2));
    show("fchmodat2 AT_EMPTY_PATH", syscall(452, fd, "", 0640, AT_EMPTY_PATH));
    fstat(fd, &st);
    printf("  mode %o\n", st.st_mode & 07777);
    show("chmod through a symlink loop", chmod("loopa", 0600));
    close(fd);
}

/* ------------------------------------------------------------ bad memory */

static void bad_memory(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *two = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(two + pg, (size_t)pg, PROT_NONE);
    char *edge = two + pg - 10;
    put_file("b", "abcdefghijklmnopqrstuvwxyz");
    int fd = open("b", O_RDWR);
    show("read across into PROT_NONE", read(fd, edge, 20));
    printf("  got %.10s\n", edge);
    show("pread into PROT_NONE only", pread(fd, two + pg, 4, 0));
    memcpy(edge, "0123456789", 10);
    show("pwrite from across PROT_NONE", pwrite(fd, edge, 20, 26));
    show("  size", lseek(fd, 0, SEEK_END));
    mprotect(two, (size_t)pg, PROT_READ);
    show("read into a read-only page", pread(fd, two, 4, 0));
    show("write from a read-only page", pwrite(fd, two, 4, 100));
    struct iovec v[2] = { { "good", 4 }, { BAD, 4 } };
    show("writev with a bad second buffer", pwritev(fd, v, 2, 0));
    char x[4];
    struct iovec r[2] = { { x, 4 }, { BAD, 4 } };
    show("readv with a bad second buffer", preadv(fd, r, 2, 0));
    show("readv with a zero-length bad buffer", preadv(fd, (struct iovec[]){ { BAD, 0 } }, 1, 0));
    show("readv of 0 elements, bad array", syscall(SYS_preadv, fd, BAD, 0, 0, 0));
    show("writev bad array, closed fd", syscall(SYS_writev, 999, BAD, 1));
    show("read 0 bytes into a bad buffer", read(fd, BAD, 0));
    show("read bad buffer, closed fd", read(999, BAD, 4));
    show("stat bad path", syscall(SYS_stat, BAD, &(struct stat){ 0 }));
    show("lstat bad path", syscall(SYS_lstat, BAD, &(struct stat){ 0 }));
    show("access bad path", syscall(SYS_access, BAD, F_OK));
    show("mkdir bad path", syscall(SYS_mkdir, BAD, 0700));
    show("unlink bad path", syscall(SYS_unlink, BAD));
    show("rename bad source", syscall(SYS_rename, BAD, "x"));
    show("rename bad target", syscall(SYS_rename, "b", BAD));
    show("link bad target", syscall(SYS_link, "b", BAD));
    show("symlink bad target string", syscall(SYS_symlink, BAD, "x"));
    show("symlink bad link name", syscall(SYS_symlink, "b", BAD));
    show("readlink bad path", syscall(SYS_readlink, BAD, x, 4));
    show("readlink negative size", syscall(SYS_readlink, "sl", x, -1));
    show("chdir bad path", syscall(SYS_chdir, BAD));
    show("truncate bad path", syscall(SYS_truncate, BAD, 0));
    show("statfs bad path", syscall(SYS_statfs, BAD, &(struct statfs){ 0 }));
    show("fstatfs bad buffer", syscall(SYS_fstatfs, fd, BAD));
    show("fstatfs closed fd", syscall(SYS_fstatfs, 999, &(struct statfs){ 0 }));
    show("fstat bad buffer, closed fd", syscall(SYS_fstat, 999, BAD));
    show("getxattr bad value buffer", getxattr("b", "user.x", BAD, 10));
    show("setxattr bad value", setxattr("b", "user.x", BAD, 10, 0));
    show("listxattr bad buffer", listxattr("b", BAD, 100));
    show("sendfile bad offset, closed fd", syscall(SYS_sendfile, 999, fd, BAD, 4));
    show("copy_file_range bad offset", syscall(SYS_copy_file_range, fd, BAD, fd, NULL, 4, 0));
    show("splice bad offset", syscall(SYS_splice, fd, BAD, fd, NULL, 4, 0));
    show("pipe2 bad pointer bad flags", syscall(SYS_pipe2, BAD, 0x1234));
    show("utimensat bad path", syscall(SYS_utimensat, AT_FDCWD, BAD, NULL, 0));
    show("open bad path, bad flags", syscall(SYS_open, BAD, O_RDONLY | O_TMPFILE | O_CREAT, 0));
    show("openat bad path, closed dirfd", syscall(SYS_openat, 999, BAD, O_RDONLY));
    show("openat relative, closed dirfd", syscall(SYS_openat, 999, "b", O_RDONLY));
    show_ok("openat absolute, closed dirfd", (int)syscall(SYS_openat, 999, "/", O_RDONLY));
    show("openat relative, file dirfd", syscall(SYS_openat, fd, "x", O_RDONLY));
    show("getcwd size 0", syscall(SYS_getcwd, x, 0));
    char path[5000];
    memset(path, 'p', sizeof(path) - 1);
    path[sizeof(path) - 1] = 0;
    show("stat a 4999-byte path", stat(path, &(struct stat){ 0 }));
    memset(path, 'q', 256);
    path[256] = 0;
    show("mkdir a 256-byte name", mkdir(path, 0700));
    show("symlink to a 4999-byte target", symlink((memset(path, 't', 4999), path[4999] = 0, path), "longlink"));
    show("symlink to a 4095-byte target", symlink((path[4095] = 0, path), "longlink"));
    show("readlink of it", readlink("longlink", path, sizeof(path)));
    unlink("longlink");
    close(fd);
    munmap(two, (size_t)pg * 2);
}

/* ------------------------------------------------------------ seeking, sizes */

/* fadvise with a 64-bit offset and length: i386 passes both in register
 * pairs to fadvise64_64 (its fadvise64 has a 32-bit size_t length). */
#ifdef __i386__
#define FADVISE(fd, off, len, advice)                                                     \
    syscall(SYS_fadvise64_64, fd, (long)(off), (long)((long long)(off) >> 32), (long)(len), \
            (long)((long long)(len) >> 32), advice)
#else
#define FADVISE(fd, off, len, advice) syscall(SYS_fadvise64, fd, off, len, advice)
#endif

static void holes(void)
{
    int fd = open("h", O_RDWR | O_CREAT | O_TRUNC, 0600);
    show("pwrite at 1 MiB", pwrite(fd, "end", 3, 1 << 20));
    show("lseek SEEK_DATA 0", lseek(fd, 0, SEEK_DATA));
    show("lseek SEEK_HOLE 0", lseek(fd, 0, SEEK_HOLE));
    show("lseek SEEK_HOLE at the data", lseek(fd, 1 << 20, SEEK_HOLE));
    show("lseek SEEK_DATA past the end", lseek(fd, (1 << 20) + 10, SEEK_DATA));
    show("lseek SEEK_END -1", lseek(fd, -1, SEEK_END));
    show("lseek to 2^62", lseek64(fd, 1LL << 62, SEEK_SET));
    show("lseek SEEK_CUR overflow", lseek64(fd, 1LL << 62, SEEK_CUR));
    show("pwrite at 2^62", pwrite64(fd, "x", 1, 1LL << 62));
    show("ftruncate 0", ftruncate(fd, 0));
    show("fallocate PUNCH_HOLE without KEEP_SIZE", fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, 10));
    show("fallocate bad mode", fallocate(fd, 0x4000, 0, 10));
    show("fallocate length 0", fallocate(fd, 0, 0, 0));
    show("posix_fallocate", posix_fallocate(fd, 0, 100));
    show("  size", lseek(fd, 0, SEEK_END));
    show("fadvise64 DONTNEED", FADVISE(fd, 0, 0, POSIX_FADV_DONTNEED));
    show("fadvise64 bad advice", FADVISE(fd, 0, 0, 42));
    show("fadvise64 negative length", FADVISE(fd, 0, -1, 0));
    show("fadvise64 closed fd", FADVISE(999, 0, 0, 0));
    int p[2];
    if (pipe(p) == 0) {
        show("fadvise64 on a pipe", FADVISE(p[0], 0, 0, 0));
        show("readahead on a pipe", readahead(p[0], 0, 10));
        show("lseek on a pipe", lseek(p[0], 0, SEEK_SET));
        show("pread on a pipe", pread(p[0], &fd, 1, 0));
        show("ftruncate on a pipe", ftruncate(p[1], 0));
        show("fsync on a pipe", fsync(p[1]));
        show("fallocate on a pipe", fallocate(p[1], 0, 0, 1));
        close(p[0]);
        close(p[1]);
    }
    close(fd);
    show("truncate a directory", truncate(".", 0));
    fd = open(".", O_RDONLY);
    show("ftruncate a directory", ftruncate(fd, 0));
    show("lseek a directory to 0", lseek(fd, 0, SEEK_SET));
    show("write a directory", write(fd, "x", 1));
    close(fd);
    show("sync", (sync(), 0));
}

/* ------------------------------------------------------------ pipes, FIFOs */

static void pipes(void)
{
    int p[2];
    show("pipe", pipe(p));
    show("  F_GETFD", fcntl(p[0], F_GETFD));
    show("  F_GETFL access mode of the read end", fcntl(p[0], F_GETFL) & O_ACCMODE);
    show("  F_GETFL access mode of the write end", fcntl(p[1], F_GETFL) & O_ACCMODE);
    show("  read end written", write(p[0], "x", 1));
    show("pipe2 O_DIRECT", pipe2((int[2]){ 0 }, O_DIRECT) == 0 ? 0 : -1);
    show("pipe2 bad flags", pipe2((int[2]){ 0 }, O_APPEND));
    show("F_SETPIPE_SZ 0 (one page)", fcntl(p[0], F_SETPIPE_SZ, 0));
    show("F_SETPIPE_SZ huge", fcntl(p[0], F_SETPIPE_SZ, 1 << 30));
    show("F_GETPIPE_SZ of a file", fcntl(open("a", O_RDONLY), F_GETPIPE_SZ));
    show("FIONBIO 1", ioctl(p[0], FIONBIO, &(int){ 1 }));
    char c;
    show("  read empty", read(p[0], &c, 1));
    show("FIONBIO bad pointer", ioctl(p[0], FIONBIO, BAD));
    int q[2];
    pipe(q);
    show("tee from an empty nonblocking pipe", tee(p[0], q[1], 10, SPLICE_F_NONBLOCK));
    show("tee onto itself", tee(p[0], p[1], 10, 0));
    show("tee from a file", tee(open("a", O_RDONLY), q[1], 10, 0));
    write(p[1], "hello", 5);
    show("splice pipe -> pipe", splice(p[0], NULL, q[1], NULL, 3, 0));
    show("splice with an offset on the output pipe", splice(p[0], NULL, q[1], &(loff_t){ 0 }, 1, 0));
    show("splice bad flags", splice(p[0], NULL, q[1], NULL, 1, 0x100));
    int f = open("a", O_RDWR);
    show("sendfile file -> pipe, no offset", sendfile(q[1], f, NULL, 4));
    show("  file position after it", lseek(f, 0, SEEK_CUR));
    show("sendfile pipe -> file", sendfile(f, q[0], NULL, 4));
    show("sendfile to an O_APPEND file", sendfile(open("a", O_WRONLY | O_APPEND), f, NULL, 1));
    show("copy_file_range overlapping in one file", copy_file_range(f, &(loff_t){ 0 }, f, &(loff_t){ 1 }, 4, 0));
    show("copy_file_range from a pipe", copy_file_range(p[0], NULL, f, NULL, 4, 0));
    show("copy_file_range length 0", copy_file_range(f, NULL, f, NULL, 0, 0));
    int n;
    show("FIONREAD on a file", ioctl(f, FIONREAD, &n));
    printf("  %d bytes\n", n);
    long long qs = -1;
    show("FIOQSIZE on a file", ioctl(f, FIOQSIZE, &qs));
    printf("  %lld bytes\n", qs);
    close(f);
    close(p[0]);
    show("write to a pipe without a reader (SIGPIPE ignored)", (signal(SIGPIPE, SIG_IGN), write(p[1], "x", 1)));
    signal(SIGPIPE, SIG_DFL);
    close(p[1]);
    close(q[0]);
    close(q[1]);

    show("mknodat a FIFO", mknodat(AT_FDCWD, "fifo", S_IFIFO | 0644, 0));
    show("mknod a regular file", mknod("regular", S_IFREG | 0600, 0));
    show("mknod bad type", mknod("weird", 0170000 | 0600, 0));
    show("mknod a char device (root only)", mknod("chr", S_IFCHR | 0600, makedev(1, 3)) == 0 || errno == EPERM ? 0 : -1);
    unlink("chr");
    show_ok("open a FIFO O_WRONLY|O_NONBLOCK without a reader", open("fifo", O_WRONLY | O_NONBLOCK));
    int r = show_ok("open a FIFO O_RDONLY|O_NONBLOCK", open("fifo", O_RDONLY | O_NONBLOCK));
    int w = show_ok("  then O_WRONLY", open("fifo", O_WRONLY | O_NONBLOCK));
    show("  write", write(w, "fifo", 4));
    char buf[8] = { 0 };
    show("  read", read(r, buf, sizeof(buf)));
    printf("  got %s\n", buf);
    show("  lseek", lseek(r, 0, SEEK_CUR));
    close(w);
    show("  read after the writer left", read(r, buf, sizeof(buf)));
    close(r);
}

/* ------------------------------------------------------------ fcntl */

static void fcntls(void)
{
    int fd = open("a", O_RDWR);
    show("F_SETFL O_DIRECT|O_NOATIME|O_ASYNC", fcntl(fd, F_SETFL, O_NOATIME));
    show("  F_GETFL & O_NOATIME", (fcntl(fd, F_GETFL) & O_NOATIME) != 0);
    show("F_SETFL ignores the access mode", fcntl(fd, F_SETFL, O_RDONLY));
    show("  F_GETFL & O_ACCMODE", fcntl(fd, F_GETFL) & O_ACCMODE);
    show("F_GETOWN", fcntl(fd, F_GETOWN));
    struct f_owner_ex ox = { 99, 0 };
    show("F_GETOWN_EX", fcntl(fd, F_GETOWN_EX, &ox));
    printf("  type %d pid %d\n", ox.type, ox.pid);
    show("F_SETOWN_EX bad type", fcntl(fd, F_SETOWN_EX, &(struct f_owner_ex){ 9, 0 }));
    show("F_SETOWN_EX self", fcntl(fd, F_SETOWN_EX, &(struct f_owner_ex){ F_OWNER_PID, getpid() }));
    show("  F_GETOWN is self", fcntl(fd, F_GETOWN) == getpid());
    show("F_SETSIG SIGUSR1", fcntl(fd, F_SETSIG, SIGUSR1));
    show("F_GETSIG", fcntl(fd, F_GETSIG));
    show("F_SETSIG bad", fcntl(fd, F_SETSIG, 999));
    show("F_GETLEASE", fcntl(fd, F_GETLEASE));
    show("F_SETLEASE bad", fcntl(fd, F_SETLEASE, 99));
    uint64_t hint = 9;
    show("F_GET_RW_HINT", fcntl(fd, F_GET_RW_HINT, &hint));
    printf("  hint %llu\n", (unsigned long long)hint);
    show("F_SET_RW_HINT bad", fcntl(fd, F_SET_RW_HINT, &(uint64_t){ 99 }));
    show("F_SET_RW_HINT bad pointer", fcntl(fd, F_SET_RW_HINT, BAD));
    show("F_GET_RW_HINT bad pointer", fcntl(fd, F_GET_RW_HINT, BAD));
    show("F_DUPFD negative", fcntl(fd, F_DUPFD, -1));
    show("F_DUPFD beyond the limit", fcntl(fd, F_DUPFD, 1 << 30));
    show("F_DUPFD_QUERY same", fcntl(fd, 1027, fd));
    show("F_DUPFD_QUERY other", fcntl(fd, 1027, 0));
    show("F_GETLK with l_pid set", fcntl(fd, F_GETLK, &(struct flock){ .l_type = F_RDLCK, .l_pid = 5 }));
    show("F_OFD_GETLK with l_pid set", fcntl(fd, F_OFD_GETLK, &(struct flock){ .l_type = F_RDLCK, .l_pid = 5 }));
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
    show("F_GETLK without a conflict", fcntl(fd, F_GETLK, &fl));
    printf("  type %s\n", fl.l_type == F_UNLCK ? "F_UNLCK" : "other");
    show("F_SETLK SEEK_END -5", fcntl(fd, F_SETLK, &(struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_END, .l_start = -5, .l_len = 2 }));
    show("F_SETLK before the start", fcntl(fd, F_SETLK, &(struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = -5, .l_len = 2 }));
    show("F_SETLK negative length", fcntl(fd, F_SETLK, &(struct flock){ .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 10, .l_len = -5 }));
    show("F_SETLK bad whence", fcntl(fd, F_SETLK, &(struct flock){ .l_type = F_RDLCK, .l_whence = 7 }));
    int ro = open("a", O_RDONLY);
    show("F_SETLK write lock on O_RDONLY", fcntl(ro, F_SETLK, &(struct flock){ .l_type = F_WRLCK }));
    close(ro);

    /* Locks held by a child: the parent sees them (F_GETLK reports the
     * child's pid, compared here), and a non-blocking attempt fails. */
    int ready[2], done[2];
    pipe(ready);
    pipe(done);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int cfd = open("a", O_RDWR);
        struct flock w = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 2, .l_len = 3 };
        int ok = fcntl(cfd, F_SETLK, &w) == 0 && flock(cfd, LOCK_EX | LOCK_NB) == 0 &&
                 fcntl(cfd, F_OFD_SETLK, &(struct flock){ .l_type = F_RDLCK, .l_start = 50, .l_len = 1 }) == 0;
        char c = ok ? 'y' : 'n';
        write(ready[1], &c, 1);
        read(done[0], &c, 1);
        _exit(0);
    }
    char c = 0;
    read(ready[0], &c, 1);
    printf("child holds its locks: %c\n", c);
    struct flock q = { .l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
    show("F_GETLK", fcntl(fd, F_GETLK, &q));
    printf("  type %s, start %lld, len %lld, whence %d, the child's pid %s\n",
           q.l_type == F_WRLCK ? "F_WRLCK" : "other", (long long)q.l_start, (long long)q.l_len, q.l_whence,
           q.l_pid == pid ? "yes" : "no");
    struct flock oq = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 40, .l_len = 20 };
    show("F_OFD_GETLK", fcntl(fd, F_OFD_GETLK, &oq));
    printf("  type %s, start %lld, len %lld, pid %d\n", oq.l_type == F_RDLCK ? "F_RDLCK" : "other",
           (long long)oq.l_start, (long long)oq.l_len, oq.l_pid);
    show("F_SETLK conflicting", fcntl(fd, F_SETLK, &(struct flock){ .l_type = F_RDLCK, .l_start = 3, .l_len = 1 }));
    show("F_OFD_SETLK conflicting", fcntl(fd, F_OFD_SETLK, &(struct flock){ .l_type = F_WRLCK, .l_start = 50, .l_len = 1 }));
    show("F_OFD_SETLK a read lock beside it", fcntl(fd, F_OFD_SETLK, &(struct flock){ .l_type = F_RDLCK, .l_start = 50, .l_len = 1 }));
    show("flock LOCK_SH|LOCK_NB", flock(fd, LOCK_SH | LOCK_NB));
    write(done[1], "x", 1);
    int st;
    waitpid(pid, &st, 0);
    show("F_SETLKW after the child exited", fcntl(fd, F_SETLKW, &(struct flock){ .l_type = F_WRLCK, .l_start = 0, .l_len = 10 }));
    show("flock LOCK_EX after the child exited", flock(fd, LOCK_EX));
    close(ready[0]);
    close(ready[1]);
    close(done[0]);
    close(done[1]);
    close(fd);

    int m = memfd_create("seals", MFD_ALLOW_SEALING);
    show("memfd F_GET_SEALS", fcntl(m, F_GET_SEALS));
    show("ftruncate 4096", ftruncate(m, 4096));
    show("F_ADD_SEALS GROW", fcntl(m, F_ADD_SEALS, F_SEAL_GROW));
    show("ftruncate 8192", ftruncate(m, 8192));
    show("pwrite past the end", pwrite(m, "x", 1, 5000));
    show("pwrite inside", pwrite(m, "x", 1, 10));
    void *map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
    show("F_ADD_SEALS WRITE with a writable mapping", fcntl(m, F_ADD_SEALS, F_SEAL_WRITE));
    munmap(map, 4096);
    show("F_ADD_SEALS FUTURE_WRITE", fcntl(m, F_ADD_SEALS, F_SEAL_FUTURE_WRITE));
    show("  write", write(m, "y", 1));
    show("F_ADD_SEALS SEAL", fcntl(m, F_ADD_SEALS, F_SEAL_SEAL));
    show("F_ADD_SEALS after SEAL", fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK));
    show("F_GET_SEALS", fcntl(m, F_GET_SEALS));
    show("F_ADD_SEALS bad bits", fcntl(m, F_ADD_SEALS, 0x10000));
    close(m);
    m = memfd_create("plain", 0);
    show("memfd without sealing: F_GET_SEALS", fcntl(m, F_GET_SEALS));
    show("  F_ADD_SEALS", fcntl(m, F_ADD_SEALS, F_SEAL_WRITE));
    close(m);
    show("F_GET_SEALS on a file", fcntl(open("a", O_RDONLY), F_GET_SEALS));
    char name[300];
    memset(name, 'm', sizeof(name) - 1);
    name[sizeof(name) - 1] = 0;
    show("memfd_create a 299-byte name", memfd_create(name, 0));
    name[249] = 0;
    show("memfd_create a 249-byte name", memfd_create(name, 0) >= 0);
    name[250] = 0;
    name[249] = 'm';
    show("memfd_create a 250-byte name", memfd_create(name, 0));
    show("memfd_create MFD_HUGETLB|MFD_ALLOW_SEALING", memfd_create("h", MFD_HUGETLB | 0x1000) >= 0);
}

/* ------------------------------------------------------------ blocking calls and signals */

/* A child holds the locks until it is told to let go.  A timer ticks every
 * 20 ms: without SA_RESTART the first tick during the wait ends it with
 * EINTR; with SA_RESTART the handler tells the child to let go and the
 * restarted call succeeds (whenever the first tick comes). */
static int release_fd = -1;
static volatile sig_atomic_t ticks;

static void on_tick(int sig)
{
    (void)sig;
    if (ticks++ == 0 && release_fd >= 0)
        write(release_fd, "x", 1);
}

static void ticking(bool on)
{
    struct itimerval it = { { 0, on ? 20000 : 0 }, { 0, on ? 20000 : 0 } };
    setitimer(ITIMER_REAL, &it, NULL);
}

static void blocking(void)
{
    for (int restart = 0; restart < 2; restart++) {
        int ready[2], done[2];
        pipe(ready);
        pipe(done);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            int cfd = open("a", O_RDWR);
            char c = fcntl(cfd, F_SETLK, &(struct flock){ .l_type = F_WRLCK }) == 0 &&
                     flock(cfd, LOCK_EX) == 0 ? 'y' : 'n';
            write(ready[1], &c, 1);
            read(done[0], &c, 1);
            _exit(0);
        }
        char c;
        read(ready[0], &c, 1);
        struct sigaction sa = { .sa_handler = on_tick, .sa_flags = restart ? SA_RESTART : 0 };
        sigaction(SIGALRM, &sa, NULL);
        const char *how = restart ? "with SA_RESTART" : "without SA_RESTART";
        int fd = open("a", O_RDWR);
        int fd2 = open("a", O_RDWR);
        printf("%s (child locked: %c)\n", how, c);
        ticks = 0;
        release_fd = restart ? done[1] : -1;
        ticking(true);
        show("  F_SETLKW", fcntl(fd, F_SETLKW, &(struct flock){ .l_type = F_WRLCK }));
        ticks = 0;
        show("  flock LOCK_EX", flock(fd, LOCK_EX));
        if (!restart) {
            ticks = 0;
            show("  F_OFD_SETLKW", fcntl(fd2, F_OFD_SETLKW, &(struct flock){ .l_type = F_WRLCK }));
            ticks = 0;
            show("  open a FIFO without a writer", open("fifo", O_RDONLY));
            int p[2];
            pipe(p);
            ticks = 0;
            show("  read an empty pipe", read(p[0], &c, 1));
            close(p[0]);
            close(p[1]);
        }
        ticking(false);
        release_fd = -1;
        if (!restart)
            write(done[1], "x", 1);
        waitpid(pid, NULL, 0);
        close(fd);
        close(fd2);
        close(ready[0]);
        close(ready[1]);
        close(done[0]);
        close(done[1]);
    }
    signal(SIGALRM, SIG_DFL);
}

/* ------------------------------------------------------------ descriptors */

static void descriptors(void)
{
    show("dup a closed fd", dup(999));
    show("dup2 a closed fd", dup2(999, 5));
    show("dup2 onto a negative fd", dup2(0, -1));
    show("dup3 onto itself", dup3(0, 0, O_CLOEXEC));
    show("dup2 closed onto itself", dup2(999, 999));
    int fd = open("a", O_RDONLY);
    int hi = dup2(fd, 500);
    show("dup2 onto 500", hi);
    show("close_range 500..~0 CLOEXEC", close_range(500, ~0U, CLOSE_RANGE_CLOEXEC));
    show("  F_GETFD 500", fcntl(500, F_GETFD));
    show("close_range bad flags", close_range(500, 501, 0x10));
    show("close_range UNSHARE", close_range(600, 700, CLOSE_RANGE_UNSHARE));
    show("close_range 500..~0", close_range(500, ~0U, 0));
    show("  F_GETFD 500", fcntl(500, F_GETFD));
    show("close a closed fd", close(500));
    show("close -1", close(-1));
    show("flock a closed fd", flock(999, LOCK_SH));
    show("flock LOCK_SH|LOCK_EX", flock(fd, LOCK_SH | LOCK_EX));
    show("flock LOCK_NB only", flock(fd, LOCK_NB));
    show("ioctl FIOCLEX", ioctl(fd, FIOCLEX));
    show("  F_GETFD", fcntl(fd, F_GETFD));
    show("ioctl on a closed fd", ioctl(999, FIONREAD, &(int){ 0 }));
    show("unknown ioctl on a closed fd", ioctl(999, 0x1234abcd, 0));
    show("unknown ioctl on a file", ioctl(fd, 0x5499, 0));
    show("FIGETBSZ on a file succeeds", ioctl(fd, FIGETBSZ, &(int){ 0 }));
    show("TCGETS on a file", ioctl(fd, TCGETS, &(struct termios){ 0 }));
    show("TCGETS on a file, bad pointer", ioctl(fd, TCGETS, BAD));
    show("TIOCGWINSZ on a file", ioctl(fd, TIOCGWINSZ, &(struct winsize){ 0 }));
    show("FS_IOC_GETFLAGS bad pointer", ioctl(fd, FS_IOC_GETFLAGS, BAD) < 0 ? -1 : 0);
    close(fd);
}

/* ------------------------------------------------------------ names relative to directories */

static void at_calls(void)
{
    mkdir("dir", 0755);
    mkdir("dir/sub", 0755);
    int d = open("dir", O_RDONLY | O_DIRECTORY);
    int s = openat(d, "sub", O_RDONLY | O_DIRECTORY | O_PATH);
    show_ok("openat O_PATH dirfd then openat through it", openat(s, "../sub/../../a", O_RDONLY));
    show("mkdirat through an O_PATH dirfd", mkdirat(s, "x", 0700));
    show("symlinkat", symlinkat("../a", d, "ln"));
    show("linkat AT_SYMLINK_FOLLOW", linkat(d, "ln", s, "hard", AT_SYMLINK_FOLLOW));
    struct stat st;
    show("  fstatat of it is a regular file", fstatat(s, "hard", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode));
    show("linkat without follow", linkat(d, "ln", s, "hardln", 0));
    show("  fstatat of it is a symlink", fstatat(s, "hardln", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode));
    show("linkat bad flags", linkat(d, "ln", s, "x", 0x8));
    show("linkat a directory", linkat(AT_FDCWD, "dir", AT_FDCWD, "dir2", 0));
    show("renameat", renameat(s, "hard", d, "moved"));
    mkdir("empty", 0700);
    show("renameat onto a non-empty directory", renameat(AT_FDCWD, "empty", AT_FDCWD, "dir"));
    rmdir("empty");
    show("renameat2 RENAME_NOREPLACE|RENAME_EXCHANGE", renameat2(d, "moved", d, "ln", RENAME_NOREPLACE | RENAME_EXCHANGE));
    show("renameat2 RENAME_EXCHANGE with a missing name", renameat2(d, "moved", d, "nothing", RENAME_EXCHANGE));
    show("renameat2 RENAME_WHITEOUT", renameat2(d, "moved", d, "w", RENAME_WHITEOUT) == 0 ? 0 : -1);
    show("rename a file onto a directory", rename("a", "dir"));
    show("rename a directory onto a file", rename("dir/sub", "a"));
    show("rename . away", rename(".", "x"));
    show("rename onto itself", rename("a", "a"));
    show("unlinkat with a file dirfd", unlinkat(open("a", O_RDONLY), "x", 0));
    show("unlinkat AT_REMOVEDIR of a file", unlinkat(d, "ln", AT_REMOVEDIR));
    show("rmdir .", rmdir("dir/sub/."));
    show("rmdir ..", rmdir("dir/sub/.."));
    show("mkdirat mode with umask", mkdirat(d, "m", 0777));
    fstatat(d, "m", &st, 0);
    printf("  mode %o\n", st.st_mode & 07777);
    show("mkdirat sticky and setgid bits", mkdirat(d, "m2", 03777));
    fstatat(d, "m2", &st, 0);
    printf("  mode %o\n", st.st_mode & 07777);
    show("readlinkat of a directory fd", readlinkat(d, "", (char[8]){ 0 }, 8));
    show("fchdir to an O_PATH dirfd", fchdir(s));
    char cwd[4096];
    printf("  cwd ends with /dir/sub: %s\n",
           getcwd(cwd, sizeof(cwd)) && strlen(cwd) > 8 && !strcmp(cwd + strlen(cwd) - 8, "/dir/sub") ? "yes" : "no");
    show("fchdir to a file", fchdir(open("../../a", O_RDONLY)));
    show("fchdir to a closed fd", fchdir(999));
    show("chdir ../..", chdir("../.."));
    show("getcwd length is the string plus NUL", syscall(SYS_getcwd, cwd, sizeof(cwd)) == (long)strlen(cwd) + 1);
    close(s);
    close(d);

    /* A directory removed while it is the current one. */
    mkdir("gone", 0700);
    int back = open(".", O_RDONLY);
    chdir("gone");
    rmdir("../gone");
    show("getcwd in a removed directory", syscall(SYS_getcwd, cwd, sizeof(cwd)));
    show_ok("open . in it", open(".", O_RDONLY));
    show("creat in it", creat("x", 0600));
    fchdir(back);
    close(back);
}

/* ------------------------------------------------------------ xattrs and statfs */

static void attributes(void)
{
    show("lsetxattr user.* on a symlink", lsetxattr("sl", "user.a", "v", 1, 0));
    show("setxattr trusted.* (root only)", setxattr("a", "trusted.elfemu", "v", 1, 0) == 0 || errno == EPERM ? 0 : -1);
    removexattr("a", "trusted.elfemu");
    show("setxattr unknown namespace", setxattr("a", "bogus.x", "v", 1, 0));
    show("setxattr XATTR_REPLACE missing", setxattr("a", "user.none", "v", 1, XATTR_REPLACE));
    show("fsetxattr", fsetxattr(open("a", O_RDWR), "user.f", "12345", 5, 0));
    char list[64] = { 0 };
    ssize_t n = listxattr("a", list, sizeof(list));
    printf("listxattr: %zd bytes%s%s\n", n, n > 0 ? ", first " : "", n > 0 ? list : "");
    show("listxattr size query", listxattr("a", NULL, 0));
    show("listxattr too small", listxattr("a", list, 2));
    show("llistxattr on a symlink", llistxattr("sl", list, sizeof(list)));
    show("flistxattr closed fd", flistxattr(999, list, sizeof(list)));
    show("getxattr a 300-byte name", getxattr("a", (memset(list, 0, 0), "user.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), list, sizeof(list)));
    show("getxattr missing file", getxattr("nope", "user.f", list, sizeof(list)));
    show("fremovexattr", fremovexattr(open("a", O_RDWR), "user.f"));
    show("lremovexattr on a symlink", lremovexattr("sl", "user.a"));
    struct statfs sf;
    show("statfs missing", statfs("nope", &sf));
    show("statfs through a file", statfs("a/x", &sf));
    show("fstatfs of a pipe succeeds", fstatfs((pipe((int[2]){ 0 }), 3), &sf) == 0 ? 0 : 0);
    show("statfs of /proc: PROC_SUPER_MAGIC", statfs("/proc", &sf) == 0 && sf.f_type == 0x9fa0);
    int fd = open("a", O_RDONLY);
    struct statfs s1, s2;
    show("statfs and fstatfs agree", statfs("a", &s1) == 0 && fstatfs(fd, &s2) == 0 &&
                                         s1.f_type == s2.f_type && s1.f_bsize == s2.f_bsize &&
                                         s1.f_namelen == s2.f_namelen);
    close(fd);
}

/* ------------------------------------------------------------ file handles, cachestat */

static void handles(void)
{
    put_file("hf", "by handle\n");
    struct {
        struct file_handle h;
        unsigned char bytes[128];
    } fh = { .h.handle_bytes = 0 };
    int mount_id;
    show("name_to_handle_at with no room", name_to_handle_at(AT_FDCWD, "hf", &fh.h, &mount_id, 0));
    printf("  handle_bytes set: %s\n", fh.h.handle_bytes > 0 && fh.h.handle_bytes <= 128 ? "yes" : "no");
    show("name_to_handle_at", name_to_handle_at(AT_FDCWD, "hf", &fh.h, &mount_id, 0));
    int fd = open_by_handle_at(AT_FDCWD, &fh.h, O_RDONLY);
    char buf[32] = { 0 };
    printf("open_by_handle_at: %s", fd < 0 ? strerrorname_np(errno) : (read(fd, buf, sizeof(buf)), buf));
    if (fd < 0)
        printf("\n");
    close(fd);
    show("name_to_handle_at of a symlink (not followed)", name_to_handle_at(AT_FDCWD, "sl", &fh.h, &mount_id, 0));
    show("name_to_handle_at AT_SYMLINK_FOLLOW", name_to_handle_at(AT_FDCWD, "sl", &fh.h, &mount_id, AT_SYMLINK_FOLLOW));
    show("name_to_handle_at bad flags", name_to_handle_at(AT_FDCWD, "hf", &fh.h, &mount_id, 0x1));
    show("name_to_handle_at bad handle", name_to_handle_at(AT_FDCWD, "hf", BAD, &mount_id, 0));
    show("name_to_handle_at bad mount id", name_to_handle_at(AT_FDCWD, "hf", &fh.h, BAD, 0));
    show("name_to_handle_at missing", name_to_handle_at(AT_FDCWD, "nope", &fh.h, &mount_id, 0));
    show("open_by_handle_at bad handle", open_by_handle_at(AT_FDCWD, BAD, O_RDONLY));
    fh.h.handle_bytes = 1000;
    show("open_by_handle_at too many bytes", open_by_handle_at(AT_FDCWD, &fh.h, O_RDONLY));
    unlink("hf");

    struct {
        uint64_t off, len;
    } range = { 0, 0 };
    uint64_t cs[5];
    fd = open("a", O_RDONLY);
    show("cachestat", syscall(451, fd, &range, cs, 0));
    show("cachestat bad flags", syscall(451, fd, &range, cs, 1));
    show("cachestat bad range", syscall(451, fd, BAD, cs, 0));
    show("cachestat bad result", syscall(451, fd, &range, BAD, 0));
    show("cachestat closed fd", syscall(451, 999, &range, cs, 0));
    int p[2];
    pipe(p);
    show("cachestat of a pipe", syscall(451, p[0], &range, cs, 0));
    show("FS_IOC_FIEMAP on a pipe", ioctl(p[0], FS_IOC_FIEMAP, &(struct fiemap){ .fm_length = ~0ULL }));
    close(p[0]);
    close(p[1]);
    close(fd);

    /* FIEMAP of this program (on whatever filesystem it lies) and of a
     * file here: the result, and whether extents were found. */
    struct {
        struct fiemap fm;
        struct fiemap_extent ext[4];
    } map;
    const char *files[] = { "/proc/self/exe", "a" };
    for (int i = 0; i < 2; i++) {
        fd = open(files[i], O_RDONLY);
        memset(&map, 0, sizeof(map));
        map.fm.fm_length = ~0ULL;
        map.fm.fm_extent_count = 4;
        long r = ioctl(fd, FS_IOC_FIEMAP, &map);
        printf("FS_IOC_FIEMAP of %s: %s, extents %s\n", i ? "a file here" : "the program",
               r < 0 ? strerrorname_np(errno) : "ok", map.fm.fm_mapped_extents > 0 ? "some" : "none");
        map.fm.fm_extent_count = 0;
        r = ioctl(fd, FS_IOC_FIEMAP, &map);
        printf("  counting only: %s, extents %s\n", r < 0 ? strerrorname_np(errno) : "ok",
               map.fm.fm_mapped_extents > 0 ? "some" : "none");
        map.fm.fm_extent_count = 0x7fffffff;
        show("  too many extents", ioctl(fd, FS_IOC_FIEMAP, &map));
        /* On the heap: the guest's stack ends where its address space
         * does, so room for 1000 extents there reaches past it (-EFAULT). */
        struct fiemap *heap = calloc(1, sizeof(struct fiemap) + 1000 * sizeof(struct fiemap_extent));
        heap->fm_length = ~0ULL;
        heap->fm_extent_count = 1000;
        show("  room for 1000 extents", ioctl(fd, FS_IOC_FIEMAP, heap) < 0 ? -1 : 0);
        free(heap);
        show("  bad pointer", ioctl(fd, FS_IOC_FIEMAP, BAD));
        close(fd);
    }
}

/* ------------------------------------------------------------ a terminal of our own */

static void print_termios(const char *what, const struct termios *t)
{
    printf("%s: iflag %#x oflag %#x cflag %#x lflag %#x line %d cc", what, t->c_iflag, t->c_oflag,
           t->c_cflag, t->c_lflag, t->c_line);
    for (int i = 0; i < 17; i++)
        printf(" %d", t->c_cc[i]);
    printf(" speed %u/%u\n", (unsigned)cfgetispeed(t), (unsigned)cfgetospeed(t));
}

static void terminal(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0) {
        printf("no pty\n");
        return;
    }
    int lock = 1;
    show("TIOCGPTLCK", ioctl(m, TIOCGPTLCK, &lock));
    printf("  locked %d\n", lock);
    int s = open(ptsname(m), O_RDWR | O_NOCTTY);
    struct termios t;
    tcgetattr(s, &t);
    print_termios("default", &t);
    t.c_cc[VMIN] = 3;
    t.c_cc[VTIME] = 7;
    t.c_lflag &= ~(tcflag_t)ECHO;
    cfsetspeed(&t, B9600);
    show("tcsetattr TCSANOW", tcsetattr(s, TCSANOW, &t));
    show("tcsetattr TCSAFLUSH", tcsetattr(s, TCSAFLUSH, &t));
    memset(&t, 0, sizeof(t));
    tcgetattr(m, &t);
    print_termios("from the master", &t);
    show("tcsetattr bad action", tcsetattr(s, 9, &t));
    show("TCSETS bad pointer", ioctl(s, TCSETS, BAD));
    show("TCGETS bad pointer", ioctl(s, TCGETS, BAD));
    show("tcflush TCIOFLUSH", tcflush(s, TCIOFLUSH));
    show("tcflush bad queue", tcflush(s, 9));
    show("tcdrain", tcdrain(s));
    show("tcflow TCOON", tcflow(s, TCOON));
    show("tcsendbreak", tcsendbreak(s, 0));
    int q = -1;
    show("TIOCOUTQ", ioctl(s, TIOCOUTQ, &q));
    printf("  %d\n", q);
    show("TIOCGETD", ioctl(s, TIOCGETD, &q));
    printf("  line discipline %d\n", q);
    show("TIOCGWINSZ default", ioctl(s, TIOCGWINSZ, &(struct winsize){ 0 }));
    show("TIOCSWINSZ bad pointer", ioctl(s, TIOCSWINSZ, BAD));
    show("TIOCSTI (needs privilege or the controlling tty)", ioctl(s, TIOCSTI, "x") == 0 || errno == EPERM || errno == EIO ? 0 : -1);
    show("TIOCGSID (not our terminal)", ioctl(s, TIOCGSID, &q));
    show("TIOCGPGRP bad pointer", ioctl(s, TIOCGPGRP, BAD));
    show("TIOCSPGRP (not our terminal)", ioctl(s, TIOCSPGRP, &(pid_t){ getpgrp() }));
    show("ttyname ends with its number", ttyname(s) && !strncmp(ttyname(s), "/dev/pts/", 9));
    show("tcgetpgrp", tcgetpgrp(s));

    /* A child in a session of its own makes the pty its controlling
     * terminal; then the process group calls succeed. */
    fflush(stdout);
    int res[2];
    pipe(res);
    pid_t pid = fork();
    if (pid == 0) {
        char out[512];
        int len = 0;
        pid_t sid = setsid();
        int r1 = ioctl(s, TIOCSCTTY, 0);
        pid_t pg = 0, sess = 0;
        int r2 = ioctl(s, TIOCGPGRP, &pg);
        int r3 = ioctl(s, TIOCGSID, &sess);
        int r4 = ioctl(s, TIOCSPGRP, &pg);
        int r5 = ioctl(s, TIOCSPGRP, &(pid_t){ 1 });
        int e5 = errno;
        int r6 = tcsetpgrp(s, getpid());
        len += snprintf(out + len, sizeof(out) - (size_t)len,
                        "child: setsid %s, TIOCSCTTY %d, TIOCGPGRP %d (own %s), TIOCGSID %d (own %s), "
                        "TIOCSPGRP own %d, foreign %d %s, tcsetpgrp %d\n",
                        sid == getpid() ? "ok" : "failed", r1, r2, pg == getpid() ? "yes" : "no", r3,
                        sess == sid ? "yes" : "no", r4, r5, r5 ? strerrorname_np(e5) : "", r6);
        int fd = open("/dev/tty", O_RDWR);
        len += snprintf(out + len, sizeof(out) - (size_t)len, "child: /dev/tty %s\n",
                        fd >= 0 ? "opened" : strerrorname_np(errno));
        write(res[1], out, (size_t)len);
        close(res[1]);
        /* Giving the terminal up as the session leader hangs its
         * foreground group up: this child itself. */
        signal(SIGHUP, SIG_IGN);
        ioctl(s, TIOCNOTTY);
        _exit(0);
    }
    close(res[1]);
    char out[512] = { 0 };
    ssize_t got = 0, r;
    while ((r = read(res[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
        got += r;
    waitpid(pid, NULL, 0);
    printf("%s", out);
    close(res[0]);
    close(s);
    close(m);
}

static void cleanup(void)
{
    const char *names[] = { "u", "a", "sl", "dangling", "nowhere", "sl-hard", "b", "h", "fifo", "regular",
                            "dir/ln", "dir/moved", "dir/w", "dir/sub/hardln", "dir/sub/x", "dir/m", "dir/m2",
                            "dir/sub", "dir", "loopa", "loopb" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (unlink(names[i]) != 0 && rmdir(names[i]) != 0 && errno != ENOENT)
            printf("could not remove %s: %s\n", names[i], strerrorname_np(errno));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    char dir[] = "/tmp/elfemu-fileedge-XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0)
        return 1;
    symlink("loopb", "loopa");
    symlink("loopa", "loopb");
    open_flags();
    openat2_cases();
    empty_paths();
    bad_memory();
    holes();
    pipes();
    fcntls();
    blocking();
    descriptors();
    at_calls();
    attributes();
    handles();
    terminal();
    cleanup();
    if (chdir("/") != 0 || rmdir(dir) != 0)
        printf("the directory was not emptied: %s\n", strerrorname_np(errno));
    return 0;
}
