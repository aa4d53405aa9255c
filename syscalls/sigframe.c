/* The x86_64 signal frame: what the kernel's x64_setup_rt_frame() pushes
 * for a handler and what rt_sigreturn() takes back
 * (arch/x86/kernel/signal.c, signal_64.c; uapi asm/sigcontext.h,
 * asm/ucontext.h).  The layout is ABI: handlers read and edit it through
 * ucontext_t, so every offset is checked below. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu/cpuid.h"
#include "cpu/flags.h"
#include "cpu/fpstate.h"
#include "syscalls/syscalls.h"

/* struct sigcontext (64-bit): the order of glibc's REG_R8..REG_CR2. */
struct k_sigcontext {
    uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
    uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
    uint16_t cs, gs, fs, ss;
    uint64_t err, trapno, oldmask, cr2;
    uint64_t fpstate; /* guest address of the FXSAVE/XSAVE image, or 0 */
    uint64_t reserved1[8];
};
_Static_assert(sizeof(struct k_sigcontext) == 256, "sigcontext layout");

struct k_ucontext {
    uint64_t uc_flags, uc_link;
    uint8_t uc_stack[24]; /* stack_t */
    struct k_sigcontext uc_mcontext;
    uint64_t uc_sigmask;  /* the kernel's sigset_t: 64 bits */
};
_Static_assert(offsetof(struct k_ucontext, uc_mcontext) == 40, "ucontext layout");
_Static_assert(sizeof(struct k_ucontext) == 304, "ucontext layout");

struct k_rt_sigframe {
    uint64_t pretcode; /* the handler returns to sa_restorer */
    struct k_ucontext uc;
    uint8_t info[128]; /* siginfo_t */
};
_Static_assert(sizeof(struct k_rt_sigframe) == 440, "rt_sigframe layout");

#define UC_FP_XSTATE 0x1
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4

/* The XSAVE parts of the image (asm/sigcontext.h, struct _fpx_sw_bytes in
 * the FXSAVE area's software-reserved bytes, and a trailing magic). */
#define K_FP_XSTATE_MAGIC1 0x46505853u
#define K_FP_XSTATE_MAGIC2 0x46505845u
#define FPX_SW_OFFSET 464
#define XSTATE_FEATURES 3ull /* x87 and SSE: what CPUID leaf 0xd says */
#define FPSTATE_SIZE (CPU_XSAVE_SIZE + 4u)
_Static_assert(FPSTATE_SIZE <= SIG_XSTATE_MAX, "SIG_XSTATE_MAX");

/* Flags a sigreturn may change (FIX_EFLAGS: AC OF DF TF SF ZF AF PF CF RF). */
#define FIX_EFLAGS (0x40000u | FL_OF | FL_DF | FL_TF | FL_SF | FL_ZF | FL_AF | FL_PF | FL_CF | \
                    0x10000u)

/* fpu__alloc_mathframe() and the XSAVE image copy_fpstate_to_sigframe()
 * writes: the FXSAVE area, the software bytes, the XSAVE header and the
 * trailing magic.  extra: what the frame holds before the image (the
 * FSAVE header of a 32-bit frame), counted in its extended_size. */
void sig_build_xstate(const struct cpu *c, uint8_t *img, uint32_t extra)
{
    memset(img, 0, FPSTATE_SIZE);
    cpu_fxsave_image(c, img);
    uint32_t sw[3] = { K_FP_XSTATE_MAGIC1, FPSTATE_SIZE + extra, 0 };
    uint64_t feat = XSTATE_FEATURES;
    uint32_t xsize = CPU_XSAVE_SIZE;
    memcpy(img + FPX_SW_OFFSET, sw, 8);
    memcpy(img + FPX_SW_OFFSET + 8, &feat, 8);
    memcpy(img + FPX_SW_OFFSET + 16, &xsize, 4);
    memcpy(img + 512, &feat, 8); /* XSTATE_BV */
    uint32_t m2 = K_FP_XSTATE_MAGIC2;
    memcpy(img + CPU_XSAVE_SIZE, &m2, 4);
}

uint32_t sig_xstate_size(void)
{
    return FPSTATE_SIZE;
}

/* The state a handler starts with: fpu__clear_user_states(). */
void sig_init_fpu(struct cpu *c)
{
    uint8_t img[FXSAVE_SIZE];
    memset(img, 0, sizeof(img));
    uint16_t fcw = 0x37f;
    uint32_t mxcsr = 0x1f80;
    memcpy(img, &fcw, 2);
    memcpy(img + 24, &mxcsr, 4);
    cpu_fxrstor_image(c, img);
}

