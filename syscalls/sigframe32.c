/* The i386 signal frames of a 32-bit guest: what a 64-bit kernel's
 * ia32_setup_frame() and ia32_setup_rt_frame() push for a handler, and the
 * compat sigreturn() and rt_sigreturn() that take them back
 * (arch/x86/kernel/signal_32.c, fpu/signal.c, fpu/regset.c; uapi
 * asm/sigcontext.h struct sigcontext_32 and struct _fpstate_32).  Handlers
 * read and edit these through ucontext_t (or, for the old frame, the
 * sigcontext after the signal number), so every offset is ABI and checked
 * below.  A handler without SA_SIGINFO gets the old frame, one with it the
 * rt frame; without SA_RESTORER both return through the vDSO's
 * __kernel_sigreturn / __kernel_rt_sigreturn, which is what glibc relies
 * on for i386. */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "cpu/cpuid.h"
#include "cpu/flags.h"
#include "cpu/fpstate.h"
#include "loader/elf_sym.h"
#include "loader/vdso/vdso_images.h"
#include "syscalls/syscalls.h"

struct k_sigcontext32 {
    uint32_t gs, fs, es, ds; /* selectors, the upper halves 0 */
    uint32_t di, si, bp, sp, bx, dx, cx, ax;
    uint32_t trapno, err, ip, cs, flags, sp_at_signal, ss;
    uint32_t fpstate; /* guest address of the struct _fpstate_32, or 0 */
    uint32_t oldmask, cr2;
};
_Static_assert(sizeof(struct k_sigcontext32) == 88, "sigcontext_32 layout");

struct k_ucontext32 {
    uint32_t uc_flags, uc_link;
    uint32_t ss_sp, ss_flags, ss_size; /* compat_stack_t */
    struct k_sigcontext32 uc_mcontext;
    uint32_t uc_sigmask[2];
};
_Static_assert(sizeof(struct k_ucontext32) == 116, "ucontext_ia32 layout");

/* The old frame keeps an unused struct _fpstate_32 where it always was, so
 * that extramask[] stays at its offset; the state itself is above retcode. */
#define FPSTATE32_SIZE 624
struct k_sigframe32 {
    uint32_t pretcode;
    int32_t sig;
    struct k_sigcontext32 sc;
    uint8_t fpstate_unused[FPSTATE32_SIZE];
    uint32_t extramask;
    uint8_t retcode[8];
};
_Static_assert(offsetof(struct k_sigframe32, extramask) == 720, "sigframe_ia32 layout");
_Static_assert(sizeof(struct k_sigframe32) == 732, "sigframe_ia32 layout");

struct k_rt_sigframe32 {
    uint32_t pretcode;
    int32_t sig;
    uint32_t pinfo, puc;
    uint8_t info[128]; /* compat_siginfo_t */
    struct k_ucontext32 uc;
    uint8_t retcode[8];
};
_Static_assert(offsetof(struct k_rt_sigframe32, uc) == 144, "rt_sigframe_ia32 layout");
_Static_assert(sizeof(struct k_rt_sigframe32) == 268, "rt_sigframe_ia32 layout");

/* The legacy FSAVE environment before the FXSAVE image (struct
 * user_i387_ia32_struct, then status and magic): 112 bytes. */
#define FSAVE_HDR_SIZE 112
#define X86_FXSR_MAGIC 0x0000

/* What the old retcode holds (popl %eax; movl $119,%eax; int $0x80) and
 * the rt one (movl $173,%eax; int $0x80): no longer executed, kept as
 * markers for debuggers, as the kernel does. */
static const uint8_t retcode_old[8] = { 0x58, 0xb8, 119, 0, 0, 0, 0xcd, 0x80 };
static const uint8_t retcode_rt[8] = { 0xb8, 173, 0, 0, 0, 0xcd, 0x80, 0 };

#define USER32_CS 0x23
#define USER_DS 0x2b

