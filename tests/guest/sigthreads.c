/* Signals and threads, compared with the native run: a signal sent to one
 * thread runs its handler on that thread and interrupts the call it is
 * blocked in (read, sem_wait), with and without SA_RESTART; a signal sent
 * to the process goes to the thread that does not block it; sigwait in a
 * dedicated thread; masks are per thread and inherited by new threads;
 * pthread_cancel of threads blocked in read and in a condition wait; a
 * fault in a thread is handled on that thread; exit from a thread ends the
 * process.  Only relations are printed ("on the target thread"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t gettid_(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static volatile pid_t handler_tid;
static volatile int handler_runs;

static void on_sig(int sig)
{
    (void)sig;
    handler_tid = gettid_();
    handler_runs++;
}

static void install(int sig, int flags)
{
    struct sigaction sa = { .sa_handler = on_sig, .sa_flags = flags };
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* Wait until the thread with tid is asleep in the kernel (state S). */
static void wait_sleeping(pid_t tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
    for (int i = 0; i < 5000; i++) {
        FILE *f = fopen(path, "r");
        if (f) {
            size_t n = fread(buf, 1, sizeof(buf) - 1, f);
            fclose(f);
            buf[n] = 0;
            char *p = strrchr(buf, ')');
            if (p && p[1] == ' ' && p[2] == 'S')
                return;
        }
        usleep(1000);
    }
}

/* ------------------------------------------------------------ a blocked read */

static int pipe_fds[2];
static volatile pid_t reader_tid;

static void *reader(void *arg)
{
    reader_tid = gettid_();
    char c;
    ssize_t r = read(pipe_fds[0], &c, 1);
    int e = errno;
    intptr_t out = r < 0 ? -e : r;
    (void)arg;
    return (void *)out;
}

static void blocked_read(int flags, const char *what)
{
    install(SIGUSR1, flags);
    handler_runs = 0;
    if (pipe(pipe_fds) != 0)
        return;
    pthread_t t;
    reader_tid = 0;
    pthread_create(&t, NULL, reader, NULL);
    while (!reader_tid)
        usleep(100);
    wait_sleeping(reader_tid);
    pthread_kill(t, SIGUSR1);
    /* With SA_RESTART the read goes on: give it its byte. */
    if (flags & SA_RESTART) {
        while (!handler_runs)
            usleep(100);
        wait_sleeping(reader_tid);
        write(pipe_fds[1], "x", 1);
    }
    void *res;
    pthread_join(t, &res);
    intptr_t r = (intptr_t)res;
    printf("%s: handler ran %d time(s) %s; read returned %s\n", what, handler_runs,
           handler_tid == reader_tid ? "on the target thread" : "ON ANOTHER THREAD",
           r < 0 ? strerrorname_np((int)-r) : r == 1 ? "its byte" : "?");
    close(pipe_fds[0]);
    close(pipe_fds[1]);
}

/* ------------------------------------------------------------ sem_wait */

static sem_t sem;
static volatile pid_t waiter_tid;

static void *sem_waiter(void *arg)
{
    (void)arg;
    waiter_tid = gettid_();
    int r = sem_wait(&sem);
    return (void *)(intptr_t)(r < 0 ? -errno : 0);
}

static void blocked_sem(void)
{
    install(SIGUSR1, SA_RESTART);
    handler_runs = 0;
    sem_init(&sem, 0, 0);
    pthread_t t;
    waiter_tid = 0;
    pthread_create(&t, NULL, sem_waiter, NULL);
    while (!waiter_tid)
        usleep(100);
    wait_sleeping(waiter_tid);
    pthread_kill(t, SIGUSR1);
    while (!handler_runs)
        usleep(100);
    sem_post(&sem); /* in case sem_wait went on waiting */
    void *res;
    pthread_join(t, &res);
    printf("sem_wait interrupted: handler %s, sem_wait %s\n",
           handler_tid == waiter_tid ? "on the target thread" : "ON ANOTHER THREAD",
           (intptr_t)res < 0 ? strerrorname_np((int)-(intptr_t)res) : "0");
    sem_destroy(&sem);
}

/* ------------------------------------------------------------ cond_wait, futex */

static pthread_mutex_t cw_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cw_cv = PTHREAD_COND_INITIALIZER;
static volatile int cw_go;

static void *cond_waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&cw_mu);
    waiter_tid = gettid_();
    int wakeups = 0;
    while (!cw_go) {
        pthread_cond_wait(&cw_cv, &cw_mu);
        wakeups++;
    }
    pthread_mutex_unlock(&cw_mu);
    return NULL;
}

/* A raw FUTEX_WAIT: -EINTR after a handler, whatever SA_RESTART says. */
static uint32_t fword;

static void *futex_waiter(void *arg)
{
    (void)arg;
    waiter_tid = gettid_();
    long r = syscall(SYS_futex, &fword, 128 /* FUTEX_WAIT_PRIVATE */, 0, NULL, NULL, 0);
    return (void *)(intptr_t)(r < 0 ? -errno : r);
}

