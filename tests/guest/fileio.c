/* File I/O compared with the native run: opening and creating, reading and
 * writing in every form (positional, vectored, with RWF flags), seeking with
 * holes, stat in every form, descriptors and fcntl (locks between a parent
 * and a child), pipes, in-kernel copies, memfd and seals, links and
 * renames, permissions and times, xattrs, terminal ioctls on a pty, and the
 * errors: EFAULT for bad pointers, ENOENT, EISDIR, EBADF, ENOTDIR, EEXIST,
 * ENAMETOOLONG, ELOOP, EINVAL.  Everything happens in a fresh directory
 * under /tmp; nothing printed depends on inode numbers, times or paths. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
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
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "show.h"

/* A bad structure pointer: the 32-bit C library converts stat, statfs and
 * time structures itself (it would fault in the guest), so -m32 builds
 * make the raw calls to show what the kernel answers. */
#ifdef __i386__
#define FSTAT_BAD(fd) syscall(SYS_fstat64, fd, BAD)
#define STAT_BAD(path) syscall(SYS_stat64, path, BAD)
#define STATFS_BAD(path) syscall(SYS_statfs64, path, 84, BAD)
#define UTIMENSAT_BAD(dfd, path, fl) syscall(SYS_utimensat_time64, dfd, path, BAD, fl)
#else
#define FSTAT_BAD(fd) fstat(fd, BAD)
#define STAT_BAD(path) stat(path, BAD)
#define STATFS_BAD(path) statfs(path, BAD)
#define UTIMENSAT_BAD(dfd, path, fl) utimensat(dfd, path, BAD, fl)
#endif

static void file_type(const char *what, const struct stat *st)
{
    const char *t = S_ISREG(st->st_mode) ? "regular" : S_ISDIR(st->st_mode) ? "directory"
                  : S_ISLNK(st->st_mode) ? "symlink" : S_ISFIFO(st->st_mode) ? "fifo"
                  : S_ISCHR(st->st_mode) ? "char device" : "other";
    printf("%s: %s, mode %o, size %lld, nlink %lu\n", what, t, st->st_mode & 07777,
           (long long)st->st_size, (unsigned long)st->st_nlink);
}

/* ------------------------------------------------------------ open, read, write */

