/* Guest threads: each one runs on its own host thread with its own struct
 * cpu (and decoded-block cache), truly in parallel; guest memory is host
 * memory, so the host kernel's atomics and futexes work between them.
 *
 * The host thread's tid is the guest thread's tid.  This file keeps the
 * bookkeeping the kernel keeps per task and that the guest can observe:
 * clear_child_tid (set_tid_address, CLONE_CHILD_CLEARTID), the robust list
 * (set_robust_list), and how the thread group ends:
 *
 * - exit ends the calling thread.  The thread that entered the VM (the
 *   "main" host thread, which returns from cpu_run to elfemu_run) does not
 *   end its host thread: it waits until every other guest thread has
 *   ended, then returns as if the process had exited with the status of
 *   the last thread to exit -- what Linux reports when all threads of a
 *   group exit one by one, even when the leader went first (measured).
 * - exit_group, or any exit of the last thread off the main host thread,
 *   ends the host process right there (exit_group(2)): the other threads
 *   may be blocked in host calls, and nothing may tear the guest space
 *   down under them.
 * - a thread the CPU stopped with a signal (a fault nobody handles) takes
 *   the process with it, like the signal's default action.
 *
 * Each thread has its own struct cpu and so its own copy of an ia32
 * guest's three GDT TLS entries (cpu_clone() copies the parent's; a
 * CLONE_SETTLS user_desc replaces one of them in the child only).
 *
 * Not served: clone3's set_tid for a thread (EPERM, as for an unprivileged
 * caller: the host thread's tid cannot be chosen). */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "syscalls/strace.h"
#include "syscalls/syscalls.h"
#include "syscalls/thread.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif

/* What the kernel keeps per task that matters to a guest thread. */
struct gthread {
    struct cpu *cpu;
    pid_t tid;
    uint64_t clear_child_tid;   /* guest address, 0: none */
    uint64_t robust_head;       /* guest address of struct robust_list_head */
    struct gthread *next;       /* the list of live threads */
};

/* sizeof(struct robust_list_head) for a 64-bit guest. */
#define ROBUST_HEAD_SIZE 24
/* The kernel's ROBUST_LIST_LIMIT: a cycle in the list cannot hang exit. */
#define ROBUST_LIST_LIMIT 2048

/* The thread registry; lock order: threads_lock, then the space's lock. */
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t threads_gone = PTHREAD_COND_INITIALIZER;
static struct gthread main_thread;      /* the host thread in elfemu_run */
static struct gthread *threads = &main_thread;
static int nthreads = 1;                /* live guest threads */
static int group_status;                /* the last thread's exit code */
static bool main_waiting;               /* main_thread waits for the others */
static struct mm_space *space;          /* the guest space, once known */
static __thread struct gthread *self;
static uint64_t icount_ended;           /* instructions of the threads that ended */
static void (*end_hook)(struct cpu *c, int how, int code);
static int ended;                       /* the end was reported */

/* The calling thread's record; the VM's own thread is known lazily (and
 * starts afresh when an embedder runs another VM on it). */
static struct gthread *me(struct cpu *c)
{
    if (!self)
        self = &main_thread;
    if (UNLIKELY(self == &main_thread && main_thread.cpu != c)) {
        main_thread.cpu = c;
        main_thread.tid = (pid_t)syscall(SYS_gettid);
        main_thread.clear_child_tid = main_thread.robust_head = 0;
        __atomic_store_n(&space, c->mm, __ATOMIC_RELEASE);
    }
    return self;
}

int gthread_count(void)
{
    pthread_mutex_lock(&threads_lock);
    int n = nthreads;
    pthread_mutex_unlock(&threads_lock);
    return n;
}

static long host_futex(void *uaddr, int op, uint32_t val, const void *timeout_or_val2,
                       void *uaddr2, uint32_t val3)
{
    return syscall(SYS_futex, uaddr, op, val, timeout_or_val2, uaddr2, val3);
}

/* ------------------------------------------------------------ the end of a process */

uint64_t gthread_icount_others(void)
{
    pthread_mutex_lock(&threads_lock);
    uint64_t n = __atomic_load_n(&icount_ended, __ATOMIC_RELAXED);
    for (struct gthread *g = threads; g; g = g->next)
        if (g != &main_thread && g->cpu)
            n += __atomic_load_n(&g->cpu->icount, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&threads_lock);
    return n;
}

