/* The uid/gid calls by their plain numbers: on i386 SYS_getuid, SYS_chown,
 * SYS_getgroups... are the 16-bit calls (ids of 16 bits, 0xffff for -1,
 * ids above 65535 shown as the overflow id), on x86_64 the ordinary ones.
 * Run as root or not; every change happens in a forked child and the
 * results (ids, errno names) are compared with the native run. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __i386__
typedef uint16_t id_t16; /* old_uid_t */
#else
typedef uint32_t id_t16;
#endif

static void res(const char *what, long r)
{
    printf("%s: %s\n", what, r < 0 ? strerrorname_np(errno) : "ok");
}

static void show_ids(const char *when)
{
    id_t16 r = 7, e = 7, s = 7;
    long x = syscall(SYS_getresuid, &r, &e, &s);
    printf("%s: getuid %ld geteuid %ld getgid %ld getegid %ld getresuid %ld [%lu %lu %lu]", when,
           syscall(SYS_getuid), syscall(SYS_geteuid), syscall(SYS_getgid), syscall(SYS_getegid), x,
           (unsigned long)r, (unsigned long)e, (unsigned long)s);
    x = syscall(SYS_getresgid, &r, &e, &s);
    printf(" getresgid %ld [%lu %lu %lu]\n", x, (unsigned long)r, (unsigned long)e, (unsigned long)s);
}

static void in_child(void (*f)(void))
{
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        f();
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
}

static void groups(void)
{
    id_t16 g[64];
    long n = syscall(SYS_getgroups, 0, NULL);
    printf("getgroups(0) >= 0: %d\n", n >= 0);
    res("getgroups(1, g) when more", n > 1 ? syscall(SYS_getgroups, 1, g) : (errno = EINVAL, -1));
    id_t16 set[3] = { 5, 100, 7 };
    long r = syscall(SYS_setgroups, 3, set);
    res("setgroups 5 100 7", r);
    if (r == 0) {
        n = syscall(SYS_getgroups, 64, g);
        printf("getgroups -> %ld:", n);
        for (long i = 0; i < n; i++)
            printf(" %lu", (unsigned long)g[i]);
        printf("\n");
    }
    res("setgroups(-1)", syscall(SYS_setgroups, -1, set));
    res("setgroups bad list", syscall(SYS_setgroups, 2, (void *)16));
    res("getgroups bad list", syscall(SYS_getgroups, 64, (void *)16));
}

static void change(void)
{
    /* Upper bits of a 16-bit id argument are ignored on i386. */
    res("setresgid(-1, 0x10002, -1)", syscall(SYS_setresgid, (id_t16)-1, 0x10002, (id_t16)-1));
    show_ids("after setresgid");
    /* An id above 65535 set through the 32-bit call reads back as the
     * overflow id (65534) through the 16-bit calls. */
#ifdef __i386__
    res("setresgid32(-1, 70000, -1)", syscall(SYS_setresgid32, -1, 70000, -1));
#else
    res("setresgid32(-1, 70000, -1)", syscall(SYS_setresgid, -1, 70000, -1));
#endif
    show_ids("after setresgid32");
    res("setregid(-1, 3)", syscall(SYS_setregid, (id_t16)-1, 3));
    res("setresuid(-1, 1000, -1)", syscall(SYS_setresuid, (id_t16)-1, 1000, (id_t16)-1));
    show_ids("after setresuid");
    printf("setfsuid(-1) = %ld\n", syscall(SYS_setfsuid, (id_t16)-1));
    printf("setfsgid(-1) = %ld\n", syscall(SYS_setfsgid, (id_t16)-1));
    res("setuid(1000)", syscall(SYS_setuid, 1000));
    res("setgid(2)", syscall(SYS_setgid, 2));
    show_ids("after setuid");
    res("getresuid bad pointer", syscall(SYS_getresuid, (void *)16, (void *)16, (void *)16));
}

static void owners(void)
{
    char path[] = "/tmp/uid16.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return;
    struct stat st;
    res("fchown(fd, 1234, 0xffff)", syscall(SYS_fchown, fd, 1234, (id_t16)-1));
    fstat(fd, &st);
    printf("owner %lu:%lu\n", (unsigned long)st.st_uid, (unsigned long)st.st_gid == getgid());
    res("chown(path, 0xffff, 77)", syscall(SYS_chown, path, (id_t16)-1, 77));
    stat(path, &st);
    printf("owner %lu:%lu\n", (unsigned long)st.st_uid, (unsigned long)st.st_gid);
    res("lchown(path, 0x10005, 0x10006)", syscall(SYS_lchown, path, 0x10005, 0x10006));
    stat(path, &st);
    printf("owner %lu:%lu\n", (unsigned long)st.st_uid, (unsigned long)st.st_gid);
    /* An owner above 65535 reads back as the overflow id through stat64
     * here (stat64 is 32-bit), as plain numbers through getuid. */
    res("chown bad path", syscall(SYS_chown, (void *)16, 1, 1));
    close(fd);
    unlink(path);
}

int main(void)
{
    show_ids("start");
    in_child(groups);
    in_child(change);
    in_child(owners);
    return 0;
}