static void open_rw(void)
{
    umask(022);
    int fd = show_ok("open O_CREAT 0666 (umask 022)", open("f", O_RDWR | O_CREAT | O_EXCL, 0666));
    struct stat st;
    fstat(fd, &st);
    file_type("fstat", &st);
    show_ok("open O_CREAT|O_EXCL again", open("f", O_RDWR | O_CREAT | O_EXCL, 0666));
    show("write", write(fd, "hello, world\n", 13));
    show("lseek SEEK_CUR", lseek(fd, 0, SEEK_CUR));
    show("lseek SEEK_SET 7", lseek(fd, 7, SEEK_SET));
    char buf[64] = { 0 };
    show("read", read(fd, buf, sizeof(buf)));
    printf("  got: %s", buf);
    show("read at EOF", read(fd, buf, sizeof(buf)));
    show("pwrite at 100 (a hole)", pwrite(fd, "tail", 4, 100));
    show("lseek SEEK_END", lseek(fd, 0, SEEK_END));
    memset(buf, 'x', sizeof(buf));
    show("pread in the hole", pread(fd, buf, 8, 50));
    printf("  zeros: %s\n", buf[0] == 0 && buf[7] == 0 ? "yes" : "no");
    show("lseek SEEK_DATA 0", lseek(fd, 0, SEEK_DATA));
    show("lseek bad whence", lseek(fd, 0, 17));
    show("lseek negative", lseek(fd, -1, SEEK_SET));
    show("pread negative offset", pread(fd, buf, 1, -1));

    struct iovec iov[3] = { { "one ", 4 }, { "two ", 4 }, { "three\n", 6 } };
    show("lseek 0", lseek(fd, 0, SEEK_SET));
    show("writev", writev(fd, iov, 3));
    char a[4], b[4], c[6];
    struct iovec in[3] = { { a, 4 }, { b, 4 }, { c, 6 } };
    show("preadv at 0", preadv(fd, in, 3, 0));
    printf("  got: %.4s|%.4s|%.6s", a, b, c);
    show("pwritev at 4", pwritev(fd, iov + 2, 1, 4));
    show("preadv2 at 4", preadv2(fd, in + 2, 1, 4, 0));
    printf("  got: %.6s", c);
    show("preadv2 RWF_NOWAIT", preadv2(fd, in, 1, 0, RWF_NOWAIT));
    show("pwritev2 RWF_DSYNC", pwritev2(fd, iov, 1, 200, RWF_DSYNC));
    show("preadv2 bad flags", preadv2(fd, in, 1, 0, 0x4000));
    show("readv negative length", readv(fd, (struct iovec[]){ { a, (size_t)-1 } }, 1));
    show("readv too many", syscall(SYS_readv, fd, in, 5000));
    show("readv bad vector", readv(fd, BAD, 1));
    show("readv bad buffer", readv(fd, (struct iovec[]){ { BAD, 4 } }, 1));

    /* Errors. */
    show("read bad buffer", read(fd, BAD, 4));
    show("write bad buffer", write(fd, BAD, 4));
    show("fstat bad buffer", FSTAT_BAD(fd));
    show("read a closed fd", read(999, buf, 1));
    int ro = open("f", O_RDONLY);
    show("write an O_RDONLY fd", write(ro, "x", 1));
    close(ro);
    int wo = open("f", O_WRONLY);
    show("read an O_WRONLY fd", read(wo, buf, 1));
    close(wo);
    show_ok("open missing", open("missing/file", O_RDONLY));
    show_ok("open a directory O_WRONLY", open(".", O_WRONLY));
    int dfd = open(".", O_RDONLY);
    show("read a directory", read(dfd, buf, 1));
    close(dfd);
    show_ok("open bad path pointer", open(BAD, O_RDONLY));
    show_ok("open through a file", open("f/x", O_RDONLY));
    char longname[300];
    memset(longname, 'n', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = 0;
    show_ok("open a 299-byte name", open(longname, O_RDONLY));
    show_ok("open O_DIRECTORY of a file", open("f", O_RDONLY | O_DIRECTORY));
    show_ok("open O_CREAT|O_DIRECTORY", open("g", O_RDONLY | O_CREAT | O_DIRECTORY, 0600));
    show_ok("creat", creat("c", 0600));
    int t = show_ok("open O_TMPFILE", open(".", O_TMPFILE | O_RDWR, 0600));
    if (t >= 0) {
        show("  write", write(t, "tmp", 3));
        show("  linkat it into the directory", linkat(t, "", AT_FDCWD, "from-tmpfile", AT_EMPTY_PATH));
        close(t);
    }
    show_ok("openat2 RESOLVE_BENEATH ..",
          (int)syscall(SYS_openat2, AT_FDCWD, "../x",
                       &(struct { uint64_t f, m, r; }){ O_RDONLY, 0, 0x08 /* RESOLVE_BENEATH */ }, 24));
    close(fd);
}

/* ------------------------------------------------------------ stat, truncate, space */

static void stat_family(void)
{
    struct stat st;
    show("stat", stat("f", &st));
    file_type("  f", &st);
    symlink("f", "link");
    show("lstat of a symlink", lstat("link", &st));
    file_type("  link", &st);
    show("stat through it", stat("link", &st));
    file_type("  link", &st);
    show("fstatat AT_SYMLINK_NOFOLLOW", fstatat(AT_FDCWD, "link", &st, AT_SYMLINK_NOFOLLOW));
    show("fstatat bad flags", fstatat(AT_FDCWD, "f", &st, 0x12345));
    int fd = open("f", O_RDONLY);
    show("fstatat AT_EMPTY_PATH", fstatat(fd, "", &st, AT_EMPTY_PATH));
    close(fd);
    struct statx sx;
    show("statx", statx(AT_FDCWD, "f", 0, STATX_BASIC_STATS, &sx));
    printf("  size %llu, mode %o, nlink %u\n", (unsigned long long)sx.stx_size, sx.stx_mode & 07777,
           sx.stx_nlink);
    show("stat missing", stat("nope", &st));
    show("stat bad buffer", STAT_BAD("f"));
    show("stat empty path", stat("", &st));
    symlink("loop1", "loop2");
    symlink("loop2", "loop1");
    show("stat a symlink loop", stat("loop1", &st));

    show("truncate to 10", truncate("f", 10));
    stat("f", &st);
    printf("  size %lld\n", (long long)st.st_size);
    fd = open("f", O_RDWR);
    show("ftruncate to 5000", ftruncate(fd, 5000));
    show("ftruncate negative", ftruncate(fd, -1));
    show("truncate negative", truncate("f", -1));
    show("fallocate 8192", fallocate(fd, 0, 0, 8192));
    fstat(fd, &st);
    printf("  size %lld\n", (long long)st.st_size);
    show("fallocate KEEP_SIZE", fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 20000));
    fstat(fd, &st);
    printf("  size %lld\n", (long long)st.st_size);
    show("fsync", fsync(fd));
    show("fdatasync", fdatasync(fd));
    show("syncfs", syncfs(fd));
    show("sync_file_range", sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE));
    show("posix_fadvise (returns the error)", posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL));
    show("posix_fadvise bad advice", posix_fadvise(fd, 0, 0, 99));
    show("readahead", readahead(fd, 0, 4096));
    struct statfs sf;
    show("statfs succeeds", statfs(".", &sf) == 0 ? 0 : -1);
    show("fstatfs succeeds", fstatfs(fd, &sf) == 0 ? 0 : -1);
    show("statfs bad buffer", STATFS_BAD("."));
    close(fd);
    show("fsync a closed fd", fsync(fd));
}