void gthread_set_end_hook(void (*fn)(struct cpu *c, int how, int code))
{
    __atomic_store_n(&end_hook, fn, __ATOMIC_RELEASE);
}

void gthread_end(struct cpu *c, int how, int code)
{
    void (*fn)(struct cpu *, int, int) = __atomic_load_n(&end_hook, __ATOMIC_ACQUIRE);
    if (fn && !__atomic_exchange_n(&ended, 1, __ATOMIC_ACQ_REL))
        fn(c, how, code);
}

void gthread_end_rearm(void)
{
    __atomic_store_n(&ended, 0, __ATOMIC_RELEASE);
}

static void group_release(struct cpu *c);

/* The tids of the live threads but this one and the leader (--strace
 * shows a line for each when the group ends); at most max. */
static int other_tids(pid_t *out, int max)
{
    pid_t self = (pid_t)syscall(SYS_gettid), pid = getpid();
    int n = 0;
    pthread_mutex_lock(&threads_lock);
    for (struct gthread *g = threads; g && n < max; g = g->next)
        if (g->tid > 0 && g->tid != self && g->tid != pid)
            out[n++] = g->tid;
    pthread_mutex_unlock(&threads_lock);
    return n;
}

/* The whole process ends now, from whichever thread (exit_group); c NULL
 * when no thread's robust futexes are left to release. */
static __attribute__((noreturn)) void process_exit(struct cpu *c, int status)
{
    if (c) {
        gthread_end(c, GTHREAD_END_EXIT, status);
        group_release(c);
    }
    if (UNLIKELY(strace_on) && !c) {
        strace_exited(status); /* the last thread, threads_lock held */
    } else if (UNLIKELY(strace_on)) {
        pid_t others[256];
        strace_group_exited(status, others, other_tids(others, 256));
    }
    fflush(NULL);
    syscall(SYS_exit_group, status);
    _exit(status);
}

/* The signal's default action for the whole process, without a core file
 * of elfemu (as the tools' exit_like() does for the main thread). */
static __attribute__((noreturn)) void process_kill(struct cpu *c, int sig)
{
    gthread_end(c, GTHREAD_END_SIGNAL, sig);
    group_release(c);
    if (UNLIKELY(strace_on)) {
        pid_t others[256];
        strace_group_killed(sig, others, other_tids(others, 256));
    }
    fflush(NULL);
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    /* To this very thread: a process-wide kill() could be taken by another
     * thread while this one went on to exit. */
    syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
    _exit(128 + sig);
}

void gthread_run_ended(struct cpu *c)
{
    /* The main thread stopped by a signal while other threads run: they
     * must not see the space go away under them. */
    if (c->stop == CPU_SIGNALED && gthread_count() > 1)
        process_kill(c, c->stop_code);
    /* The process ends with this thread (exit_group, or the signal). */
    gthread_end(c, c->stop == CPU_SIGNALED ? GTHREAD_END_SIGNAL : GTHREAD_END_EXIT, c->stop_code);
    group_release(c);
}

/* ------------------------------------------------------------ thread exit */

