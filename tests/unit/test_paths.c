/* Guest path translation (syscalls/paths.c): which /proc spellings name the
 * emulator's own views, and -L root lookups with the host fallback, the
 * current directory inside the root and getcwd's guest view. */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "syscalls/paths.h"
#include "syscalls/procfs.h"

static int proc_of(const char *guest, int flags, int *tid, char *path, size_t size)
{
    struct host_path hp;
    ck_assert_int_eq(path_resolve(NULL, AT_FDCWD, guest, flags, &hp), 0);
    *tid = hp.tid;
    snprintf(path, size, "%s", hp.path);
    return hp.proc;
}

START_TEST(proc_spellings)
{
    paths_init(NULL);
    sys_set_exe("/some/guest/program");
    char p[PATH_MAX], want[PATH_MAX];
    int tid;
    ck_assert_int_eq(proc_of("/proc/self/maps", 0, &tid, p, sizeof(p)), PROCFS_MAPS);
    ck_assert_int_eq(tid, 0);
    snprintf(want, sizeof(want), "/proc/%d/maps", (int)getpid());
    ck_assert_str_eq(p, want);
    ck_assert_int_eq(proc_of(want, 0, &tid, p, sizeof(p)), PROCFS_MAPS);
    ck_assert_int_eq(proc_of("/proc/thread-self/auxv", 0, &tid, p, sizeof(p)), PROCFS_AUXV);
    ck_assert_int_eq(tid, gettid());
    ck_assert_int_eq(proc_of("//proc/./self//task/../cmdline", 0, &tid, p, sizeof(p)),
                     PROCFS_CMDLINE);
    ck_assert_int_eq(proc_of("/proc/self/status", 0, &tid, p, sizeof(p)), PROCFS_STATUS);
    ck_assert_int_eq(proc_of("/proc/self/statm", 0, &tid, p, sizeof(p)), PROCFS_STATM);
    /* exe: followed, the guest program; not followed, the link itself */
    ck_assert_int_eq(proc_of("/proc/self/exe", 0, &tid, p, sizeof(p)), PROCFS_EXE);
    ck_assert_str_eq(p, "/some/guest/program");
    ck_assert_int_eq(proc_of("/proc/self/exe", PATH_NOFOLLOW, &tid, p, sizeof(p)), PROCFS_EXE);
    snprintf(want, sizeof(want), "/proc/%d/exe", (int)getpid());
    ck_assert_str_eq(p, want);
    /* the host's: other files, other processes, `..` after a magic link */
    ck_assert_int_eq(proc_of("/proc/self/limits", 0, &tid, p, sizeof(p)), PROCFS_NONE);
    ck_assert_str_eq(p, "/proc/self/limits");
    ck_assert_int_eq(proc_of("/proc/self/maps/x", 0, &tid, p, sizeof(p)), PROCFS_NONE);
    ck_assert_int_eq(proc_of("/proc/self/cwd/../maps", 0, &tid, p, sizeof(p)), PROCFS_NONE);
    ck_assert_int_eq(proc_of("/proc/self/task/999999999/maps", 0, &tid, p, sizeof(p)),
                     PROCFS_NONE);
    if (getppid() != getpid())
        ck_assert_int_eq(proc_of("/proc/1/maps", 0, &tid, p, sizeof(p)),
                         getpid() == 1 ? PROCFS_MAPS : PROCFS_NONE);
    ck_assert_int_eq(proc_of("relative/path", 0, &tid, p, sizeof(p)), PROCFS_NONE);
    ck_assert_str_eq(p, "relative/path");
}
END_TEST

START_TEST(root_rules)
{
    char dir[] = "/tmp/elfemu-paths-XXXXXX", root[PATH_MAX], p[PATH_MAX + 64], old[PATH_MAX];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(realpath(dir, root));
    snprintf(p, sizeof(p), "%s/etc", root);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/only", root);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/etc/hostname", root);
    close(open(p, O_CREAT | O_WRONLY, 0644));
    paths_init(root);
    struct host_path hp;
    char want[PATH_MAX + 64];
    /* in the root first */
    ck_assert_int_eq(path_resolve(NULL, AT_FDCWD, "/etc/hostname", 0, &hp), 0);
    snprintf(want, sizeof(want), "%s/etc/hostname", root);
    ck_assert_str_eq(hp.path, want);
    /* missing there: the host's, when the host has the directory */
    ck_assert_int_eq(path_resolve(NULL, AT_FDCWD, "/etc/elfemu-no-such-file", 0, &hp), 0);
    ck_assert_str_eq(hp.path, "/etc/elfemu-no-such-file");
    /* a new name in a directory only the root has: inside the root */
    ck_assert_int_eq(path_resolve(NULL, AT_FDCWD, "/only/new", 0, &hp), 0);
    snprintf(want, sizeof(want), "%s/only/new", root);
    ck_assert_str_eq(hp.path, want);
    /* /proc, /dev, /sys are never the root's */
    ck_assert_int_eq(path_resolve(NULL, AT_FDCWD, "/dev/null", 0, &hp), 0);
    ck_assert_str_eq(hp.path, "/dev/null");
    ck_assert_int_eq(path_resolve(NULL, AT_FDCWD, "//etc/hostname", 0, &hp), 0);
    snprintf(want, sizeof(want), "%s/etc/hostname", root);
    ck_assert_str_eq(hp.path, want);
    /* a relative path from a directory inside the root: `..` stops at it */
    ck_assert_ptr_nonnull(getcwd(old, sizeof(old)));
    snprintf(p, sizeof(p), "%s/only", root);
    ck_assert_int_eq(chdir(p), 0);
    path_cwd_changed();
    ck_assert_int_eq(path_resolve(NULL, AT_FDCWD, "../../../../etc/hostname", 0, &hp), 0);
    snprintf(want, sizeof(want), "%s/etc/hostname", root);
    ck_assert_str_eq(hp.path, want);
    char cwd[PATH_MAX];
    ck_assert_int_eq(path_getcwd(cwd, sizeof(cwd)), 6);
    ck_assert_str_eq(cwd, "/only");
    ck_assert_int_eq(path_getcwd(cwd, 5), -ERANGE);
    ck_assert_str_eq(path_guest_view(root), "/");
    ck_assert_int_eq(chdir(old), 0);
    path_cwd_changed();
    /* a relative path from a host directory is the host's */
    ck_assert_int_eq(path_resolve(NULL, AT_FDCWD, "x/../y", 0, &hp), 0);
    ck_assert_str_eq(hp.path, "x/../y");
    paths_init(NULL);
    snprintf(p, sizeof(p), "%s/etc/hostname", root);
    unlink(p);
    snprintf(p, sizeof(p), "%s/etc", root);
    rmdir(p);
    snprintf(p, sizeof(p), "%s/only", root);
    rmdir(p);
    rmdir(root);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("paths");
    TCase *t = tcase_create("paths");
    tcase_add_test(t, proc_spellings);
    tcase_add_test(t, root_rules);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
