/* Guest threads: 8 threads with a mutex, a condition variable, a barrier,
 * C11 atomics, __thread variables, join values, pthread_exit while others
 * run, a detached thread, robust mutexes whose owner died, and finally
 * exit() from main while other threads are blocked.  Output is
 * deterministic (no tids, no timing). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <unistd.h>

#define NTHREADS 8
#define ITERS 100000

static atomic_long acounter;
static long mcounter;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t barrier;
static __thread long tls_value = 7;
static __thread char tls_name[16];

static pthread_mutex_t cv_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int cv_turn;           /* which thread may append next */
static char order[NTHREADS + 1];

static pid_t tids[NTHREADS];

static void *worker(void *arg)
{
    long id = (long)(intptr_t)arg;
    /* TLS starts at its initial value in every thread, then is private. */
    if (tls_value != 7)
        return (void *)-1;
    tls_value = 1000 + id;
    snprintf(tls_name, sizeof(tls_name), "worker%ld", id);
    tids[id] = (pid_t)syscall(SYS_gettid);

    pthread_barrier_wait(&barrier);
    for (int i = 0; i < ITERS; i++) {
        atomic_fetch_add(&acounter, 1);
        pthread_mutex_lock(&count_lock);
        mcounter++;
        pthread_mutex_unlock(&count_lock);
    }
    pthread_barrier_wait(&barrier);

    /* Take turns in reverse id order through the condition variable. */
    pthread_mutex_lock(&cv_lock);
    while (cv_turn != NTHREADS - 1 - id)
        pthread_cond_wait(&cv, &cv_lock);
    order[cv_turn] = (char)('0' + id);
    cv_turn++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&cv_lock);

    char expect[16];
    snprintf(expect, sizeof(expect), "worker%ld", id);
    if (tls_value != 1000 + id || strcmp(tls_name, expect) != 0)
        return (void *)-2;
    if (id == 3)
        pthread_exit((void *)(intptr_t)(300 + id)); /* while the others still run */
    return (void *)(intptr_t)(id * id);
}

/* A detached thread signals through a semaphore-like counter. */
static atomic_int detached_done;
static void *detached(void *arg)
{
    (void)arg;
    tls_value = 99;
    atomic_store(&detached_done, 1);
    return NULL;
}

/* Robust mutex: the owner thread exits holding it. */
static pthread_mutex_t robust;
static void *die_holding(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&robust);
    return NULL;
}

/* Threads blocked forever when main calls exit(). */
static pthread_mutex_t never_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_cv = PTHREAD_COND_INITIALIZER;
static atomic_int blocked;
static void *block_forever(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&never_lock);
    atomic_fetch_add(&blocked, 1);
    for (;;)
        pthread_cond_wait(&never_cv, &never_lock);
    return NULL;
}

/* Cross-thread code modification: main rewrites the immediate of
 * `mov eax, imm32; ret` on an RWX page, then hands a round number over;
 * the runner calls the code and must see the new value. */
static unsigned char *code_page;
static atomic_int round_ready, round_done;
static atomic_int code_mismatch;
#define CODE_ROUNDS 300

static void *code_runner(void *arg)
{
    (void)arg;
    int (*fn)(void) = (int (*)(void))code_page;
    for (int r = 1; r <= CODE_ROUNDS; r++) {
        while (atomic_load(&round_ready) != r)
            ;
        if (fn() != r * 7)
            atomic_fetch_add(&code_mismatch, 1);
        atomic_store(&round_done, r);
    }
    return NULL;
}

/* A JIT in every thread: each writes code into its own RWX page and runs
 * it, over and over, while the others do the same (every write after a run
 * invalidates code, and every thread's cache hears of it). */
static atomic_int jit_errors;
static void *jitter(void *arg)
{
    long id = (long)(intptr_t)arg;
    unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        atomic_fetch_add(&jit_errors, 1);
        return NULL;
    }
    for (int i = 0; i < 500; i++) {
        int32_t v = (int32_t)(id * 1000 + i);
        unsigned off = (unsigned)(i % 8) * 16;
        p[off] = 0xb8; /* mov eax, imm32 */
        memcpy(p + off + 1, &v, 4);
        p[off + 5] = 0xc3; /* ret */
        if (((int (*)(void))(p + off))() != v)
            atomic_fetch_add(&jit_errors, 1);
    }
    munmap(p, 4096);
    return NULL;
}

/* Mappings made and dropped by many threads at once: each must get its own
 * range and keep its contents. */
