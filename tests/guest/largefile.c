/* Offsets and file structures where i386 and x86_64 differ, compared with
 * the native run of each: a sparse file past 4 GiB (positional I/O with
 * 64-bit offsets, EOVERFLOW of the 32-bit stat and of F_GETLK's 32-bit
 * flock), negative and large lseek offsets, truncate, every stat layout
 * (the untouched padding of i386's stat64), statfs, the lock commands in
 * both flock layouts, getdents and getdents64 (count too small, a buffer
 * whose end is not writable, positions kept by telldir/seekdir), sendfile
 * with a 32-bit offset near its 2 GiB limit, and the calls passing 64-bit
 * values in register pairs (fallocate, fadvise64_64, readahead,
 * sync_file_range).  Built for x86_64 and -m32; raw syscalls where the C
 * library would hide the ABI.  Nothing printed depends on inode numbers,
 * times or paths. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *what, long long r)
{
    if (r < 0 && r > -4096 && errno)
        printf("%s: -1 %s\n", what, strerrorname_np(errno));
    else
        printf("%s: %lld\n", what, r);
}

/* A raw syscall with errno cleared first, so that show() can tell a
 * large result from an error. */
#define RAW(...) (errno = 0, syscall(__VA_ARGS__))

#define GiB (1024LL * 1024 * 1024)

static char dir[64];

#ifdef __i386__
#define LO(x) ((unsigned long)((unsigned long long)(x) & 0xffffffff))
#define HI(x) ((unsigned long)((unsigned long long)(x) >> 32))

/* i386's struct stat64, byte for byte (packed, 96 bytes). */
struct stat64_i386 {
    unsigned long long dev;
    unsigned char pad0[4];
    unsigned int ino32, mode, nlink, uid, gid;
    unsigned long long rdev;
    unsigned char pad3[4];
    long long size;
    unsigned int blksize;
    unsigned long long blocks;
    unsigned int atime, atime_nsec, mtime, mtime_nsec, ctime, ctime_nsec;
    unsigned long long ino;
} __attribute__((packed));

/* i386's struct stat. */
struct stat_i386 {
    unsigned int dev, ino;
    unsigned short mode, nlink, uid, gid;
    unsigned int rdev, size, blksize, blocks;
    unsigned int atime, atime_nsec, mtime, mtime_nsec, ctime, ctime_nsec, u4, u5;
};

struct old_stat_i386 {
    unsigned short dev, ino, mode, nlink, uid, gid, rdev;
    unsigned int size, atime, mtime, ctime;
};

