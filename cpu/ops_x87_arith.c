/* x87 arithmetic: FADD FMUL FSUB FSUBR FDIV FDIVR (ST(i), m32fp, m64fp,
 * m16int, m32int, and the popping forms), FCOM FCOMP FCOMPP FUCOM FUCOMP
 * FUCOMPP FICOM FICOMP, FCOMI FCOMIP FUCOMI FUCOMIP, FTST FXAM, FCHS FABS
 * FSQRT FRNDINT F2XM1 FSIN FCOS, FPREM FPREM1 FSCALE FPATAN FYL2X FYL2XP1,
 * FSINCOS FPTAN FXTRACT.
 *
 * Every handler runs its own instruction on the host (cpu/x87.h), with the
 * guest's ST(0) in host ST(0) and the guest's ST(i) in host ST(1), so the
 * results, condition codes, exception flags and the stack effect (a pop
 * that an unmasked exception suppresses) are the hardware's; this file
 * maps them back onto the guest's stack and handles the guest's stack
 * faults. */
#include "cpu/x87.h"

#define AI __attribute__((always_inline)) inline

/* Which register receives the result: host ST(0) <-> the guest's ST(0),
 * host ST(1) <-> the guest's ST(i); D_NONE for comparisons. */
enum { D_NONE = -1, D_ST0 = 0, D_STI = 1 };

/* The condition codes of FPREM and FPREM1 depend on the outcome. */
#define CC_PREM 0x10000u

/* Unordered: C3 = C2 = C0 = 1 (FCOM's answer for NaNs and empty operands). */
#define FSW_UNORDERED (FSW_C3 | FSW_C2 | FSW_C0)

static inline bool f80_isnan(const long double *v)
{
    uint64_t m;
    uint16_t se;
    memcpy(&m, v, 8);
    memcpy(&se, (const uint8_t *)v + 8, 2);
    return (se & 0x7fff) == 0x7fff && (m << 1) != 0;
}

/* The operands of ST(0) op src, src = ST(i) (msize 0) or memory, then the
 * result and pops as the host did them.  npop is what the instruction pops
 * when it completes (used for the masked stack-underflow response);
 * ccmask: the condition codes the host's answer gives (CC_PREM: FPREM's);
 * fcomi: the result goes to ZF/PF/CF. */
static AI void x87_binary(struct cpu *c, const struct op *op, void (*k)(struct x87_io *),
                          unsigned msize, int dest,
                          unsigned npop, unsigned ccmask, bool fcomi)
{
    struct x87_io io;
    x87_wait(c);
    if (msize == 2)
        io.m.w = load16(c, op_ea(c, op));
    else if (msize == 4)
        io.m.d = load32(c, op_ea(c, op));
    else if (msize == 8)
        io.m.q = load64(c, op_ea(c, op));
    unsigned p0 = c->ftop, pi = x87_phys(c, msize ? 0 : op->x1);
    unsigned pd = dest == D_ST0 ? p0 : pi;
    if (UNLIKELY(x87_empty_phys(c, p0) || x87_empty_phys(c, pi))) {
        /* Stack underflow: with IE masked the result is the indefinite
         * (SDM vol. 1, 8.5.1.1); a comparison answers "unordered" even
         * when IE is unmasked (seen on the host), but pops only when
         * masked. */
        bool masked = x87_stack_fault(c, false);
        if (dest == D_NONE) {
            if (fcomi)
                cpu_set_arith(c, FL_ZF | FL_PF | FL_CF, FL_ARITH);
            else if (ccmask == FSW_CC)
                x87_set_fsw(c, c->fsw | FSW_UNORDERED);
        } else if (ccmask == CC_PREM || (ccmask & FSW_C2)) {
            x87_set_fsw(c, c->fsw & ~FSW_C2); /* FPREM, FSIN, FCOS: "complete" */
        }
        if (masked) {
            if (dest != D_NONE) {
                f80_indefinite(&c->fpr[pd]);
                c->ftag &= (uint8_t)~(1u << pd);
            }
            while (npop--)
                x87_pop(c);
        }
        NEXT(c, op);
        return;
    }
    x87_run(c, &io, k, &c->fpr[p0], &c->fpr[pi]);
    int pops = -x87_host_delta(&io);
    if (dest != D_NONE && dest >= pops)
        f80_copy(&c->fpr[pd], &io.r[dest - pops]);
    /* Even an unmasked invalid operation sets ZF PF CF ("unordered") on
     * the host. */
    if (fcomi)
        cpu_set_arith(c, (io.zf ? FL_ZF : 0) | (io.pf ? FL_PF : 0) | (io.cf ? FL_CF : 0), FL_ARITH);
    /* FPREM/FPREM1 (CC_PREM) write all four condition codes when they
     * compute a remainder; when the result is a NaN or an unmasked
     * exception stopped them, the host leaves C0 and C3 alone. */
    if (ccmask == CC_PREM)
        ccmask = f80_isnan(&io.r[0]) || (io.sw & ~c->fcw & (FSW_IE | FSW_DE | FSW_ZE))
                     ? FSW_C1 | FSW_C2 : FSW_CC;
    x87_flags(c, io.sw, ccmask);
    while (pops-- > 0)
        x87_pop(c);
    NEXT(c, op);
}

