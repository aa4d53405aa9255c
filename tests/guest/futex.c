/* futex(2), set_tid_address, set/get_robust_list: each op's results and
 * errnos, PI locks under contention, and the robust-list walk the kernel
 * does when a thread exits.  Only final states are printed (no counts that
 * depend on timing). */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long futex(void *uaddr, int op, uint32_t val, const void *ts, void *uaddr2, uint32_t val3)
{
    return syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3);
}

static void show(const char *what, long r)
{
    if (r < 0)
        printf("%-40s -1 %s\n", what, strerrorname_np(errno));
    else
        printf("%-40s %ld\n", what, r);
}

static pid_t gettid_(void) { return (pid_t)syscall(SYS_gettid); }

/* ------------------------------------------------------------ wait and wake */

static _Atomic uint32_t word;
static atomic_int waiter_done;

static void *waiter(void *arg)
{
    (void)arg;
    while (atomic_load(&word) == 0)
        futex(&word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    atomic_store(&waiter_done, 1);
    return NULL;
}

/* ------------------------------------------------------------ PI contention */

static _Atomic uint32_t pi_word;
static long pi_counter;

static void pi_lock(void)
{
    uint32_t zero = 0;
    if (atomic_compare_exchange_strong(&pi_word, &zero, (uint32_t)gettid_()))
        return;
    while (futex(&pi_word, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0) != 0 && errno == EINTR)
        ;
}

static void pi_unlock(void)
{
    uint32_t me = (uint32_t)gettid_();
    if (atomic_compare_exchange_strong(&pi_word, &me, 0))
        return;
    futex(&pi_word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
}

static void *pi_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        pi_lock();
        pi_counter++;
        pi_unlock();
    }
    return NULL;
}

/* ------------------------------------------------------------ robust list */

struct robust_item {
    struct robust_item *next;
    uint32_t lock;
};

struct robust_head {
    struct robust_item *list;
    long futex_offset;
    struct robust_item *pending;
};

static struct robust_item items[4];
static struct robust_head rhead;

static void *robust_dier(void *arg)
{
    (void)arg;
    uint32_t tid = (uint32_t)gettid_();
    /* A circular list through the head, as glibc keeps it. */
    rhead.list = &items[0];
    items[0].next = &items[1];
    items[1].next = &items[2];
    items[2].next = (struct robust_item *)&rhead;
    rhead.futex_offset = offsetof(struct robust_item, lock);
    rhead.pending = &items[3];
    items[0].lock = tid;                    /* held: owner died */
    items[1].lock = tid | FUTEX_WAITERS;    /* held with waiters */
    items[2].lock = 12345;                  /* someone else's */
    items[3].lock = tid;                    /* pending, held */
    syscall(SYS_set_robust_list, &rhead, sizeof(rhead));
    syscall(SYS_exit, 0); /* glibc's own cleanup must not run on our list */
    return NULL;
}