static void stat_layouts(void)
{
    printf("-- stat layouts (i386)\n");
    struct stat64_i386 s64;
    memset(&s64, 0xaa, sizeof(s64));
    show("stat64 big", RAW(195, "big", &s64));
    printf("  size %lld, mode %o, nlink %u, blocks %s, pads %02x%02x %02x%02x\n", s64.size,
           s64.mode, s64.nlink, s64.blocks < 100 ? "few" : "many", s64.pad0[0], s64.pad0[3],
           s64.pad3[0], s64.pad3[3]);
    printf("  uid is mine: %d, ino32 is the low half: %d, blksize %u\n",
           s64.uid == (unsigned)getuid(), s64.ino32 == (unsigned)s64.ino, s64.blksize);
    struct stat64_i386 l64, f64, at64;
    show("lstat64 link", RAW(196, "link", &l64));
    printf("  symlink: %d, size %lld\n", S_ISLNK(l64.mode), l64.size);
    int fd = open("big", O_RDONLY | O_LARGEFILE);
    show("fstat64", RAW(197, fd, &f64));
    printf("  same file: %d\n", f64.ino == s64.ino && f64.dev == s64.dev);
    show("fstatat64 AT_SYMLINK_NOFOLLOW", RAW(300, AT_FDCWD, "link", &at64, AT_SYMLINK_NOFOLLOW));
    printf("  symlink: %d\n", S_ISLNK(at64.mode));
    show("fstatat64 AT_EMPTY_PATH", RAW(300, fd, "", &at64, AT_EMPTY_PATH));
    show("fstatat64 bad flag", RAW(300, AT_FDCWD, "big", &at64, 0x8000000));
    show("fstat64 bad buffer", RAW(197, fd, (void *)16));
    show("stat64 missing", RAW(195, "missing", &s64));

    struct stat_i386 st;
    show("stat big (struct stat)", RAW(106, "big", &st));
    show("fstat big", RAW(108, fd, &st));
    memset(&st, 0xaa, sizeof(st));
    show("stat small", RAW(106, "small", &st));
    /* Inode numbers past 32 bits are EOVERFLOW here; ext4 and tmpfs keep
     * them small, so the fields can be compared with stat64's. */
    struct stat64_i386 small64;
    RAW(195, "small", &small64);
    printf("  size %u, mode %o, nlink %u, ino agrees %d, unused %x %x\n", st.size, st.mode,
           st.nlink, st.ino == (unsigned)small64.ino, st.u4, st.u5);
    show("lstat link", RAW(107, "link", &st));
    printf("  symlink: %d\n", S_ISLNK(st.mode));
    show("stat bad buffer", RAW(106, "small", (void *)16));
    struct old_stat_i386 os;
    /* The old stat's 16-bit inode: EOVERFLOW unless the number is small. */
    long r = RAW(18, "small", &os);
    printf("oldstat small: %s\n", r == 0 ? (os.ino == (unsigned short)small64.ino ? "ino ok" : "ino differs")
                                         : strerrorname_np(errno));
    r = RAW(28, 0, &os);
    printf("oldfstat stdin: %s\n", r == 0 ? "ok" : strerrorname_np(errno));
    r = RAW(84, "link", &os);
    printf("oldlstat link: %s\n", r == 0 ? (S_ISLNK(os.mode) ? "symlink" : "?") : strerrorname_np(errno));
    close(fd);
}

/* struct statfs of i386 and the packed statfs64 (84 bytes). */
struct statfs_i386 {
    unsigned int type, bsize, blocks, bfree, bavail, files, ffree;
    int fsid[2];
    unsigned int namelen, frsize, flags, spare[4];
};
struct statfs64_i386 {
    unsigned int type, bsize;
    unsigned long long blocks, bfree, bavail, files, ffree;
    int fsid[2];
    unsigned int namelen, frsize, flags, spare[4];
} __attribute__((packed));

static void statfs_layouts(void)
{
    printf("-- statfs layouts (i386)\n");
    struct statfs_i386 s;
    struct statfs64_i386 s64, f64;
    memset(&s, 0xaa, sizeof(s));
    long r = RAW(99, ".", &s);
    if (r == 0 || errno != EOVERFLOW) /* EOVERFLOW on a file system too big for 32 bits */
        show("statfs", r);
    show("statfs64", RAW(268, ".", sizeof(s64), &s64));
    if (r == 0)
        printf("  type agrees %d, bsize agrees %d, spare %x\n", s.type == s64.type,
               s.bsize == s64.bsize, s.spare[0]);
    int fd = open(".", O_RDONLY);
    show("fstatfs64", RAW(269, fd, sizeof(f64), &f64));
    printf("  same as statfs64: %d\n", f64.type == s64.type && f64.fsid[0] == s64.fsid[0]);
    show("statfs64 size 88", RAW(268, ".", 88, &s64));
    show("fstatfs64 size 88, bad fd", RAW(269, -1, 88, &s64));
    show("fstatfs64 bad buffer", RAW(269, fd, sizeof(f64), (void *)16));
    show("fstatfs bad fd", RAW(100, -1, &s));
    close(fd);
}

/* Locks in both i386 layouts. */
struct flock_i386 {
    short type, whence;
    int start, len, pid;
};
struct flock64_i386 {
    short type, whence;
    long long start, len;
    int pid;
} __attribute__((packed));

