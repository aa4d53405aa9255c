/* Host faults: SIGSEGV/SIGBUS inside the guest space become guest faults.
 *
 * The CPU and the syscall layer arm a jump buffer before they touch guest
 * memory through the host MMU.  A fault whose address lies inside the armed
 * space is recorded (guest address, read or write) and control returns to
 * the armed point with siglongjmp, before any state of the faulting
 * instruction was committed.  Any other fault is an emulator bug: it is
 * reported on stderr and the process dies with the original signal. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "mm/space.h"

struct fault_arm {
    const struct mm_space *mm;
    sigjmp_buf *jmp;
    struct mm_fault *out;
};

static __thread struct fault_arm armed;
static bool (*code_hook)(struct mm_space *mm, uint64_t addr);
static void (*async_hook)(int sig, siginfo_t *si, void *uc);
static __thread void *altstack;

/* Page-fault error code bit 1: the access was a write (SDM vol. 3, 4.7). */
#define PF_ERR_WRITE 0x2

static void say(const char *s)
{
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

static void hex(char *buf, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    buf[0] = '0';
    buf[1] = 'x';
    for (int i = 0; i < 16; i++)
        buf[2 + i] = digits[(v >> (60 - 4 * i)) & 15];
    buf[18] = 0;
}

static void fault_handler(int sig, siginfo_t *si, void *uc_)
{
    ucontext_t *uc = uc_;
    /* Sent by a process (kill, tgkill, sigqueue): no fault, a signal for
     * the guest. */
    if (si->si_code <= 0 && async_hook) {
        async_hook(sig, si, uc_);
        return;
    }
    uint8_t *a = si->si_addr;
    const struct mm_space *mm = armed.mm;
    if (mm && armed.jmp && a >= mm->base && a < mm->base + mm->reserved) {
        bool write = (uc->uc_mcontext.gregs[REG_ERR] & PF_ERR_WRITE) != 0;
        /* A write to a page holding decoded code: forget that code, make the
         * page writable again and let the store run once more.  (Only a
         * protection fault can be one: SIGBUS past a file's end is not.) */
        if (write && sig == SIGSEGV && si->si_code == SEGV_ACCERR && code_hook &&
            code_hook((struct mm_space *)mm, (uint64_t)(a - mm->base)))
            return;
        armed.out->addr = (uint64_t)(a - mm->base);
        armed.out->access = write ? MM_ACCESS_WRITE : MM_ACCESS_READ;
        armed.out->host_signo = sig;
        armed.out->err = (uint64_t)uc->uc_mcontext.gregs[REG_ERR];
        /* The handler runs with a fresh FPU state and siglongjmp does not
         * restore the interrupted one: put it back (the guest's x87 state
         * and SSE flags may live there, cpu/x87_host.h and cpu/sse.h). */
        if (uc->uc_mcontext.fpregs)
            __asm__ volatile("fxrstor64 %0" : : "m"(*uc->uc_mcontext.fpregs));
        siglongjmp(*armed.jmp, 1);
    }
    char addr[20], pc[20];
    hex(addr, (uint64_t)(uintptr_t)a);
    hex(pc, (uint64_t)uc->uc_mcontext.gregs[REG_RIP]);
    say("elfemu: internal error: ");
    say(sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
    say(" at host address ");
    say(addr);
    say(mm && a >= mm->base && a < mm->base + mm->reserved
            ? " inside the guest space with no guest access armed"
            : " outside the guest space");
    say(", host pc ");
    say(pc);
    say(" (an emulator bug; please report it)\n");
    signal(sig, SIG_DFL);
    /* Returning re-executes the faulting access, which now kills us. */
}

int mm_fault_install(void)
{
    static int installed;
    if (!altstack) {
        stack_t ss = { .ss_size = 64 * 1024 };
        ss.ss_sp = altstack = malloc(ss.ss_size);
        if (!altstack || sigaltstack(&ss, NULL) != 0)
            return -errno;
    }
    if (__atomic_exchange_n(&installed, 1, __ATOMIC_ACQ_REL))
        return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0 || sigaction(SIGBUS, &sa, NULL) != 0)
        return -errno;
    return 0;
}

int mm_copy_guarded(const struct mm_space *mm, void *dst, const void *src, size_t len)
{
    /* Another guard may be armed (the CPU's): keep it and put it back. */
    struct fault_arm saved = armed;
    sigjmp_buf jmp;
    struct mm_fault f;
    int r = 0;
    mm_fault_install();
    if (sigsetjmp(jmp, 0) == 0) {
        mm_fault_arm(mm, &jmp, &f);
        memcpy(dst, src, len);
    } else {
        r = -EFAULT;
    }
    armed.mm = NULL;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    armed = saved;
    return r;
}

void mm_fault_set_code_hook(bool (*hook)(struct mm_space *mm, uint64_t addr))
{
    code_hook = hook;
}

void mm_fault_thread_exit(void)
{
    if (!altstack)
        return;
    stack_t ss = { .ss_flags = SS_DISABLE };
    if (sigaltstack(&ss, NULL) == 0) {
        free(altstack);
        altstack = NULL;
    }
}

void mm_fault_set_async_hook(void (*hook)(int sig, siginfo_t *si, void *uc))
{
    async_hook = hook;
}

void mm_fault_arm(const struct mm_space *mm, sigjmp_buf *jmp, struct mm_fault *out)
{
    armed.out = out;
    armed.jmp = jmp;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    armed.mm = mm;
}

void mm_fault_disarm(void)
{
    armed.mm = NULL;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    armed.jmp = NULL;
}
