/* System and flag instructions: SYSCALL, INT, INT3, UD0/1/2, HLT and the
 * other privileged ones, CPUID, RDTSC, RDTSCP, LAHF, SAHF, CLC, STC, CMC,
 * CLD, STD. */
#include <signal.h>
#include <time.h>

#include "cpu/cpuid.h"
#include "cpu/decode.h"
#include "cpu/flags.h"
#include "cpu/mem.h"
#include "cpu/x87_host.h"

/* A host signal queued for the guest: true with rip back at the system
 * call instruction, for the run loop to deliver it first. */
static bool at_signal(struct cpu *c)
{
    if (LIKELY(!(c->attention & CPU_ATTN_SIGNAL)))
        return false;
    cpu_rip_set(c, cpu_rip(c));
    return true;
}

/* SYSCALL: rcx <- next rip, r11 <- rflags (SDM vol. 2B, SYSCALL); the
 * kernel returns with both clobbered that way.  A host signal queued for
 * the guest since the block began is delivered first (the run loop does it
 * when this returns with rip at the instruction), so that no blocking call starts
 * with a signal waiting; the call runs when the handler returns. */
static void op_syscall(struct cpu *c, const struct op *op)
{
    if (at_signal(c))
        return;
    cpu_rip_set(c, cpu_rip(c) + op->len);
    c->r[R_CX] = c->rip;
    c->r[R_11] = cpu_flags(c);
    cpu_x87_release(c); /* the call runs on the host's own x87 */
    sys_dispatch_64(c);
}

/* INT $0x80: the ia32 system call (a queued signal first, as SYSCALL). */
static void op_int80(struct cpu *c, const struct op *op)
{
    if (at_signal(c))
        return;
    cpu_rip_set(c, cpu_rip(c) + op->len);
    cpu_x87_release(c); /* the call runs on the host's own x87 */
    sys_dispatch_32(c);
}

/* SYSENTER (32-bit guests), as Linux's fast path: the vDSO's
 * __kernel_vsyscall pushed ecx, edx, ebp and put esp in ebp, so the sixth
 * argument is the ebp at [esp]; the call returns to the landing pad after
 * the `int $0x80` that follows the SYSENTER there (a restart re-executes
 * that `int $0x80`, two bytes back).  do_fast_syscall_32() fetched ebp
 * from [esp] into the saved registers, so the CPU comes back with
 * ebp = the sixth argument: what a restart through that `int $0x80`
 * needs, and what a signal frame at the landing pad shows (the pad then
 * pops the guest's own ebp). */
static void op_sysenter(struct cpu *c, const struct op *op)
{
    if (at_signal(c))
        return;
    uint32_t esp = (uint32_t)c->r[R_SP];
    c->r[R_BP] = load32(c, esp);
    cpu_rip_set(c, cpu_rip(c) + op->len);
    if (load8(c, c->rip) == 0xcd && load8(c, c->rip + 1) == 0x80)
        c->rip += 2;
    cpu_x87_release(c); /* the call runs on the host's own x87 */
    sys_dispatch_32(c);
}

/* #UD: SIGILL at the instruction. */
static void op_ud(struct cpu *c, const struct op *op)
{
    cpu_fault(c, SIGILL, 2 /* ILL_ILLOPN */, cpu_rip(c));
}

/* INT3: SIGTRAP reported after the instruction (si_code SI_KERNEL). */
static void op_int3(struct cpu *c, const struct op *op)
{
    cpu_rip_set(c, cpu_rip(c) + op->len);
    cpu_fault(c, SIGTRAP, 0x80, 0);
}

/* Privileged instructions and INT n: #GP in user mode, SIGSEGV from Linux. */
static void op_gp(struct cpu *c, const struct op *op)
{
    cpu_fault(c, SIGSEGV, 0x80 /* SI_KERNEL */, 0);
}

static void op_cpuid(struct cpu *c, const struct op *op)
{
    uint32_t r[4];
    /* CPUID faulting (arch_prctl ARCH_SET_CPUID 0): #GP at the instruction. */
    if (c->cpuid_faults)
        cpu_fault_trap(c, SIGSEGV, 0x80 /* SI_KERNEL */, 0, 13 /* #GP */);
    cpu_cpuid((uint32_t)c->r[R_AX], (uint32_t)c->r[R_CX], c->bits, r);
    set_gpr32(c, SLOT_GPR(R_AX), r[0]);
    set_gpr32(c, SLOT_GPR(R_BX), r[1]);
    set_gpr32(c, SLOT_GPR(R_CX), r[2]);
    set_gpr32(c, SLOT_GPR(R_DX), r[3]);
    NEXT(c, op);
}

/* The time-stamp counter: the host's, so that differences stay meaningful. */
static void op_rdtsc(struct cpu *c, const struct op *op)
{
    uint64_t t = __builtin_ia32_rdtsc();
    set_gpr32(c, SLOT_GPR(R_AX), t);
    set_gpr32(c, SLOT_GPR(R_DX), t >> 32);
    NEXT(c, op);
}

