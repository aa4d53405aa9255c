/* x87 instructions run by the host on the guest's live state
 * (cpu/x87_host.h): while the guest keeps every exception masked, its
 * registers, TOP, tags, status and control word are the host's own, so
 * each guest x87 instruction is the same instruction executed by the
 * host -- a register form byte for byte, a memory form with its operand
 * at the guest's address in the guest space.  Results, condition codes,
 * sticky flags, stack faults, precision and rounding control are the
 * hardware's.  What the host cannot do alone is done here: FCOMI and
 * friends write the guest's EFLAGS, FCMOVcc reads them, FNSTSW AX writes
 * the guest's AX, FNINIT also clears FIP/FDP/FOP, and FLDCW of a control
 * word that unmasks an exception leaves the live state.
 *
 * The decoder (dec_x87) keeps the exact handler of every instruction in
 * op->imm: it runs whenever the state cannot be live.  The instructions
 * that read or write the state in struct cpu (FNSTENV, FLDENV, FNSAVE,
 * FRSTOR, FXSAVE, XSAVE...) release the live state first and always run
 * their exact handler. */
#include "cpu/x87.h"

/* The exact handler of this op (cpu/ops_x87*.c), for a guest whose x87
 * state cannot be live. */
#define EXACT(c, op) ((cpu_handler)(uintptr_t)(op)->imm)((c), (op))
/* A handler's first step: go on when the state is (now) live, else hand
 * the instruction to its exact handler. */
#define LIVE_OR_EXACT(c, op)                                                            \
    do {                                                                                \
        if (UNLIKELY(!x87_live(c))) {                                                   \
            EXACT(c, op);                                                               \
            return;                                                                     \
        }                                                                               \
    } while (0)

/* Every ModRM byte of a register form, as reg (r) and rm (m) digits. */
#define RM8(X, opc, r) X(opc, r, 0) X(opc, r, 1) X(opc, r, 2) X(opc, r, 3) \
                       X(opc, r, 4) X(opc, r, 5) X(opc, r, 6) X(opc, r, 7)
#define RM64(X, opc) RM8(X, opc, 0) RM8(X, opc, 1) RM8(X, opc, 2) RM8(X, opc, 3) \
                     RM8(X, opc, 4) RM8(X, opc, 5) RM8(X, opc, 6) RM8(X, opc, 7)
#define ALL_OPC(X) X(d8) X(d9) X(da) X(db) X(dc) X(dd) X(de) X(df)
#define INSN_REG(opc, r, m) ".byte 0x" #opc ", 0xc0 + 8 * " #r " + " #m

/* ------------------------------------------------------------ register forms */
#define LIVE_REG(opc, r, m)                                                             \
    static void op_live_##opc##_##r##m(struct cpu *c, const struct op *op)              \
    {                                                                                   \
        LIVE_OR_EXACT(c, op);                                                           \
        __asm__ volatile(INSN_REG(opc, r, m));                                          \
        NEXT(c, op);                                                                    \
    }
#define LIVE_ROW(opc) RM64(LIVE_REG, opc)
ALL_OPC(LIVE_ROW)

#define REG_FN(opc, r, m) op_live_##opc##_##r##m,
#define REG_TABLE_ROW(opc) { RM64(REG_FN, opc) },
static const cpu_handler reg_live[8][64] = { ALL_OPC(REG_TABLE_ROW) };

/* FUCOMI FCOMI (DB /5 /6), FUCOMIP FCOMIP (DF /5 /6): ZF PF CF from the
 * host's answer, OF SF AF cleared. */
#define LIVE_COMI(opc, r, m)                                                            \
    static void op_live_comi_##opc##_##r##m(struct cpu *c, const struct op *op)         \
    {                                                                                   \
        LIVE_OR_EXACT(c, op);                                                           \
        bool zf, pf, cf;                                                                \
        __asm__ volatile(INSN_REG(opc, r, m) : "=@ccz"(zf), "=@ccp"(pf), "=@ccc"(cf));  \
        cpu_set_arith(c, (zf ? FL_ZF : 0) | (pf ? FL_PF : 0) | (cf ? FL_CF : 0), FL_ARITH); \
        NEXT(c, op);                                                                    \
    }
#define COMI_ROWS(X) RM8(X, db, 5) RM8(X, db, 6) RM8(X, df, 5) RM8(X, df, 6)
COMI_ROWS(LIVE_COMI)
#define COMI_FN(opc, r, m) op_live_comi_##opc##_##r##m,
static const cpu_handler comi_live[4][8] = { { RM8(COMI_FN, db, 5) }, { RM8(COMI_FN, db, 6) },
                                             { RM8(COMI_FN, df, 5) }, { RM8(COMI_FN, df, 6) } };

/* FCMOVcc ST(0), ST(i) (DA/DB /0../3; x2 the condition, as in Jcc): the
 * guest's condition decides, FCMOVNE runs it (it moves when ZF = 0), so
 * that an empty operand faults whether or not it moves, as FCMOVcc does. */