static void lock_layouts(void)
{
    printf("-- flock layouts (i386)\n");
    int fd = open("big", O_RDWR | O_LARGEFILE);
    struct flock_i386 f = { F_WRLCK, SEEK_SET, 100, 10, 0 };
    show("fcntl64 F_SETLK (flock)", RAW(221, fd, 6, &f));
    struct flock64_i386 f64 = { F_WRLCK, SEEK_SET, 3 * GiB, 0, 0 };
    show("fcntl64 F_SETLK64 at 3 GiB to the end", RAW(221, fd, 13, &f64));
    show("fcntl F_SETLK64 (also served by fcntl)", RAW(55, fd, 13, &f64));
    show("fcntl F_SETLK64 bad fd", RAW(55, -1, 13, &f64));
    show("fcntl64 F_SETLK bad pointer", RAW(221, fd, 6, (void *)16));
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int cfd = open("big", O_RDWR | O_LARGEFILE);
        struct flock_i386 q = { F_WRLCK, SEEK_SET, 0, 0, 0 };
        show("child F_GETLK (flock) of all", RAW(221, cfd, 5, &q));
        printf("  type %d start %d len %d pid is parent %d\n", q.type, q.start, q.len,
               q.pid == getppid());
        struct flock_i386 q2 = { F_WRLCK, SEEK_SET, 200, 0, 0 };
        show("child F_GETLK (flock) past 3 GiB", RAW(221, cfd, 5, &q2));
        struct flock64_i386 q64 = { F_WRLCK, SEEK_SET, 200, 0, 0 };
        show("child F_GETLK64 past 3 GiB", RAW(221, cfd, 12, &q64));
        printf("  type %d start %lld len %lld\n", q64.type, q64.start, q64.len);
        struct flock_i386 q3 = { F_WRLCK, SEEK_SET, 105, 1, 0 };
        show("child F_SETLK on the parent's lock", RAW(55, cfd, 6, &q3));
        struct flock64_i386 o = { F_RDLCK, SEEK_SET, 0, 50, 0 };
        show("child F_OFD_SETLK", RAW(221, cfd, F_OFD_SETLK, &o));
        struct flock64_i386 o2 = { F_WRLCK, SEEK_SET, 0, 0, 0 };
        show("child F_OFD_GETLK", RAW(221, cfd, F_OFD_GETLK, &o2));
        printf("  type %d start %lld len %lld pid is parent %d\n", o2.type, o2.start, o2.len,
               o2.pid == getppid());
        fflush(stdout);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    close(fd);
}

static void register_pairs(void)
{
    printf("-- 64-bit values in register pairs (i386)\n");
    int fd = open("big", O_RDWR | O_LARGEFILE);
    long long at = 4 * GiB + 4096;
    show("pwrite64 past 4 GiB", RAW(181, fd, "pairs", 5, LO(at), HI(at)));
    char buf[8] = { 0 };
    show("pread64 past 4 GiB", RAW(180, fd, buf, 5, LO(at), HI(at)));
    printf("  %s\n", buf);
    show("pread64 negative", RAW(180, fd, buf, 5, 0, 0x80000000));
    struct iovec v = { buf, 5 };
    memset(buf, 0, sizeof(buf));
    show("preadv past 4 GiB", RAW(333, fd, &v, 1, LO(at), HI(at)));
    printf("  %s\n", buf);
    show("pwritev past 4 GiB", RAW(334, fd, &v, 1, LO(at + 8), HI(at + 8)));
    show("preadv2 at -1 (the file position)", RAW(378, fd, &v, 1, 0xffffffff, 0xffffffff, 0));
    show("pwritev2 bad flag", RAW(379, fd, &v, 1, LO(at), HI(at), 0x1000));
    show("ftruncate64 to 5 GiB", RAW(194, fd, LO(5 * GiB), HI(5 * GiB)));
    show("truncate64 negative", RAW(193, "big", 0, 0x80000000));
    show("fallocate past 4 GiB", RAW(324, fd, 0, LO(at + 65536), HI(at + 65536), 4096, 0));
    show("fallocate negative length", RAW(324, fd, 0, 0, 0, 0, 0x80000000));
    show("fadvise64 past 4 GiB", RAW(250, fd, LO(at), HI(at), 4096, POSIX_FADV_WILLNEED));
    show("fadvise64_64 bad advice", RAW(272, fd, LO(at), HI(at), 4096, 0, 99));
    show("fadvise64_64 negative length", RAW(272, fd, 0, 0, 0, 0x80000000, 0));
    show("readahead past 4 GiB", RAW(225, fd, LO(at), HI(at), 4096));
    show("sync_file_range past 4 GiB", RAW(314, fd, LO(at), HI(at), 4096, 0, 0));
    show("sync_file_range negative", RAW(314, fd, 0, 0x80000000, 4096, 0, 0));
    struct stat64_i386 s;
    RAW(197, fd, &s);
    printf("  size now %lld\n", s.size);
    close(fd);
}