/* FSINCOS, FPTAN, FXTRACT: ST(0) is replaced and a second result pushed
 * (unless the operand is out of range or an unmasked exception stops it). */
static AI void x87_replace_push(struct cpu *c, const struct op *op, void (*k)(struct x87_io *),
                                unsigned ccmask)
{
    struct x87_io io;
    x87_wait(c);
    unsigned p0 = c->ftop, p7 = (c->ftop - 1) & 7u;
    bool under = x87_empty_phys(c, p0);
    if (UNLIKELY(under || !x87_empty_phys(c, p7))) {
        /* Both results become the indefinite when IE is masked; C2 (out
         * of range) is cleared. */
        bool masked = x87_stack_fault(c, !under);
        x87_set_fsw(c, c->fsw & ~(ccmask & FSW_C2));
        if (masked) {
            long double ind;
            f80_indefinite(&ind);
            f80_copy(&c->fpr[p0], &ind);
            c->ftag &= (uint8_t)~(1u << p0);
            x87_push(c, &ind);
        }
        NEXT(c, op);
        return;
    }
    x87_run(c, &io, k, &c->fpr[p0], &c->fpr[p0]);
    if (x87_host_delta(&io) == 1) {
        f80_copy(&c->fpr[p0], &io.r[1]);
        x87_push(c, &io.r[0]);
    } else {
        f80_copy(&c->fpr[p0], &io.r[0]);
    }
    x87_flags(c, io.sw, ccmask);
    NEXT(c, op);
}

/* FXAM classifies an empty register too, without an exception: C3 C2 C0 =
 * 1 0 1, C1 the sign bit of what the register holds. */
X87_KERNEL(k_fxam, X87_LOAD1, "fxam")
static void op_fxam(struct cpu *c, const struct op *op)
{
    x87_wait(c);
    unsigned p0 = c->ftop;
    if (x87_empty_phys(c, p0)) {
        uint8_t se = ((const uint8_t *)&c->fpr[p0])[9];
        unsigned cc = FSW_C3 | FSW_C0 | ((se & 0x80) ? FSW_C1 : 0);
        x87_set_fsw(c, (c->fsw & ~FSW_CC) | cc);
    } else {
        struct x87_io io;
        x87_run(c, &io, k_fxam, &c->fpr[p0], &c->fpr[p0]);
        x87_flags(c, io.sw, FSW_CC);
    }
    NEXT(c, op);
}