static atomic_int map_errors;
static void *mapper(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (int i = 0; i < 200; i++) {
        size_t len = 4096 * (size_t)(1 + (i + id) % 4);
        unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            atomic_fetch_add(&map_errors, 1);
            continue;
        }
        memset(p, (int)id, len);
        sched_yield();
        for (size_t j = 0; j < len; j += 512)
            if (p[j] != (unsigned char)id)
                atomic_fetch_add(&map_errors, 1);
        if (i % 3 == 0)
            mprotect(p, 4096, PROT_READ);
        munmap(p, len);
    }
    return NULL;
}

static void at_exit(void)
{
    printf("atexit handler ran in main: %s\n", syscall(SYS_gettid) == getpid() ? "yes" : "no");
}

int main(void)
{
    pthread_t th[NTHREADS];
    pthread_barrier_init(&barrier, NULL, NTHREADS);
    for (long i = 0; i < NTHREADS; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) != 0) {
            printf("pthread_create failed\n");
            return 1;
        }
    for (long i = 0; i < NTHREADS; i++) {
        void *ret;
        pthread_join(th[i], &ret);
        printf("thread %ld returned %ld\n", i, (long)(intptr_t)ret);
    }
    printf("atomic counter %ld (expect %d)\n", atomic_load(&acounter), NTHREADS * ITERS);
    printf("mutex counter %ld (expect %d)\n", mcounter, NTHREADS * ITERS);
    printf("condvar order %s\n", order);
    printf("main tls %ld\n", tls_value);
    int distinct = 1;
    for (int i = 0; i < NTHREADS; i++)
        for (int j = 0; j < i; j++)
            distinct &= tids[i] != tids[j] && tids[i] != getpid() && tids[i] > 0;
    printf("tids distinct and not the pid: %d\n", distinct);

    /* A detached thread; pthread_join on it is refused. */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t d;
    pthread_create(&d, &attr, detached, NULL);
    pthread_attr_destroy(&attr);
    while (!atomic_load(&detached_done))
        sched_yield();
    printf("detached thread ran, main tls still %ld\n", tls_value);

    /* The robust list: the kernel marks the mutex owner-dead at thread exit. */
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&robust, &ma);
    pthread_t r;
    pthread_create(&r, NULL, die_holding, NULL);
    pthread_join(r, NULL);
    int e = pthread_mutex_lock(&robust);
    printf("robust lock after owner died: %s\n", e == EOWNERDEAD ? "EOWNERDEAD" : strerror(e));
    if (e == EOWNERDEAD) {
        pthread_mutex_consistent(&robust);
        pthread_mutex_unlock(&robust);
        printf("robust lock again: %d\n", pthread_mutex_lock(&robust));
        pthread_mutex_unlock(&robust);
    }

    /* Many short-lived threads in a row (creation and teardown). */
    long sum = 0;
    for (long i = 0; i < 64; i++) {
        pthread_t s;
        void *ret;
        pthread_create(&s, NULL, detached, NULL);
        pthread_join(s, &ret);
        sum += ret == NULL;
    }
    printf("64 short threads joined: %ld\n", sum);

    code_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    code_page[0] = 0xb8; /* mov eax, imm32 */
    code_page[5] = 0xc3; /* ret */
    pthread_t cr;
    pthread_create(&cr, NULL, code_runner, NULL);
    for (int r = 1; r <= CODE_ROUNDS; r++) {
        int32_t imm = r * 7;
        memcpy(code_page + 1, &imm, 4);
        atomic_store(&round_ready, r);
        while (atomic_load(&round_done) != r)
            ;
    }
    pthread_join(cr, NULL);
    printf("code rewritten by another thread: %d rounds, %d stale\n", CODE_ROUNDS,
           atomic_load(&code_mismatch));

    pthread_t jt[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&jt[i], NULL, jitter, (void *)(intptr_t)i);
    for (int i = 0; i < 4; i++)
        pthread_join(jt[i], NULL);
    printf("4 threads writing and running their own code: %d errors\n", atomic_load(&jit_errors));

    pthread_t mt[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&mt[i], NULL, mapper, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(mt[i], NULL);
    printf("parallel mmap/munmap: %d errors\n", atomic_load(&map_errors));

    /* exit() while threads are blocked: the process ends with main's status. */
    pthread_t b[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&b[i], NULL, block_forever, NULL);
    while (atomic_load(&blocked) < 3)
        sched_yield();
    pthread_mutex_lock(&never_lock); /* they all wait in the condvar now */
    pthread_mutex_unlock(&never_lock);
    printf("exiting with 3 threads blocked\n");
    atexit(at_exit);
    fflush(stdout);
    exit(5);
}
