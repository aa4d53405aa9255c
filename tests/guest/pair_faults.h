/* Faults inside fused pairs, for the pair guests (memfused.c,
 * memfused64.c): each routine faults at a PROT_NONE page whose address it
 * gets as its argument, in the first or the second half of a pair; the
 * SIGSEGV handler records where and with what registers, and one line per
 * routine prints the signal's rip (from the routine's start), address,
 * eax/rax, edx/rdx (masked to regmask) and arithmetic flags but AF.
 * Header-only. */
#ifndef GUEST_PAIR_FAULTS_H
#define GUEST_PAIR_FAULTS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

struct fault_routine {
    const char *name;
    void (*fn)(void *bad);
};

static sigjmp_buf pf_back;
static uintptr_t pf_rip, pf_addr;
static unsigned long pf_ax, pf_dx, pf_fl;

static void pf_on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    ucontext_t *uc = ctx;
#ifdef __x86_64__
    pf_rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    pf_ax = (unsigned long)uc->uc_mcontext.gregs[REG_RAX];
    pf_dx = (unsigned long)uc->uc_mcontext.gregs[REG_RDX];
    pf_fl = (unsigned long)uc->uc_mcontext.gregs[REG_EFL];
#else
    pf_rip = (uintptr_t)uc->uc_mcontext.gregs[REG_EIP];
    pf_ax = (unsigned long)uc->uc_mcontext.gregs[REG_EAX];
    pf_dx = (unsigned long)uc->uc_mcontext.gregs[REG_EDX];
    pf_fl = (unsigned long)uc->uc_mcontext.gregs[REG_EFL];
#endif
    pf_addr = (uintptr_t)si->si_addr;
    siglongjmp(pf_back, 1);
}

static void run_pair_faults(const struct fault_routine *r, size_t n, unsigned long regmask)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = pf_on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    char *bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (bad == MAP_FAILED) {
        perror("mmap");
        return;
    }
    for (size_t k = 0; k < n; k++) {
        pf_rip = 0;
        if (!sigsetjmp(pf_back, 1))
            r[k].fn(bad);
        printf("fault %s: rip=routine+%ld addr=bad+%ld ax=%lx dx=%lx flags=%lx\n", r[k].name,
               (long)(pf_rip - (uintptr_t)r[k].fn), (long)(pf_addr - (uintptr_t)bad),
               pf_ax & regmask, pf_dx & regmask, pf_fl & 0x8c5ul /* CF PF ZF SF OF */);
    }
}

#endif
