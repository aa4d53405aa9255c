/* A thread that spins (no system call) while the first thread waits, also
 * spinning, until it sees the count move: elfemu-view's test of parking
 * (tests/e2e/view/threads.sh) stops the first thread in
 * wait_for_the_spinner() and steps it, the spinner parked; natively, and
 * under a viewer that runs, the wait ends at once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_long spins;
static atomic_int stop;

static void *spin(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        atomic_fetch_add(&spins, 1);
    return NULL;
}

__attribute__((noinline)) void wait_for_the_spinner(void)
{
    long before = atomic_load(&spins);
    while (atomic_load(&spins) == before)
        ;
}

int main(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, spin, NULL) != 0) {
        printf("pthread_create failed\n");
        return 1;
    }
    wait_for_the_spinner();
    printf("the spinner advanced\n");
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    printf("joined\n");
    return 0;
}
