/* End the tool's process the way the guest ended (see exit_like.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "tools/exit_like.h"

void exit_like(const elfemu_exit *x)
{
    fflush(NULL);
    if (!x->signaled)
        exit(x->code);
    /* Like the kernel for the guest: no core file of the emulator. */
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    signal(x->code, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, x->code);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(x->code);
    exit(128 + x->code);
}
