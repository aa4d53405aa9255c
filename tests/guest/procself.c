/* /proc/self views: exe, maps, auxv, cmdline, environ, stat, status, fd,
 * reached as /proc/self, /proc/<pid>, /proc/thread-self and
 * /proc/self/task/<tid>, by absolute and relative paths.  Prints facts
 * only (no addresses or pids), so the output is the same natively and
 * under elfemu.  Built with glibc and, when musl-gcc exists, with musl. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static char buf[1 << 20], buf2[1 << 20];

static void check(const char *what, int ok)
{
    printf("%-50s %s\n", what, ok ? "yes" : "NO");
}

/* The whole file at path (raw open/read: no allocation between reads). */
static ssize_t slurp_at(int dirfd, const char *path, char *out, size_t size)
{
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = 0;
    ssize_t r;
    while (n < size - 1 && (r = read(fd, out + n, size - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    out[n] = 0;
    return (ssize_t)n;
}

static ssize_t slurp(const char *path, char *out, size_t size)
{
    return slurp_at(AT_FDCWD, path, out, size);
}

/* The maps line containing addr (copied to line), or 0. */
static int find_map(const char *maps, uintptr_t addr, char *line, size_t size)
{
    for (const char *p = maps; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        unsigned long lo, hi;
        if (sscanf(p, "%lx-%lx", &lo, &hi) == 2 && addr >= lo && addr < hi) {
            snprintf(line, size, "%.*s", (int)len, p);
            return 1;
        }
        p += len + (nl ? 1 : 0);
    }
    return 0;
}

/* Every line in the kernel's format; the name (if any) at column 73. */
static int maps_format_ok(const char *maps, unsigned long *total)
{
    *total = 0;
    int lines = 0;
    for (const char *p = maps; *p;) {
        const char *nl = strchr(p, '\n');
        if (!nl)
            return 0;
        unsigned long lo, hi, off, ino;
        char perms[8];
        unsigned maj, min;
        int pos = 0;
        if (sscanf(p, "%lx-%lx %7s %lx %x:%x %lu%n", &lo, &hi, perms, &off, &maj, &min, &ino,
                   &pos) != 7 || strlen(perms) != 4 || lo >= hi || p[pos] != ' ')
            return 0;
        while (p + pos < nl && p[pos] == ' ')
            pos++;
        if (p + pos < nl && pos != 73) /* a name starts at column 73 */
            return 0;
        /* The vsyscall page is no mapping of the process (not in vsize). */
        const char *vs = strstr(p, "[vsyscall]");
        if (!vs || vs > nl)
            *total += hi - lo;
        lines++;
        p = nl + 1;
    }
    return lines > 3;
}

static unsigned long stat_field(const char *stat, int n)
{
    const char *p = strrchr(stat, ')');
    if (!p)
        return 0;
    p += 2;
    for (int f = 3; f < n; f++) {
        p = strchr(p, ' ');
        if (!p)
            return 0;
        p++;
    }
    return strtoul(p, NULL, 10);
}

/* The same views from a second thread: thread-self is its own task. */
static char real_exe[PATH_MAX];
static char tbuf[1 << 16], tbuf2[1 << 16], tline[256];
static int thread_ok[4];

static void *second_thread(void *arg)
{
    (void)arg;
    ssize_t n = readlink("/proc/thread-self/exe", tline, sizeof(tline) - 1);
    tline[n > 0 ? n : 0] = 0;
    thread_ok[0] = n > 0 && !strcmp(tline, real_exe);
    n = slurp("/proc/thread-self/maps", tbuf, sizeof(tbuf));
    thread_ok[1] = n > 0 && slurp("/proc/self/maps", tbuf2, sizeof(tbuf2)) == n &&
                   !memcmp(tbuf, tbuf2, (size_t)n);
    snprintf(tline, sizeof(tline), "/proc/self/task/%d/stat", (int)gettid());
    n = slurp(tline, tbuf2, sizeof(tbuf2));
    thread_ok[2] = n > 0 && atoi(tbuf2) == gettid() && gettid() != getpid();
    n = slurp("/proc/thread-self/stat", tbuf, sizeof(tbuf));
    thread_ok[3] = n > 0 && atoi(tbuf) == gettid();
    snprintf(tline, sizeof(tline), "/proc/%d/stat", (int)gettid());
    n = slurp(tline, tbuf, sizeof(tbuf));
    thread_ok[3] &= n > 0 && atoi(tbuf) == gettid();
    return NULL;
}

/* After main's execve of /proc/self/exe: the same program runs again. */
static int reexec_child(int argc, char **argv)
{
    struct stat st;
    check("re-exec through /proc/self/exe: same program",
          stat("/proc/self/exe", &st) == 0 && (unsigned long)st.st_ino == strtoul(argv[2], NULL, 10));
    ssize_t n = slurp("/proc/self/cmdline", buf, sizeof(buf));
    check("re-exec: cmdline is the new argv",
          argc == 3 && n == (ssize_t)(strlen(argv[0]) + strlen(argv[1]) + strlen(argv[2]) + 3) &&
              !strcmp(buf, "procself-again"));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "reexec-child"))
        return reexec_child(argc, argv);
    if (argc == 2 && !strcmp(argv[1], "--maps")) { /* for e2e/sysroot.sh */
        ssize_t n = slurp("/proc/self/maps", buf, sizeof(buf));
        fwrite(buf, 1, n > 0 ? (size_t)n : 0, stdout);
        return n > 0 ? 0 : 1;
    }
    char self[PATH_MAX], real[PATH_MAX];
    int local = 0;
    if (!realpath(argv[0], real)) {
        perror("realpath");
        return 1;
    }
    const char *base = strrchr(real, '/') + 1;

    /* exe */
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = 0;
    check("readlink /proc/self/exe is the program", n > 0 && !strcmp(self, real));
    struct stat a, b;
    check("stat /proc/self/exe is the program",
          stat("/proc/self/exe", &a) == 0 && stat(argv[0], &b) == 0 && a.st_ino == b.st_ino &&
              a.st_dev == b.st_dev);
    check("lstat /proc/self/exe is a symlink",
          lstat("/proc/self/exe", &a) == 0 && S_ISLNK(a.st_mode));
    n = slurp("/proc/self/exe", buf, 64);
    slurp(argv[0], buf2, 64);
    check("open /proc/self/exe reads the program", n == 63 && !memcmp(buf, buf2, 63) &&
                                                      !memcmp(buf, ELFMAG, SELFMAG));
    char line[512];
    snprintf(line, sizeof(line), "/proc/%d/exe", (int)getpid());
    n = readlink(line, self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = 0;
    check("readlink /proc/<pid>/exe is the program", n > 0 && !strcmp(self, real));
    n = readlink("/proc/thread-self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = 0;
    check("readlink /proc/thread-self/exe is the program", n > 0 && !strcmp(self, real));
    n = readlink("/proc/self/exe", self, 4);
    check("readlink truncates to the buffer", n == 4 && !memcmp(self, real, 4));
    errno = 0;
    check("open /proc/self/exe O_NOFOLLOW is ELOOP",
          open("/proc/self/exe", O_RDONLY | O_NOFOLLOW) < 0 && errno == ELOOP);

    /* maps */
    free(malloc(100)); /* a [heap] */
    n = slurp("/proc/self/maps", buf, sizeof(buf));
    unsigned long total;
    check("maps has the kernel's format", n > 0 && maps_format_ok(buf, &total));
    check("maps names the program", strstr(buf, real) != NULL);
    check("maps has [stack]", strstr(buf, "[stack]") != NULL);
    check("maps has [vdso]", strstr(buf, "[vdso]") != NULL);
    check("maps has [heap]", strstr(buf, "[heap]") != NULL);
    int found = find_map(buf, (uintptr_t)&local, line, sizeof(line));
    check("a local variable lies in [stack]", found && strstr(line, "[stack]") != NULL);
    check("[stack] is rw-p", found && strstr(line, " rw-p ") != NULL);
    found = find_map(buf, (uintptr_t)&main, line, sizeof(line));
    check("main lies in an r-xp mapping of the program",
          found && strstr(line, " r-xp ") && strstr(line, real));
    snprintf(line, sizeof(line), "/proc/%d/maps", (int)getpid());
    n = slurp(line, buf2, sizeof(buf2));
    check("/proc/<pid>/maps is the same", n > 0 && !strcmp(buf, buf2));
    n = slurp("/proc/thread-self/maps", buf2, sizeof(buf2));
    check("/proc/thread-self/maps is the same", n > 0 && !strcmp(buf, buf2));
    snprintf(line, sizeof(line), "/proc/self/task/%d/maps", (int)gettid());
    n = slurp(line, buf2, sizeof(buf2));
    check("/proc/self/task/<tid>/maps is the same", n > 0 && !strcmp(buf, buf2));
    n = slurp("/proc/self/task/../maps", buf2, sizeof(buf2));
    check("/proc/self/task/../maps is the same", n > 0 && !strcmp(buf, buf2));

    /* reading it piecewise: lseek, pread, fstat */
    int fd = open("/proc/self/maps", O_RDONLY);
    char piece[16];
    check("pread of maps at 5", fd >= 0 && pread(fd, piece, 10, 5) == 10 &&
                                    !memcmp(piece, buf + 5, 10));
    check("lseek + read of maps", lseek(fd, 3, SEEK_SET) == 3 && read(fd, piece, 8) == 8 &&
                                      !memcmp(piece, buf + 3, 8));
    check("fstat of maps is a 0444 regular file",
          fstat(fd, &a) == 0 && S_ISREG(a.st_mode) && (a.st_mode & 07777) == 0444);
    errno = 0;
    check("write to maps fails with EBADF", write(fd, "x", 1) < 0 && errno == EBADF);
    close(fd);
    /* Writing: allowed to open for root only, then EINVAL (as the host says). */
    errno = 0;
    fd = open("/proc/self/maps", O_WRONLY);
    int open_errno = errno;
    errno = 0;
    ssize_t w = fd >= 0 ? write(fd, "x", 1) : 0;
    printf("%-50s %s, write %s\n", "open maps O_WRONLY:", fd >= 0 ? "ok" : strerror(open_errno),
           fd >= 0 ? (w < 0 ? strerror(errno) : "ok") : "-");
    if (fd >= 0)
        close(fd);
    errno = 0;
    fd = open("/proc/self/status", O_RDONLY | O_CREAT | O_EXCL, 0644);
    printf("%-50s %s\n", "open status O_CREAT|O_EXCL:", fd >= 0 ? "ok" : strerror(errno));
    if (fd >= 0)
        close(fd);
    errno = 0;
    check("open maps O_DIRECTORY is ENOTDIR",
          open("/proc/self/maps", O_RDONLY | O_DIRECTORY) < 0 && errno == ENOTDIR);
    check("stat of maps is a 0444 regular file",
          stat("/proc/self/maps", &a) == 0 && S_ISREG(a.st_mode) && (a.st_mode & 0777) == 0444);

    /* auxv */
    n = slurp("/proc/self/auxv", buf, sizeof(buf));
    int auxv_ok = n > 0 && n % 16 == 0, pagesz = 0, entry = 0, nulls = 0;
    for (ssize_t i = 0; auxv_ok && i < n; i += 16) {
        uint64_t t, v;
        memcpy(&t, buf + i, 8);
        memcpy(&v, buf + i + 8, 8);
        if (t == AT_NULL) {
            nulls++;
            auxv_ok = i + 16 == n;
            break;
        }
        if (t == AT_PAGESZ)
            pagesz = v == 4096;
        if (t == AT_ENTRY)
            entry = v == getauxval(AT_ENTRY);
        /* glibc answers AT_HWCAP(2) from its own cpu feature words. */
        if (t != AT_IGNORE && t != AT_HWCAP && t != AT_HWCAP2 && getauxval(t) != v)
            auxv_ok = 0;
    }
    check("auxv pairs equal getauxval()", auxv_ok && nulls == 1);
    check("auxv AT_PAGESZ is 4096", pagesz);
    check("auxv AT_ENTRY is the program's entry", entry);
    snprintf(line, sizeof(line), "/proc/self/task/%d/auxv", (int)gettid());
    check("/proc/self/task/<tid>/auxv is the same",
          slurp(line, buf2, sizeof(buf2)) == n && !memcmp(buf, buf2, (size_t)n));

    /* cmdline, environ */
    n = slurp("/proc/self/cmdline", buf, sizeof(buf));
    size_t len = 0;
    for (int i = 0; i < argc; i++) {
        memcpy(buf2 + len, argv[i], strlen(argv[i]) + 1);
        len += strlen(argv[i]) + 1;
    }
    check("cmdline is argv", n == (ssize_t)len && !memcmp(buf, buf2, len));
    n = slurp("/proc/self/environ", buf, sizeof(buf));
    len = 0;
    for (char **e = environ; *e && len < sizeof(buf2) - 4096; e++) {
        memcpy(buf2 + len, *e, strlen(*e) + 1);
        len += strlen(*e) + 1;
    }
    check("environ is the environment", n == (ssize_t)len && !memcmp(buf, buf2, len));

    /* stat, status */
    char maps[1 << 16];
    slurp("/proc/self/maps", maps, sizeof(maps));
    maps_format_ok(maps, &total);
    n = slurp("/proc/self/stat", buf, sizeof(buf));
    char comm[32];
    snprintf(comm, sizeof(comm), "(%.15s)", base);
    check("stat has the program's name", n > 0 && strstr(buf, comm) != NULL);
    check("stat vsize is the mappings' total", stat_field(buf, 23) == total);
    check("stat arg_start is argv[0]", stat_field(buf, 48) == (unsigned long)argv[0]);
    check("stat env_start is environ[0]",
          !environ[0] || stat_field(buf, 50) == (unsigned long)environ[0]);
    found = find_map(maps, stat_field(buf, 28), line, sizeof(line));
    check("stat startstack lies in [stack]", found && strstr(line, "[stack]") != NULL);
    found = find_map(maps, stat_field(buf, 26), line, sizeof(line));
    check("stat startcode lies in the program", found && strstr(line, real) != NULL);
    n = slurp("/proc/self/status", buf, sizeof(buf));
    snprintf(comm, sizeof(comm), "Name:\t%.15s\n", base);
    check("status has the program's name", n > 0 && strstr(buf, comm) != NULL);
    const char *vm = strstr(buf, "VmSize:");
    check("status VmSize is the mappings' total", vm && strtoul(vm + 7, NULL, 10) == total / 1024);
    n = slurp("/proc/self/statm", buf, sizeof(buf));
    unsigned long sm[7];
    check("statm size is the mappings' total in pages",
          n > 0 && sscanf(buf, "%lu %lu %lu %lu %lu %lu %lu", &sm[0], &sm[1], &sm[2], &sm[3],
                          &sm[4], &sm[5], &sm[6]) == 7 && sm[0] == total / 4096 && sm[4] == 0 &&
              sm[1] >= sm[2] && sm[3] > 0);

    /* fd */
    fd = open(argv[0], O_RDONLY);
    snprintf(line, sizeof(line), "/proc/self/fd/%d", fd);
    n = readlink(line, self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = 0;
    check("readlink /proc/self/fd/N names the file", n > 0 && !strcmp(self, real));
    DIR *d = opendir("/proc/self/fd");
    int seen = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        seen |= atoi(de->d_name) == fd;
    check("/proc/self/fd lists the descriptor", seen);
    if (d)
        closedir(d);
    close(fd);

    /* from a second thread */
    strcpy(real_exe, real);
    pthread_t th;
    if (pthread_create(&th, NULL, second_thread, NULL) == 0)
        pthread_join(th, NULL);
    check("thread: readlink /proc/thread-self/exe", thread_ok[0]);
    check("thread: /proc/thread-self/maps is the process's", thread_ok[1]);
    check("thread: /proc/self/task/<its tid>/stat is its own", thread_ok[2]);
    check("thread: thread-self/stat, /proc/<tid>/stat", thread_ok[3]);

    /* relative to a /proc directory */
    int dir = open("/proc/self", O_RDONLY | O_DIRECTORY);
    n = slurp_at(dir, "cmdline", buf2, sizeof(buf2));
    slurp("/proc/self/cmdline", buf, sizeof(buf));
    check("openat(/proc/self fd, cmdline) is the guest's", n > 0 && !memcmp(buf, buf2, (size_t)n));
    n = readlinkat(dir, "exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = 0;
    check("readlinkat(/proc/self fd, exe) is the program", n > 0 && !strcmp(self, real));
    close(dir);
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof(cwd)) && chdir("/proc/self/task") == 0) {
        snprintf(line, sizeof(line), "%d/auxv", (int)gettid());
        n = slurp(line, buf2, sizeof(buf2));
        slurp("/proc/self/auxv", buf, sizeof(buf));
        check("auxv relative to cwd /proc/self/task", n > 0 && !memcmp(buf, buf2, (size_t)n));
        check("chdir back", chdir(cwd) == 0);
    }

    /* run again through /proc/self/exe */
    struct stat me;
    char ino[32];
    stat(argv[0], &me);
    snprintf(ino, sizeof(ino), "%lu", (unsigned long)me.st_ino);
    fflush(stdout);
    execl("/proc/self/exe", "procself-again", "reexec-child", ino, (char *)NULL);
    printf("execl /proc/self/exe: %s\n", strerror(errno));
    return 1;
}