static void blocked_cond_futex(int flags, const char *what)
{
    install(SIGUSR1, flags);
    handler_runs = 0;
    cw_go = 0;
    waiter_tid = 0;
    pthread_t t;
    pthread_create(&t, NULL, cond_waiter, NULL);
    while (!waiter_tid)
        usleep(100);
    wait_sleeping(waiter_tid);
    pthread_kill(t, SIGUSR1);
    while (!handler_runs)
        usleep(100);
    pthread_mutex_lock(&cw_mu);
    cw_go = 1;
    pthread_cond_signal(&cw_cv);
    pthread_mutex_unlock(&cw_mu);
    pthread_join(t, NULL);
    printf("pthread_cond_wait, %s: handler %s, %d run(s), the wait ended normally\n", what,
           handler_tid == waiter_tid ? "on the target thread" : "ON ANOTHER THREAD",
           handler_runs);

    handler_runs = 0;
    waiter_tid = 0;
    fword = 0;
    pthread_create(&t, NULL, futex_waiter, NULL);
    while (!waiter_tid)
        usleep(100);
    wait_sleeping(waiter_tid);
    pthread_kill(t, SIGUSR1);
    while (!handler_runs)
        usleep(100);
    if (flags & SA_RESTART)
        wait_sleeping(waiter_tid); /* waiting again, for the same value */
    fword = 1;
    syscall(SYS_futex, &fword, 129 /* FUTEX_WAKE_PRIVATE */, 1, NULL, NULL, 0);
    void *res;
    pthread_join(t, &res);
    printf("FUTEX_WAIT, %s: handler %s, futex %s\n", what,
           handler_tid == waiter_tid ? "on the target thread" : "ON ANOTHER THREAD",
           (intptr_t)res < 0 ? strerrorname_np((int)-(intptr_t)res) : "0");
}

/* ------------------------------------------------------------ process-directed */

static volatile pid_t open_tid;
static volatile int stop_open;

static void *unblocked(void *arg)
{
    (void)arg;
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR2);
    pthread_sigmask(SIG_UNBLOCK, &m, NULL);
    open_tid = gettid_();
    while (!stop_open)
        usleep(1000);
    return NULL;
}

static void process_directed(void)
{
    install(SIGUSR2, 0);
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &m, NULL); /* new threads inherit it */
    handler_runs = 0;
    pthread_t t;
    open_tid = 0;
    stop_open = 0;
    pthread_create(&t, NULL, unblocked, NULL);
    while (!open_tid)
        usleep(100);
    kill(getpid(), SIGUSR2);
    while (!handler_runs)
        usleep(100);
    printf("kill() to the process: handled %s\n",
           handler_tid == open_tid ? "by the one thread not blocking it" : "BY A BLOCKING THREAD");
    stop_open = 1;
    pthread_join(t, NULL);
    sigset_t pending;
    sigpending(&pending);
    printf("nothing left pending: %s\n", sigismember(&pending, SIGUSR2) ? "no" : "yes");
    pthread_sigmask(SIG_UNBLOCK, &m, NULL);
}

/* ------------------------------------------------------------ sigwait */

/* The waiter tells main when it has taken the first SIGTERM: a second one
 * sent earlier would merge with it (a standard signal is pending once). */
static int sigwait_pipe[2];

static void *sigwaiter(void *arg)
{
    sigset_t *m = arg;
    int sig = 0;
    int r = sigwait(m, &sig);
    char one = 1;
    if (write(sigwait_pipe[1], &one, 1) != 1)
        return NULL;
    siginfo_t si;
    int r2 = sigwaitinfo(m, &si);
    printf("sigwait: %d %s; sigwaitinfo: %s, value %d, from this process %s\n", r,
           sig == SIGTERM ? "SIGTERM" : "?", r2 == SIGTERM ? "SIGTERM" : "?", si.si_value.sival_int,
           si.si_pid == getpid() ? "yes" : "no");
    return NULL;
}

static void dedicated_sigwait(void)
{
    static sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &m, NULL);
    if (pipe(sigwait_pipe) != 0)
        return;
    pthread_t t;
    pthread_create(&t, NULL, sigwaiter, &m);
    kill(getpid(), SIGTERM);
    char one;
    if (read(sigwait_pipe[0], &one, 1) != 1)
        return;
    sigqueue(getpid(), SIGTERM, (union sigval){ .sival_int = 77 });
    pthread_join(t, NULL);
    close(sigwait_pipe[0]);
    close(sigwait_pipe[1]);
    pthread_sigmask(SIG_UNBLOCK, &m, NULL);
}

/* ------------------------------------------------------------ inherited masks */