#define LIVE_FCMOV(opc, r, m)                                                           \
    static void op_live_fcmov_##m(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        LIVE_OR_EXACT(c, op);                                                           \
        unsigned take = cpu_cond(c, op->x2);                                            \
        __asm__ volatile("test %0, %0\n\t" INSN_REG(opc, r, m) : : "r"(take) : "cc");   \
        NEXT(c, op);                                                                    \
    }
RM8(LIVE_FCMOV, db, 1)
#define FCMOV_FN(opc, r, m) op_live_fcmov_##m,
static const cpu_handler fcmov_live[8] = { RM8(FCMOV_FN, db, 1) };

/* FNSTSW AX (DF E0). */
static void op_live_fnstsw_ax(struct cpu *c, const struct op *op)
{
    LIVE_OR_EXACT(c, op);
    uint16_t sw;
    __asm__ volatile("fnstsw %0" : "=a"(sw));
    set_gpr16(c, SLOT_GPR(R_AX), sw);
    NEXT(c, op);
}

/* FNINIT (DB E3): FIP, FDP and FOP, kept in struct cpu, are cleared too. */
static void op_live_fninit(struct cpu *c, const struct op *op)
{
    LIVE_OR_EXACT(c, op);
    __asm__ volatile("fninit");
    c->fop = 0;
    c->fip = c->fdp = 0;
    NEXT(c, op);
}

/* ------------------------------------------------------------ memory forms */
/* The operand's host address in %rax: ModRM mod 00, rm 000. */
#define LIVE_MEM(opc, r)                                                                \
    static void op_live_m_##opc##_##r(struct cpu *c, const struct op *op)               \
    {                                                                                   \
        LIVE_OR_EXACT(c, op);                                                           \
        void *p = g2h(c, op_ea(c, op));                                                 \
        __asm__ volatile(".byte 0x" #opc ", 8 * " #r : : "a"(p) : "memory");            \
        NEXT(c, op);                                                                    \
    }
#define MEM_ROW(opc) LIVE_MEM(opc, 0) LIVE_MEM(opc, 1) LIVE_MEM(opc, 2) LIVE_MEM(opc, 3) \
                     LIVE_MEM(opc, 4) LIVE_MEM(opc, 5) LIVE_MEM(opc, 6) LIVE_MEM(opc, 7)
ALL_OPC(MEM_ROW)
#define MEM_FN(opc) { op_live_m_##opc##_0, op_live_m_##opc##_1, op_live_m_##opc##_2,    \
                      op_live_m_##opc##_3, op_live_m_##opc##_4, op_live_m_##opc##_5,    \
                      op_live_m_##opc##_6, op_live_m_##opc##_7 },
static const cpu_handler mem_live[8][8] = { ALL_OPC(MEM_FN) };

/* FLDCW (D9 /5): a control word that keeps every exception masked is
 * loaded into the live state; one that unmasks one leaves it. */
static void op_live_fldcw(struct cpu *c, const struct op *op)
{
    if (LIKELY(x87_live(c))) {
        uint16_t v = load16(c, op_ea(c, op));
        if (LIKELY((v & X87_MASKS) == X87_MASKS)) {
            __asm__ volatile("fldcw %0" : : "m"(v));
            NEXT(c, op);
            return;
        }
        cpu_x87_release(c);
    }
    EXACT(c, op);
}

/* The instructions that work on the state in struct cpu. */
static void op_x87_released(struct cpu *c, const struct op *op)
{
    cpu_x87_release(c);
    EXACT(c, op);
}

/* ------------------------------------------------------------ decoding */
void x87_dec_live(struct decoder *d)
{
    const ZydisDecodedInstruction *in = d->in;
    struct op *op = d->op;
    cpu_handler live = op_x87_released;
    if (in->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && in->opcode >= 0xd8 && in->opcode <= 0xdf) {
        unsigned row = in->opcode - 0xd8, mod = in->raw.modrm.mod, reg = in->raw.modrm.reg,
                 rm = in->raw.modrm.rm, modrm = reg << 3 | rm;
        if (mod == 3) {
            live = reg_live[row][modrm];
            if ((row == 3 || row == 7) && (reg == 5 || reg == 6))
                live = comi_live[(row == 7) * 2 + (reg - 5)][rm];
            else if ((row == 2 || row == 3) && reg < 4)
                live = fcmov_live[rm];
            else if (row == 7 && modrm == 0x20)
                live = op_live_fnstsw_ax;
            else if (row == 3 && modrm == 0x23)
                live = op_live_fninit;
        } else if (row == 1 && reg == 5) {
            live = op_live_fldcw;
        } else if (!((row == 1 || row == 5) && (reg == 4 || reg == 6))) {
            live = mem_live[row][reg]; /* all but FLDENV FNSTENV FRSTOR FNSAVE */
        }
    }
    op->imm = (int64_t)(uintptr_t)op->fn;
    op->fn = live;
}
