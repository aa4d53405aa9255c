/* Directory listing compared with the native run: a tree of files,
 * directories, symlinks and a FIFO listed with getdents64 directly (names
 * and d_type, sorted), with readdir, scandir and nftw, rewinddir, telldir
 * and seekdir, and the errors of getdents64 (a buffer too small, a bad
 * buffer, not a directory, a closed descriptor). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *volatile bad_pointer = (void *)16;

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static const char *type_name(unsigned t)
{
    switch (t) {
    case DT_REG: return "file";
    case DT_DIR: return "dir";
    case DT_LNK: return "symlink";
    case DT_FIFO: return "fifo";
    case DT_UNKNOWN: return "unknown";
    default: return "other";
    }
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* All entries of dir through raw getdents64 with a buffer of size bytes. */
static void raw_listing(const char *dir, size_t size)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    char *buf = malloc(size);
    char *names[64];
    int n = 0, calls = 0;
    long r;
    while ((r = syscall(SYS_getdents64, fd, buf, size)) > 0) {
        calls++;
        for (long off = 0; off < r;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
            if (n < 64 && asprintf(&names[n], "%s (%s)", d->d_name, type_name(d->d_type)) > 0)
                n++;
            off += d->d_reclen;
        }
    }
    printf("getdents64 with %zu bytes: last result %ld, %s, %d entries\n", size, r,
           calls > 1 ? "several calls" : "one call", n);
    qsort(names, (size_t)n, sizeof(names[0]), cmp);
    for (int i = 0; i < n; i++) {
        printf("  %s\n", names[i]);
        free(names[i]);
    }
    free(buf);
    close(fd);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int no_dots(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

static const char *base;

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    const char *rel = path + strlen(base);
    printf("  nftw: level %d %s %s\n", ftw->level,
           flag == FTW_F ? "file" : flag == FTW_D ? "dir" : flag == FTW_DP ? "dir (post)"
           : flag == FTW_SL ? "symlink" : "other", *rel ? rel : "(top)");
    return 0;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    char dir[] = "/tmp/elfemu-dirlist-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    base = dir;
    char p[256];
    const char *files[] = { "alpha", "beta", "sub/gamma", "sub/deeper/delta",
                            "a-rather-long-file-name-to-use-up-record-space-0123456789" };
    snprintf(p, sizeof(p), "%s/sub", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/sub/deeper", dir);
    mkdir(p, 0755);
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
        close(open(p, O_CREAT | O_WRONLY, 0644));
    }
    snprintf(p, sizeof(p), "%s/link", dir);
    symlink("alpha", p);
    snprintf(p, sizeof(p), "%s/pipe", dir);
    mkfifo(p, 0600);

    raw_listing(dir, 4096);
    raw_listing(dir, 80); /* one or two records per call */

    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    char small[8];
    struct {
        const char *what;
        int fd;
        void *buf;
        size_t size;
    } cases[] = {
        { "buffer too small", fd, small, sizeof(small) },
        { "bad buffer", fd, bad_pointer, 4096 },
        { "of a file", open("/proc/self/exe", O_RDONLY), small, 4096 },
        { "closed fd", 999, small, 4096 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        long r = syscall(SYS_getdents64, cases[i].fd, cases[i].buf, cases[i].size);
        printf("getdents64 %s: %ld %s\n", cases[i].what, r, r < 0 ? strerrorname_np(errno) : "");
    }
    close(cases[2].fd);
    close(fd);

    /* The old getdents (d_type in the last byte of each record), rewinding
     * with lseek, count 0, an O_PATH descriptor. */
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    char big[4096];
    long r = syscall(SYS_getdents, fd, big, sizeof(big));
    int old_n = 0, old_dirs = 0;
    for (long off = 0; off < r;) {
        /* struct linux_dirent: unsigned long d_ino, d_off, then d_reclen */
        unsigned short reclen = *(unsigned short *)(big + off + 2 * sizeof(long));
        old_n++;
        old_dirs += big[off + reclen - 1] == DT_DIR;
        off += reclen;
    }
    printf("getdents (old): %d entries, %d directories\n", old_n, old_dirs);
    printf("getdents at the end: %ld\n", syscall(SYS_getdents, fd, big, sizeof(big)));
    printf("lseek to 0: %ld\n", (long)lseek(fd, 0, SEEK_SET));
    r = syscall(SYS_getdents64, fd, big, sizeof(big));
    int again64 = 0;
    for (long off = 0; off < r; off += ((struct linux_dirent64 *)(big + off))->d_reclen)
        again64++;
    printf("getdents64 after it: %d entries\n", again64);
    printf("lseek SEEK_END on a directory: %s\n", lseek(fd, 0, SEEK_END) < 0 ? strerrorname_np(errno) : "ok");
    long z = syscall(SYS_getdents64, fd, big, 0);
    printf("getdents64 count 0: %ld %s\n", z, z < 0 ? strerrorname_np(errno) : "");
    close(fd);
    fd = open(dir, O_PATH);
    z = syscall(SYS_getdents64, fd, big, sizeof(big));
    printf("getdents64 of an O_PATH descriptor: %ld %s\n", z, z < 0 ? strerrorname_np(errno) : "");
    close(fd);
    fd = open(dir, O_WRONLY);
    printf("open a directory O_WRONLY: %s\n", fd < 0 ? strerrorname_np(errno) : "opened");

    /* A directory removed while it is open lists nothing, not even . and ..;
     * an empty one lists just those. */
    snprintf(p, sizeof(p), "%s/sub/empty", dir);
    mkdir(p, 0700);
    fd = open(p, O_RDONLY | O_DIRECTORY);
    r = syscall(SYS_getdents64, fd, big, sizeof(big));
    int empty_n = 0;
    for (long off = 0; off < r; off += ((struct linux_dirent64 *)(big + off))->d_reclen)
        empty_n++;
    printf("an empty directory: %d entries\n", empty_n);
    lseek(fd, 0, SEEK_SET);
    rmdir(p);
    z = syscall(SYS_getdents64, fd, big, sizeof(big));
    printf("the same removed: %ld %s\n", z, z < 0 ? strerrorname_np(errno) : "");
    DIR *gone = fdopendir(fd);
    printf("readdir of it: %s\n", gone && readdir(gone) == NULL ? "nothing" : "something");
    if (gone)
        closedir(gone);

    /* readdir with rewinddir, telldir and seekdir. */
    DIR *d = opendir(dir);
    int count = 0;
    long pos = -1;
    char at_pos[256] = "";
    struct dirent *e;
    while ((e = readdir(d))) {
        if (++count == 3) {
            pos = telldir(d);
        } else if (count == 4) {
            snprintf(at_pos, sizeof(at_pos), "%s", e->d_name);
        }
    }
    printf("readdir: %d entries\n", count);
    rewinddir(d);
    int again = 0;
    while (readdir(d))
        again++;
    printf("after rewinddir: %d entries\n", again);
    seekdir(d, pos);
    e = readdir(d);
    printf("seekdir to the saved position gives the same entry: %s\n",
           e && strcmp(e->d_name, at_pos) == 0 ? "yes" : "no");
    closedir(d);
    printf("opendir missing: %s\n", opendir("/nonexistent-dir") ? "opened" : strerrorname_np(errno));

    struct dirent **list;
    int n = scandir(dir, &list, no_dots, by_name);
    printf("scandir without dot files: %d\n", n);
    for (int i = 0; i < n; i++) {
        printf("  %s\n", list[i]->d_name);
        free(list[i]);
    }
    free(list);

    printf("nftw, depth first, physical:\n");
    nftw(dir, visit, 8, FTW_PHYS | FTW_DEPTH);

    /* Clean up, deepest first. */
    for (int i = (int)(sizeof(files) / sizeof(files[0])) - 1; i >= 0; i--) {
        snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
        unlink(p);
    }
    snprintf(p, sizeof(p), "%s/link", dir);
    unlink(p);
    snprintf(p, sizeof(p), "%s/pipe", dir);
    unlink(p);
    snprintf(p, sizeof(p), "%s/sub/deeper", dir);
    rmdir(p);
    snprintf(p, sizeof(p), "%s/sub", dir);
    rmdir(p);
    printf("removed: %s\n", rmdir(dir) == 0 ? "yes" : strerrorname_np(errno));
    return 0;
}
