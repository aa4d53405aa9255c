/* For loops that walk a buffer until they fault: words of a known pattern
 * followed by a PROT_NONE page, and SIGSEGV sent to an SA_SIGINFO handler
 * (NULL: back to the default).  Header-only. */
#ifndef GUEST_GUARDED_WORDS_H
#define GUEST_GUARDED_WORDS_H

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define GUARD_PAGE 4096

/* pages of words i * 2654435761, then a page that faults; NULL when the
 * mapping fails.  guarded_words_free() unmaps it. */
static inline uintptr_t *guarded_words(unsigned pages)
{
    uint8_t *m = mmap(NULL, (pages + 1) * GUARD_PAGE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    mprotect(m + pages * GUARD_PAGE, GUARD_PAGE, PROT_NONE);
    uintptr_t *w = (uintptr_t *)m;
    for (unsigned i = 0; i < pages * GUARD_PAGE / sizeof(uintptr_t); i++)
        w[i] = (uintptr_t)i * 2654435761u;
    return w;
}

static inline void guarded_words_free(uintptr_t *w, unsigned pages)
{
    munmap(w, (pages + 1) * GUARD_PAGE);
}

static inline void segv_to(void (*handler)(int, siginfo_t *, void *))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    if (handler) {
        sa.sa_sigaction = handler;
        sa.sa_flags = SA_SIGINFO;
    } else {
        sa.sa_handler = SIG_DFL;
    }
    sigaction(SIGSEGV, &sa, NULL);
}

#endif
