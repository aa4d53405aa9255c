/* Data movement: MOV (every form), MOVZX, MOVSX, MOVSXD, LEA, XCHG, XADD,
 * CMPXCHG, CMOVcc, SETcc, CBW/CWDE/CDQE, CWD/CDQ/CQO, BSWAP, NOP. */
#include <signal.h>

#include "cpu/decode.h"
#include "cpu/flags.h"
#include "cpu/mem.h"

/* ------------------------------------------------------------ MOV */
#define GEN_MOV(B)                                                                      \
    static void op_mov_rr_##B(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        set_gpr##B(c, op->r1, GPR##B(c, op->r2));                                       \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_mov_ri_##B(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        set_gpr##B(c, op->r1, (uint64_t)op->imm);                                       \
        NEXT(c, op);                                                                    \
    }
GEN_MOV(8)
GEN_MOV(16)
GEN_MOV(32)
GEN_MOV(64)
/* The memory forms, once per operand form (cpu/mem.h ADDR_MODES). */
#define GEN_MOV_MEM(AM, sfx, B)                                                         \
    static void op_mov_rm_##B##_##sfx(struct cpu *c, const struct op *op)               \
    {                                                                                   \
        set_gpr##B(c, op->r1, ld##B(am_ptr(c, op, AM)));                                \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_mov_mr_##B##_##sfx(struct cpu *c, const struct op *op)               \
    {                                                                                   \
        st##B(am_ptr(c, op, AM), GPR##B(c, op->r2));                                    \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_mov_mi_##B##_##sfx(struct cpu *c, const struct op *op)               \
    {                                                                                   \
        st##B(am_ptr(c, op, AM), (uint##B##_t)op->imm);                                 \
        NEXT(c, op);                                                                    \
    }
ADDR_MODES(GEN_MOV_MEM, 8)
ADDR_MODES(GEN_MOV_MEM, 16)
ADDR_MODES(GEN_MOV_MEM, 32)
ADDR_MODES(GEN_MOV_MEM, 64)
/* MOV between the accumulator and a 64-bit absolute address (moffs64, A0-A3:
 * JITs such as V8's emit them), which struct op's 32-bit disp cannot hold. */
#define GEN_MOV_ABS(B)                                                                  \
    static void op_mov_r_abs_##B(struct cpu *c, const struct op *op)                    \
    {                                                                                   \
        set_gpr##B(c, op->r1, load##B(c, (uint64_t)op->imm + c->seg_base[op->seg]));   \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_mov_abs_r_##B(struct cpu *c, const struct op *op)                    \
    {                                                                                   \
        store##B(c, (uint64_t)op->imm + c->seg_base[op->seg], GPR##B(c, op->r2));      \
        NEXT(c, op);                                                                    \
    }
GEN_MOV_ABS(8)
GEN_MOV_ABS(16)
GEN_MOV_ABS(32)
GEN_MOV_ABS(64)
static const cpu_handler mov_abs_h[2][4] = {
    { op_mov_r_abs_8, op_mov_r_abs_16, op_mov_r_abs_32, op_mov_r_abs_64 },
    { op_mov_abs_r_8, op_mov_abs_r_16, op_mov_abs_r_32, op_mov_abs_r_64 },
};
static const cpu_handler mov_rr_h[4] = { op_mov_rr_8, op_mov_rr_16, op_mov_rr_32, op_mov_rr_64 };
static const cpu_handler mov_ri_h[4] = { op_mov_ri_8, op_mov_ri_16, op_mov_ri_32, op_mov_ri_64 };
static const cpu_handler mov_rm_h[AM_COUNT][4] = { ADDR_MODES(AM_WIDTHS_ROW, op_mov_rm_) };
static const cpu_handler mov_mr_h[AM_COUNT][4] = { ADDR_MODES(AM_WIDTHS_ROW, op_mov_mr_) };
static const cpu_handler mov_mi_h[AM_COUNT][4] = { ADDR_MODES(AM_WIDTHS_ROW, op_mov_mi_) };

/* MOV r/m, Sreg and MOV Sreg, r/m: selectors are kept, bases are Linux's. */
static void op_mov_r_sreg(struct cpu *c, const struct op *op)
{
    set_reg_n(c, op->r1, op->size, c->sreg[op->x1]);
    NEXT(c, op);
}
static void op_mov_m_sreg(struct cpu *c, const struct op *op)
{
    store16(c, op_ea(c, op), c->sreg[op->x1]);
    NEXT(c, op);
}

bool cpu_load_sreg(struct cpu *c, int slot, uint16_t sel)
{
    unsigned idx = sel >> 3;
    uint32_t base = 0;
    if ((sel & 4) || (sel & 3) != 3) {
        /* the LDT, or a kernel privilege level: only the null selector */
        if (sel > 3 || slot == SEG_SS || slot == SEG_CS)
            return false;
    } else if (idx >= CPU_TLS_FIRST && idx < CPU_TLS_FIRST + CPU_TLS_COUNT) {
        const struct cpu_tls_desc *t = &c->tls[idx - CPU_TLS_FIRST];
        if (!t->present)
            return false;
        base = t->base;
    } else if (sel != 0x2b && sel != 0x23) { /* __USER_DS, __USER32_CS: flat */
        return false;
    }
    c->sreg[slot] = sel;
    if (slot == SEG_FS || slot == SEG_GS)
        c->seg_base[slot] = base;
    return true;
}

/* MOV Sreg, r/m16 (32-bit guests): a selector that does not load is #GP,
 * SIGSEGV with si_code SI_KERNEL from Linux. */
static void op_mov_sreg_r(struct cpu *c, const struct op *op)
{
    if (!cpu_load_sreg(c, op->x1, (uint16_t)GPR16(c, op->r2)))
        cpu_fault(c, SIGSEGV, 0x80 /* SI_KERNEL */, 0);
    NEXT(c, op);
}
static void op_mov_sreg_m(struct cpu *c, const struct op *op)
{
    if (!cpu_load_sreg(c, op->x1, load16(c, op_ea(c, op))))
        cpu_fault(c, SIGSEGV, 0x80 /* SI_KERNEL */, 0);
    NEXT(c, op);
}

/* ------------------------------------------------------------ extensions */
/* op->size: destination size; op->x1: source size; op->x2: 1 = sign-extend */
static inline uint64_t extend(uint64_t v, unsigned from, bool sign)
{
    unsigned sh = 64 - 8 * from;
    return sign ? (uint64_t)((int64_t)(v << sh) >> sh) : (v << sh) >> sh;
}
static void op_movx_r(struct cpu *c, const struct op *op)
{
    set_reg_n(c, op->r1, op->size, extend(get_reg_n(c, op->r2, op->x1), op->x1, op->x2));
    NEXT(c, op);
}
static void op_movx_m(struct cpu *c, const struct op *op)
{
    set_reg_n(c, op->r1, op->size, extend(load_n(c, op_ea(c, op), op->x1), op->x1, op->x2));
    NEXT(c, op);
}

/* The common extensions have a handler each, per operand form:
 * X(name, destination bits, source bits, signed). */
#define MOVX_COMMON(X)                                                                  \
    X(zx32_8, 32, 8, 0) X(zx32_16, 32, 16, 0) X(sx32_8, 32, 8, 1) X(sx32_16, 32, 16, 1)  \
    X(sx64_8, 64, 8, 1) X(sx64_16, 64, 16, 1) X(sx64_32, 64, 32, 1)
#define EXT_0(S, v) (uint##S##_t)(v)
#define EXT_1(S, v) (int##S##_t)(v)
#define GEN_MOVX_R(name, D, S, SG)                                                      \
    static void op_movx_##name##_r(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        set_gpr##D(c, op->r1, (uint64_t)(int64_t)EXT_##SG(S, GPR##S(c, op->r2)));       \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    ADDR_MODES(GEN_MOVX_M, name, D, S, SG)
#define GEN_MOVX_M(AM, sfx, name, D, S, SG)                                             \
    static void op_movx_##name##_m_##sfx(struct cpu *c, const struct op *op)            \
    {                                                                                   \
        set_gpr##D(c, op->r1, (uint64_t)(int64_t)EXT_##SG(S, ld##S(am_ptr(c, op, AM)))); \
        NEXT(c, op);                                                                    \
    }
MOVX_COMMON(GEN_MOVX_R)
#define MOVX_M_ENTRY(AM, sfx, name) op_movx_##name##_m_##sfx,
#define MOVX_ENTRY(name, D, S, SG) { D / 8, S / 8, SG, op_movx_##name##_r, { ADDR_MODES(MOVX_M_ENTRY, name) } },
static const struct movx_form {
    uint8_t dst, src, sign;
    cpu_handler r, m[AM_COUNT];
} movx_forms[] = { MOVX_COMMON(MOVX_ENTRY) };

/* LEA: the address without a segment base (decode clears op->seg). */
#define GEN_LEA(AM, sfx, B)                                                             \
    static void op_lea_##B##_##sfx(struct cpu *c, const struct op *op)                  \
    {                                                                                   \
        set_gpr##B(c, op->r1, AM == AM_ANY ? op_lea(c, op) : am_ea(c, op, AM));         \
        NEXT(c, op);                                                                    \
    }
ADDR_MODES(GEN_LEA, 32)
ADDR_MODES(GEN_LEA, 64)
#define LEA_ENTRY(AM, sfx, B) op_lea_##B##_##sfx,
static const cpu_handler lea_h[2][AM_COUNT] = { { ADDR_MODES(LEA_ENTRY, 32) }, { ADDR_MODES(LEA_ENTRY, 64) } };
static void op_lea_16(struct cpu *c, const struct op *op)
{
    set_gpr16(c, op->r1, op_lea(c, op));
    NEXT(c, op);
}

/* ------------------------------------------------------------ exchanges */
static void op_xchg_rr(struct cpu *c, const struct op *op)
{
    uint64_t a = get_reg_n(c, op->r1, op->size), b = get_reg_n(c, op->r2, op->size);
    set_reg_n(c, op->r1, op->size, b);
    set_reg_n(c, op->r2, op->size, a);
    NEXT(c, op);
}

/* XCHG with memory is always locked (SDM: "the processor's locking protocol
 * is automatically implemented"). */
static void op_xchg_mr(struct cpu *c, const struct op *op)
{
    void *p = g2h(c, op_ea(c, op));
    uint64_t v = get_reg_n(c, op->r2, op->size), old;
    switch (op->size) {
    case 1: old = __atomic_exchange_n((uint8_t *)p, (uint8_t)v, __ATOMIC_SEQ_CST); break;
    case 2: old = __atomic_exchange_n((uint16_t *)p, (uint16_t)v, __ATOMIC_SEQ_CST); break;
    case 4: old = __atomic_exchange_n((uint32_t *)p, (uint32_t)v, __ATOMIC_SEQ_CST); break;
    default: old = __atomic_exchange_n((uint64_t *)p, v, __ATOMIC_SEQ_CST); break;
    }
    set_reg_n(c, op->r2, op->size, old);
    NEXT(c, op);
}

static inline unsigned wlog(unsigned size) { return (unsigned)__builtin_ctz(size); }

/* XADD: dst <- dst + src, src <- old dst; flags of the addition. */
static void op_xadd_rr(struct cpu *c, const struct op *op)
{
    uint64_t d = get_reg_n(c, op->r1, op->size), s = get_reg_n(c, op->r2, op->size);
    set_reg_n(c, op->r2, op->size, d);
    set_reg_n(c, op->r1, op->size, d + s);
    lf_set(c, LF_ADD + wlog(op->size), d, s, d + s);
    NEXT(c, op);
}

#define ATOMIC_SIZED(size, p, expr_fn)                                                  \
    switch (size) {                                                                     \
    case 1: expr_fn(uint8_t, p); break;                                                 \
    case 2: expr_fn(uint16_t, p); break;                                                \
    case 4: expr_fn(uint32_t, p); break;                                                \
    default: expr_fn(uint64_t, p); break;                                               \
    }

static void op_xadd_m(struct cpu *c, const struct op *op)
{
    void *p = g2h(c, op_ea(c, op));
    uint64_t s = get_reg_n(c, op->r2, op->size), d;
#define XADD(T, ptr) d = __atomic_fetch_add((T *)(ptr), (T)s, __ATOMIC_SEQ_CST)
    ATOMIC_SIZED(op->size, p, XADD)
#undef XADD
    set_reg_n(c, op->r2, op->size, d);
    lf_set(c, LF_ADD + wlog(op->size), d, s, d + s);
    NEXT(c, op);
}

/* CMPXCHG: compare the accumulator with dst; equal: dst <- src, else
 * accumulator <- dst.  Flags as CMP accumulator, dst.  The memory form
 * always writes (the old value back on failure), as the SDM says. */
static void op_cmpxchg_rr(struct cpu *c, const struct op *op)
{
    unsigned n = op->size;
    uint64_t acc = get_reg_n(c, SLOT_GPR(R_AX), n), d = get_reg_n(c, op->r1, n);
    lf_set(c, LF_SUB + wlog(n), acc, d, acc - d);
    if (extend(acc, n, false) == extend(d, n, false))
        set_reg_n(c, op->r1, n, get_reg_n(c, op->r2, n));
    else
        set_reg_n(c, SLOT_GPR(R_AX), n, d);
    NEXT(c, op);
}

static void op_cmpxchg_m(struct cpu *c, const struct op *op)
{
    unsigned n = op->size;
    void *p = g2h(c, op_ea(c, op));
    uint64_t acc = get_reg_n(c, SLOT_GPR(R_AX), n), s = get_reg_n(c, op->r2, n), d = 0;
    bool ok = false;
#define CAS(T, ptr)                                                                     \
    do {                                                                                \
        T exp = (T)acc;                                                                 \
        ok = __atomic_compare_exchange_n((T *)(ptr), &exp, (T)s, false, __ATOMIC_SEQ_CST,\
                                         __ATOMIC_SEQ_CST);                             \
        d = exp;                                                                        \
    } while (0)
    ATOMIC_SIZED(n, p, CAS)
#undef CAS
    lf_set(c, LF_SUB + wlog(n), acc, d, acc - d);
    if (!ok)
        set_reg_n(c, SLOT_GPR(R_AX), n, d);
    NEXT(c, op);
}

/* CMPXCHG8B / CMPXCHG16B: edx:eax (rdx:rax) against m64 (m128). */
static void op_cmpxchg8b(struct cpu *c, const struct op *op)
{
    uint64_t *p = g2h(c, op_ea(c, op));
    uint64_t exp = (uint32_t)c->r[R_AX] | (c->r[R_DX] << 32);
    uint64_t nv = (uint32_t)c->r[R_BX] | (c->r[R_CX] << 32);
    bool ok = __atomic_compare_exchange_n(p, &exp, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    cpu_set_arith(c, ok ? FL_ZF : 0, FL_ZF);
    if (!ok) {
        set_gpr32(c, SLOT_GPR(R_AX), exp);
        set_gpr32(c, SLOT_GPR(R_DX), exp >> 32);
    }
    NEXT(c, op);
}

static void op_cmpxchg16b(struct cpu *c, const struct op *op)
{
    uint64_t a = op_ea(c, op);
    if (a & 15)
        cpu_fault(c, SIGSEGV, 0x80 /* SI_KERNEL: #GP */, 0);
    unsigned __int128 *p = g2h(c, a);
    unsigned __int128 exp = c->r[R_AX] | ((unsigned __int128)c->r[R_DX] << 64);
    unsigned __int128 nv = c->r[R_BX] | ((unsigned __int128)c->r[R_CX] << 64);
    /* __sync inlines LOCK CMPXCHG16B with -mcx16 (the __atomic form would
     * call libatomic, which takes a lock). */
    unsigned __int128 old = __sync_val_compare_and_swap(p, exp, nv);
    bool ok = old == exp;
    exp = old;
    cpu_set_arith(c, ok ? FL_ZF : 0, FL_ZF);
    if (!ok) {
        c->r[R_AX] = (uint64_t)exp;
        c->r[R_DX] = (uint64_t)(exp >> 64);
    }
    NEXT(c, op);
}

/* ------------------------------------------------------------ conditionals */
static void op_cmov_r(struct cpu *c, const struct op *op)
{
    uint64_t v = get_reg_n(c, op->r2, op->size);
    if (cpu_cond(c, op->x1))
        set_reg_n(c, op->r1, op->size, v);
    else if (op->size == 4)
        set_gpr32(c, op->r1, GPR32(c, op->r1)); /* a 32-bit CMOV always zero-extends */
    NEXT(c, op);
}
static void op_cmov_m(struct cpu *c, const struct op *op)
{
    uint64_t v = load_n(c, op_ea(c, op), op->size); /* the load happens either way */
    if (cpu_cond(c, op->x1))
        set_reg_n(c, op->r1, op->size, v);
    else if (op->size == 4)
        set_gpr32(c, op->r1, GPR32(c, op->r1));
    NEXT(c, op);
}
/* CMOVcc r, r of 32 and 64 bits: one handler per condition (cpu_cond() folds). */
#define GEN_CMOV_R(cc)                                                                  \
    static void op_cmov_r32_##cc(struct cpu *c, const struct op *op)                    \
    {                                                                                   \
        set_gpr32(c, op->r1, cpu_cond(c, cc) ? GPR32(c, op->r2) : GPR32(c, op->r1));    \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_cmov_r64_##cc(struct cpu *c, const struct op *op)                    \
    {                                                                                   \
        if (cpu_cond(c, cc))                                                            \
            set_gpr64(c, op->r1, GPR64(c, op->r2));                                     \
        NEXT(c, op);                                                                    \
    }
CPU_CONDITIONS(GEN_CMOV_R)
/* CMOVcc r, m of 32 and 64 bits: per condition and form of the operand
 * (cpu/mem.h ADDR_MODES); the load happens (and may fault) either way. */
#define GEN_CMOV_M(AM, sfx, cc)                                                         \
    static void op_cmov_m32_##cc##_##sfx(struct cpu *c, const struct op *op)            \
    {                                                                                   \
        uint32_t v = ld32(am_ptr(c, op, AM));                                           \
        set_gpr32(c, op->r1, cpu_cond(c, cc) ? v : GPR32(c, op->r1));                   \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_cmov_m64_##cc##_##sfx(struct cpu *c, const struct op *op)            \
    {                                                                                   \
        uint64_t v = ld64(am_ptr(c, op, AM));                                           \
        if (cpu_cond(c, cc))                                                            \
            set_gpr64(c, op->r1, v);                                                    \
        NEXT(c, op);                                                                    \
    }
#define GEN_CMOV_M_FORMS(cc) ADDR_MODES(GEN_CMOV_M, cc)
CPU_CONDITIONS(GEN_CMOV_M_FORMS)
#define CMOV_M_ENTRY(AM, sfx, bits, cc) op_cmov_m##bits##_##cc##_##sfx,
#define CMOV_M32_ROW(cc) { ADDR_MODES(CMOV_M_ENTRY, 32, cc) },
#define CMOV_M64_ROW(cc) { ADDR_MODES(CMOV_M_ENTRY, 64, cc) },
static const cpu_handler cmov_m_h[2][16][AM_COUNT] = { { CPU_CONDITIONS(CMOV_M32_ROW) },
                                                       { CPU_CONDITIONS(CMOV_M64_ROW) } };
#define CMOV_R32_ENTRY(cc) op_cmov_r32_##cc,
#define CMOV_R64_ENTRY(cc) op_cmov_r64_##cc,
static const cpu_handler cmov_r_h[2][16] = { { CPU_CONDITIONS(CMOV_R32_ENTRY) },
                                             { CPU_CONDITIONS(CMOV_R64_ENTRY) } };
/* SETcc r8: one handler per condition (cpu_cond() folds). */
#define GEN_SETCC_R(cc)                                                                 \
    static void op_setcc_r_##cc(struct cpu *c, const struct op *op)                     \
    {                                                                                   \
        set_gpr8(c, op->r1, cpu_cond(c, cc));                                           \
        NEXT(c, op);                                                                    \
    }
CPU_CONDITIONS(GEN_SETCC_R)
#define SETCC_R_ENTRY(cc) op_setcc_r_##cc,
static const cpu_handler setcc_r_h[16] = { CPU_CONDITIONS(SETCC_R_ENTRY) };
/* SETcc m8: per condition and form of the operand. */
#define GEN_SETCC_M(AM, sfx, cc)                                                        \
    static void op_setcc_m_##cc##_##sfx(struct cpu *c, const struct op *op)             \
    {                                                                                   \
        st8(am_ptr(c, op, AM), cpu_cond(c, cc));                                        \
        NEXT(c, op);                                                                    \
    }
#define GEN_SETCC_M_FORMS(cc) ADDR_MODES(GEN_SETCC_M, cc)
CPU_CONDITIONS(GEN_SETCC_M_FORMS)
#define SETCC_M_ENTRY(AM, sfx, cc) op_setcc_m_##cc##_##sfx,
#define SETCC_M_ROW(cc) { ADDR_MODES(SETCC_M_ENTRY, cc) },
static const cpu_handler setcc_m_h[16][AM_COUNT] = { CPU_CONDITIONS(SETCC_M_ROW) };

/* ------------------------------------------------------------ sign extensions of rAX */
static void op_cbw(struct cpu *c, const struct op *op) /* CBW / CWDE / CDQE */
{
    unsigned n = op->size;
    set_reg_n(c, SLOT_GPR(R_AX), n, extend(c->r[R_AX], n / 2, true));
    NEXT(c, op);
}
static void op_cwd(struct cpu *c, const struct op *op) /* CWD / CDQ / CQO */
{
    unsigned n = op->size;
    uint64_t ax = extend(c->r[R_AX], n, true);
    set_reg_n(c, SLOT_GPR(R_DX), n, (int64_t)ax < 0 ? ~0ull : 0);
    NEXT(c, op);
}
static void op_bswap(struct cpu *c, const struct op *op)
{
    if (op->size == 8)
        set_gpr64(c, op->r1, __builtin_bswap64(GPR64(c, op->r1)));
    else if (op->size == 4)
        set_gpr32(c, op->r1, __builtin_bswap32(GPR32(c, op->r1)));
    else
        set_gpr16(c, op->r1, 0); /* BSWAP r16 is undefined; hardware zeroes it */
    NEXT(c, op);
}
static void op_clflush(struct cpu *c, const struct op *op)
{
    (void)load8(c, op_ea(c, op));
    NEXT(c, op);
}

static void op_nop(struct cpu *c, const struct op *op)
{
    NEXT(c, op);
}

static void op_mfence(struct cpu *c, const struct op *op)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    NEXT(c, op);
}

/* Condition code of a CMOVcc/SETcc/Jcc mnemonic (the SDM's tttn encoding). */
int dec_condition(ZydisMnemonic m)
{
    static const struct { ZydisMnemonic cmov, set, j; } t[16] = {
        { ZYDIS_MNEMONIC_CMOVO, ZYDIS_MNEMONIC_SETO, ZYDIS_MNEMONIC_JO },
        { ZYDIS_MNEMONIC_CMOVNO, ZYDIS_MNEMONIC_SETNO, ZYDIS_MNEMONIC_JNO },
        { ZYDIS_MNEMONIC_CMOVB, ZYDIS_MNEMONIC_SETB, ZYDIS_MNEMONIC_JB },
        { ZYDIS_MNEMONIC_CMOVNB, ZYDIS_MNEMONIC_SETNB, ZYDIS_MNEMONIC_JNB },
        { ZYDIS_MNEMONIC_CMOVZ, ZYDIS_MNEMONIC_SETZ, ZYDIS_MNEMONIC_JZ },
        { ZYDIS_MNEMONIC_CMOVNZ, ZYDIS_MNEMONIC_SETNZ, ZYDIS_MNEMONIC_JNZ },
        { ZYDIS_MNEMONIC_CMOVBE, ZYDIS_MNEMONIC_SETBE, ZYDIS_MNEMONIC_JBE },
        { ZYDIS_MNEMONIC_CMOVNBE, ZYDIS_MNEMONIC_SETNBE, ZYDIS_MNEMONIC_JNBE },
        { ZYDIS_MNEMONIC_CMOVS, ZYDIS_MNEMONIC_SETS, ZYDIS_MNEMONIC_JS },
        { ZYDIS_MNEMONIC_CMOVNS, ZYDIS_MNEMONIC_SETNS, ZYDIS_MNEMONIC_JNS },
        { ZYDIS_MNEMONIC_CMOVP, ZYDIS_MNEMONIC_SETP, ZYDIS_MNEMONIC_JP },
        { ZYDIS_MNEMONIC_CMOVNP, ZYDIS_MNEMONIC_SETNP, ZYDIS_MNEMONIC_JNP },
        { ZYDIS_MNEMONIC_CMOVL, ZYDIS_MNEMONIC_SETL, ZYDIS_MNEMONIC_JL },
        { ZYDIS_MNEMONIC_CMOVNL, ZYDIS_MNEMONIC_SETNL, ZYDIS_MNEMONIC_JNL },
        { ZYDIS_MNEMONIC_CMOVLE, ZYDIS_MNEMONIC_SETLE, ZYDIS_MNEMONIC_JLE },
        { ZYDIS_MNEMONIC_CMOVNLE, ZYDIS_MNEMONIC_SETNLE, ZYDIS_MNEMONIC_JNLE },
    };
    for (int i = 0; i < 16; i++)
        if (t[i].cmov == m || t[i].set == m || t[i].j == m)
            return i;
    return -1;
}

static bool dec_mov_forms(struct decoder *d)
{
    struct op *op = d->op;
    unsigned n = d->ops[0].size / 8;
    op->size = (uint8_t)n;
    ZydisRegister r0 = is_reg(d, 0) ? d->ops[0].reg.value : ZYDIS_REGISTER_NONE;
    ZydisRegister r1 = is_reg(d, 1) ? d->ops[1].reg.value : ZYDIS_REGISTER_NONE;
    /* MOV from a segment register (reads a selector); to one: not supported. */
    if (r1 >= ZYDIS_REGISTER_ES && r1 <= ZYDIS_REGISTER_GS) {
        static const uint8_t slot[] = { SEG_ES, SEG_CS, SEG_SS, SEG_DS, SEG_FS, SEG_GS };
        op->x1 = slot[r1 - ZYDIS_REGISTER_ES];
        if (is_reg(d, 0)) {
            op->fn = op_mov_r_sreg;
            return dec_reg_op(d, 0, &op->r1);
        }
        op->fn = op_mov_m_sreg;
        return dec_mem_op(d, 0);
    }
    if (r0 >= ZYDIS_REGISTER_ES && r0 <= ZYDIS_REGISTER_GS) {
        /* To a segment register: 32-bit guests (64-bit code uses
         * arch_prctl); CS cannot be loaded by MOV (#UD). */
        static const uint8_t slot[] = { SEG_ES, SEG_CS, SEG_SS, SEG_DS, SEG_FS, SEG_GS };
        if (d->bits != 32 || r0 == ZYDIS_REGISTER_CS)
            return false;
        op->x1 = slot[r0 - ZYDIS_REGISTER_ES];
        if (is_reg(d, 1)) {
            op->fn = op_mov_sreg_r;
            return dec_reg_op(d, 1, &op->r2);
        }
        op->fn = op_mov_sreg_m;
        return dec_mem_op(d, 1);
    }
    unsigned w = size_index(n);
    if (is_reg(d, 0)) {
        if (!dec_reg_op(d, 0, &op->r1))
            return false;
        if (is_reg(d, 1)) {
            op->fn = mov_rr_h[w];
            return dec_reg_op(d, 1, &op->r2);
        }
        if (dec_moffs_op(d, 1)) {
            op->fn = mov_abs_h[0][w];
            return true;
        }
        if (is_mem(d, 1)) {
            if (!dec_mem_op(d, 1))
                return false;
            op->fn = mov_rm_h[dec_addr_mode(d)][w];
            return true;
        }
        op->imm = dec_imm(d, 1);
        op->fn = mov_ri_h[w];
        return true;
    }
    if (dec_moffs_op(d, 0)) {
        op->fn = mov_abs_h[1][w];
        return dec_reg_op(d, 1, &op->r2);
    }
    if (!dec_mem_op(d, 0))
        return false;
    if (is_reg(d, 1)) {
        op->fn = mov_mr_h[dec_addr_mode(d)][w];
        return dec_reg_op(d, 1, &op->r2);
    }
    op->imm = dec_imm(d, 1);
    op->fn = mov_mi_h[dec_addr_mode(d)][w];
    return true;
}

static bool dec_movx(struct decoder *d, bool sign)
{
    struct op *op = d->op;
    op->size = (uint8_t)(d->ops[0].size / 8);
    op->x1 = (uint8_t)(d->ops[1].size / 8);
    op->x2 = sign;
    if (!dec_reg_op(d, 0, &op->r1))
        return false;
    const struct movx_form *f = NULL;
    for (size_t i = 0; i < sizeof(movx_forms) / sizeof(movx_forms[0]); i++)
        if (movx_forms[i].dst == op->size && movx_forms[i].src == op->x1 && movx_forms[i].sign == sign)
            f = &movx_forms[i];
    if (is_reg(d, 1)) {
        op->fn = f ? f->r : op_movx_r;
        return dec_reg_op(d, 1, &op->r2);
    }
    if (!dec_mem_op(d, 1))
        return false;
    op->fn = f ? f->m[dec_addr_mode(d)] : op_movx_m;
    return true;
}

/* Forms "reg/mem, reg" shared by XCHG, XADD, CMPXCHG. */
static bool dec_rm_r(struct decoder *d, cpu_handler rr, cpu_handler mr)
{
    struct op *op = d->op;
    op->size = (uint8_t)(d->ops[0].size / 8);
    if (!dec_reg_op(d, 1, &op->r2))
        return false;
    if (is_reg(d, 0)) {
        op->fn = rr;
        return dec_reg_op(d, 0, &op->r1);
    }
    op->fn = mr;
    return dec_mem_op(d, 0);
}

bool dec_mov(struct decoder *d)
{
    struct op *op = d->op;
    ZydisMnemonic m = d->in->mnemonic;
    switch (m) {
    case ZYDIS_MNEMONIC_MOV:
        return dec_mov_forms(d);
    case ZYDIS_MNEMONIC_MOVZX:
        return dec_movx(d, false);
    case ZYDIS_MNEMONIC_MOVSX:
    case ZYDIS_MNEMONIC_MOVSXD:
        return dec_movx(d, true);
    case ZYDIS_MNEMONIC_LEA:
        if (!dec_reg_op(d, 0, &op->r1) || !dec_mem_op(d, 1))
            return false;
        op->seg = SEG_NONE;
        op->fn = d->ops[0].size == 16 ? op_lea_16 : lea_h[d->ops[0].size == 64][dec_addr_mode(d)];
        return true;
    case ZYDIS_MNEMONIC_XCHG:
        if (is_mem(d, 1)) { /* canonical order: memory first */
            op->size = (uint8_t)(d->ops[0].size / 8);
            op->fn = op_xchg_mr;
            return dec_reg_op(d, 0, &op->r2) && dec_mem_op(d, 1);
        }
        return dec_rm_r(d, op_xchg_rr, op_xchg_mr);
    case ZYDIS_MNEMONIC_XADD:
        return dec_rm_r(d, op_xadd_rr, op_xadd_m);
    case ZYDIS_MNEMONIC_CMPXCHG:
        return dec_rm_r(d, op_cmpxchg_rr, op_cmpxchg_m);
    case ZYDIS_MNEMONIC_CMPXCHG8B:
        op->fn = op_cmpxchg8b;
        return dec_mem_op(d, 0);
    case ZYDIS_MNEMONIC_CMPXCHG16B:
        op->fn = op_cmpxchg16b;
        return dec_mem_op(d, 0);
    case ZYDIS_MNEMONIC_CBW:
    case ZYDIS_MNEMONIC_CWDE:
    case ZYDIS_MNEMONIC_CDQE:
        op->size = (uint8_t)(d->in->operand_width / 8);
        op->fn = op_cbw;
        return true;
    case ZYDIS_MNEMONIC_CWD:
    case ZYDIS_MNEMONIC_CDQ:
    case ZYDIS_MNEMONIC_CQO:
        op->size = (uint8_t)(d->in->operand_width / 8);
        op->fn = op_cwd;
        return true;
    case ZYDIS_MNEMONIC_BSWAP:
        op->size = (uint8_t)(d->ops[0].size / 8);
        op->fn = op_bswap;
        return dec_reg_op(d, 0, &op->r1);
    case ZYDIS_MNEMONIC_PAUSE:
        /* F3 REX.B 90 is XCHG r8, rAX on the CPU (the REX.B register field
         * makes it no NOP), although Zydis calls it PAUSE. */
        if (d->bits == 64 && d->in->raw.rex.B) {
            op->size = d->in->raw.rex.W ? 8 : (d->in->attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE) ? 2 : 4;
            op->r1 = SLOT_GPR(R_8);
            op->r2 = SLOT_GPR(R_AX);
            op->fn = op_xchg_rr;
            return true;
        }
        op->fn = op_nop;
        return true;
    case ZYDIS_MNEMONIC_CLFLUSH:
    case ZYDIS_MNEMONIC_CLFLUSHOPT:
        /* Nothing to flush in an interpreter, but the line must be mapped:
         * the access faults as the CPU's would. */
        op->fn = op_clflush;
        return dec_mem_op(d, 0);
    case ZYDIS_MNEMONIC_NOP:
    case ZYDIS_MNEMONIC_ENDBR64:
    case ZYDIS_MNEMONIC_ENDBR32:
    case ZYDIS_MNEMONIC_LFENCE:
    case ZYDIS_MNEMONIC_SFENCE:
    case ZYDIS_MNEMONIC_PREFETCHNTA:
    case ZYDIS_MNEMONIC_PREFETCHT0:
    case ZYDIS_MNEMONIC_PREFETCHT1:
    case ZYDIS_MNEMONIC_PREFETCHT2:
    case ZYDIS_MNEMONIC_PREFETCHW:
    /* RDSSP executes as a NOP while shadow stacks are off (SDM, RDSSP);
     * we do not advertise CET, and libgcc's unwinder relies on this. */
    case ZYDIS_MNEMONIC_RDSSPD:
    case ZYDIS_MNEMONIC_RDSSPQ:
        op->fn = op_nop;
        return true;
    case ZYDIS_MNEMONIC_MFENCE:
        /* Guest threads run in parallel on host threads: the host's own
         * fence orders the guest's earlier stores before its later loads.
         * (SFENCE and LFENCE stay NOPs: stores, including the emulated
         * non-temporal ones, are ordered as normal x86 stores are.) */
        op->fn = op_mfence;
        return true;
    default:
        break;
    }
    int cc = dec_condition(m);
    if (cc < 0 || (m >= ZYDIS_MNEMONIC_JB && m <= ZYDIS_MNEMONIC_JZ))
        return false;
    op->x1 = (uint8_t)cc;
    op->size = (uint8_t)(d->ops[0].size / 8);
    bool set = d->ops[0].size == 8 && d->in->operand_count_visible == 1;
    if (set) {
        if (is_reg(d, 0)) {
            op->fn = setcc_r_h[cc];
            return dec_reg_op(d, 0, &op->r1);
        }
        if (!dec_mem_op(d, 0))
            return false;
        op->fn = setcc_m_h[cc][dec_addr_mode(d)];
        return true;
    }
    if (!dec_reg_op(d, 0, &op->r1))
        return false;
    if (is_reg(d, 1)) {
        op->fn = op->size == 4 ? cmov_r_h[0][cc] : op->size == 8 ? cmov_r_h[1][cc] : op_cmov_r;
        return dec_reg_op(d, 1, &op->r2);
    }
    if (!dec_mem_op(d, 1))
        return false;
    op->fn = op->size == 4 ? cmov_m_h[0][cc][dec_addr_mode(d)]
           : op->size == 8 ? cmov_m_h[1][cc][dec_addr_mode(d)] : op_cmov_m;
    return true;
}