/* ------------------------------------------------------------ handlers */
/* Register forms: OPC is the instruction with ST(1) in its ModRM. */
#define REG(name, b0, b1, dest, npop, ccmask, fcomi)                                    \
    X87_KERNEL(k_##name, X87_LOAD2, ".byte " #b0 ", " #b1)                              \
    static void op_##name(struct cpu *c, const struct op *op)                           \
    {                                                                                   \
        x87_binary(c, op, k_##name, 0, dest, npop, ccmask, fcomi);                      \
    }
/* Memory forms. */
#define MEM(name, insn, msize, dest, npop, ccmask)                                      \
    X87_KERNEL(k_##name, X87_LOAD1, insn " %[m]")                                       \
    static void op_##name(struct cpu *c, const struct op *op)                           \
    {                                                                                   \
        x87_binary(c, op, k_##name, msize, dest, npop, ccmask, false);                  \
    }
/* ST(0) alone (op->x1 = 0) or ST(0) with ST(1) (op->x1 = 1), D9 E0..FF. */
#define UN1(name, b1, dest, npop, ccmask)                                               \
    X87_KERNEL(k_##name, X87_LOAD1, ".byte 0xd9, " #b1)                                 \
    static void op_##name(struct cpu *c, const struct op *op)                           \
    {                                                                                   \
        x87_binary(c, op, k_##name, 0, dest, npop, ccmask, false);                      \
    }
#define UN2(name, b1, dest, npop, ccmask)                                               \
    X87_KERNEL(k_##name, X87_LOAD2, ".byte 0xd9, " #b1)                                 \
    static void op_##name(struct cpu *c, const struct op *op)                           \
    {                                                                                   \
        x87_binary(c, op, k_##name, 0, dest, npop, ccmask, false);                      \
    }
/* FSINCOS, FPTAN, FXTRACT push or not (an operand out of range). */
#define PUSHOP(name, b1, ccmask)                                                        \
    X87_KERNEL(k_##name, X87_LOAD1, ".byte 0xd9, " #b1)                                 \
    static void op_##name(struct cpu *c, const struct op *op)                           \
    {                                                                                   \
        x87_replace_push(c, op, k_##name, ccmask);                                      \
    }

#define C1 FSW_C1
#define CC FSW_CC

/* D8 /r: ST(0) <- ST(0) op ST(i); compares */
REG(d8_0, 0xd8, 0xc1, D_ST0, 0, C1, false)
REG(d8_1, 0xd8, 0xc9, D_ST0, 0, C1, false)
REG(d8_2, 0xd8, 0xd1, D_NONE, 0, CC, false)
REG(d8_3, 0xd8, 0xd9, D_NONE, 1, CC, false)
REG(d8_4, 0xd8, 0xe1, D_ST0, 0, C1, false)
REG(d8_5, 0xd8, 0xe9, D_ST0, 0, C1, false)
REG(d8_6, 0xd8, 0xf1, D_ST0, 0, C1, false)
REG(d8_7, 0xd8, 0xf9, D_ST0, 0, C1, false)
/* DC /r: ST(i) <- ST(i) op ST(0) (/4 is FSUBR, /5 FSUB, /6 FDIVR, /7 FDIV);
 * /2 and /3 are aliases of FCOM and FCOMP */
REG(dc_0, 0xdc, 0xc1, D_STI, 0, C1, false)
REG(dc_1, 0xdc, 0xc9, D_STI, 0, C1, false)
REG(dc_2, 0xdc, 0xd1, D_NONE, 0, CC, false)
REG(dc_3, 0xdc, 0xd9, D_NONE, 1, CC, false)
REG(dc_4, 0xdc, 0xe1, D_STI, 0, C1, false)
REG(dc_5, 0xdc, 0xe9, D_STI, 0, C1, false)
REG(dc_6, 0xdc, 0xf1, D_STI, 0, C1, false)
REG(dc_7, 0xdc, 0xf9, D_STI, 0, C1, false)
/* DE /r: the same, then pop; /2 is an alias of FCOMP, DE D9 is FCOMPP */
REG(de_0, 0xde, 0xc1, D_STI, 1, C1, false)
REG(de_1, 0xde, 0xc9, D_STI, 1, C1, false)
REG(de_2, 0xde, 0xd1, D_NONE, 1, CC, false)
REG(de_3, 0xde, 0xd9, D_NONE, 2, CC, false)
REG(de_4, 0xde, 0xe1, D_STI, 1, C1, false)
REG(de_5, 0xde, 0xe9, D_STI, 1, C1, false)
REG(de_6, 0xde, 0xf1, D_STI, 1, C1, false)
REG(de_7, 0xde, 0xf9, D_STI, 1, C1, false)
/* Unordered compares and the EFLAGS compares (AMD leaves C0-C3 alone on
 * FCOMI; SDM: undefined but for C1) */
REG(fucompp, 0xda, 0xe9, D_NONE, 2, CC, false)
REG(fucom, 0xdd, 0xe1, D_NONE, 0, CC, false)
REG(fucomp, 0xdd, 0xe9, D_NONE, 1, CC, false)
#define FCOMI_BODY(b0, b1) ".byte " #b0 ", " #b1 "\n\tsetz " X87_F(zf) "\n\tsetp " X87_F(pf) "\n\tsetc " X87_F(cf)
#define REGI(name, b0, b1, npop)                                                        \
    X87_KERNEL(k_##name, X87_LOAD2, FCOMI_BODY(b0, b1))                                 \
    static void op_##name(struct cpu *c, const struct op *op)                           \
    {                                                                                   \
        x87_binary(c, op, k_##name, 0, D_NONE, npop, 0, true);                          \
    }
REGI(fucomi, 0xdb, 0xe9, 0)
REGI(fcomi, 0xdb, 0xf1, 0)
REGI(fucomip, 0xdf, 0xe9, 1)
REGI(fcomip, 0xdf, 0xf1, 1)

/* Memory operands: m32fp (D8), m64fp (DC), m32int (DA), m16int (DE) */
#define MEMROW(pfx, sfx, msize)                                                         \
    MEM(pfx##_0, "fadd" sfx, msize, D_ST0, 0, C1)                                       \
    MEM(pfx##_1, "fmul" sfx, msize, D_ST0, 0, C1)                                       \
    MEM(pfx##_2, "fcom" sfx, msize, D_NONE, 0, CC)                                      \
    MEM(pfx##_3, "fcomp" sfx, msize, D_NONE, 1, CC)                                     \
    MEM(pfx##_4, "fsub" sfx, msize, D_ST0, 0, C1)                                       \
    MEM(pfx##_5, "fsubr" sfx, msize, D_ST0, 0, C1)                                      \
    MEM(pfx##_6, "fdiv" sfx, msize, D_ST0, 0, C1)                                       \
    MEM(pfx##_7, "fdivr" sfx, msize, D_ST0, 0, C1)
MEMROW(m32fp, "s", 4)
MEMROW(m64fp, "l", 8)
#define IMEMROW(pfx, sfx, msize)                                                        \
    MEM(pfx##_0, "fiadd" sfx, msize, D_ST0, 0, C1)                                      \
    MEM(pfx##_1, "fimul" sfx, msize, D_ST0, 0, C1)                                      \
    MEM(pfx##_2, "ficom" sfx, msize, D_NONE, 0, CC)                                     \
    MEM(pfx##_3, "ficomp" sfx, msize, D_NONE, 1, CC)                                    \
    MEM(pfx##_4, "fisub" sfx, msize, D_ST0, 0, C1)                                      \
    MEM(pfx##_5, "fisubr" sfx, msize, D_ST0, 0, C1)                                     \
    MEM(pfx##_6, "fidiv" sfx, msize, D_ST0, 0, C1)                                      \
    MEM(pfx##_7, "fidivr" sfx, msize, D_ST0, 0, C1)
IMEMROW(m32int, "l", 4)
IMEMROW(m16int, "s", 2)

/* D9 E0..FF (the transcendentals clear C2 when the operand was in range
 * and set it when not; FPREM/FPREM1 report quotient bits in C0 C3 C1 and
 * completion in C2) */
UN1(fchs, 0xe0, D_ST0, 0, C1)
UN1(fabs, 0xe1, D_ST0, 0, C1)
UN1(ftst, 0xe4, D_NONE, 0, CC)
UN1(f2xm1, 0xf0, D_ST0, 0, C1)
UN2(fyl2x, 0xf1, D_STI, 1, C1)
PUSHOP(fptan, 0xf2, C1 | FSW_C2)
UN2(fpatan, 0xf3, D_STI, 1, C1)
PUSHOP(fxtract, 0xf4, C1)
UN2(fprem1, 0xf5, D_ST0, 0, CC_PREM)
UN2(fprem, 0xf8, D_ST0, 0, CC_PREM)
UN2(fyl2xp1, 0xf9, D_STI, 1, C1)
UN1(fsqrt, 0xfa, D_ST0, 0, C1)
PUSHOP(fsincos, 0xfb, C1 | FSW_C2)
UN1(frndint, 0xfc, D_ST0, 0, C1)
UN2(fscale, 0xfd, D_ST0, 0, C1)
UN1(fsin, 0xfe, D_ST0, 0, C1 | FSW_C2)
UN1(fcos, 0xff, D_ST0, 0, C1 | FSW_C2)

/* ------------------------------------------------------------ decoding */
#define ROW8(p) { op_##p##_0, op_##p##_1, op_##p##_2, op_##p##_3, op_##p##_4, op_##p##_5, op_##p##_6, op_##p##_7 }
static const cpu_handler reg_h[3][8] = { ROW8(d8), ROW8(dc), ROW8(de) };
static const cpu_handler mem_h[4][8] = { ROW8(m32fp), ROW8(m32int), ROW8(m64fp), ROW8(m16int) };

/* D9 E0..FF; NULL: not arithmetic (constants, FDECSTP...) or invalid.
 * x1 is the ST(i) operand: 1 for the instructions on ST(0) and ST(1). */
static const struct { cpu_handler fn; uint8_t sti; } d9_h[32] = {
    [0x00] = { op_fchs, 0 }, [0x01] = { op_fabs, 0 }, [0x04] = { op_ftst, 0 },
    [0x05] = { op_fxam, 0 }, [0x10] = { op_f2xm1, 0 }, [0x11] = { op_fyl2x, 1 },
    [0x12] = { op_fptan, 0 }, [0x13] = { op_fpatan, 1 }, [0x14] = { op_fxtract, 0 },
    [0x15] = { op_fprem1, 1 }, [0x18] = { op_fprem, 1 }, [0x19] = { op_fyl2xp1, 1 },
    [0x1a] = { op_fsqrt, 0 }, [0x1b] = { op_fsincos, 0 }, [0x1c] = { op_frndint, 0 },
    [0x1d] = { op_fscale, 1 }, [0x1e] = { op_fsin, 0 }, [0x1f] = { op_fcos, 0 },
};

bool x87_dec_arith(struct decoder *d, unsigned opc, unsigned mod, unsigned reg, unsigned rm)
{
    struct op *op = d->op;
    if (mod != 3) {
        /* D8 m32fp, DA m32int, DC m64fp, DE m16int: the arithmetic rows. */
        if (opc & 1)
            return false;
        op->fn = mem_h[(opc - 0xd8) >> 1][reg];
        return true;
    }
    op->x1 = (uint8_t)rm;
    switch (opc) {
    case 0xd8: op->fn = reg_h[0][reg]; return true;
    case 0xdc: op->fn = reg_h[1][reg]; return true;
    case 0xde:
        if (reg == 3 && rm != 1)
            return false;
        op->fn = reg_h[2][reg];
        return true;
    case 0xd9:
        if (reg < 4 || !d9_h[(reg - 4) * 8 + rm].fn)
            return false;
        op->fn = d9_h[(reg - 4) * 8 + rm].fn;
        op->x1 = d9_h[(reg - 4) * 8 + rm].sti;
        return true;
    case 0xda:
        if (reg != 5 || rm != 1)
            return false;
        op->fn = op_fucompp;
        op->x1 = 1;
        return true;
    case 0xdb:
        if (reg == 5 || reg == 6) {
            op->fn = reg == 5 ? op_fucomi : op_fcomi;
            return true;
        }
        return false;
    case 0xdd:
        if (reg == 4 || reg == 5) {
            op->fn = reg == 4 ? op_fucom : op_fucomp;
            return true;
        }
        return false;
    case 0xdf:
        if (reg == 5 || reg == 6) {
            op->fn = reg == 5 ? op_fucomip : op_fcomip;
            return true;
        }
        return false;
    default:
        return false;
    }
}
