/* elfemu-view: the runner, the host thread that owns the guest.
 *
 * The VM is created, loaded, stepped and destroyed on the process's main
 * thread, so that the guest's first thread is it, as under elfemu (its tid
 * is the pid; exec and signals find it where they would); the window has a
 * thread of its own.  The window's thread hands the runner one request at
 * a time (a step, or a slice of a run) and collects the result when it is
 * done, so a
 * guest blocked in a host call -- a read of a terminal or of a pipe that
 * stays open -- blocks the runner and not the window: it goes on drawing
 * and taking keys.  While a request is out the window reads guest memory
 * and the mappings (the library guards those reads) but not the registers,
 * the symbols or the results, which are the runner's until it is done.
 *
 * Signals: the window's thread (and the threads SDL starts from it) block
 * the asynchronous signals, so that a signal sent to the process is taken
 * by a guest thread as under elfemu; the faults stay unblocked (a blocked
 * fault would kill the process instead of reaching the library's guard).
 * The main thread keeps the mask the viewer was started with: the guest's. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/view/park.h"
#include "tools/view/runner.h"

void runner_serve(struct session *s)
{
    pthread_mutex_lock(&s->run_lock);
    while (s->req == REQ_NONE)
        pthread_cond_wait(&s->run_cond, &s->run_lock);
    int rc = -1;
    if (s->req == REQ_OPEN) {
        pthread_mutex_unlock(&s->run_lock);
        rc = session_load(s);
        if (rc != 0)
            session_unload(s);
        pthread_mutex_lock(&s->run_lock);
        s->loaded = rc == 0 ? 1 : -1;
        s->req = REQ_NONE;
        pthread_cond_broadcast(&s->run_cond);
    }
    while (rc == 0) {
        while (s->req == REQ_NONE)
            pthread_cond_wait(&s->run_cond, &s->run_lock);
        enum run_request req = s->req;
        if (req == REQ_QUIT)
            break;
        pthread_mutex_unlock(&s->run_lock);
        if (req == REQ_STEP)
            session_do_step(s);
        else
            session_do_advance(s);
        pthread_mutex_lock(&s->run_lock);
        s->req = REQ_NONE;
        s->done = true;
        pthread_cond_broadcast(&s->run_cond);
    }
    pthread_mutex_unlock(&s->run_lock);
    if (rc == 0)
        session_unload(s);
    pthread_mutex_lock(&s->run_lock);
    s->served = true;
    pthread_cond_broadcast(&s->run_cond);
    pthread_mutex_unlock(&s->run_lock);
}

int runner_open(struct session *s)
{
    runner_post(s, REQ_OPEN);
    pthread_mutex_lock(&s->run_lock);
    while (s->loaded == 0)
        pthread_cond_wait(&s->run_cond, &s->run_lock);
    pthread_mutex_unlock(&s->run_lock);
    return s->loaded > 0 ? 0 : -1;
}

void runner_post(struct session *s, enum run_request req)
{
    pthread_mutex_lock(&s->run_lock);
    s->req = req;
    s->done = false;
    pthread_cond_broadcast(&s->run_cond);
    pthread_mutex_unlock(&s->run_lock);
}

bool runner_wait(struct session *s, int wait_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += wait_ms / 1000;
    until.tv_nsec += (long)(wait_ms % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&s->run_lock);
    while (s->req != REQ_NONE && wait_ms != 0) {
        if (wait_ms < 0)
            pthread_cond_wait(&s->run_cond, &s->run_lock);
        else if (pthread_cond_clockwait(&s->run_cond, &s->run_lock, CLOCK_MONOTONIC, &until) ==
                 ETIMEDOUT)
            break;
    }
    bool idle = s->req == REQ_NONE;
    pthread_mutex_unlock(&s->run_lock);
    return idle;
}

bool runner_stop(struct session *s)
{
    if (__atomic_load_n(&s->ending, __ATOMIC_ACQUIRE))
        return false; /* held in program_ends(): the process ends with the window */
    if (s->loaded > 0) {
        __atomic_store_n(&s->pause_req, 1, __ATOMIC_RELEASE);
        if (!runner_wait(s, 200) || elfemu_thread_count(s->vm) > 1)
            return false;
    }
    if (s->loaded >= 0)
        runner_post(s, REQ_QUIT);
    pthread_mutex_lock(&s->run_lock);
    while (!s->served)
        pthread_cond_wait(&s->run_cond, &s->run_lock);
    pthread_mutex_unlock(&s->run_lock);
    return true;
}

void runner_block_signals(sigset_t *old)
{
    sigset_t async;
    sigfillset(&async);
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS };
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        sigdelset(&async, faults[i]);
    pthread_sigmask(SIG_BLOCK, &async, old);
}

/* The first thread's call in progress, for the status line while the
 * runner is busy ("the program waits in read()"). */
static bool call_begins(elfemu *vm, elfemu_thread *t, elfemu_syscall *call, void *user)
{
    struct session *s = user;
    const char *name = elfemu_syscall_name(call->bits, call->nr);
    if (park_forked())
        return false;
    if (t == elfemu_main_thread(vm))
        __atomic_store_n(&s->in_call, (int)call->nr + 1, __ATOMIC_RELEASE);
    else if (!name || strcmp(name, "exit")) /* exit has no after */
        park_call(s, true);
    return false;
}

static void call_ends(elfemu *vm, elfemu_thread *t, elfemu_syscall *call, void *user)
{
    struct session *s = user;
    (void)call;
    if (park_forked())
        return;
    if (t == elfemu_main_thread(vm))
        __atomic_store_n(&s->in_call, 0, __ATOMIC_RELEASE);
    else
        park_call(s, false);
}

/* The first thread ends the process while other threads live (exit_group,
 * or a return from main before a joined thread is quite gone): the library
 * ends the host process right after this hook, so the runner finishes its
 * request here and waits -- the window shows the end, writes its picture
 * and state, and then ends the process itself.  (When the first thread is
 * the last, elfemu_step() returns and the runner goes on as usual; an end
 * on another thread ends the process there, window and all.) */
static void program_ends(elfemu *vm, elfemu_thread *t, const elfemu_end *end, void *user)
{
    struct session *s = user;
    if (end->kind == ELFEMU_END_EXEC || park_forked() || t != elfemu_main_thread(vm) ||
        elfemu_thread_count(vm) < 2)
        return;
    elfemu_exit x = { end->kind == ELFEMU_END_SIGNAL, end->code };
    session_ended(s, &x);
    pthread_mutex_lock(&s->run_lock);
    __atomic_store_n(&s->ending, true, __ATOMIC_RELEASE);
    s->req = REQ_NONE;
    s->done = true;
    pthread_cond_broadcast(&s->run_cond);
    for (;;)
        pthread_cond_wait(&s->run_cond, &s->run_lock);
}

int runner_hooks(struct session *s)
{
    if (elfemu_hook_end(s->vm, program_ends, s) < 0)
        return -1;
    return elfemu_hook_syscall(s->vm, call_begins, call_ends, s) < 0 ? -1 : 0;
}