/* Flags a sigreturn may change (FIX_EFLAGS: AC OF DF TF SF ZF AF PF CF RF). */
#define FIX_EFLAGS32 (0x40000u | FL_OF | FL_DF | FL_TF | FL_SF | FL_ZF | FL_AF | FL_PF | FL_CF | \
                      0x10000u)

/* twd_fxsr_to_i387(): the full tag word from the abridged one, each
 * non-empty register classified by its contents (physical order; the
 * image holds them in stack order from TOP). */
static uint32_t full_tag_word(const uint8_t *fx)
{
    uint16_t fsw;
    memcpy(&fsw, fx + 2, 2);
    unsigned top = (fsw >> 11) & 7, abridged = fx[4];
    uint32_t tw = 0xffff0000u;
    for (unsigned i = 0; i < 8; i++) {
        unsigned tag = 3; /* empty */
        if (abridged & (1u << i)) {
            const uint8_t *st = fx + 32 + 16 * ((i - top) & 7);
            uint16_t exp;
            uint64_t mant;
            memcpy(&mant, st, 8);
            memcpy(&exp, st + 8, 2);
            exp &= 0x7fff;
            if (exp == 0x7fff)
                tag = 2; /* special */
            else if (exp == 0)
                tag = mant ? 2 : 1; /* denormal: special; else zero */
            else
                tag = (mant >> 63) ? 0 : 2; /* valid unless unnormal */
        }
        tw |= tag << (2 * i);
    }
    return tw;
}

/* twd_i387_to_fxsr(): a register is valid unless its tag is 11. */
static uint8_t abridged_tag(uint32_t tw)
{
    uint8_t t = 0;
    for (unsigned i = 0; i < 8; i++)
        if (((tw >> (2 * i)) & 3) != 3)
            t |= (uint8_t)(1u << i);
    return t;
}

/* The FSAVE header save_fsave_header() writes before the FXSAVE image of a
 * 32-bit frame (convert_from_fxsr() of a 64-bit kernel: the code selector
 * is the task's cs and the data selector its ds, there is no fop). */
static void build_fsave_header(const uint8_t *fx, uint8_t *hdr)
{
    uint16_t fcw, fsw;
    uint64_t fip, fdp;
    memcpy(&fcw, fx, 2);
    memcpy(&fsw, fx + 2, 2);
    memcpy(&fip, fx + 8, 8);
    memcpy(&fdp, fx + 16, 8);
    uint32_t env[7] = { 0xffff0000u | fcw, 0xffff0000u | fsw, full_tag_word(fx), (uint32_t)fip,
                        USER32_CS, (uint32_t)fdp, 0xffff0000u | USER_DS };
    memcpy(hdr, env, sizeof(env));
    for (unsigned i = 0; i < 8; i++)
        memcpy(hdr + 28 + 10 * i, fx + 32 + 16 * i, 10);
    uint16_t magic = X86_FXSR_MAGIC;
    memcpy(hdr + 108, &fsw, 2);
    memcpy(hdr + 110, &magic, 2);
}

/* convert_to_fxsr(): the legacy environment of the header overrides the
 * x87 part of the FXSAVE image (the kernel ignores the image's own). */
static void fold_fsave_header(const uint8_t *hdr, uint8_t *fx)
{
    uint32_t env[7];
    memcpy(env, hdr, sizeof(env));
    uint16_t fcw = (uint16_t)env[0], fsw = (uint16_t)env[1], fop = (uint16_t)(env[4] >> 16);
    uint64_t fip = env[3], fdp = env[5];
    memcpy(fx, &fcw, 2);
    memcpy(fx + 2, &fsw, 2);
    fx[4] = abridged_tag(env[2]);
    memcpy(fx + 6, &fop, 2);
    memcpy(fx + 8, &fip, 8);
    memcpy(fx + 16, &fdp, 8);
    for (unsigned i = 0; i < 8; i++)
        memcpy(fx + 32 + 16 * i, hdr + 28 + 10 * i, 10);
}