/* ------------------------------------------------------------ descriptors */

static void descriptors(void)
{
    int fd = open("f", O_RDONLY);
    int d = dup(fd);
    printf("dup: %s\n", d > fd ? "a higher number" : "?");
    show("dup2 onto 100", dup2(fd, 100));
    show("dup2 onto itself", dup2(fd, fd));
    show("dup3 onto itself", dup3(fd, fd, 0));
    show("dup3 O_CLOEXEC", dup3(fd, 101, O_CLOEXEC));
    show("F_GETFD of it", fcntl(101, F_GETFD));
    show("dup3 bad flags", dup3(fd, 102, 1));
    show("F_DUPFD from 200", fcntl(fd, F_DUPFD, 200));
    show("F_DUPFD_CLOEXEC from 300", fcntl(fd, F_DUPFD_CLOEXEC, 300));
    show("  F_GETFD", fcntl(300, F_GETFD));
    show("F_SETFD FD_CLOEXEC", fcntl(200, F_SETFD, FD_CLOEXEC));
    show("  F_GETFD", fcntl(200, F_GETFD));
    show("F_GETFL", fcntl(fd, F_GETFL) & (O_ACCMODE | O_APPEND | O_NONBLOCK));
    show("F_SETFL O_APPEND|O_NONBLOCK", fcntl(fd, F_SETFL, O_APPEND | O_NONBLOCK));
    show("  F_GETFL", fcntl(fd, F_GETFL) & (O_ACCMODE | O_APPEND | O_NONBLOCK));
    show("fcntl bad command", fcntl(fd, 12345));
    show("fcntl bad fd", fcntl(999, F_GETFD));
    show("close_range 100..101", close_range(100, 101, 0));
    show("  F_GETFD 100", fcntl(100, F_GETFD));
    show("close_range CLOEXEC 200..300", close_range(200, 300, CLOSE_RANGE_CLOEXEC));
    show("  F_GETFD 300", fcntl(300, F_GETFD));
    show("close_range bad", close_range(5, 4, 0));
    close(200);
    close(300);
    close(d);

    int p[2];
    show("pipe2 O_CLOEXEC|O_NONBLOCK", pipe2(p, O_CLOEXEC | O_NONBLOCK));
    show("  F_GETFD", fcntl(p[0], F_GETFD));
    show("  read empty", read(p[0], p, 1));
    show("F_GETPIPE_SZ", fcntl(p[0], F_GETPIPE_SZ));
    show("F_SETPIPE_SZ 8192", fcntl(p[0], F_SETPIPE_SZ, 8192));
    show("F_GETPIPE_SZ", fcntl(p[0], F_GETPIPE_SZ));
    int n = 0;
    write(p[1], "abc", 3);
    show("FIONREAD", ioctl(p[0], FIONREAD, &n));
    printf("  %d bytes\n", n);
    show("FIONREAD bad pointer", ioctl(p[0], FIONREAD, BAD));
    show("FIOCLEX", ioctl(p[1], FIOCLEX));
    show("FIONCLEX", ioctl(p[1], FIONCLEX));
    show("  F_GETFD", fcntl(p[1], F_GETFD));
    int zero = 0;
    show("FIONBIO 0", ioctl(p[0], FIONBIO, &zero));
    show("  O_NONBLOCK", fcntl(p[0], F_GETFL) & O_NONBLOCK);
    show("TCGETS on a pipe", ioctl(p[0], TCGETS, &(struct termios){ 0 }));
    show("pipe bad pointer", pipe(BAD));
    close(p[0]);
    close(p[1]);
    close(fd);
}