static void small_offsets(void)
{
    printf("-- 32-bit offsets (i386)\n");
    int fd = open("big", O_RDWR | O_LARGEFILE);
    show("lseek 1 GiB", RAW(19, fd, 0x40000000, SEEK_SET));
    show("lseek +1.5 GiB (past 2 GiB: the low half)", RAW(19, fd, 0x60000000, SEEK_CUR));
    show("lseek negative SEEK_SET", RAW(19, fd, -5, SEEK_SET));
    show("lseek -1 GiB SEEK_CUR", RAW(19, fd, -0x40000000, SEEK_CUR));
    show("lseek bad whence", RAW(19, fd, 0, 9));
    long long pos = -1;
    show("_llseek to 4 GiB + 4096", RAW(140, fd, 1, 4096, &pos, SEEK_SET));
    printf("  position %lld\n", pos);
    char buf[8] = { 0 };
    show("read there", read(fd, buf, 5));
    printf("  %s\n", buf);
    show("_llseek negative", RAW(140, fd, 0xffffffff, 0xfffffff0, &pos, SEEK_SET));
    show("_llseek bad result pointer", RAW(140, fd, 0, 0, (void *)16, SEEK_SET));
    show("truncate negative", RAW(92, "small", -1));
    show("ftruncate 3 GiB as a negative off_t", RAW(93, fd, 0xC0000000));
    int sfd = open("small", O_RDWR);
    show("ftruncate small to 100", RAW(93, sfd, 100));
    show("truncate small to 50", RAW(92, "small", 50));
    struct stat64_i386 s;
    RAW(197, sfd, &s);
    printf("  size %lld\n", s.size);
    close(sfd);

    /* sendfile's 32-bit offset and its 2 GiB limit. */
    int out = open("out", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int off = 0x7ffffffd;
    show("sendfile 10 bytes 3 before 2 GiB", RAW(187, out, fd, &off, 10));
    printf("  offset now %d\n", off);
    off = 0x7fffffff;
    show("sendfile at 2 GiB - 1", RAW(187, out, fd, &off, 10));
    printf("  offset now %d\n", off);
    off = -4;
    show("sendfile negative offset", RAW(187, out, fd, &off, 10));
    show("sendfile bad offset pointer", RAW(187, out, fd, (void *)16, 10));
    show("sendfile bad fd, bad offset pointer", RAW(187, out, -1, (void *)16, 10));
    off = 0x7fffffff;
    show("sendfile at the limit, bad out fd", RAW(187, -1, fd, &off, 10));
    long long off64 = 4 * GiB + 4096;
    show("sendfile64 past 4 GiB", RAW(239, out, fd, &off64, 5));
    printf("  offset now %lld\n", off64);
    RAW(19, fd, 0, SEEK_SET);
    show("sendfile without offset", RAW(187, out, fd, NULL, 3));
    close(out);
    close(fd);
}

/* open and openat without O_LARGEFILE (the 32-bit C library's open() of a
 * program built without _FILE_OFFSET_BITS=64): the 2 GiB limits. */
static void non_lfs_opens(void)
{
    printf("-- opens without O_LARGEFILE (i386)\n");
    show("open the 5 GiB file", RAW(5, "big", O_RDONLY));
    show("openat the 5 GiB file", RAW(295, AT_FDCWD, "big", O_RDONLY));
    long fd = RAW(5, "big", O_PATH);
    show("  with O_PATH, F_GETFL", fd < 0 ? fd : fcntl((int)fd, F_GETFL));
    close((int)fd);
    fd = RAW(5, "nolfs", O_RDWR | O_CREAT | O_TRUNC, 0600);
    show("open a new file, F_GETFL", fcntl((int)fd, F_GETFL));
    show("  pwrite64 at 2 GiB - 2, 4 bytes", RAW(181, fd, "abcd", 4, 0x7ffffffe, 0));
    show("  pwrite64 at 3 GiB", RAW(181, fd, "x", 1, 0xC0000000, 0));
    show("  ftruncate64 to 3 GiB", RAW(194, fd, 0xC0000000, 0));
    show("  F_SETFL O_LARGEFILE (not settable)", fcntl((int)fd, F_SETFL, O_LARGEFILE));
    show("  F_GETFL", fcntl((int)fd, F_GETFL));
    close((int)fd);
    fd = RAW(8, "created", 0600);
    show("creat: F_GETFL", fcntl((int)fd, F_GETFL));
    close((int)fd);
    fd = RAW(5, "big", O_RDONLY | O_LARGEFILE);
    show("open the big file with O_LARGEFILE, F_GETFL", fcntl((int)fd, F_GETFL));
    close((int)fd);
}
#endif

/* getdents/getdents64 records, counted and checked; names sorted. */
static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void directories(void)
{
    printf("-- directories\n");
    mkdir("d", 0700);
    char name[32];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof(name), "d/entry-%02d", i);
        close(open(name, O_WRONLY | O_CREAT, 0600));
    }
    mkdir("d/sub", 0700);
    symlink("entry-00", "d/lnk");
    int fd = open("d", O_RDONLY | O_DIRECTORY);
    char buf[4096];
    long n = RAW(SYS_getdents64, fd, buf, sizeof(buf));
    int count = 0, dirs = 0, links = 0;
    for (long off = 0; off < n;) {
        unsigned short reclen;
        memcpy(&reclen, buf + off + 16, 2);
        unsigned char type = (unsigned char)buf[off + 18];
        dirs += type == DT_DIR;
        links += type == DT_LNK;
        count++;
        off += reclen;
    }
    printf("getdents64: %d entries, %d directories, %d links\n", count, dirs, links);
    show("getdents64 again at the end", RAW(SYS_getdents64, fd, buf, sizeof(buf)));
    lseek(fd, 0, SEEK_SET);
    show("getdents64 count 10", RAW(SYS_getdents64, fd, buf, 10));
    show("getdents64 bad buffer", RAW(SYS_getdents64, fd, (void *)16, sizeof(buf)));