/* The vDSO's sigreturn trampoline the frame returns to without
 * SA_RESTORER, or the frame's own retcode when there is no vDSO. */
static uint32_t vdso_restorer(struct cpu *c, bool rt, uint64_t retcode)
{
    uint64_t off;
    if (!c->mm->vdso_base ||
        ldr_elf_dynsym(ldr_vdso32_image, ldr_vdso32_size,
                       rt ? "__kernel_rt_sigreturn" : "__kernel_sigreturn", "LINUX_2.5", &off) != 0)
        return (uint32_t)retcode;
    return (uint32_t)(c->mm->vdso_base + off);
}

static void save_sigcontext(struct cpu *c, struct k_sigcontext32 *sc, uint32_t fp, uint64_t mask)
{
    const struct sig_thread *t = c->sigt;
    const uint64_t *r = c->r;
    sc->gs = c->sreg[SEG_GS], sc->fs = c->sreg[SEG_FS];
    sc->es = c->sreg[SEG_ES], sc->ds = c->sreg[SEG_DS];
    sc->di = (uint32_t)r[R_DI], sc->si = (uint32_t)r[R_SI], sc->bp = (uint32_t)r[R_BP];
    sc->sp = (uint32_t)r[R_SP], sc->bx = (uint32_t)r[R_BX], sc->dx = (uint32_t)r[R_DX];
    sc->cx = (uint32_t)r[R_CX], sc->ax = (uint32_t)r[R_AX];
    sc->trapno = (uint32_t)t->trapno;
    sc->err = (uint32_t)t->err;
    sc->ip = (uint32_t)c->rip;
    sc->cs = c->sreg[SEG_CS];
    sc->flags = (uint32_t)cpu_flags(c);
    sc->sp_at_signal = sc->sp;
    sc->ss = c->sreg[SEG_SS];
    sc->fpstate = fp;
    sc->oldmask = (uint32_t)mask;
    sc->cr2 = (uint32_t)t->cr2;
}

