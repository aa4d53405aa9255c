/* The lockstep loop: one instruction on the CPU, the same on the emulator,
 * then compare.
 *
 * Special cases:
 *  - SYSCALL (int $0x80 on ia32): only the emulator executes it; its effects
 *    are replayed into the child (replay.c).  exit/exit_group run on both
 *    sides, after a last comparison of all memory, and the statuses must match.
 *  - RDTSC, RDTSCP, RDRAND, RDSEED, RDPID: the CPU's results are copied into
 *    the emulator (they cannot agree by construction).
 *  - CPUID, XGETBV: the emulator's results are copied into the child: the
 *    program must see the emulated CPU on both sides.
 *  - REP string instructions trap after every iteration natively: the child
 *    is stepped until it leaves the instruction.
 *  - PUSHF natively pushes the TF that single-stepping sets: cleared.
 *  - flags (and x87 condition codes, BSF/BSR destinations) the SDM leaves
 *    undefined are not compared, then copied from the CPU into the
 *    emulator so that later instructions start from the same state.
 *  - a fault on both sides at the same instruction ends the run cleanly; a
 *    SIGILL only in the emulator is an unimplemented instruction. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "tools/difftest/difftest.h"

#define GO_ON (-1)
#define FL_ZF 0x40ull

struct dt_run {
    struct native *n;
    elfemu *vm;
    const struct dt_options *o;
    ZydisDecoder dec;
    ZydisMachineMode mode;
    int bits;
    uint64_t count;
    bool fp_due;            /* an FPU comparison is due (--fp-interval) */
};

static unsigned fetch(elfemu *vm, uint64_t rip, uint8_t *buf)
{
    if (elfemu_read(vm, rip, buf, 15) == 0)
        return 15;
    unsigned n = 0;
    while (n < 15 && elfemu_read(vm, rip + n, buf + n, 1) == 0)
        n++;
    return n;
}


/* A REP string instruction worth a breakpoint: many iterations, and no
 * chance that it writes the byte after itself. */
static bool rep_is_long(const struct dt_run *r, const ZydisDecodedInstruction *zi,
                        const elfemu_regs *pre)
{
    uint64_t m = insn_addr_mask(r->bits, zi->address_width);
    uint64_t count = pre->gpr[ELFEMU_RCX] & m, size = zi->operand_width / 8;
    if (count < 64 || !size || count > (1ull << 40))
        return false;
    uint64_t bytes = count * size, di = pre->gpr[ELFEMU_RDI] & m;
    uint64_t lo = (pre->rflags & 0x400) ? di - bytes : di, hi = lo + bytes + size;
    uint64_t bp = pre->rip + zi->length;
    return bp < lo || bp >= hi;
}