/* Record locks between this process and a child (conflicts are real only
 * between processes for F_SETLK, between descriptions for OFD locks). */
static void locks(void)
{
    int fd = open("f", O_RDWR);
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10 };
    show("F_SETLK write lock 0..10", fcntl(fd, F_SETLK, &fl));
    int go[2], back[2];
    if (pipe(go) != 0 || pipe(back) != 0)
        return;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int cfd = open("f", O_RDWR);
        struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = 1 };
        int r1 = fcntl(cfd, F_GETLK, &q);
        int owner_is_parent = q.l_pid == getppid();
        struct flock w = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
        int r2 = fcntl(cfd, F_SETLK, &w);
        int e2 = errno;
        struct flock free_range = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 20, .l_len = 5 };
        int r3 = fcntl(cfd, F_SETLK, &free_range);
        int r4 = flock(cfd, LOCK_EX | LOCK_NB);
        int e4 = errno;
        char msg[160];
        int len = snprintf(msg, sizeof(msg),
                           "child: F_GETLK %d type %s owner parent %s; F_SETLK %d %s; free range %d; "
                           "flock %d %s\n",
                           r1, q.l_type == F_WRLCK ? "F_WRLCK" : "other", owner_is_parent ? "yes" : "no",
                           r2, r2 ? strerrorname_np(e2) : "", r3, r4, r4 ? strerrorname_np(e4) : "");
        write(back[1], msg, (size_t)len);
        _exit(0);
    }
    char msg[200] = { 0 };
    read(back[0], msg, sizeof(msg) - 1);
    waitpid(pid, NULL, 0);
    printf("%s", msg);
    show("F_SETLK unlock", fcntl(fd, F_SETLK, &(struct flock){ .l_type = F_UNLCK, .l_len = 0 }));
    show("flock LOCK_EX", flock(fd, LOCK_EX));
    int fd2 = open("f", O_RDWR);
    show("flock LOCK_EX|LOCK_NB from another description", flock(fd2, LOCK_EX | LOCK_NB));
    show("flock LOCK_UN", flock(fd, LOCK_UN));
    show("flock bad operation", flock(fd, 99));
    struct flock ofd = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 4 };
    show("F_OFD_SETLK", fcntl(fd, F_OFD_SETLK, &ofd));
    struct flock probe = ofd;
    show("F_OFD_GETLK from another description", fcntl(fd2, F_OFD_GETLK, &probe));
    printf("  conflict: %s, l_pid %d\n", probe.l_type == F_WRLCK ? "F_WRLCK" : "none", probe.l_pid);
    show("F_OFD_SETLK from another description", fcntl(fd2, F_OFD_SETLK, &ofd));
    ofd.l_type = F_UNLCK;
    show("F_OFD_SETLK unlock", fcntl(fd, F_OFD_SETLK, &ofd));
    ofd.l_type = F_WRLCK;
    show("F_OFD_SETLK now", fcntl(fd2, F_OFD_SETLK, &ofd));
    show("F_SETLK bad pointer", fcntl(fd, F_SETLK, BAD));
    struct flock odd = { .l_type = 77 };
    show("F_SETLK bad type", fcntl(fd, F_SETLK, &odd));
    close(fd2);
    close(fd);
    close(go[0]);
    close(go[1]);
    close(back[0]);
    close(back[1]);
}

