/* Processes: fork/vfork/clone/clone3 and the ways of waiting for them.
 * Prints facts only (no pids), so the native run is the expected output. */
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    fork_pipe();
    killed_children();
    vfork_exit();
    wait4_rusage();
    wait_id();
    raw_clones();
    groups_sessions();
    return 0;
}
