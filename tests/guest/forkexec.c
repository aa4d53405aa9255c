/* Processes: fork/vfork/clone/clone3 and the ways of waiting for them.
 * Prints facts only (no pids), so the native run is the expected output. */
#include <errno.h>
#include <linux/sched.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static void show_status(const char *what, int st)
{
    if (WIFEXITED(st))
        printf("%s: exited %d\n", what, WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        printf("%s: killed by signal %d\n", what, WTERMSIG(st));
    else
        printf("%s: status %#x\n", what, st);
}

/* The result of a call and its errno, evaluated in that order. */
#define SHOW(label, call)                                                               \
    do {                                                                                \
        errno = 0;                                                                      \
        long r_ = (long)(call);                                                         \
        int e_ = errno;                                                                 \
        printf("%s: %ld %s\n", label, r_, r_ < 0 ? strerror(e_) : "");                   \
    } while (0)

static void fork_pipe(void)
{
    int p[2];
    if (pipe(p) != 0)
        return perror("pipe");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        const char msg[] = "hello through the pipe";
        if (write(p[1], msg, sizeof(msg) - 1) < 0)
            _exit(99);
        exit(7);
    }
    close(p[1]);
    char buf[64] = { 0 };
    ssize_t n, total = 0;
    while ((n = read(p[0], buf + total, sizeof(buf) - 1 - (size_t)total)) > 0)
        total += n;
    close(p[0]);
    printf("parent read: %s\n", buf);
    int st;
    printf("waitpid returns the child: %d\n", waitpid(pid, &st, 0) == pid);
    show_status("fork child", st);
}

static void killed_children(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
    int st;
    printf("WNOHANG while running: %d\n", waitpid(pid, &st, WNOHANG));
    printf("kill 0: %d\n", kill(pid, 0));
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    show_status("SIGKILLed child", st);

    pid = fork();
    if (pid == 0) {
        raise(SIGTERM);
        _exit(1);
    }
    waitpid(pid, &st, 0);
    show_status("child raising SIGTERM", st);

    pid = fork();
    if (pid == 0)
        abort();
    waitpid(pid, &st, 0);
    printf("aborting child: signaled %d sig %d\n", WIFSIGNALED(st), WTERMSIG(st));

    /* A signal sent the moment fork returns is the child's, not lost
     * while the child starts (ten times: a race when it is wrong). */
    int killed = 0;
    for (int i = 0; i < 10; i++) {
        pid = fork();
        if (pid == 0) {
            for (;;)
                pause();
        }
        kill(pid, SIGTERM);
        waitpid(pid, &st, 0);
        killed += WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM;
    }
    printf("children sent SIGTERM at once: %d of 10 killed by it\n", killed);
}

static void vfork_exit(void)
{
    pid_t pid = vfork();
    if (pid == 0)
        _exit(5);
    int st;
    waitpid(pid, &st, 0);
    show_status("vfork child", st);
}

static void wait4_rusage(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        volatile unsigned long x = 0;
        for (unsigned long i = 0; i < 3000000; i++)
            x += i;
        _exit(x == 0);
    }
    struct rusage ru;
    memset(&ru, 0xff, sizeof(ru));
    int st;
    pid_t r = wait4(pid, &st, 0, &ru);
    printf("wait4: returns the child %d, ", r == pid);
    show_status("status", st);
    printf("wait4 rusage: utime sane %d, stime sane %d, maxrss written %d\n",
           ru.ru_utime.tv_sec >= 0 && ru.ru_utime.tv_usec >= 0 && ru.ru_utime.tv_usec < 1000000,
           ru.ru_stime.tv_sec >= 0 && ru.ru_stime.tv_usec >= 0 && ru.ru_stime.tv_usec < 1000000,
           ru.ru_maxrss >= 0);
    SHOW("wait4 with no children", wait4(-1, NULL, 0, NULL));

    /* A bad status pointer: the child is reaped, the call fails with EFAULT. */
    pid = fork();
    if (pid == 0)
        _exit(0);
    SHOW("wait4 bad status pointer", syscall(SYS_wait4, pid, (int *)8, 0, NULL));
    SHOW("then the child is gone", waitpid(pid, NULL, WNOHANG));
}