bool sig_push_frame32(struct cpu *c, const siginfo_t *si, const struct gsigaction *act,
                      uint64_t oldmask)
{
    struct sig_thread *t = c->sigt;
    bool rt = act->flags & SA_SIGINFO;
    /* get_sigframe() for an ia32 frame: no red zone. */
    uint64_t sp0 = (uint32_t)c->r[R_SP], sp = sp0;
    bool nested = sig_on_altstack(c, sp0), entering = false;
    if ((act->flags & SA_ONSTACK) && sig_altstack_flags(c, sp) == 0) {
        sp = t->ss_sp + t->ss_size;
        entering = true;
    }
    /* fpu__alloc_mathframe(): the XSAVE image 64-byte aligned, the FSAVE
     * header right below it. */
    uint64_t fx = (sp - sig_xstate_size()) & ~63ull;
    uint64_t fp = fx - FSAVE_HDR_SIZE;
    uint64_t size = rt ? sizeof(struct k_rt_sigframe32) : sizeof(struct k_sigframe32);
    /* The i386 ABI's alignment: ((sp + 4) & 15) == 0 on the handler's entry. */
    uint64_t frame = ((fp - size + 4) & ~15ull) - 4;
    if ((nested || entering) && !sig_on_altstack(c, frame))
        return false;
    if (frame >= (1ull << 32))
        return false;

    uint8_t img[FSAVE_HDR_SIZE + SIG_XSTATE_MAX];
    sig_build_xstate(c, img + FSAVE_HDR_SIZE, FSAVE_HDR_SIZE);
    build_fsave_header(img + FSAVE_HDR_SIZE, img);
    if (copy_to_guest(c, fp, img, FSAVE_HDR_SIZE + sig_xstate_size()) != 0)
        return false;

    uint32_t restorer;
    if (rt) {
        struct k_rt_sigframe32 f;
        memset(&f, 0, sizeof(f));
        f.sig = si->si_signo;
        f.pinfo = (uint32_t)(frame + offsetof(struct k_rt_sigframe32, info));
        f.puc = (uint32_t)(frame + offsetof(struct k_rt_sigframe32, uc));
        sig_siginfo_to32(si, f.info);
        f.uc.uc_flags = 1; /* UC_FP_XSTATE */
        uint8_t st[24];
        uint64_t ss_sp, ss_size;
        int32_t ss_flags;
        sig_altstack_save(c, st, sp0);
        memcpy(&ss_sp, st, 8);
        memcpy(&ss_flags, st + 8, 4);
        memcpy(&ss_size, st + 16, 8);
        f.uc.ss_sp = (uint32_t)ss_sp;
        f.uc.ss_flags = (uint32_t)ss_flags;
        f.uc.ss_size = (uint32_t)ss_size;
        save_sigcontext(c, &f.uc.uc_mcontext, (uint32_t)fp, oldmask);
        f.uc.uc_sigmask[0] = (uint32_t)oldmask;
        f.uc.uc_sigmask[1] = (uint32_t)(oldmask >> 32);
        memcpy(f.retcode, retcode_rt, 8);
        restorer = (act->flags & SA_RESTORER_FLAG)
                       ? (uint32_t)act->restorer
                       : vdso_restorer(c, true, frame + offsetof(struct k_rt_sigframe32, retcode));
        f.pretcode = restorer;
        if (copy_to_guest(c, frame, &f, sizeof(f)) != 0)
            return false;
        c->r[R_DX] = f.pinfo; /* -mregparm=3 handlers */
        c->r[R_CX] = f.puc;
    } else {
        struct k_sigframe32 f;
        memset(&f, 0, sizeof(f));
        f.sig = si->si_signo;
        save_sigcontext(c, &f.sc, (uint32_t)fp, oldmask);
        f.extramask = (uint32_t)(oldmask >> 32);
        memcpy(f.retcode, retcode_old, 8);
        restorer = (act->flags & SA_RESTORER_FLAG)
                       ? (uint32_t)act->restorer
                       : vdso_restorer(c, false, frame + offsetof(struct k_sigframe32, retcode));
        f.pretcode = restorer;
        if (copy_to_guest(c, frame, &f, sizeof(f)) != 0)
            return false;
        c->r[R_DX] = 0;
        c->r[R_CX] = 0;
    }
    if (t->ss_flags & (1u << 31) /* SS_AUTODISARM */) {
        t->ss_sp = t->ss_size = 0;
        t->ss_flags = SS_DISABLE;
    }

    /* The handler's entry: eax = sig, the new stack, ds/es flat, DF and TF
     * clear and a fresh FPU state. */
    c->r[R_AX] = (uint32_t)si->si_signo;
    c->r[R_SP] = frame;
    c->rip = (uint32_t)act->handler;
    cpu_load_sreg(c, SEG_DS, USER_DS);
    cpu_load_sreg(c, SEG_ES, USER_DS);
    cpu_set_flags(c, 0, FL_DF | FL_TF | 0x10000u);
    sig_init_fpu(c);
    return true;
}

/* reload_segments(): a selector the handler changed is loaded (with RPL 3);
 * one that cannot be loaded becomes the null selector, as the kernel's
 * exception fixup does. */
static void reload_segment(struct cpu *c, int slot, uint32_t sel)
{
    uint16_t s = (uint16_t)(sel | 3);
    if ((uint16_t)(c->sreg[slot] | 3) == s)
        return;
    if (!cpu_load_sreg(c, slot, s))
        cpu_load_sreg(c, slot, 0);
}

/* ia32_restore_sigcontext(): the registers, flags, segments and FPU state
 * back from a sigcontext; false when the FPU state cannot be read. */