static void *report_mask(void *arg)
{
    (void)arg;
    sigset_t m;
    pthread_sigmask(SIG_BLOCK, NULL, &m);
    printf("new thread's mask: SIGUSR1 %s, SIGINT %s\n",
           sigismember(&m, SIGUSR1) ? "blocked" : "open", sigismember(&m, SIGINT) ? "blocked" : "open");
    sigaddset(&m, SIGINT);
    pthread_sigmask(SIG_BLOCK, &m, NULL);
    return NULL;
}

static void masks(void)
{
    sigset_t m, now;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &m, NULL);
    pthread_t t;
    pthread_create(&t, NULL, report_mask, NULL);
    pthread_join(t, NULL);
    pthread_sigmask(SIG_BLOCK, NULL, &now);
    printf("creator's mask after: SIGUSR1 %s, SIGINT %s\n",
           sigismember(&now, SIGUSR1) ? "blocked" : "open", sigismember(&now, SIGINT) ? "blocked" : "open");
    pthread_sigmask(SIG_UNBLOCK, &m, NULL);
}

/* ------------------------------------------------------------ cancellation */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int cleanups;
static volatile pid_t cancel_tid;

static void cleanup(void *arg)
{
    (void)arg;
    cleanups++;
}

static void unlock_cleanup(void *arg)
{
    cleanups++;
    pthread_mutex_unlock(arg);
}

static void *cancel_in_read(void *arg)
{
    (void)arg;
    pthread_cleanup_push(cleanup, NULL);
    cancel_tid = gettid_();
    char c;
    read(pipe_fds[0], &c, 1);
    pthread_cleanup_pop(0);
    return NULL;
}

static void *cancel_in_condwait(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    pthread_cleanup_push(unlock_cleanup, &mu);
    cancel_tid = gettid_();
    for (;;)
        pthread_cond_wait(&cv, &mu);
    pthread_cleanup_pop(1);
    return NULL;
}

static void cancellation(void)
{
    if (pipe(pipe_fds) != 0)
        return;
    void *(*fns[2])(void *) = { cancel_in_read, cancel_in_condwait };
    const char *names[2] = { "read", "pthread_cond_wait" };
    for (int i = 0; i < 2; i++) {
        cleanups = 0;
        cancel_tid = 0;
        pthread_t t;
        pthread_create(&t, NULL, fns[i], NULL);
        while (!cancel_tid)
            usleep(100);
        wait_sleeping(cancel_tid);
        pthread_cancel(t);
        void *res;
        pthread_join(t, &res);
        printf("cancel in %s: %s, cleanup handlers run %d\n", names[i],
               res == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "NOT CANCELED", cleanups);
    }
    printf("the mutex is free again: %s\n", pthread_mutex_trylock(&mu) == 0 ? "yes" : "no");
    pthread_mutex_unlock(&mu);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
}

/* ------------------------------------------------------------ a fault in a thread */

static __thread sigjmp_buf fault_env;
static volatile pid_t fault_handler_tid;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    fault_handler_tid = gettid_();
    (void)si;
    siglongjmp(fault_env, 1);
}

static void *faulter(void *arg)
{
    (void)arg;
    pid_t me = gettid_();
    const char *how = "no fault";
    if (sigsetjmp(fault_env, 1) == 0)
        *(volatile int *)24 = 1;
    else
        how = fault_handler_tid == me ? "handled on the faulting thread" : "HANDLED ELSEWHERE";
    printf("fault in a thread: %s\n", how);
    return NULL;
}

static void thread_fault(void)
{
    struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
    sigaction(SIGSEGV, &sa, NULL);
    pthread_t t;
    pthread_create(&t, NULL, faulter, NULL);
    pthread_join(t, NULL);
    signal(SIGSEGV, SIG_DFL);
}

/* ------------------------------------------------------------ exit from a thread */

static void *exiter(void *arg)
{
    (void)arg;
    usleep(10000);
    exit(3);
}

static void *killer(void *arg)
{
    (void)arg;
    usleep(10000);
    *(volatile int *)32 = 1; /* no handler: the whole process dies */
    return NULL;
}

static void process_ends(void)
{
    void *(*fns[2])(void *) = { exiter, killer };
    const char *names[2] = { "exit(3) in a thread while main sleeps", "a fault in a thread" };
    for (int i = 0; i < 2; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            pthread_t t;
            pthread_create(&t, NULL, fns[i], NULL);
            pause();
            _exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        if (WIFEXITED(st))
            printf("%s: the process exited %d\n", names[i], WEXITSTATUS(st));
        else
            printf("%s: the process was killed by %s\n", names[i], sigabbrev_np(WTERMSIG(st)));
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    blocked_read(0, "pthread_kill during read, no SA_RESTART");
    blocked_read(SA_RESTART, "pthread_kill during read, SA_RESTART");
    blocked_sem();
    blocked_cond_futex(0, "no SA_RESTART");
    blocked_cond_futex(SA_RESTART, "SA_RESTART");
    process_directed();
    dedicated_sigwait();
    masks();
    cancellation();
    thread_fault();
    process_ends();
    return 0;
}
