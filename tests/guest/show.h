/* What the syscall-layer guests print of a call: facts the native run
 * prints the same way (a count or -1 and the errno name; never a
 * descriptor number, id or address), and the bad addresses they pass.
 * Header-only: each guest program is one source file. */
#ifndef GUEST_SHOW_H
#define GUEST_SHOW_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* A call's result: its value, or -1 and the errno name. */
static inline void show(const char *what, long r)
{
    if (r < 0)
        printf("%s: -1 %s\n", what, strerrorname_np(errno));
    else
        printf("%s: %ld\n", what, r);
}

/* The same with errno cleared first and the call evaluated once. */
#define SHOW(what, call) (errno = 0, show((what), (long)(call)))

/* For results that differ from run to run (descriptors, ids): "ok", or
 * -1 and the errno name; returns r. */
static inline long show_ok(const char *what, long r)
{
    if (r < 0)
        printf("%s: -1 %s\n", what, strerrorname_np(errno));
    else
        printf("%s: ok\n", what);
    return r;
}

/* An address below mmap_min_addr, never mapped; volatile so that the
 * compiler does not see (and warn about) a bad pointer it knows. */
static void *volatile const bad_pointer __attribute__((unused)) = (void *)16;
#define BAD bad_pointer

/* An unmapped address among the guest's mappings (a page mapped and
 * unmapped again): checked as a mapping, not by a range test. */
static inline void *bad_ptr(void)
{
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p, 4096);
    return p;
}

#endif
