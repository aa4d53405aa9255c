/* For guests that fault with rsp pointing at unusable memory (a CALL or a
 * PUSH into a PROT_NONE page): SIGSEGV goes to handler (SA_SIGINFO) on an
 * alternate stack, where the kernel can build its frame.  Header-only. */
#ifndef GUEST_SEGV_ALTSTACK_H
#define GUEST_SEGV_ALTSTACK_H

#include <signal.h>
#include <string.h>

static inline void segv_on_altstack(void (*handler)(int, siginfo_t *, void *))
{
    static char altstack[65536];
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
}

#endif
