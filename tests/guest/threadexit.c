/* How a thread group ends, each case in a child process whose wait status
 * is printed: exit_group from a thread while main waits, exit of the
 * leader before the last thread (the group reports the leader's status), a
 * fault in a thread or in main while others run, fork from a thread while
 * others are blocked; and a raw clone() thread with the tid flags. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void report(const char *what, int status)
{
    if (WIFEXITED(status))
        printf("%-44s exited %d\n", what, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        printf("%-44s killed by %s\n", what, sigabbrev_np(WTERMSIG(status)));
    else
        printf("%-44s status %#x\n", what, status);
    fflush(stdout);
}

static void run(const char *what, void (*body)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        body();
        _exit(100);
    }
    int status;
    waitpid(pid, &status, 0);
    report(what, status);
}

static void *sleeper(void *arg)
{
    (void)arg;
    static uint32_t never;
    for (;;)
        syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    return NULL;
}

static void *group_exiter(void *arg)
{
    (void)arg;
    _exit(7); /* exit_group */
}

static void exit_group_from_thread(void)
{
    pthread_t t, s;
    pthread_create(&s, NULL, sleeper, NULL);
    pthread_create(&t, NULL, group_exiter, NULL);
    pthread_join(t, NULL);
}

static void *late_exiter(void *arg)
{
    (void)arg;
    struct timespec ts = { 0, 50 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    syscall(SYS_exit, 9); /* the last thread; not the group's status */
    return NULL;
}

static void leader_exits_first(void)
{
    pthread_t t;
    pthread_create(&t, NULL, late_exiter, NULL);
    syscall(SYS_exit, 3);
}

static void *faulter(void *arg)
{
    (void)arg;
    *(volatile int *)16 = 1;
    return NULL;
}

static void fault_in_thread(void)
{
    pthread_t t, s;
    pthread_create(&s, NULL, sleeper, NULL);
    pthread_create(&t, NULL, faulter, NULL);
    pthread_join(t, NULL);
}

static void fault_in_main(void)
{
    pthread_t s;
    pthread_create(&s, NULL, sleeper, NULL);
    *(volatile int *)16 = 1;
}

static int add_one(int v) { return v + 1; }
static void *child_worker(void *arg) { return (void *)(intptr_t)add_one((int)(intptr_t)arg); }

static void *forker(void *arg)
{
    (void)arg;
    pid_t pid = fork();
    if (pid == 0) {
        /* Only this thread came along; it can make threads of its own. */
        pthread_t t;
        void *ret;
        pthread_create(&t, NULL, child_worker, (void *)41);
        pthread_join(t, &ret);
        printf("  fork child of a thread: worker returned %ld\n", (long)(intptr_t)ret);
        exit(4);
    }
    int status;
    waitpid(pid, &status, 0);
    report("  its fork child", status);
    return NULL;
}

static void fork_from_thread(void)
{
    pthread_t t, s;
    pthread_create(&s, NULL, sleeper, NULL);
    pthread_create(&t, NULL, forker, NULL);
    pthread_join(t, NULL);
    exit(6);
}

/* A raw clone() thread: no TLS of its own, so it only makes raw syscalls.
 * As glibc does, one word receives the tid from both sides and is cleared
 * at exit (the parent's copy is there before either side runs on). */
static pid_t tidword;
static volatile int child_saw_tid;
static uint32_t go; /* the child ends only once the parent looked */

static int raw_thread(void *arg)
{
    (void)arg;
    child_saw_tid = tidword == (pid_t)syscall(SYS_gettid);
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
        syscall(SYS_futex, &go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    return 0; /* glibc's clone() then calls exit(2) */
}

static void raw_clone(void)
{
    static char stack[64 * 1024] __attribute__((aligned(16)));
    int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
                CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID;
    int tid = clone(raw_thread, stack + sizeof(stack), flags, NULL, &tidword, NULL, &tidword);
    int parent_saw = tidword == tid;
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &go, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    if (tid < 0) {
        printf("clone failed: %s\n", strerrorname_np(errno));
        return;
    }
    /* CLONE_CHILD_CLEARTID: the word goes to 0 and waiters are woken. */
    for (;;) {
        pid_t v = __atomic_load_n(&tidword, __ATOMIC_ACQUIRE);
        if (v == 0)
            break;
        syscall(SYS_futex, &tidword, FUTEX_WAIT, v, NULL, NULL, 0);
    }
    printf("raw clone: parent saw the tid %d, child saw its tid %d, cleared %d\n", parent_saw,
           child_saw_tid, tidword == 0);
    errno = 0;
    int r = clone(raw_thread, stack + sizeof(stack), CLONE_VM | CLONE_THREAD, NULL);
    printf("clone THREAD without SIGHAND: %d %s\n", r, strerrorname_np(errno));
    fflush(stdout);
}

int main(void)
{
    run("exit_group from a thread", exit_group_from_thread);
    run("leader exits before the last thread", leader_exits_first);
    run("fault in a thread", fault_in_thread);
    run("fault in main", fault_in_main);
    run("fork from a thread", fork_from_thread);
    raw_clone();
    return 0;
}