static void op_rdtscp(struct cpu *c, const struct op *op)
{
    unsigned aux;
    uint64_t t = __builtin_ia32_rdtscp(&aux);
    set_gpr32(c, SLOT_GPR(R_AX), t);
    set_gpr32(c, SLOT_GPR(R_DX), t >> 32);
    set_gpr32(c, SLOT_GPR(R_CX), aux);
    NEXT(c, op);
}

/* LAHF/SAHF: AH <-> SF ZF 0 AF 0 PF 1 CF. */
static void op_lahf(struct cpu *c, const struct op *op)
{
    GPR8(c, SLOT_GPR(R_AX) + 1) = (uint8_t)((cpu_flags(c) & 0xd5) | 2);
    NEXT(c, op);
}
static void op_sahf(struct cpu *c, const struct op *op)
{
    cpu_set_arith(c, GPR8(c, SLOT_GPR(R_AX) + 1), FL_SF | FL_ZF | FL_AF | FL_PF | FL_CF);
    NEXT(c, op);
}
static void op_clc(struct cpu *c, const struct op *op) { cpu_set_arith(c, 0, FL_CF); NEXT(c, op); }
static void op_stc(struct cpu *c, const struct op *op) { cpu_set_arith(c, FL_CF, FL_CF); NEXT(c, op); }
static void op_cmc(struct cpu *c, const struct op *op)
{
    cpu_set_arith(c, cpu_flags(c) ^ FL_CF, FL_CF);
    NEXT(c, op);
}
static void op_cld(struct cpu *c, const struct op *op) { c->rflags &= ~(uint64_t)FL_DF; NEXT(c, op); }
static void op_std(struct cpu *c, const struct op *op) { c->rflags |= FL_DF; NEXT(c, op); }

bool dec_system(struct decoder *d)
{
    struct op *op = d->op;
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_SYSCALL:
        if (d->bits != 64)
            return false;
        op->fn = op_syscall;
        d->ends_block = true;
        return true;
    case ZYDIS_MNEMONIC_SYSENTER:
        if (d->bits != 32)
            return false;
        op->fn = op_sysenter;
        d->ends_block = true;
        return true;
    case ZYDIS_MNEMONIC_INT:
        op->fn = (d->bits == 32 && d->ops[0].imm.value.u == 0x80) ? op_int80 : op_gp;
        d->ends_block = true;
        return true;
    case ZYDIS_MNEMONIC_INT3:
        op->fn = op_int3;
        d->ends_block = true;
        return true;
    case ZYDIS_MNEMONIC_UD0:
    case ZYDIS_MNEMONIC_UD1:
    case ZYDIS_MNEMONIC_UD2:
        op->fn = op_ud;
        d->ends_block = true;
        return true;
    case ZYDIS_MNEMONIC_HLT:
    case ZYDIS_MNEMONIC_CLI:
    case ZYDIS_MNEMONIC_STI:
    case ZYDIS_MNEMONIC_IN:
    case ZYDIS_MNEMONIC_INSB:
    case ZYDIS_MNEMONIC_INSW:
    case ZYDIS_MNEMONIC_INSD:
    case ZYDIS_MNEMONIC_OUT:
    case ZYDIS_MNEMONIC_OUTSB:
    case ZYDIS_MNEMONIC_OUTSW:
    case ZYDIS_MNEMONIC_OUTSD:
    case ZYDIS_MNEMONIC_LGDT:
    case ZYDIS_MNEMONIC_LIDT:
    case ZYDIS_MNEMONIC_LLDT:
    case ZYDIS_MNEMONIC_LTR:
    case ZYDIS_MNEMONIC_WRMSR:
    case ZYDIS_MNEMONIC_RDMSR:
    case ZYDIS_MNEMONIC_INVD:
    case ZYDIS_MNEMONIC_WBINVD:
    case ZYDIS_MNEMONIC_INVLPG:
    case ZYDIS_MNEMONIC_CLTS:
    case ZYDIS_MNEMONIC_SWAPGS:
    case ZYDIS_MNEMONIC_SYSRET:
    case ZYDIS_MNEMONIC_SYSEXIT:
    case ZYDIS_MNEMONIC_IRET:
    case ZYDIS_MNEMONIC_IRETD:
    case ZYDIS_MNEMONIC_IRETQ:
        op->fn = op_gp;
        d->ends_block = true;
        return true;
    case ZYDIS_MNEMONIC_CPUID: op->fn = op_cpuid; return true;
    case ZYDIS_MNEMONIC_RDTSC: op->fn = op_rdtsc; return true;
    case ZYDIS_MNEMONIC_RDTSCP: op->fn = op_rdtscp; return true;
    case ZYDIS_MNEMONIC_LAHF: op->fn = op_lahf; return true;
    case ZYDIS_MNEMONIC_SAHF: op->fn = op_sahf; return true;
    case ZYDIS_MNEMONIC_CLC: op->fn = op_clc; return true;
    case ZYDIS_MNEMONIC_STC: op->fn = op_stc; return true;
    case ZYDIS_MNEMONIC_CMC: op->fn = op_cmc; return true;
    case ZYDIS_MNEMONIC_CLD: op->fn = op_cld; return true;
    case ZYDIS_MNEMONIC_STD: op->fn = op_std; return true;
    default:
        return false;
    }
}