int main(void)
{
    struct timespec ts = { 0, 10 * 1000 * 1000 };
    uint32_t w = 5, w2 = 0;

    /* Errors, in the kernel's order. */
    show("wait, value differs", futex(&w, FUTEX_WAIT_PRIVATE, 4, NULL, NULL, 0));
    show("wait, relative timeout", futex(&w, FUTEX_WAIT_PRIVATE, 5, &ts, NULL, 0));
    struct timespec past = { 1, 0 };
    show("wait_bitset, absolute monotonic past",
         futex(&w, FUTEX_WAIT_BITSET_PRIVATE, 5, &past, NULL, FUTEX_BITSET_MATCH_ANY));
    show("wait_bitset, absolute realtime past",
         futex(&w, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 5, &past, NULL,
               FUTEX_BITSET_MATCH_ANY));
    show("wait_bitset, bitset 0", futex(&w, FUTEX_WAIT_BITSET_PRIVATE, 5, NULL, NULL, 0));
    struct timespec bad_ns = { 0, 2000000000 };
    show("wait, bad timeout nsec", futex(&w, FUTEX_WAIT_PRIVATE, 5, &bad_ns, NULL, 0));
    show("wait, timeout pointer bad", futex(&w, FUTEX_WAIT_PRIVATE, 5, (void *)8, NULL, 0));
    show("wait, misaligned", futex((char *)&w + 1, FUTEX_WAIT_PRIVATE, 5, NULL, NULL, 0));
    show("wait, NULL word", futex(NULL, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0));
    show("wait, clock_realtime on plain wake", futex(&w, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0));
    show("unknown op", futex(&w, 99, 0, NULL, NULL, 0));
    show("wake, nobody waits", futex(&w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
    show("wake shared, nobody waits", futex(&w, FUTEX_WAKE, 1, NULL, NULL, 0));
    show("wake_bitset, bitset 0", futex(&w, FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 0));
    show("requeue, nobody waits", futex(&w, FUTEX_REQUEUE_PRIVATE, 1, (void *)1, &w2, 0));
    show("cmp_requeue, value differs", futex(&w, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1, &w2, 4));
    show("cmp_requeue, value matches", futex(&w, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1, &w2, 5));
    show("cmp_requeue, bad second word", futex(&w, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1, (void *)16, 5));

    /* WAKE_OP: *uaddr2 = op(*uaddr2, arg), then wake. */
    w2 = 10;
    show("wake_op add 3",
         futex(&w, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &w2,
               FUTEX_OP(FUTEX_OP_ADD, 3, FUTEX_OP_CMP_GT, 0)));
    printf("%-40s %u\n", "second word after wake_op", w2);
    show("wake_op, second word bad",
         futex(&w, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, (void *)16,
               FUTEX_OP(FUTEX_OP_ADD, 3, FUTEX_OP_CMP_GT, 0)));

    /* PI on an uncontended word. */
    uint32_t pi = 0;
    show("trylock_pi, free", futex(&pi, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
    printf("%-40s %d\n", "owner is me", (pid_t)(pi & FUTEX_TID_MASK) == gettid_());
    show("lock_pi, already mine", futex(&pi, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0));
    show("unlock_pi", futex(&pi, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
    printf("%-40s %u\n", "word after unlock_pi", pi);
    pi = 1; /* owned by a tid that is not ours */
    show("unlock_pi, not the owner", futex(&pi, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
    show("cmp_requeue_pi onto itself", futex(&w, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, (void *)0, &w, 5));
    show("wait_requeue_pi onto itself", futex(&w, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 5, NULL, &w, 0));
    w2 = 0;
    show("wait_requeue_pi, value differs", futex(&w, FUTEX_WAIT_REQUEUE_PI_PRIVATE, 4, NULL, &w2, 0));

    /* A code page: the futex word must still work after it was decoded. */
    uint32_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ((unsigned char *)page)[64] = 0xc3; /* ret */
    ((void (*)(void))((char *)page + 64))();
    show("trylock_pi on a code page", futex(page, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
    show("unlock_pi on a code page", futex(page, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0));
    /* The same for a buffer a syscall writes: new code read() over code
     * that ran is what runs next. */
    static const unsigned char ret1[] = { 0xb8, 1, 0, 0, 0, 0xc3 };   /* mov eax,1; ret */
    static const unsigned char ret42[] = { 0xb8, 42, 0, 0, 0, 0xc3 }; /* mov eax,42; ret */
    memcpy((char *)page + 128, ret1, sizeof(ret1));
    int (*fn)(void) = (int (*)(void))((char *)page + 128);
    int first = fn();
    int fds[2];
    if (pipe(fds) == 0) {
        write(fds[1], ret42, sizeof(ret42));
        show("read() over code that ran", read(fds[0], (char *)page + 128, sizeof(ret42)));
        printf("%-40s %d then %d\n", "the code returns", first, fn());
        close(fds[0]);
        close(fds[1]);
    }
    munmap(page, 4096);

    /* A real wait and wake across threads. */
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    atomic_store(&word, 1);
    while (!atomic_load(&waiter_done))
        futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    pthread_join(t, NULL);
    printf("%-40s %d\n", "waiter woken", atomic_load(&waiter_done));

    /* PI locks under contention. */
    pthread_t pt[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&pt[i], NULL, pi_worker, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(pt[i], NULL);
    printf("%-40s %ld\n", "pi counter (expect 80000)", pi_counter);

    /* glibc's PI and robust mutexes. */
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
    pthread_mutex_t m;
    pthread_mutex_init(&m, &ma);
    printf("%-40s %d\n", "glibc PI mutex lock", pthread_mutex_lock(&m));
    printf("%-40s %d\n", "glibc PI mutex trylock (busy)", pthread_mutex_trylock(&m));
    printf("%-40s %d\n", "glibc PI mutex unlock", pthread_mutex_unlock(&m));

    /* set_tid_address and the robust list calls. */
    printf("%-40s %d\n", "set_tid_address returns tid",
           syscall(SYS_set_tid_address, &w2) == gettid_());
    struct robust_head *glibc_head;
    size_t len;
    show("get_robust_list(0)", syscall(SYS_get_robust_list, 0, &glibc_head, &len));
    printf("%-40s %zu\n", "its length", len);
    show("set_robust_list, bad length", syscall(SYS_set_robust_list, &rhead, 23));
    struct robust_head mine, *got;
    show("set_robust_list", syscall(SYS_set_robust_list, &mine, sizeof(mine)));
    syscall(SYS_get_robust_list, gettid_(), &got, &len);
    printf("%-40s %d\n", "get_robust_list(tid) is it", got == &mine);
    syscall(SYS_set_robust_list, glibc_head, sizeof(*glibc_head));
    show("get_robust_list, no such pid", syscall(SYS_get_robust_list, 0x3ffffff0, &got, &len));
    show("get_robust_list, bad pointer", syscall(SYS_get_robust_list, 0, (void *)16, &len));

    /* The kernel's walk at thread exit. */
    pthread_t r;
    pthread_create(&r, NULL, robust_dier, NULL);
    pthread_join(r, NULL);
    static const char *names[] = { "held", "held with waiters", "other owner", "pending" };
    for (int i = 0; i < 4; i++) {
        uint32_t v = items[i].lock;
        printf("robust %-33s died=%d waiters=%d owner_cleared=%d\n", names[i],
               !!(v & FUTEX_OWNER_DIED), !!(v & FUTEX_WAITERS), (v & FUTEX_TID_MASK) == 0);
    }

    /* A process-shared robust mutex whose owner process ends holding it:
     * by exit() and by a fault. */
    pthread_mutex_t *shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pthread_mutexattr_t sa;
    pthread_mutexattr_init(&sa);
    pthread_mutexattr_setpshared(&sa, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&sa, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(shm, &sa);
    for (int how = 0; how < 2; how++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            pthread_mutex_lock(shm);
            if (how == 0)
                exit(0);
            *(volatile int *)16 = 1;
        }
        int status;
        waitpid(pid, &status, 0);
        int e = pthread_mutex_lock(shm);
        printf("shared robust mutex after owner %-9s %s\n", how ? "faulted:" : "exited:",
               e == EOWNERDEAD ? "EOWNERDEAD" : strerror(e));
        if (e == EOWNERDEAD)
            pthread_mutex_consistent(shm);
        pthread_mutex_unlock(shm);
    }
    return 0;
}
