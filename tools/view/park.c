/* elfemu-view: the guest's other threads while the viewer is stopped.
 *
 * The viewer steps the guest's first thread (the runner's).  Every other
 * guest thread is parked while the viewer is stopped or steps: it waits in
 * a block hook, at its next block boundary, until the viewer runs again (c,
 * n, y, m) -- so what the window shows does not change under it, and a
 * step is one instruction of one thread.  A thread blocked in a host call
 * parks when the call returns.  While parked, a thread's registers are
 * stable and its elfemu_thread is valid (it is inside our callback): the
 * 't' key shows them.  A first thread that waits for a parked one (a
 * futex, a join) waits until the viewer runs: the window says in which
 * call it waits.
 *
 * The hook is installed when the second thread appears, so that a
 * single-threaded guest never pays for it.  In a forked child the hook is
 * off (park_fork_child()): the child runs on without the window. */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "tools/view/park.h"

static bool in_fork_child;

bool park_forked(void)
{
    return __atomic_load_n(&in_fork_child, __ATOMIC_ACQUIRE);
}

void park_fork_child(void)
{
    __atomic_store_n(&in_fork_child, true, __ATOMIC_RELEASE);
}

int park_init(struct session *s)
{
    pthread_mutex_init(&s->park_lock, NULL);
    pthread_cond_init(&s->park_cond, NULL);
    s->threads_free = false;
    s->block_hook = 0;
    s->nparked = 0;
    return 0;
}

static void park_here(elfemu *vm, elfemu_thread *t, uint64_t start, uint64_t end, unsigned n,
                      void *user)
{
    struct session *s = user;
    (void)start, (void)end, (void)n;
    if (t == elfemu_main_thread(vm) || __atomic_load_n(&in_fork_child, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&s->threads_free, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&s->park_lock);
    bool listed = false;
    if (!s->threads_free && s->nparked < SESSION_MAX_PARKED) {
        s->parked[s->nparked++] = (struct parked){ t, elfemu_thread_tid(t) };
        listed = true;
        pthread_cond_broadcast(&s->park_cond); /* park_next() may wait for us */
    }
    while (!s->threads_free)
        pthread_cond_wait(&s->park_cond, &s->park_lock);
    for (unsigned i = 0; listed && i < s->nparked; i++)
        if (s->parked[i].t == t) {
            memmove(&s->parked[i], &s->parked[i + 1], (s->nparked - i - 1) * sizeof(s->parked[0]));
            s->nparked--;
            break;
        }
    pthread_mutex_unlock(&s->park_lock);
}

void park_thread_created(struct session *s)
{
    if (__atomic_load_n(&s->block_hook, __ATOMIC_ACQUIRE) || elfemu_thread_count(s->vm) < 2)
        return;
    pthread_mutex_lock(&s->park_lock);
    if (!s->block_hook) {
        int id = elfemu_hook_block(s->vm, park_here, s);
        __atomic_store_n(&s->block_hook, id > 0 ? id : -1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&s->park_lock);
}

void park_set_free(struct session *s, bool free)
{
    pthread_mutex_lock(&s->park_lock);
    __atomic_store_n(&s->threads_free, free, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&s->park_cond);
    pthread_mutex_unlock(&s->park_lock);
}

bool park_show(struct session *s, int tid)
{
    pthread_mutex_lock(&s->park_lock);
    bool found = false;
    for (unsigned i = 0; i < s->nparked && !found; i++)
        if (s->parked[i].tid == tid) {
            elfemu_thread_get_regs(s->parked[i].t, &s->regs);
            elfemu_thread_get_fpstate(s->parked[i].t, s->fp);
            s->shown_icount = elfemu_thread_icount(s->parked[i].t);
            found = true;
        }
    pthread_mutex_unlock(&s->park_lock);
    return found;
}

/* Until every other thread is parked or in a host call (lock held). */
static void settle(struct session *s)
{
    unsigned others = (unsigned)elfemu_thread_count(s->vm) - 1;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += 1; /* a bound, should a thread never come */
    while (!s->threads_free && s->nparked + s->in_calls < others &&
           pthread_cond_clockwait(&s->park_cond, &s->park_lock, CLOCK_MONOTONIC, &until) == 0)
        others = (unsigned)elfemu_thread_count(s->vm) - 1;
}

void park_settle(struct session *s)
{
    if (!__atomic_load_n(&s->block_hook, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&s->park_lock);
    settle(s);
    pthread_mutex_unlock(&s->park_lock);
}

void park_call(struct session *s, bool begins)
{
    if (!__atomic_load_n(&s->block_hook, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&in_fork_child, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&s->park_lock);
    s->in_calls += begins ? 1 : -1;
    pthread_cond_broadcast(&s->park_cond);
    pthread_mutex_unlock(&s->park_lock);
}

int park_next(struct session *s, int tid)
{
    pthread_mutex_lock(&s->park_lock);
    settle(s);
    unsigned i = 0;
    if (tid)
        while (i < s->nparked && s->parked[i].tid != tid)
            i++;
    int next = 0;
    if (!tid && s->nparked)
        next = s->parked[0].tid;
    else if (tid && i + 1 < s->nparked)
        next = s->parked[i + 1].tid;
    pthread_mutex_unlock(&s->park_lock);
    return next;
}

unsigned park_count(struct session *s)
{
    pthread_mutex_lock(&s->park_lock);
    unsigned n = s->nparked;
    pthread_mutex_unlock(&s->park_lock);
    return n;
}