#ifdef SYS_getdents
    lseek(fd, 0, SEEK_SET);
    n = RAW(SYS_getdents, fd, buf, sizeof(buf));
    count = dirs = 0;
    char *names[64];
    for (long off = 0; off < n && count < 64;) {
        unsigned short reclen;
        memcpy(&reclen, buf + off + 2 * sizeof(long), 2);
        dirs += buf[off + reclen - 1] == DT_DIR;
        names[count++] = buf + off + 2 * sizeof(long) + 2;
        off += reclen;
    }
    qsort(names, (size_t)count, sizeof(names[0]), cmp);
    printf("getdents: %d entries, %d directories, first %s, last %s\n", count, dirs,
           count ? names[0] : "-", count ? names[count - 1] : "-");
    lseek(fd, 0, SEEK_SET);
    show("getdents count 1", RAW(SYS_getdents, fd, buf, 1));
#endif
    /* A buffer whose end lies on a page that cannot be written: the
     * records that fit come, the rest on the next call. */
    char *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(two + 4096, 4096, PROT_NONE);
    lseek(fd, 0, SEEK_SET);
    int total = 0, calls = 0;
    for (;;) {
        long got = RAW(SYS_getdents64, fd, two + 4096 - 200, 4096);
        if (got <= 0) {
            if (got < 0)
                printf("  partial buffer ends with %s\n", strerrorname_np(errno));
            break;
        }
        calls++;
        for (long off = 0; off < got;) {
            unsigned short reclen;
            memcpy(&reclen, two + 4096 - 200 + off + 16, 2);
            total++;
            off += reclen;
        }
    }
    printf("getdents64 into 200 writable bytes: %d entries in %s calls\n", total,
           calls > 5 ? "several" : "few");
    show("getdents64 into 0 writable bytes", RAW(SYS_getdents64, fd, two + 4096, 4096));
    lseek(fd, 0, SEEK_SET);
    show("getdents64 into 0 writable bytes at the start", RAW(SYS_getdents64, fd, two + 4096, 4096));
    n = RAW(SYS_getdents64, fd, buf, sizeof(buf));
    count = 0;
    for (long off = 0; off < n;) {
        unsigned short reclen;
        memcpy(&reclen, buf + off + 16, 2);
        count++;
        off += reclen;
    }
    printf("  then all %d entries are still there\n", count);
    munmap(two, 8192);
    close(fd);

    /* readdir of the C library (the 32-bit one converts getdents64 and
     * reports EOVERFLOW for positions that do not fit), telldir, seekdir. */
    DIR *d = opendir("d");
    int seen = 0;
    long mark = -1;
    char after_mark[256] = "";
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d))) {
        if (++seen == 7)
            mark = telldir(d);
        else if (seen == 8)
            snprintf(after_mark, sizeof(after_mark), "%s", e->d_name);
    }
    printf("readdir: %d entries, %s\n", seen, errno ? strerrorname_np(errno) : "no error");
    seekdir(d, mark);
    e = readdir(d);
    printf("seekdir to the 7th telldir: the same next entry %d\n", e && !strcmp(e->d_name, after_mark));
    rewinddir(d);
    seen = 0;
    while (readdir(d))
        seen++;
    printf("after rewinddir: %d entries\n", seen);
    closedir(d);
    fd = open("d", O_RDONLY | O_DIRECTORY);
    off_t end = lseek(fd, 0, SEEK_END);
    printf("lseek SEEK_END on a directory: %s\n", end < 0 ? strerrorname_np(errno) : end > 0 ? "a large position" : "0");
    close(fd);
}

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/elfemu-largefile-XXXXXX");
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("setup");
        exit(1);
    }
    int fd = open("big", O_RDWR | O_CREAT | O_TRUNC | O_LARGEFILE, 0600);
    /* Sparse: 4 GiB + 8 KiB, a few bytes at 4 GiB + 4096. */
#ifdef __i386__
    syscall(181, fd, "hello", 5, 4096, 1);
#else
    pwrite(fd, "hello", 5, ((off_t)1 << 32) + 4096);
#endif
    close(fd);
    fd = open("small", O_RDWR | O_CREAT | O_TRUNC, 0600);
    write(fd, "small file\n", 11);
    close(fd);
    symlink("big", "link");
}

static void cleanup(void)
{
    char cmd[128];
    chdir("/");
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    system(cmd);
}

int main(void)
{
    setup();
    struct stat st;
    int r = stat("big", &st);
    printf("stat of the big file through the C library: %s\n", r == 0 ? "ok" : strerrorname_np(errno));
#ifdef __i386__
    stat_layouts();
    statfs_layouts();
    lock_layouts();
    register_pairs();
    small_offsets();
    non_lfs_opens();
#endif
    directories();
    cleanup();
    return 0;
}