static bool restore_sigcontext(struct cpu *c, const struct k_sigcontext32 *sc)
{
    uint64_t *r = c->r;
    r[R_BX] = sc->bx, r[R_CX] = sc->cx, r[R_DX] = sc->dx, r[R_SI] = sc->si;
    r[R_DI] = sc->di, r[R_BP] = sc->bp, r[R_SP] = sc->sp;
    c->rip = sc->ip;
    cpu_set_flags(c, sc->flags, FIX_EFLAGS32);
    c->sys_restart = RESTART_NONE;
    reload_segment(c, SEG_GS, sc->gs);
    reload_segment(c, SEG_FS, sc->fs);
    reload_segment(c, SEG_DS, sc->ds);
    reload_segment(c, SEG_ES, sc->es);
    if (!sc->fpstate) {
        sig_init_fpu(c);
        return true;
    }
    /* fpu__restore_sig(): the FXSAVE image right after the header, with the
     * header's x87 environment and registers folded in. */
    uint8_t img[FSAVE_HDR_SIZE + FXSAVE_SIZE];
    if (copy_from_guest(c, img, sc->fpstate, sizeof(img)) != 0) {
        sig_init_fpu(c);
        return false;
    }
    uint8_t *fx = img + FSAVE_HDR_SIZE;
    fold_fsave_header(img, fx);
    uint32_t mxcsr;
    memcpy(&mxcsr, fx + 24, 4);
    mxcsr &= MXCSR_MASK_VALUE;
    memcpy(fx + 24, &mxcsr, 4);
    cpu_fxrstor_image(c, fx);
    return true;
}

/* signal_fault(): a frame that cannot be read is a SIGSEGV here. */
static __attribute__((noreturn)) void bad_frame(struct cpu *c)
{
    cpu_fault(c, SIGSEGV, SI_KERNEL, 0);
}

/* sigreturn (119): the handler returned through the old frame's restorer,
 * which popped the signal number: the frame starts 8 bytes below esp. */
int64_t sys_sigreturn_ia32(struct cpu *c, const uint64_t a[6])
{
    uint64_t frame = (uint32_t)(c->r[R_SP] - 8);
    struct k_sigframe32 f;
    if (copy_from_guest(c, &f, frame, sizeof(f)) != 0)
        bad_frame(c);
    sig_set_mask(c, f.sc.oldmask | ((uint64_t)f.extramask << 32));
    if (!restore_sigcontext(c, &f.sc))
        bad_frame(c);
    return (int32_t)f.sc.ax;
}

/* rt_sigreturn (173): the frame starts 4 bytes below esp (the handler's
 * ret popped pretcode). */
int64_t sys_rt_sigreturn_ia32(struct cpu *c, const uint64_t a[6])
{
    uint64_t frame = (uint32_t)(c->r[R_SP] - 4);
    struct k_rt_sigframe32 f;
    if (copy_from_guest(c, &f, frame, sizeof(f)) != 0)
        bad_frame(c);
    const struct k_ucontext32 *uc = &f.uc;
    sig_set_mask(c, uc->uc_sigmask[0] | ((uint64_t)uc->uc_sigmask[1] << 32));
    if (!restore_sigcontext(c, &uc->uc_mcontext))
        bad_frame(c);
    /* compat_restore_altstack(): errors but EFAULT are ignored. */
    uint8_t st[24];
    uint64_t ss_sp = uc->ss_sp, ss_size = uc->ss_size;
    int32_t ss_flags = (int32_t)uc->ss_flags, pad = 0;
    memcpy(st, &ss_sp, 8);
    memcpy(st + 8, &ss_flags, 4);
    memcpy(st + 12, &pad, 4);
    memcpy(st + 16, &ss_size, 8);
    (void)sig_altstack_set(c, st, c->r[R_SP]);
    return (int32_t)uc->uc_mcontext.ax;
}