bool sig_push_frame(struct cpu *c, const siginfo_t *si, const struct gsigaction *act,
                    uint64_t oldmask)
{
    struct sig_thread *t = c->sigt;
    /* get_sigframe(): below the red zone, or at the top of the alternate
     * stack when the handler asks for it and we are not on it already. */
    uint64_t sp0 = c->r[R_SP], sp = sp0 - 128;
    bool nested = sig_on_altstack(c, sp0), entering = false;
    if ((act->flags & SA_ONSTACK) && sig_altstack_flags(c, sp) == 0) {
        sp = t->ss_sp + t->ss_size;
        entering = true;
    }
    uint64_t fp = (sp - FPSTATE_SIZE) & ~63ull;
    uint64_t frame = ((fp - sizeof(struct k_rt_sigframe)) & ~15ull) - 8;
    if ((nested || entering) && !sig_on_altstack(c, frame))
        return false;
    /* x86_64 has no vsyscall trampoline: without SA_RESTORER the frame
     * cannot be set up. */
    if (!(act->flags & SA_RESTORER_FLAG))
        return false;

    uint8_t img[FPSTATE_SIZE];
    sig_build_xstate(c, img, 0);
    struct k_rt_sigframe f;
    memset(&f, 0, sizeof(f));
    f.pretcode = act->restorer;
    f.uc.uc_flags = UC_FP_XSTATE | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
    sig_altstack_save(c, f.uc.uc_stack, sp0);
    struct k_sigcontext *sc = &f.uc.uc_mcontext;
    const uint64_t *r = c->r;
    sc->r8 = r[R_8], sc->r9 = r[R_9], sc->r10 = r[R_10], sc->r11 = r[R_11];
    sc->r12 = r[R_12], sc->r13 = r[R_13], sc->r14 = r[R_14], sc->r15 = r[R_15];
    sc->rdi = r[R_DI], sc->rsi = r[R_SI], sc->rbp = r[R_BP], sc->rbx = r[R_BX];
    sc->rdx = r[R_DX], sc->rax = r[R_AX], sc->rcx = r[R_CX], sc->rsp = r[R_SP];
    sc->rip = c->rip;
    sc->eflags = cpu_flags(c);
    sc->cs = c->sreg[SEG_CS];
    sc->ss = c->sreg[SEG_SS];
    sc->err = t->err;
    sc->trapno = t->trapno;
    sc->oldmask = oldmask;
    sc->cr2 = t->cr2;
    sc->fpstate = fp;
    f.uc.uc_sigmask = oldmask;
    if (act->flags & SA_SIGINFO)
        memcpy(f.info, si, sizeof(f.info));
    if (copy_to_guest(c, fp, img, sizeof(img)) != 0 ||
        copy_to_guest(c, frame, &f, sizeof(f)) != 0)
        return false;
    if (t->ss_flags & (1u << 31) /* SS_AUTODISARM */) {
        t->ss_sp = t->ss_size = 0;
        t->ss_flags = SS_DISABLE;
    }

    /* The handler's entry: handler(sig, &info, &uc) on the new stack, with
     * DF and TF clear and a fresh FPU state. */
    c->r[R_DI] = (uint64_t)si->si_signo;
    c->r[R_SI] = frame + offsetof(struct k_rt_sigframe, info);
    c->r[R_DX] = frame + offsetof(struct k_rt_sigframe, uc);
    c->r[R_AX] = 0;
    c->r[R_SP] = frame;
    c->rip = act->handler;
    cpu_set_flags(c, 0, FL_DF | FL_TF | 0x10000u);
    sig_init_fpu(c);
    return true;
}

/* rt_sigreturn(): everything back from the (possibly edited) frame; a
 * frame that cannot be read is a SIGSEGV at this point. */
int64_t sys_rt_sigreturn(struct cpu *c, const uint64_t a[6])
{
    uint64_t frame = c->r[R_SP] - 8;
    struct k_rt_sigframe f;
    if (copy_from_guest(c, &f, frame, sizeof(f)) != 0)
        cpu_fault(c, SIGSEGV, SI_KERNEL, 0);
    const struct k_sigcontext *sc = &f.uc.uc_mcontext;
    uint8_t img[FPSTATE_SIZE];
    if (sc->fpstate && copy_from_guest(c, img, sc->fpstate, FXSAVE_SIZE) != 0)
        cpu_fault(c, SIGSEGV, SI_KERNEL, 0);

    uint64_t *r = c->r;
    r[R_8] = sc->r8, r[R_9] = sc->r9, r[R_10] = sc->r10, r[R_11] = sc->r11;
    r[R_12] = sc->r12, r[R_13] = sc->r13, r[R_14] = sc->r14, r[R_15] = sc->r15;
    r[R_DI] = sc->rdi, r[R_SI] = sc->rsi, r[R_BP] = sc->rbp, r[R_BX] = sc->rbx;
    r[R_DX] = sc->rdx, r[R_CX] = sc->rcx, r[R_SP] = sc->rsp;
    c->rip = sc->rip;
    cpu_set_flags(c, sc->eflags, FIX_EFLAGS);
    if (sc->fpstate) {
        /* The MXCSR bits the CPU does not have would make FXRSTOR fault;
         * the kernel drops them. */
        uint32_t mxcsr;
        memcpy(&mxcsr, img + 24, 4);
        mxcsr &= MXCSR_MASK_VALUE;
        memcpy(img + 24, &mxcsr, 4);
        cpu_fxrstor_image(c, img);
    } else {
        sig_init_fpu(c);
    }
    c->sys_restart = RESTART_NONE;
    sig_set_mask(c, f.uc.uc_sigmask);
    /* restore_altstack(): errors but EFAULT are ignored. */
    (void)sig_altstack_set(c, f.uc.uc_stack, c->r[R_SP]);
    return (int64_t)sc->rax;
}
