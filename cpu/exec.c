/* The dispatch loop and the ways a guest stops.
 *
 * For now each step decodes the instruction at rip and calls its handler;
 * the block cache of the CPU core issue slots in here without changing the
 * handlers' signature. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cpu/cpu.h"

void cpu_init(struct cpu *c, struct mm_space *mm, int bits)
{
    memset(c, 0, sizeof(*c));
    c->mm = mm;
    c->bits = bits;
    c->rflags = RFLAGS_FIXED | RFLAGS_IF;
    c->log_unimplemented = true;
}

void cpu_raise(struct cpu *c, int sig)
{
    c->stop = CPU_SIGNALED;
    c->stop_code = sig;
}

void cpu_unimplemented(struct cpu *c, const uint8_t *bytes, unsigned len, bool invalid)
{
    /* Log each address once: a loop over an unknown instruction stays readable. */
    static __thread uint64_t logged[64];
    static __thread unsigned nlogged;
    bool seen = false;
    for (unsigned i = 0; i < nlogged && i < 64; i++)
        seen |= logged[i] == c->rip;
    if (c->log_unimplemented && !seen) {
        logged[nlogged++ % 64] = c->rip;
        char hex[3 * 16 + 1] = "", text[128];
        for (unsigned i = 0; i < len && i < 15; i++)
            snprintf(hex + 3 * i, sizeof(hex) - 3 * i, "%02x ", bytes[i]);
        cpu_disasm(c->bits, bytes, len, c->rip, text, sizeof(text));
        fprintf(stderr, "elfemu: %s instruction at %#llx: %s(%s): SIGILL\n",
                invalid ? "invalid" : "unimplemented", (unsigned long long)c->rip, hex, text);
    }
    cpu_raise(c, SIGILL);
}

void cpu_run(struct cpu *c)
{
    sigjmp_buf jmp;
    struct mm_fault fault;
    mm_fault_install();
    if (sigsetjmp(jmp, 0)) {
        /* A guest access faulted in the host MMU: the instruction did not
         * complete, rip still points at it. */
        mm_fault_disarm();
        cpu_raise(c, fault.host_signo == SIGBUS ? SIGBUS : SIGSEGV);
        return;
    }
    mm_fault_arm(c->mm, &jmp, &fault);
    c->stop = CPU_RUNNING;
    struct cpu_op op;
    while (c->stop == CPU_RUNNING) {
        if (!cpu_decode(c, &op))
            break;
        op.fn(c, &op);
    }
    mm_fault_disarm();
}