static void futex_wake_one(uint32_t *word)
{
    /* Not FUTEX_PRIVATE: the kernel wakes shared here, which also reaches
     * waiters in other processes sharing the mapping. */
    host_futex(word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* handle_futex_death() of kernel/futex/core.c: the dying owner of a robust
 * futex marks it FUTEX_OWNER_DIED and wakes a waiter. */
static void futex_death(struct cpu *c, uint64_t addr, pid_t tid, bool pi, bool pending)
{
    if (addr & 3)
        return;
    uint32_t *word = guest_buf(c, addr, 4, PROT_READ | PROT_WRITE);
    if (!word)
        return;
    uint32_t uval = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
        /* A lock being released when the owner died: wake a waiter who
         * may have missed the release. */
        if (pending && !pi && !uval) {
            futex_wake_one(word);
            return;
        }
        if ((pid_t)(uval & FUTEX_TID_MASK) != tid)
            return;
        uint32_t mval = (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
        if (__atomic_compare_exchange_n(word, &uval, mval, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED))
            break;
    }
    /* PI futexes are woken by the host kernel itself: the host thread is
     * their owner there. */
    if (!pi && (uval & FUTEX_WAITERS))
        futex_wake_one(word);
}

/* exit_robust_list(): walk the guest's list of held robust futexes. */
/* A word of the guest's list: a pointer or a long, 4 bytes for ia32
 * guests (compat_exit_robust_list()); 0 or -EFAULT. */
static int robust_word(struct cpu *c, uint64_t addr, uint64_t *out, bool sign)
{
    if (c->bits != 32)
        return copy_from_guest(c, out, addr, 8);
    uint32_t w;
    if (copy_from_guest(c, &w, addr, 4) != 0)
        return -EFAULT;
    *out = sign ? (uint64_t)(int64_t)(int32_t)w : w;
    return 0;
}

static void exit_robust_list(struct cpu *c, struct gthread *t)
{
    uint64_t head[3]; /* list.next, futex_offset, list_op_pending */
    uint64_t w = c->bits == 32 ? 4 : 8;
    if (!t->robust_head || robust_word(c, t->robust_head, &head[0], false) != 0 ||
        robust_word(c, t->robust_head + w, &head[1], true) != 0 ||
        robust_word(c, t->robust_head + 2 * w, &head[2], false) != 0)
        return;
    int64_t offset = (int64_t)head[1];
    uint64_t entry = head[0] & ~1ull, pending = head[2] & ~1ull;
    bool pi = head[0] & 1, pending_pi = head[2] & 1;
    unsigned limit = ROBUST_LIST_LIMIT;
    while (entry != t->robust_head) {
        uint64_t next;
        /* The next entry is fetched first: the futex may be freed once
         * its waiter runs. */
        if (robust_word(c, entry, &next, false) != 0)
            return;
        if (entry != pending)
            futex_death(c, entry + (uint64_t)offset, t->tid, pi, false);
        entry = next & ~1ull;
        pi = next & 1;
        if (!--limit)
            break;
    }
    if (pending)
        futex_death(c, pending + (uint64_t)offset, t->tid, pending_pi, true);
}

/* mm_release(): what the kernel does for a thread's memory as it ends. */
static void thread_release(struct cpu *c, struct gthread *t)
{
    exit_robust_list(c, t);
    if (t->clear_child_tid) {
        uint32_t *word = guest_buf(c, t->clear_child_tid, 4, PROT_WRITE);
        if (word) {
            __atomic_store_n(word, 0, __ATOMIC_SEQ_CST);
            futex_wake_one(word);
        }
    }
}

/* The whole group ends (exit_group, a fatal signal): every thread's robust
 * futexes are released as each task's do_exit() would, so that other
 * processes sharing them see EOWNERDEAD. */
static void group_release(struct cpu *c)
{
    pthread_mutex_lock(&threads_lock);
    for (struct gthread *g = threads; g; g = g->next)
        exit_robust_list(c, g);
    pthread_mutex_unlock(&threads_lock);
}

int64_t sys_exit(struct cpu *c, const uint64_t a[6])
{
    struct gthread *t = me(c);
    int code = (int)(a[0] & 0xff);
    thread_release(c, t);
    c->stop = CPU_EXITED;
    c->stop_code = code;
    if (t != &main_thread)
        return 0; /* thread_main() finishes it off the guest's stack */
    pthread_mutex_lock(&threads_lock);
    group_status = code;
    nthreads--;
    if (UNLIKELY(strace_on))
        strace_set_threads(nthreads > 0 ? nthreads : 1);
    main_waiting = true;
    while (nthreads > 0)
        pthread_cond_wait(&threads_gone, &threads_lock);
    main_waiting = false;
    c->stop_code = group_status;
    pthread_mutex_unlock(&threads_lock);
    return 0;
}

int64_t sys_exit_group(struct cpu *c, const uint64_t a[6])
{
    int code = (int)(a[0] & 0xff);
    if (me(c) != &main_thread || gthread_count() > 1)
        process_exit(c, code);
    c->stop = CPU_EXITED;
    c->stop_code = code;
    return 0;
}

/* ------------------------------------------------------------ thread start */

/* Handed from the cloning thread to the new one; lives on the parent's
 * stack until `done` is set. */
struct start {
    struct gthread *t;
    struct cpu *parent;
    uint64_t flags, ptid, ctid;
    sigset_t mask;      /* the parent's host mask, the child's after setup */
    int done;           /* futex word: 1 when the fields below are set */
    int error;          /* -errno when the thread could not be set up */
};

static void start_done(struct start *s)
{
    __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
    host_futex(&s->done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *thread_main(void *arg)
{
    struct start *s = arg;
    struct gthread *t = s->t;
    struct cpu *c = t->cpu;
    self = t;
    t->tid = (pid_t)syscall(SYS_gettid);
    /* Without CLONE_FS or CLONE_FILES the thread gets its own copy of the
     * cwd/umask/root or of the descriptor table, as the kernel would. */
    int unshare_flags = (!(s->flags & CLONE_FS) ? CLONE_FS : 0) |
                        (!(s->flags & CLONE_FILES) ? CLONE_FILES : 0);
    if (unshare_flags && unshare(unshare_flags) != 0) {
        s->error = -errno;
        start_done(s);
        return NULL;
    }
    /* copy_process() and schedule_tail(): both tid copies exist before
     * either side runs guest code again; errors are ignored. */
    int32_t tid = t->tid;
    if (s->flags & CLONE_PARENT_SETTID)
        (void)copy_to_guest(c, s->ptid, &tid, sizeof(tid));
    if (s->flags & CLONE_CHILD_SETTID)
        (void)copy_to_guest(c, s->ctid, &tid, sizeof(tid));
    /* The guest's signal state for the new thread (the parent's mask, no
     * alternate stack); it also sets the host mask that mirrors it. */
    sig_thread_start(c, s->parent);
    start_done(s); /* s is gone from here on */

    cpu_run(c);

    if (c->stop == CPU_SIGNALED)
        process_kill(c, c->stop_code);
    int code = c->stop_code;
    sig_thread_exit(c);
    /* A fork from now on must not free this CPU in its child again. */
    pthread_mutex_lock(&threads_lock);
    t->cpu = NULL;
    __atomic_fetch_add(&icount_ended, c->icount, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&threads_lock);
    cpu_free(c);
    mm_fault_thread_exit();
    pthread_mutex_lock(&threads_lock);
    struct gthread **slot = &threads;
    while (*slot != t)
        slot = &(*slot)->next;
    *slot = t->next;
    bool last = --nthreads == 0;
    if (last)
        group_status = code; /* see the top */
    if (UNLIKELY(strace_on))
        strace_set_threads(nthreads > 0 ? nthreads : 1);
    if (last && !main_waiting) {
        /* The end hook may ask for the thread count or the statistics. */
        pthread_mutex_unlock(&threads_lock);
        gthread_end(NULL, GTHREAD_END_EXIT, code);
        pthread_mutex_lock(&threads_lock);
        process_exit(NULL, code); /* its own list went in sys_exit() */
    }
    if (last)
        pthread_cond_broadcast(&threads_gone);
    pthread_mutex_unlock(&threads_lock);
    free(t);
    return NULL;
}

int64_t thread_clone(struct cpu *c, uint64_t flags, uint64_t stack, uint64_t ptid,
                     uint64_t ctid, uint64_t tls)
{
    me(c);
    /* copy_thread(): a 64-bit guest's tls is the FS base, which must be a
     * user address (do_set_thread_area_64()); a 32-bit guest's a struct
     * user_desc * for the new thread's own copy of a GDT TLS entry. */
    struct ia32_tls tls32;
    int e32;
    if ((flags & CLONE_SETTLS) && c->bits == 32 && (e32 = ia32_clone_tls(c, tls, &tls32)))
        return e32;
    if ((flags & CLONE_SETTLS) && c->bits != 32 && tls >= c->mm->size)
        return -EPERM;
    /* Another thread could install a fault handler while this one is in
     * the middle of a block: from now on, exact flags at every fault. */
    cpu_faults_observed(c->mm);
    struct gthread *t = calloc(1, sizeof(*t));
    if (!t)
        return -ENOMEM;
    pthread_mutex_lock(&threads_lock);
    struct cpu *child = cpu_clone(c);
    if (!child) {
        pthread_mutex_unlock(&threads_lock);
        free(t);
        return -ENOMEM;
    }
    child->r[R_AX] = 0;
    if (stack)
        child->r[R_SP] = stack;
    if ((flags & CLONE_SETTLS) && c->bits == 32)
        ia32_clone_tls_install(child, &tls32);
    else if (flags & CLONE_SETTLS)
        child->seg_base[SEG_FS] = tls;
    /* The syscall returns in the child at the instruction after it. */
    t->cpu = child;
    t->clear_child_tid = (flags & CLONE_CHILD_CLEARTID) ? ctid : 0;

    struct start s = { .t = t, .parent = c, .flags = flags, .ptid = ptid, .ctid = ctid };
    /* The new host thread starts with every host signal blocked and takes
     * the parent's mask only once it is set up. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &s.mask);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t pt;
    /* The new thread's lines carry its tid from its first one on (it may
     * run before this call returns). */
    if (UNLIKELY(strace_on))
        strace_set_threads(nthreads + 1);
    int e = pthread_create(&pt, &attr, thread_main, &s);
    pthread_attr_destroy(&attr);
    if (e == 0) {
        while (!__atomic_load_n(&s.done, __ATOMIC_ACQUIRE))
            host_futex(&s.done, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
        e = -s.error;
    }
    pthread_sigmask(SIG_SETMASK, &s.mask, NULL);
    if (e != 0) {
        if (UNLIKELY(strace_on))
            strace_set_threads(nthreads);
        cpu_free(child);
        free(t);
        pthread_mutex_unlock(&threads_lock);
        return e == EAGAIN || e == ENOMEM ? -EAGAIN : -e;
    }
    t->next = threads;
    threads = t;
    nthreads++;
    if (UNLIKELY(strace_on))
        strace_set_threads(nthreads);
    pid_t tid = t->tid;
    pthread_mutex_unlock(&threads_lock);
    return tid;
}

/* ------------------------------------------------------------ fork */

void gthread_fork_prepare(void)
{
    pthread_mutex_lock(&threads_lock);
    struct mm_space *mm = __atomic_load_n(&space, __ATOMIC_ACQUIRE);
    if (mm)
        cpu_fork_prepare(mm);
}

void gthread_fork_parent(void)
{
    struct mm_space *mm = __atomic_load_n(&space, __ATOMIC_ACQUIRE);
    if (mm)
        cpu_fork_parent(mm);
    pthread_mutex_unlock(&threads_lock);
}

void gthread_fork_child(struct cpu *c)
{
    /* Only the calling thread came along: it is the whole group now, and
     * its own leader.  The records of the others are freed (their CPUs'
     * caches go in cpu_fork_child()). */
    struct gthread *t = me(c);
    pthread_mutex_init(&threads_lock, NULL);
    pthread_cond_init(&threads_gone, NULL);
    if (space)
        cpu_fork_child(c);
    for (struct gthread *g = threads, *next; g; g = next) {
        next = g->next;
        if (g == t || g == &main_thread)
            continue;
        free(g->cpu); /* its cache went in cpu_fork_child(); NULL when ending */
        free(g);
    }
    t->next = NULL;
    threads = t;
    nthreads = 1;
    main_waiting = false;
    t->tid = (pid_t)syscall(SYS_gettid);
}

/* ------------------------------------------------------------ the calls */

int64_t sys_set_tid_address(struct cpu *c, const uint64_t a[6])
{
    me(c)->clear_child_tid = a[0];
    return syscall(SYS_gettid);
}

int64_t sys_set_robust_list(struct cpu *c, const uint64_t a[6])
{
    /* struct robust_list_head: three words, 12 bytes for ia32 guests. */
    if (a[1] != (c->bits == 32 ? 12 : ROBUST_HEAD_SIZE))
        return -EINVAL;
    me(c)->robust_head = a[0];
    return 0;
}

int64_t sys_get_robust_list(struct cpu *c, const uint64_t a[6])
{
    pid_t pid = (pid_t)a[0];
    uint64_t head = 0;
    bool found = false;
    pthread_mutex_lock(&threads_lock);
    struct gthread *t = me(c);
    if (pid == 0) {
        head = t->robust_head;
        found = true;
    } else {
        for (struct gthread *g = threads; g && !found; g = g->next)
            if (g->tid == pid) {
                head = g->robust_head;
                found = true;
            }
    }
    pthread_mutex_unlock(&threads_lock);
    if (!found) {
        /* A task outside this emulated process: its guest list is not
         * known here (honestly refused); or no such task. */
        return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM) ? -EPERM : -ESRCH;
    }
    uint64_t len = c->bits == 32 ? 12 : ROBUST_HEAD_SIZE;
    unsigned w = c->bits == 32 ? 4 : 8; /* compat_size_t, compat_uptr_t */
    if (copy_to_guest(c, a[2], &len, w) != 0)
        return -EFAULT;
    return copy_to_guest(c, a[1], &head, w);
}

/* Futexes: guest memory is host memory, so a guest futex word is a host
 * futex word at base + address, and the host kernel does the waiting and
 * waking (also between guest threads and processes sharing the mapping).
 *
 * The words are not checked against the VMA list here but handed to the
 * host as addresses inside the guest space: the host kernel then touches
 * exactly what the guest's kernel would (a private FUTEX_WAKE or REQUEUE
 * never reads its words; an unmapped guest page is PROT_NONE reserve on the
 * host and gives EFAULT where Linux gives it), and can never reach beyond
 * the space.  An address past the space is EFAULT, as access_ok() says.  A
 * word the call writes (PI ops, WAKE_OP's second word) loses elfemu's
 * write protection of decoded code first.  The 64-bit guest's struct
 * timespec is the host's. */
static uint32_t *futex_word(struct cpu *c, uint64_t addr, bool write)
{
    if (addr > c->mm->size - 4)
        return NULL;
    if (write)
        cpu_code_writable(c, addr, addr + 4);
    return (uint32_t *)(c->mm->base + addr);
}

int64_t futex_call(struct cpu *c, const uint64_t a[6], int ts_kind)
{
    int op = (int)a[1], cmd = op & FUTEX_CMD_MASK;
    uint64_t arg4 = a[3];
    struct timespec ts32;
    bool timeout = false, write = false, second = false, write2 = false;
    switch (cmd) {
    case FUTEX_WAIT:
    case FUTEX_WAIT_BITSET:
        timeout = true;
        break;
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
        timeout = write = true;
        break;
    case FUTEX_WAIT_REQUEUE_PI:
        /* uaddr2 is the PI futex the waiter ends up owning. */
        timeout = second = write2 = true;
        break;
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET:
        break;
    case FUTEX_UNLOCK_PI:
    case FUTEX_TRYLOCK_PI:
        write = true;
        break;
    case FUTEX_REQUEUE:
    case FUTEX_CMP_REQUEUE:
        /* The fourth argument is a count, the fifth a second futex word. */
        second = true;
        break;
    case FUTEX_WAKE_OP:
    case FUTEX_CMP_REQUEUE_PI:
        second = write2 = true;
        break;
    default:
        return -ENOSYS;
    }
    /* The kernel copies the timeout first (sys_futex()) and checks it
     * before it looks at the futex words. */
    if (timeout && a[3]) {
        const struct timespec *ts;
        if (ts_kind == FUTEX_TS_OLD32) {
            int32_t t[2];
            if (copy_from_guest(c, t, a[3], sizeof(t)) != 0)
                return -EFAULT;
            ts32 = (struct timespec){ .tv_sec = t[0], .tv_nsec = t[1] };
            ts = &ts32;
        } else if (ts_kind == FUTEX_TS_COMPAT64) {
            int64_t t[2];
            if (copy_from_guest(c, t, a[3], sizeof(t)) != 0)
                return -EFAULT;
            ts32 = (struct timespec){ .tv_sec = t[0], .tv_nsec = (uint32_t)t[1] };
            ts = &ts32;
        } else if (!(ts = guest_buf(c, a[3], sizeof(struct timespec), PROT_READ))) {
            return -EFAULT;
        }
        if (ts->tv_sec < 0 || (uint64_t)ts->tv_nsec >= 1000000000u)
            return -EINVAL;
        arg4 = (uint64_t)(uintptr_t)ts;
    }
    uint32_t *uaddr = futex_word(c, a[0], write), *uaddr2 = NULL;
    if (!uaddr || (second && !(uaddr2 = futex_word(c, a[4], write2))))
        return -EFAULT;
    return host_ret(host_futex(uaddr, op, (uint32_t)a[2], (const void *)(uintptr_t)arg4, uaddr2,
                               (uint32_t)a[5]));
}

int64_t sys_futex(struct cpu *c, const uint64_t a[6])
{
    return futex_call(c, a, FUTEX_TS_HOST);
}