/* ------------------------------------------------------------ in-kernel copies, memfd */

static void copies(void)
{
    int in = open("src", O_RDWR | O_CREAT | O_TRUNC, 0600);
    write(in, "0123456789abcdefghij", 20);
    int out = open("dst", O_RDWR | O_CREAT | O_TRUNC, 0600);
    off_t off = 5;
    show("sendfile 6 bytes from 5", sendfile(out, in, &off, 6));
    printf("  offset now %lld\n", (long long)off);
    show("sendfile bad offset pointer", sendfile(out, in, BAD, 6));
    loff_t oin = 0, oout = 100;
    show("copy_file_range 10", copy_file_range(in, &oin, out, &oout, 10, 0));
    printf("  offsets %lld %lld\n", (long long)oin, (long long)oout);
    show("copy_file_range bad flags", copy_file_range(in, &oin, out, &oout, 10, 1));
    char buf[32] = { 0 };
    pread(out, buf, 6, 0);
    printf("dst starts: %s\n", buf);
    int p[2], q[2];
    if (pipe(p) != 0 || pipe(q) != 0)
        return;
    loff_t so = 10;
    show("splice file -> pipe", splice(in, &so, p[1], NULL, 5, 0));
    show("tee pipe -> pipe", tee(p[0], q[1], 5, 0));
    show("splice pipe -> file", splice(p[0], NULL, out, NULL, 5, 0));
    memset(buf, 0, sizeof(buf));
    show("read the tee copy", read(q[0], buf, sizeof(buf)));
    printf("  got %s\n", buf);
    show("splice with an offset on a pipe", splice(p[0], &so, out, NULL, 5, 0));
    struct iovec v = { "vmsplice", 8 };
    show("vmsplice into a pipe", vmsplice(p[1], &v, 1, 0));
    memset(buf, 0, sizeof(buf));
    read(p[0], buf, sizeof(buf));
    printf("  got %s\n", buf);
    close(p[0]);
    close(p[1]);
    close(q[0]);
    close(q[1]);
    close(in);
    close(out);

    int m = show_ok("memfd_create", memfd_create("elfemu-test", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    show("  write", write(m, "sealed", 6));
    show("  F_ADD_SEALS WRITE", fcntl(m, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK));
    show("  F_GET_SEALS", fcntl(m, F_GET_SEALS));
    show("  write after the seal", write(m, "x", 1));
    show("  ftruncate smaller", ftruncate(m, 1));
    char link[64], target[128] = { 0 };
    snprintf(link, sizeof(link), "/proc/self/fd/%d", m);
    readlink(link, target, sizeof(target) - 1);
    printf("  its name: %.20s\n", target);
    close(m);
    show_ok("memfd_create bad flags", memfd_create("x", 0x1000));
    show_ok("memfd_create bad name", memfd_create(BAD, 0));
}

/* ------------------------------------------------------------ names */

static void names(void)
{
    show("mkdir d", mkdir("d", 0755));
    show("mkdir d again", mkdir("d", 0755));
    show("mkdirat d/e", mkdirat(AT_FDCWD, "d/e", 0700));
    show("rmdir a non-empty d", rmdir("d"));
    show("rmdir a file", rmdir("f"));
    show("unlink a directory", unlink("d"));
    show("link f d/hard", link("f", "d/hard"));
    struct stat st;
    stat("f", &st);
    printf("  nlink %lu\n", (unsigned long)st.st_nlink);
    show("link to an existing name", link("f", "d/hard"));
    show("symlink d/soft", symlink("../f", "d/soft"));
    char buf[64] = { 0 };
    show("readlink", readlink("d/soft", buf, sizeof(buf)));
    printf("  -> %s\n", buf);
    show("readlink truncated", readlink("d/soft", buf, 2));
    show("readlink of a file", readlink("f", buf, sizeof(buf)));
    show("readlink bad buffer", readlink("d/soft", BAD, 10));
    show("readlink size 0", readlink("d/soft", buf, 0));
    int dfd = open("d", O_RDONLY | O_DIRECTORY);
    memset(buf, 0, sizeof(buf));
    show("readlinkat", readlinkat(dfd, "soft", buf, sizeof(buf)));
    show("rename f -> g", rename("f", "g"));
    show("rename a missing name", rename("f", "h"));
    show("renameat2 RENAME_NOREPLACE onto d/hard", renameat2(AT_FDCWD, "g", dfd, "hard", RENAME_NOREPLACE));
    show("renameat2 RENAME_EXCHANGE", renameat2(AT_FDCWD, "g", dfd, "soft", RENAME_EXCHANGE));
    memset(buf, 0, sizeof(buf));
    readlink("g", buf, sizeof(buf));
    printf("  g is now the link -> %s\n", buf);
    show("renameat2 bad flags", renameat2(AT_FDCWD, "g", AT_FDCWD, "h", 99));
    show("rename a directory into itself", rename("d", "d/e/x"));
    show("unlinkat AT_REMOVEDIR on d/e", unlinkat(dfd, "e", AT_REMOVEDIR));
    show("unlinkat bad flags", unlinkat(dfd, "hard", 0x1234));
    show("mknod a FIFO", mknod("fifo", S_IFIFO | 0600, 0));
    stat("fifo", &st);
    file_type("  fifo", &st);
    show("mknodat a directory type", mknodat(AT_FDCWD, "x", S_IFDIR | 0700, 0));
    show("mkfifo again", mkfifo("fifo", 0600));
    close(dfd);
    show("chdir d", chdir("d"));
    char cwd[4096];
    printf("getcwd ends with /d: %s\n", getcwd(cwd, sizeof(cwd)) && strcmp(strrchr(cwd, '/'), "/d") == 0 ? "yes" : "no");
    show("getcwd too small", syscall(SYS_getcwd, cwd, 3));
    show("getcwd bad buffer", syscall(SYS_getcwd, BAD, 100));
    int up = open("..", O_RDONLY);
    show("fchdir ..", fchdir(up));
    close(up);
    show("chdir a file", chdir("src"));
    show("chdir missing", chdir("nope"));
}

/* ------------------------------------------------------------ permissions, times, xattrs */

static void attributes(void)
{
    show("chmod 0640", chmod("src", 0640));
    struct stat st;
    stat("src", &st);
    printf("  mode %o\n", st.st_mode & 07777);
    int fd = open("src", O_RDONLY);
    show("fchmod 0604", fchmod(fd, 0604));
    show("fchmodat AT_SYMLINK_NOFOLLOW on a file", fchmodat(AT_FDCWD, "src", 0600, AT_SYMLINK_NOFOLLOW));
    show("chown to myself", chown("src", getuid(), getgid()));
    show("lchown to myself", lchown("src", getuid(), getgid()));
    show("fchown to myself", fchown(fd, getuid(), getgid()));
    show("fchownat bad flags", fchownat(AT_FDCWD, "src", getuid(), getgid(), 0x4321));
    show("access R_OK", access("src", R_OK));
    show("access bad mode", access("src", 0100));
    show("faccessat2 AT_EACCESS", faccessat(AT_FDCWD, "src", R_OK, AT_EACCESS));
    show("access missing", access("nope", F_OK));

    struct timespec ts[2] = { { 1000000000, 500 }, { 1200000000, 0 } };
    show("utimensat", utimensat(AT_FDCWD, "src", ts, 0));
    stat("src", &st);
    printf("  atime %lld.%09ld mtime %lld\n", (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
           (long long)st.st_mtim.tv_sec);
    struct timeval tv[2] = { { 1300000000, 7 }, { 1400000000, 0 } };
    show("utimes", utimes("src", tv));
    stat("src", &st);
    printf("  atime %lld.%09ld mtime %lld\n", (long long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
           (long long)st.st_mtim.tv_sec);
    struct utimbuf ub = { 1500000000, 1600000000 };
    show("utime", utime("src", &ub));
    stat("src", &st);
    printf("  atime %lld mtime %lld\n", (long long)st.st_atim.tv_sec, (long long)st.st_mtim.tv_sec);
    show("futimesat", futimesat(AT_FDCWD, "src", tv));
    show("futimens UTIME_OMIT both", futimens(fd, (struct timespec[]){ { 0, UTIME_OMIT }, { 0, UTIME_OMIT } }));
    show("utimensat bad nsec", utimensat(AT_FDCWD, "src", (struct timespec[]){ { 0, 2000000000 }, { 0, 0 } }, 0));
    show("utimensat bad pointer", UTIMENSAT_BAD(AT_FDCWD, "src", 0));

    /* xattrs: a user attribute, or the filesystem's refusal, as natively. */
    show("setxattr user.elfemu", setxattr("src", "user.elfemu", "value", 5, 0));
    char val[32] = { 0 };
    show("getxattr", getxattr("src", "user.elfemu", val, sizeof(val)));
    show("getxattr size query", getxattr("src", "user.elfemu", NULL, 0));
    show("getxattr too small", getxattr("src", "user.elfemu", val, 2));
    show("fgetxattr missing name", fgetxattr(fd, "user.none", val, sizeof(val)));
    char list[128];
    show("listxattr", listxattr("src", list, sizeof(list)) >= 0 ? 0 : -1);
    show("setxattr XATTR_CREATE again", setxattr("src", "user.elfemu", "v", 1, XATTR_CREATE));
    show("setxattr bad flags", setxattr("src", "user.elfemu", "v", 1, 9));
    show("setxattr empty name", setxattr("src", "", "v", 1, 0));
    show("removexattr", removexattr("src", "user.elfemu"));
    show("removexattr again", removexattr("src", "user.elfemu"));
    show("lgetxattr bad name pointer", lgetxattr("src", BAD, val, 4));
    close(fd);
}

/* ------------------------------------------------------------ a terminal */

static void terminal(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0) {
        printf("no pty\n");
        return;
    }
    int s = open(ptsname(m), O_RDWR | O_NOCTTY);
    struct termios t;
    show("TCGETS", ioctl(s, TCGETS, &t));
    printf("  ICANON %s, ECHO %s\n", t.c_lflag & ICANON ? "on" : "off", t.c_lflag & ECHO ? "on" : "off");
    cfmakeraw(&t);
    show("TCSETS raw", ioctl(s, TCSETS, &t));
    show("TCGETS", ioctl(s, TCGETS, &t));
    printf("  ICANON %s, ECHO %s\n", t.c_lflag & ICANON ? "on" : "off", t.c_lflag & ECHO ? "on" : "off");
    show("tcsetattr TCSADRAIN", tcsetattr(s, TCSADRAIN, &t));
    struct winsize ws = { .ws_row = 33, .ws_col = 101 };
    show("TIOCSWINSZ", ioctl(m, TIOCSWINSZ, &ws));
    memset(&ws, 0, sizeof(ws));
    show("TIOCGWINSZ", ioctl(s, TIOCGWINSZ, &ws));
    printf("  %u rows, %u columns\n", ws.ws_row, ws.ws_col);
    show("TIOCGWINSZ bad pointer", ioctl(s, TIOCGWINSZ, BAD));
    pid_t pg;
    show("TIOCGPGRP (not our terminal)", ioctl(s, TIOCGPGRP, &pg));
    show("isatty", isatty(s));
    show("write to the pty", write(s, "ping\n", 5));
    char buf[16] = { 0 };
    show("read it on the master", read(m, buf, sizeof(buf)));
    int n = 0;
    show("FIONREAD on the master", ioctl(m, FIONREAD, &n));
    show("unknown ioctl", ioctl(s, 0x5499, 0));
    close(s);
    close(m);
}

static void cleanup(void)
{
    const char *files[] = { "g", "c", "src", "dst", "link", "loop1", "loop2", "fifo", "from-tmpfile",
                            "d/hard", "d/soft", "d/e" };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        if (unlink(files[i]) != 0)
            rmdir(files[i]);
    rmdir("d");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    char dir[] = "/tmp/elfemu-fileio-XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0)
        return 1;
    open_rw();
    stat_family();
    descriptors();
    locks();
    copies();
    names();
    attributes();
    terminal();
    cleanup();
    if (chdir("/") != 0 || rmdir(dir) != 0)
        printf("the directory was not emptied: %s\n", strerrorname_np(errno));
    return 0;
}