static void wait_id(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(42);
    siginfo_t si;
    memset(&si, 0x5a, sizeof(si));
    int r = waitid(P_PID, (id_t)pid, &si, WEXITED);
    printf("waitid: %d signo SIGCHLD %d code CLD_EXITED %d status %d pid matches %d\n", r,
           si.si_signo == SIGCHLD, si.si_code == CLD_EXITED, si.si_status, si.si_pid == pid);

    pid = fork();
    if (pid == 0)
        for (;;)
            pause();
    memset(&si, 0x5a, sizeof(si));
    r = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG);
    printf("waitid WNOHANG running: %d signo %d pid %d\n", r, si.si_signo, si.si_pid);
    kill(pid, SIGKILL);
    r = waitid(P_ALL, 0, &si, WEXITED);
    printf("waitid P_ALL: %d code CLD_KILLED %d status %d\n", r, si.si_code == CLD_KILLED,
           si.si_status);
}

static void raw_clones(void)
{
    /* clone with CLONE_PARENT_SETTID: the parent's copy of the tid. */
    int ptid = 0;
    fflush(stdout);
    long pid = syscall(SYS_clone, CLONE_PARENT_SETTID | SIGCHLD, 0, &ptid, NULL, 0);
    if (pid == 0)
        syscall(SYS_exit_group, 3);
    int st;
    waitpid((pid_t)pid, &st, 0);
    printf("clone PARENT_SETTID stored the pid %d, ", ptid == pid);
    show_status("status", st);

    /* No exit signal: the parent must wait with __WALL. */
    pid = syscall(SYS_clone, 0, 0, NULL, NULL, 0);
    if (pid == 0)
        syscall(SYS_exit_group, 4);
    SHOW("waitpid without __WALL", waitpid((pid_t)pid, &st, 0));
    printf("waitpid __WALL finds it %d, ", waitpid((pid_t)pid, &st, __WALL) == pid);
    show_status("status", st);

    /* clone3 with CLONE_PIDFD, then waitid on the pidfd. */
    int pidfd = -1;
    struct clone_args ca;
    memset(&ca, 0, sizeof(ca));
    ca.flags = CLONE_PIDFD;
    ca.pidfd = (uint64_t)(uintptr_t)&pidfd;
    ca.exit_signal = SIGCHLD;
    pid = syscall(SYS_clone3, &ca, sizeof(ca));
    if (pid == 0)
        syscall(SYS_exit_group, 6);
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    int r = waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED);
    printf("clone3 pidfd %d, waitid P_PIDFD %d status %d\n", pidfd >= 0, r, si.si_status);
    close(pidfd);

    /* clone3's argument checks. */
    struct {
        struct clone_args a;
        uint64_t tail;
    } big;
    memset(&big, 0, sizeof(big));
    big.a.exit_signal = SIGCHLD;
    big.tail = 1;
    SHOW("clone3 size 32", syscall(SYS_clone3, &ca, 32));
    SHOW("clone3 size 8192", syscall(SYS_clone3, &ca, 8192));
    SHOW("clone3 bad pointer", syscall(SYS_clone3, (void *)8, sizeof(ca)));
    SHOW("clone3 non-zero tail", syscall(SYS_clone3, &big, sizeof(big)));
    memset(&ca, 0, sizeof(ca));
    ca.flags = CLONE_THREAD;
    SHOW("clone3 THREAD without SIGHAND", syscall(SYS_clone3, &ca, sizeof(ca)));
    memset(&ca, 0, sizeof(ca));
    ca.stack_size = 4096;
    SHOW("clone3 stack size without stack", syscall(SYS_clone3, &ca, sizeof(ca)));
    SHOW("clone SIGHAND without VM", syscall(SYS_clone, CLONE_SIGHAND | SIGCHLD, 0, NULL, NULL, 0));
}

static void groups_sessions(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(setpgid(0, 0) == 0 && getpgrp() == getpid() && getpgid(0) == getpid());
    int st;
    waitpid(pid, &st, 0);
    printf("child in its own process group: %d\n", WEXITSTATUS(st));
    pid = fork();
    if (pid == 0)
        _exit(setsid() == getpid() && getsid(0) == getpid() && setsid() < 0 && errno == EPERM);
    waitpid(pid, &st, 0);
    printf("child in its own session: %d\n", WEXITSTATUS(st));
    printf("getppid non-zero %d, getpgid(0) == getpgrp %d\n", getppid() != 0,
           getpgid(0) == getpgrp());
    printf("getsid(0) > 0: %d\n", getsid(0) > 0);
}

extern char **environ;

/* Run body in a child and show how the child ended. */
static void in_child(const char *what, void (*body)(void *), void *arg)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        body(arg);
        _exit(111);
    }
    int st;
    waitpid(pid, &st, 0);
    show_status(what, st);
}

static void exec_argv(void *arg)
{
    char *const *argv = arg;
    execve(argv[0], argv, environ);
    printf("execve %s failed: %s\n", argv[0], strerror(errno));
    fflush(stdout);
}