/* Copy the GPRs (and flags) the instruction writes from one side to the other. */
static int copy_results(struct dt_run *r, const ZydisDecodedInstruction *zi,
                        const ZydisDecodedOperand *zo, bool to_emulator)
{
    elfemu_regs e, nat;
    elfemu_get_regs(r->vm, &e);
    native_to_emu_regs(r->n, &nat);
    for (unsigned i = 0; i < zi->operand_count; i++) {
        if (zo[i].type != ZYDIS_OPERAND_TYPE_REGISTER ||
            !(zo[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
            continue;
        int g = insn_gpr(r->bits, zo[i].reg.value);
        if (g < 0)
            continue;
        if (to_emulator)
            e.gpr[g] = nat.gpr[g];
        else
            nat.gpr[g] = e.gpr[g];
    }
    if (to_emulator) {
        if (zi->cpu_flags) {
            uint64_t fm = zi->cpu_flags->modified | zi->cpu_flags->set_0 | zi->cpu_flags->set_1;
            e.rflags = (e.rflags & ~fm) | (nat.rflags & fm);
        }
        elfemu_set_regs(r->vm, &e);
        return 0;
    }
    struct user_regs_struct *u = &r->n->regs;
    unsigned long long *dst[16] = { &u->rax, &u->rcx, &u->rdx, &u->rbx, &u->rsp, &u->rbp,
                                    &u->rsi, &u->rdi, &u->r8,  &u->r9,  &u->r10, &u->r11,
                                    &u->r12, &u->r13, &u->r14, &u->r15 };
    for (int i = 0; i < 16; i++)
        *dst[i] = nat.gpr[i] | (*dst[i] & ~(r->bits == 32 ? 0xffffffffull : ~0ull));
    return native_set_regs(r->n);
}

/* The CPU pushed the TF that ptrace's single-stepping set; the guest did not. */
static void fix_pushf(struct dt_run *r)
{
    uint64_t sp = r->n->regs.rsp & insn_addr_mask(r->bits, 64), v = 0;
    unsigned len = r->bits / 8;
    if (native_read(r->n, sp, &v, len) == 0 && (v & 0x100)) {
        v &= ~0x100ull;
        native_write(r->n, sp, &v, len);
    }
}

/* The legacy area and the XSAVE header: all of an image with x87 and SSE only. */
#define XSAVE_IMAGE 576

/* FXSAVE stores fields that depend on the CPU model (FOP/FIP/FDP, MXCSR_MASK,
 * the reserved bytes): the guest sees the emulated CPU's on both sides. */
static void fix_fxsave(struct dt_run *r, const ZydisDecodedInstruction *zi,
                       const ZydisDecodedOperand *zo, const elfemu_regs *pre)
{
    if (zo[0].type != ZYDIS_OPERAND_TYPE_MEMORY)
        return;
    uint64_t a = insn_mem_addr(r->bits, zi, &zo[0], pre);
    uint8_t e[XSAVE_IMAGE], nat[XSAVE_IMAGE];
    if (insn_is_xsave(zi->mnemonic)) {
        /* Which components XSAVEC/XSAVEOPT write, and XSTATE_BV, depend on the
         * CPU's init-state tracking: the image is the emulator's on both sides
         * (the registers it saves are compared as FPU state). */
        if (elfemu_read(r->vm, a, e, sizeof(e)) == 0)
            native_write(r->n, a, e, sizeof(e));
        return;
    }
    if (elfemu_read(r->vm, a, e, DT_FXSAVE_SIZE) != 0 ||
        native_read(r->n, a, nat, DT_FXSAVE_SIZE) != 0)
        return;
    memcpy(nat + 6, e + 6, 18);   /* FOP, FIP, FDP */
    memcpy(nat + 28, e + 28, 4);  /* MXCSR_MASK */
    for (int i = 0; i < 8; i++)   /* the upper 6 bytes of each x87 slot */
        memcpy(nat + 32 + 16 * i + 10, e + 32 + 16 * i + 10, 6);
    memcpy(nat + 416, e + 416, 96);
    native_write(r->n, a, nat, DT_FXSAVE_SIZE);
}

/* FNSTENV/FNSAVE: the instruction and data pointers, the opcode and the
 * reserved halves are the emulated CPU's; FCW, FSW, FTW (and FSAVE's
 * registers) are compared. */
static void fix_fpenv(struct dt_run *r, const ZydisDecodedInstruction *zi,
                      const ZydisDecodedOperand *zo, const elfemu_regs *pre)
{
    if (zo[0].type != ZYDIS_OPERAND_TYPE_MEMORY)
        return;
    uint64_t a = insn_mem_addr(r->bits, zi, &zo[0], pre);
    uint8_t e[28], nat[28];
    bool wide = zi->operand_width != 16;
    unsigned len = wide ? 28 : 14;
    if (elfemu_read(r->vm, a, e, len) != 0 || native_read(r->n, a, nat, len) != 0)
        return;
    if (wide) {
        memcpy(nat + 2, e + 2, 2);
        memcpy(nat + 6, e + 6, 2);
        memcpy(nat + 10, e + 10, 18);
    } else {
        memcpy(nat + 6, e + 6, 8);
    }
    native_write(r->n, a, nat, len);
}

static struct dt_insn last_insn;
static uint64_t last_count;
static bool last_fault;

const struct dt_insn *dt_last_insn(void) { return &last_insn; }
uint64_t dt_last_count(void) { return last_count; }
bool dt_last_fault(void) { return last_fault; }

static int finish_ok(struct dt_run *r, const char *how)
{
    if (!r->o->quiet)
        fprintf(stderr, "difftest: %" PRIu64 " instructions, 0 mismatches%s\n", r->count, how);
    return DT_EXIT_OK;
}

static const char *signame(int sig)
{
    static char buf[32];
    const char *s = sigabbrev_np(sig);
    snprintf(buf, sizeof(buf), "SIG%s", s ? s : "?");
    return buf;
}

static void describe_native(const struct native_stop *ns, char *buf, size_t size)
{
    switch (ns->kind) {
    case NS_STEPPED: snprintf(buf, size, "executed it"); break;
    case NS_SIGNAL:
        snprintf(buf, size, "raised %s (si_code %d, address %#" PRIx64 ")", signame(ns->sig),
                 ns->si_code, ns->fault_addr);
        break;
    case NS_EXITED: snprintf(buf, size, "exited with status %d", ns->sig); break;
    case NS_KILLED: snprintf(buf, size, "was killed by %s", signame(ns->sig)); break;
    default: snprintf(buf, size, "could not be stepped"); break;
    }
}

static void describe_emu(int er, const elfemu_exit *ex, char *buf, size_t size)
{
    if (er == 0)
        snprintf(buf, size, "executed it");
    else if (er < 0)
        snprintf(buf, size, "failed internally");
    else if (ex->signaled)
        snprintf(buf, size, "raised %s", signame(ex->code));
    else
        snprintf(buf, size, "exited with status %d", ex->code);
}

/* The two sides did not both just execute the instruction. */
static int step_outcome(struct dt_run *r, const struct dt_insn *in, const struct native_stop *ns,
                        int er, const elfemu_exit *ex, const struct dt_check *chk)
{
    if (er < 0)
        fprintf(stderr, "elfemu-difftest: the emulator failed internally at instruction %" PRIu64
                        "\n", in->n);
    if (ns->kind == NS_ERROR || er < 0)
        return DT_EXIT_ERROR;
    if (ns->kind == NS_STEPPED && er == 1 && ex->signaled && ex->code == SIGILL) {
        if (r->o->fuzz)
            return DT_EXIT_UNIMPLEMENTED;
        report_header(r->vm, "emulator: unimplemented instruction (the CPU executes it, the "
                             "emulator raises SIGILL)", in);
        return DT_EXIT_UNIMPLEMENTED;
    }
    char what[256], a[96], b[64];
    if (ns->kind == NS_SIGNAL && er == 1 && ex->signaled && ex->code == ns->sig) {
        /* Nothing was written: the registers and the FPU (what a signal
         * handler would find in its frame) must still agree. */
        struct dt_check regs_only = *chk;
        regs_only.nmem = 0;
        regs_only.fp = r->o->fp_interval != 0;
        if (in->n >= r->o->start && !compare_state(r->n, r->vm, &regs_only, in))
            return DT_EXIT_MISMATCH;
        last_fault = true;
        const char *sym = dt_sym_lookup(r->vm, in->rip);
        snprintf(what, sizeof(what), " (the guest died of %s at %#" PRIx64 "%s%s%s on both sides)",
                 signame(ns->sig), in->rip, sym[0] ? " <" : "", sym, sym[0] ? ">" : "");
        return finish_ok(r, what);
    }
    describe_native(ns, a, sizeof(a));
    describe_emu(er, ex, b, sizeof(b));
    snprintf(what, sizeof(what), "MISMATCH at instruction %" PRIu64 ": the CPU %s, the emulator %s",
             in->n, a, b);
    report_header(r->vm, what, in);
    report_history(r->vm);
    if (r->n->alive) {
        elfemu_regs e, nat;
        elfemu_get_regs(r->vm, &e);
        native_to_emu_regs(r->n, &nat);
        report_regs(&nat, &e, DT_FLAGS_COMPARED & ~chk->flag_undef, r->bits);
    }
    return DT_EXIT_MISMATCH;
}

/* After the comparison: what was undefined is taken from the CPU. */
static void normalize(struct dt_run *r, const struct dt_check *chk)
{
    if (chk->flag_undef & DT_FLAGS_COMPARED) {
        elfemu_regs e, nat;
        elfemu_get_regs(r->vm, &e);
        native_to_emu_regs(r->n, &nat);
        uint64_t m = chk->flag_undef & DT_FLAGS_COMPARED;
        if ((e.rflags ^ nat.rflags) & m) {
            e.rflags = (e.rflags & ~m) | (nat.rflags & m);
            elfemu_set_regs(r->vm, &e);
        }
    }
    uint16_t fm = dt_fsw_undef_mask(chk->fpu_undef);
    if (fm) {
        uint8_t a[DT_FXSAVE_SIZE], b[DT_FXSAVE_SIZE];
        if (native_get_fp(r->n, a) != 0)
            return;
        elfemu_get_fpstate(r->vm, b);
        uint16_t fa, fb;
        memcpy(&fa, a + 2, 2);
        memcpy(&fb, b + 2, 2);
        if ((fa ^ fb) & fm) {
            fb = (uint16_t)((fb & ~fm) | (fa & fm));
            memcpy(b + 2, &fb, 2);
            elfemu_set_fpstate(r->vm, b);
        }
    }
}

static int step_plain(struct dt_run *r, const struct dt_insn *in, bool decoded,
                      const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *zo,
                      const elfemu_regs *pre)
{
    struct dt_check chk;
    struct dt_pending pend;
    memset(&chk, 0, sizeof(chk));
    memset(&pend, 0, sizeof(pend));
    const struct dt_options *o = r->o;
    bool interval = o->fp_interval && in->n % o->fp_interval == 0;
    /* The FPU state is compared at the first instruction that can change it
     * once the interval has come round. */
    if (interval)
        r->fp_due = true;
    chk.fp = r->fp_due && (!decoded || o->fp_all || insn_uses_fp(zi, zo));
    if (chk.fp)
        r->fp_due = false;
    ZydisMnemonic mn = decoded ? zi->mnemonic : ZYDIS_MNEMONIC_INVALID;
    if (decoded) {
        chk.flag_undef = insn_undefined_flags(zi, zo, pre);
        chk.fpu_undef = zi->fpu_flags ? zi->fpu_flags->undefined : 0;
        if (interval)
            insn_writes_before(r->bits, zi, zo, pre, &chk, &pend);
    }

    /* A 32-bit system call from 64-bit code must not reach the host kernel. */
    bool native_unsafe = mn == ZYDIS_MNEMONIC_SYSENTER || mn == ZYDIS_MNEMONIC_SYSCALL ||
                         (mn == ZYDIS_MNEMONIC_INT && zo[0].imm.value.u == 0x80);
    struct native_stop ns;
    memset(&ns, 0, sizeof(ns));
    elfemu_exit ex = { false, 0 };
    if (native_unsafe) {
        int er = elfemu_step(r->vm, &ex);
        char what[160];
        snprintf(what, sizeof(what), "STOP at instruction %" PRIu64 ": a system call gate difftest "
                 "does not replay (the emulator %s)", in->n,
                 er == 0 ? "executed it" : ex.signaled ? signame(ex.code) : "exited");
        report_header(r->vm, what, in);
        return DT_EXIT_ERROR;
    }
    bool int_like = !decoded || mn == ZYDIS_MNEMONIC_INT3 || mn == ZYDIS_MNEMONIC_INT1 ||
                    mn == ZYDIS_MNEMONIC_INT || mn == ZYDIS_MNEMONIC_INTO;
    /* MOV SS and POP SS hold off the single-step trap until after the next
     * instruction: run them to a breakpoint after them instead. */
    bool ss_shadow = decoded && r->bits == 32 &&
                     (mn == ZYDIS_MNEMONIC_MOV || mn == ZYDIS_MNEMONIC_POP) &&
                     zo[0].type == ZYDIS_OPERAND_TYPE_REGISTER && zo[0].reg.value == ZYDIS_REGISTER_SS;
    if (ss_shadow ? native_run_to(r->n, pre->rip + zi->length, &ns) != 0
                  : native_step(r->n, &ns, int_like) != 0)
        return DT_EXIT_ERROR;
    if (decoded && insn_is_rep_string(zi) && ns.kind == NS_STEPPED && r->n->regs.rip == pre->rip) {
        /* Each iteration traps: a long one runs to a breakpoint after it instead. */
        if (rep_is_long(r, zi, pre)) {
            if (native_run_to(r->n, pre->rip + zi->length, &ns) != 0)
                return DT_EXIT_ERROR;
        }
        while (ns.kind == NS_STEPPED && r->n->regs.rip == pre->rip)
            if (native_step(r->n, &ns, false) != 0)
                return DT_EXIT_ERROR;
    }
    int er = elfemu_step(r->vm, &ex);
    if (!(ns.kind == NS_STEPPED && er == 0))
        return step_outcome(r, in, &ns, er, &ex, &chk);

    switch (mn) {
    case ZYDIS_MNEMONIC_RDTSC: case ZYDIS_MNEMONIC_RDTSCP: case ZYDIS_MNEMONIC_RDRAND:
    case ZYDIS_MNEMONIC_RDSEED: case ZYDIS_MNEMONIC_RDPID:
        copy_results(r, zi, zo, true);
        break;
    case ZYDIS_MNEMONIC_CPUID: case ZYDIS_MNEMONIC_XGETBV:
        if (copy_results(r, zi, zo, false) != 0)
            return DT_EXIT_ERROR;
        break;
    case ZYDIS_MNEMONIC_PUSHF: case ZYDIS_MNEMONIC_PUSHFD: case ZYDIS_MNEMONIC_PUSHFQ:
        fix_pushf(r);
        break;
    case ZYDIS_MNEMONIC_FXSAVE: case ZYDIS_MNEMONIC_FXSAVE64: case ZYDIS_MNEMONIC_XSAVE:
    case ZYDIS_MNEMONIC_XSAVE64: case ZYDIS_MNEMONIC_XSAVEC: case ZYDIS_MNEMONIC_XSAVEC64:
    case ZYDIS_MNEMONIC_XSAVEOPT: case ZYDIS_MNEMONIC_XSAVEOPT64: case ZYDIS_MNEMONIC_XSAVES:
    case ZYDIS_MNEMONIC_XSAVES64:
        fix_fxsave(r, zi, zo, pre);
        break;
    case ZYDIS_MNEMONIC_FNSTENV: case ZYDIS_MNEMONIC_FNSAVE:
        fix_fpenv(r, zi, zo, pre);
        break;
    case ZYDIS_MNEMONIC_BSF: case ZYDIS_MNEMONIC_BSR:
        if (r->n->regs.eflags & FL_ZF) /* source 0: the destination is undefined */
            copy_results(r, zi, zo, true);
        break;
    default:
        break;
    }
    if (interval) {
        elfemu_regs post;
        elfemu_get_regs(r->vm, &post);
        insn_writes_after(r->bits, &pend, pre, &post, &chk);
    }
    if (in->n >= o->start && !compare_state(r->n, r->vm, &chk, in))
        return DT_EXIT_MISMATCH;
    normalize(r, &chk);
    return GO_ON;
}

static int step_syscall(struct dt_run *r, const struct dt_insn *in, const elfemu_regs *pre,
                        enum dt_gate gate, unsigned len)
{
    const struct dt_options *o = r->o;
    uint64_t nr = r->bits == 64 ? pre->gpr[ELFEMU_RAX] : (uint32_t)pre->gpr[ELFEMU_RAX];
    bool is_exit = r->bits == 64 ? (nr == 60 || nr == 231) : (nr == 1 || nr == 252);
    struct dt_check chk;
    memset(&chk, 0, sizeof(chk));
    elfemu_exit ex = { false, 0 };
    if (is_exit) {
        /* The last chance to see memory differences: compare everything. */
        if (in->n >= o->start && !compare_all_memory(r->n, r->vm, in))
            return DT_EXIT_MISMATCH;
        struct native_stop ns;
        int er = elfemu_step(r->vm, &ex);
        if (gate == GATE_SYSENTER) {
            /* Not every CPU has SYSENTER in compat mode: end the child with the
             * status the guest asked for instead. */
            native_kill(r->n);
            ns.kind = NS_EXITED;
            ns.sig = (int)(pre->gpr[ELFEMU_RBX] & 0xff);
        } else if (native_step(r->n, &ns, false) != 0) {
            return DT_EXIT_ERROR;
        }
        if (er == 1 && !ex.signaled && ns.kind == NS_EXITED && ns.sig == ex.code) {
            char how[96];
            snprintf(how, sizeof(how), " (the guest exited with status %d on both sides)", ex.code);
            return finish_ok(r, how);
        }
        return step_outcome(r, in, &ns, er, &ex, &chk);
    }
    bool spawns = r->bits == 64 ? (nr == 56 || nr == 57 || nr == 58 || nr == 59 || nr == 322 ||
                                   nr == 435)
                                : (nr == 2 || nr == 11 || nr == 120 || nr == 190 || nr == 358 ||
                                   nr == 435);
    if (spawns) {
        char how[160];
        snprintf(how, sizeof(how), " (stopped before system call %" PRIu64 ": difftest follows "
                 "one thread of one process, not fork, clone or execve)", nr);
        return finish_ok(r, how);
    }
    struct dt_maps before;
    if (dt_maps_get(r->vm, &before) != 0)
        return DT_EXIT_ERROR;
    int er = elfemu_step(r->vm, &ex);
    if (er != 0) {
        dt_maps_free(&before);
        if (er < 0)
            return DT_EXIT_ERROR;
        char how[160];
        snprintf(how, sizeof(how), " (the emulator ended the guest in system call %" PRIu64
                 " (%s %d); the CPU side was not compared for it)", nr,
                 ex.signaled ? "signal" : "status", ex.code);
        return finish_ok(r, how);
    }
    int rc = replay_syscall(r->n, r->vm, o, pre, &before, gate, len);
    dt_maps_free(&before);
    if (rc != 0)
        return DT_EXIT_ERROR;
    bool sigreturn = r->bits == 64 ? nr == 15 : (nr == 119 || nr == 173);
    if (sigreturn && er == 0) {
        /* Every register comes back from the signal frame: the emulator's
         * (the frame itself is compared at the next memory check). */
        elfemu_regs e;
        uint8_t fx[DT_FXSAVE_SIZE];
        elfemu_get_regs(r->vm, &e);
        elfemu_get_fpstate(r->vm, fx);
        emu_to_native_regs(r->n, &e);
        if (native_set_regs(r->n) != 0 || native_set_fp(r->n, fx) != 0)
            return DT_EXIT_ERROR;
    }
    if (in->n >= o->start && !compare_state(r->n, r->vm, &chk, in))
        return DT_EXIT_MISMATCH;
    return GO_ON;
}

int dt_run(struct native *n, elfemu *vm, const struct dt_options *o)
{
    struct dt_run r;
    memset(&r, 0, sizeof(r));
    r.n = n;
    r.vm = vm;
    r.o = o;
    r.bits = elfemu_bits(vm);
    r.mode = r.bits == 64 ? ZYDIS_MACHINE_MODE_LONG_64 : ZYDIS_MACHINE_MODE_LEGACY_32;
    ZydisDecoderInit(&r.dec, r.mode, r.bits == 64 ? ZYDIS_STACK_WIDTH_64 : ZYDIS_STACK_WIDTH_32);
    last_fault = false;
    last_count = 0;
    history_reset();
    for (;;) {
        if (o->max && r.count >= o->max)
            return finish_ok(&r, " (stopped by --max)");
        elfemu_regs pre;
        elfemu_get_regs(vm, &pre);
        struct dt_insn in;
        memset(&in, 0, sizeof(in));
        in.n = r.count + 1;
        in.rip = pre.rip;
        unsigned avail = fetch(vm, pre.rip, in.bytes);
        ZydisDecodedInstruction zi;
        ZydisDecodedOperand zo[ZYDIS_MAX_OPERAND_COUNT];
        bool decoded = avail && ZYAN_SUCCESS(ZydisDecoderDecodeFull(&r.dec, in.bytes, avail, &zi, zo));
        in.len = decoded ? zi.length : (uint8_t)(avail < 4 ? avail : 4);
        history_push(&in);
        r.count++;
        last_insn = in;
        last_count = r.count;
        int gate = -1;
        if (decoded && r.bits == 64 && zi.mnemonic == ZYDIS_MNEMONIC_SYSCALL)
            gate = GATE_SYSCALL;
        else if (decoded && r.bits == 32 && zi.mnemonic == ZYDIS_MNEMONIC_INT &&
                 zo[0].imm.value.u == 0x80)
            gate = GATE_INT80;
        else if (decoded && r.bits == 32 && zi.mnemonic == ZYDIS_MNEMONIC_SYSENTER)
            gate = GATE_SYSENTER;
        int rc = gate >= 0 ? step_syscall(&r, &in, &pre, (enum dt_gate)gate, zi.length)
                           : step_plain(&r, &in, decoded, &zi, zo, &pre);
        if (rc != GO_ON)
            return rc;
    }
}