static void exec_with_env(void *arg)
{
    (void)arg;
    char *argv[] = { "zero-name", "-c", "echo \"argv0=$0 A=$A B=$B\"", NULL };
    char *envp[] = { "A=1", "B=two words", NULL };
    execve("/bin/sh", argv, envp);
}

static const char *dir;

static void write_file(const char *name, const char *text, mode_t mode)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0 || write(fd, text, strlen(text)) < 0)
        perror(path);
    close(fd);
    chmod(path, mode);
}

static void exec_script(void *arg)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, (const char *)arg);
    char *argv[] = { path, "one", "two", NULL };
    execve(path, argv, environ);
    printf("execve %s failed: %s\n", (const char *)arg, strerror(errno));
    fflush(stdout);
}

static void exec_fd(void *arg)
{
    int fd = open("/bin/echo", O_RDONLY | (arg ? O_CLOEXEC : 0));
    char *argv[] = { "echo", "from", "fexecve", arg ? "(close-on-exec fd)" : "", NULL };
    syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
    printf("execveat failed: %s\n", strerror(errno));
    fflush(stdout);
}

static void exec_dirfd(void *arg)
{
    int dfd = open("/bin", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *argv[] = { "echo", "relative", "to", "a", "directory", "fd", NULL };
    syscall(SYS_execveat, dfd, "echo", argv, environ, 0);
    printf("execveat failed: %s\n", strerror(errno));
    fflush(stdout);
}

/* execve that must fail; prints the errno. */
static void exec_fails(const char *what, const char *path, char *const argv[])
{
    errno = 0;
    int r = execve(path, argv, environ);
    printf("%s: %d %s\n", what, r, strerror(errno));
}

static void exec_tests(void)
{
    char *echo[] = { "/bin/echo", "echo", "says", "hi", NULL };
    in_child("exec of /bin/echo", exec_argv, echo);
    in_child("exec with argv[0] and envp", exec_with_env, NULL);

    char tmpl[] = "/tmp/forkexec.XXXXXX";
    dir = mkdtemp(tmpl);
    if (!dir)
        return perror("mkdtemp");
    write_file("script", "#!/bin/sh\necho \"script args: $1 $2\"\nexit 12\n", 0755);
    in_child("exec of a #! script", exec_script, "script");
    write_file("script_arg", "#!/bin/sh -e\necho \"with #! argument: $1 $2\"\nfalse\necho not here\n",
               0755);
    in_child("exec of a #! script with an argument", exec_script, "script_arg");
    /* Chains of #! scripts: five interpreters are followed, six are not
     * (chainN names chainN-1 as its interpreter, chain0 names /bin/sh). */
    write_file("chain0", "#!/bin/sh\necho \"end of the chain: ${1##*/} ${2##*/} ${3##*/}\"\n", 0755);
    for (int i = 1; i <= 6; i++) {
        char name[16], text[600];
        snprintf(name, sizeof(name), "chain%d", i);
        snprintf(text, sizeof(text), "#!%s/chain%d\n", dir, i - 1);
        write_file(name, text, 0755);
    }
    in_child("chain3", exec_script, "chain3");
    in_child("chain4", exec_script, "chain4");
    in_child("chain5", exec_script, "chain5");
    in_child("chain6", exec_script, "chain6");
    write_file("noexec", "#!/bin/sh\necho no\n", 0644);
    write_file("garbage", "this is no program\n", 0755);
    write_file("badinterp", "#!/nonexistent/interpreter\n", 0755);
    in_child("exec of garbage", exec_script, "garbage");
    in_child("exec of a script with a missing interpreter", exec_script, "badinterp");
    in_child("fexecve", exec_fd, NULL);
    in_child("fexecve close-on-exec", exec_fd, "");
    in_child("execveat relative to a directory fd", exec_dirfd, NULL);

    char *argv[] = { "x", NULL };
    exec_fails("execve of a missing file", "/nonexistent/program", argv);
    exec_fails("execve through a missing directory", "/bin/nonexistent/x", argv);
    exec_fails("execve of a directory", "/tmp", argv);
    char path[512];
    snprintf(path, sizeof(path), "%s/noexec", dir);
    exec_fails("execve without execute permission", path, argv);
    snprintf(path, sizeof(path), "%s/script/x", dir);
    exec_fails("execve through a file", path, argv);
    exec_fails("execve with an empty path", "", argv);
    SHOW("execve with a bad path pointer", syscall(SYS_execve, (char *)8, argv, environ));
    char *bad_argv[] = { "x", (char *)8, NULL };
    exec_fails("execve with a bad argv string", "/bin/true", bad_argv);
    SHOW("execve with a bad argv array", syscall(SYS_execve, "/bin/true", (char **)8, environ));
    SHOW("execve with a bad envp array", syscall(SYS_execve, "/bin/true", argv, (char **)8));
    char *long_name = malloc(5000);
    memset(long_name, 'n', 4999);
    long_name[4999] = 0;
    exec_fails("execve of a too long path", long_name, argv);
    free(long_name);
    char *big = malloc(200000);
    memset(big, 'a', 199999);
    big[199999] = 0;
    char *big_argv[] = { "x", big, NULL };
    exec_fails("execve with a 200000-byte argument", "/bin/true", big_argv);
    free(big);
    int fd = open("/bin/true", O_RDONLY | O_CLOEXEC);
    SHOW("execveat of an empty path without AT_EMPTY_PATH",
         syscall(SYS_execveat, fd, "", argv, environ, 0));
    SHOW("execveat with bad flags", syscall(SYS_execveat, AT_FDCWD, "/bin/true", argv, environ, 0x12345));
    SHOW("execveat AT_SYMLINK_NOFOLLOW of a symlink",
         syscall(SYS_execveat, AT_FDCWD, "/bin/sh", argv, environ, AT_SYMLINK_NOFOLLOW));
    SHOW("execveat with a bad dirfd", syscall(SYS_execveat, 12345, "x", argv, environ, 0));
    close(fd);
    snprintf(path, sizeof(path), "%s/script", dir);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    SHOW("execveat of a script through a close-on-exec fd",
         syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH));
    close(fd);

    const char *names[] = { "script", "script_arg", "chain0", "chain1", "chain2", "chain3",
                            "chain4", "chain5", "chain6", "noexec", "garbage", "badinterp" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static void spawn_tests(void)
{
    pid_t pid;
    int st;
    char *true_argv[] = { "true", NULL };
    fflush(stdout);
    int r = posix_spawn(&pid, "/bin/true", NULL, NULL, true_argv, environ);
    waitpid(pid, &st, 0);
    printf("posix_spawn /bin/true: %d, ", r);
    show_status("status", st);
    char *sh_argv[] = { "sh", "-c", "exit 3", NULL };
    r = posix_spawn(&pid, "/bin/sh", NULL, NULL, sh_argv, environ);
    waitpid(pid, &st, 0);
    printf("posix_spawn /bin/sh -c 'exit 3': %d, ", r);
    show_status("status", st);
    char *echo_argv[] = { "echo", "spawned", "through", "PATH", NULL };
    r = posix_spawnp(&pid, "echo", NULL, NULL, echo_argv, environ);
    waitpid(pid, &st, 0);
    printf("posix_spawnp echo: %d, ", r);
    show_status("status", st);

    st = system("echo hi | tr a-z A-Z");
    printf("system: ");
    show_status("status", st);
    st = system("exit 5");
    show_status("system(\"exit 5\")", st);

    FILE *p = popen("echo popen works; echo second line", "r");
    char line[128];
    while (p && fgets(line, sizeof(line), p))
        printf("popen read: %s", line);
    st = p ? pclose(p) : -1;
    show_status("pclose", st);
    p = popen("tr a-z A-Z", "w");
    if (p) {
        fputs("written through popen\n", p);
        fflush(stdout);
        show_status("pclose of a writer", pclose(p));
    }
}

/* i386's old waitpid call (7), which x86_64 does not have. */
static void raw_waitpid(void)
{
#ifdef __i386__
    pid_t pid = fork();
    if (pid == 0)
        _exit(21);
    int st = 0;
    printf("i386 waitpid returns the child: %d\n",
           (int)syscall(SYS_waitpid, pid, &st, 0) == pid);
    show_status("waitpid child", st);
    SHOW("waitpid no child", syscall(SYS_waitpid, -1, &st, 0));
    SHOW("waitpid bad options", syscall(SYS_waitpid, -1, &st, 0x7000));
    pid = fork();
    if (pid == 0)
        _exit(22);
    SHOW("waitpid bad status pointer (the child is reaped)",
         syscall(SYS_waitpid, pid, (int *)8, 0) == -1 && errno == EFAULT);
    SHOW("waitpid after it", syscall(SYS_waitpid, pid, &st, WNOHANG));
#endif
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    fork_pipe();
    killed_children();
    vfork_exit();
    wait4_rusage();
    wait_id();
    raw_waitpid();
    raw_clones();
    groups_sessions();
    exec_tests();
    spawn_tests();
    return 0;
}
