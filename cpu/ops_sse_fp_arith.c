/* SSE/SSE2 floating-point arithmetic and compares (legacy encodings):
 * ADD SUB MUL DIV SQRT MIN MAX in PS/SS/PD/SD, RCPPS/RCPSS/RSQRTPS/RSQRTSS,
 * CMPPS/CMPSS/CMPPD/CMPSD (predicate imm8[2:0]), COMISS/UCOMISS/COMISD/UCOMISD.
 *
 * Every one of them runs the host instruction of the same name on the
 * guest's operands under the guest's MXCSR (cpu/sse_fp.h), which gives the
 * hardware's results bit for bit: rounding, DAZ/FTZ, NaN propagation
 * (SDM vol. 1, 4.8.3.5 and table 4-7), MIN/MAX returning the second operand
 * when either is a NaN or both are zeros (SDM vol. 2, MINPS/MAXPS), the
 * host's RCP/RSQRT approximations, and the exception flags. */
#include "cpu/block.h"
#include "cpu/flags.h"
#include "cpu/sse_fp.h"

/* mnemonic, host instruction, memory source kind, where a tiny result
 * can appear (MIN/MAX return an operand, SQRT of anything is not tiny,
 * RCP/RSQRT flush tiny results to zero and raise nothing: SDM vol. 2) */
#define ARITH_LIST(X)                                                                   \
    X(ADDPS, addps, P, PS) X(ADDSS, addss, S, SS)                                       \
    X(ADDPD, addpd, P, PD) X(ADDSD, addsd, Q, SD)                                       \
    X(SUBPS, subps, P, PS) X(SUBSS, subss, S, SS)                                       \
    X(SUBPD, subpd, P, PD) X(SUBSD, subsd, Q, SD)                                       \
    X(MULPS, mulps, P, PS) X(MULSS, mulss, S, SS)                                       \
    X(MULPD, mulpd, P, PD) X(MULSD, mulsd, Q, SD)                                       \
    X(DIVPS, divps, P, PS) X(DIVSS, divss, S, SS)                                       \
    X(DIVPD, divpd, P, PD) X(DIVSD, divsd, Q, SD)                                       \
    X(MINPS, minps, P, NONE) X(MINSS, minss, S, NONE)                                   \
    X(MINPD, minpd, P, NONE) X(MINSD, minsd, Q, NONE)                                   \
    X(MAXPS, maxps, P, NONE) X(MAXSS, maxss, S, NONE)                                   \
    X(MAXPD, maxpd, P, NONE) X(MAXSD, maxsd, Q, NONE)                                   \
    X(SQRTPS, sqrtps, P, NONE) X(SQRTSS, sqrtss, S, NONE)                               \
    X(SQRTPD, sqrtpd, P, NONE) X(SQRTSD, sqrtsd, Q, NONE)                               \
    X(RCPPS, rcpps, P, NONE) X(RCPSS, rcpss, S, NONE)                                   \
    X(RSQRTPS, rsqrtps, P, NONE) X(RSQRTSS, rsqrtss, S, NONE)

#define GEN_ARITH(MN, insn, M, T) SSE_GEN_XM(insn, M, SSE_TINY_##T)
ARITH_LIST(GEN_ARITH)
#undef GEN_ARITH

/* ------------------------------------------------------------ CMPxx imm8
 * One handler per predicate (the host instruction needs it as an
 * immediate).  The legacy encodings take the predicate from imm8[2:0]
 * and ignore the rest (SDM vol. 2, CMPPS/CMPSS opcode table: "using bits
 * 2:0 of imm8 as comparison predicate"; the 32 predicates are VEX's). */
#define GEN_CMP_PRED(insn, M, k) SSE_GEN_XM_AS(insn##_##k, #insn " $" #k ",", M, SSE_TINY_NONE)
#define GEN_CMP(insn, M)                                                                \
    GEN_CMP_PRED(insn, M, 0) GEN_CMP_PRED(insn, M, 1) GEN_CMP_PRED(insn, M, 2)          \
    GEN_CMP_PRED(insn, M, 3) GEN_CMP_PRED(insn, M, 4) GEN_CMP_PRED(insn, M, 5)          \
    GEN_CMP_PRED(insn, M, 6) GEN_CMP_PRED(insn, M, 7)
GEN_CMP(cmpps, P)
GEN_CMP(cmpss, S)
GEN_CMP(cmppd, P)
GEN_CMP(cmpsd, Q)

#define CMP_ROW(insn, k) { op_##insn##_##k##_x, op_##insn##_##k##_m }
#define CMP_TABLE(insn)                                                                 \
    { CMP_ROW(insn, 0), CMP_ROW(insn, 1), CMP_ROW(insn, 2), CMP_ROW(insn, 3),           \
      CMP_ROW(insn, 4), CMP_ROW(insn, 5), CMP_ROW(insn, 6), CMP_ROW(insn, 7) }
enum { C_PS, C_SS, C_PD, C_SD };
static const cpu_handler cmp_h[4][8][2] = {
    CMP_TABLE(cmpps), CMP_TABLE(cmpss), CMP_TABLE(cmppd), CMP_TABLE(cmpsd),
};

/* ------------------------------------------------------------ COMIS/UCOMIS
 * ZF, PF, CF from the unordered compare (unordered: all three set), OF,
 * SF and AF cleared (SDM vol. 2, COMISS).  The host's flags are read
 * through asm flag outputs, only to learn the comparison's outcome under
 * DAZ; the guest's flags are then set explicitly. */
#define GEN_COMI(insn, M)                                                               \
    static inline void comi_##insn(struct cpu *c, const struct op *op, __m128 d,        \
                                   __m128 s)                                            \
    {                                                                                   \
        bool zf, pf, cf;                                                                \
        SSE_EXEC(c, __asm__ volatile(#insn " %4, %3" : "=@ccz"(zf), "=@ccp"(pf),        \
                                     "=@ccc"(cf) : "x"(d), "x"(s)), );                  \
        cpu_set_arith(c, (zf ? FL_ZF : 0) | (pf ? FL_PF : 0) | (cf ? FL_CF : 0),        \
                      FL_ARITH);                                                        \
        NEXT(c, op);                                                              \
    }                                                                                   \
    static void op_##insn##_x(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        comi_##insn(c, op, XMM(c, op->x1), XMM(c, op->x2));                             \
    }                                                                                   \
    static void op_##insn##_m(struct cpu *c, const struct op *op)                       \
    {                                                                                   \
        __m128 s = SSE_SRC_##M(c, op);                                                  \
        comi_##insn(c, op, XMM(c, op->x1), s);                                          \
    }
GEN_COMI(comiss, S)
GEN_COMI(ucomiss, S)
GEN_COMI(comisd, Q)
GEN_COMI(ucomisd, Q)

/* ------------------------------------------------------------ fused pairs
 * Two scalar-double instructions in a row, the second (register form)
 * reading the first's destination -- as its destination (D), its source
 * (S) or both (DS) -- run as one handler, so that the value goes from one
 * to the next in a host register instead of through struct cpu (a store
 * and a dependent load per link of the chain).  Only while the guest's
 * MXCSR is live (every exception masked: neither can fault but for the
 * first one's memory operand, read before anything is written); else the
 * first instruction's own handler runs and the second's follows as usual.
 * The pair keeps both ops: the block's instruction count and the second
 * instruction's op are unchanged, and the run goes on after the second. */
/* A fused handler passes its result on, in a host register, down a chain
 * of further scalar-double instructions (register forms) each reading the
 * one before's destination: x3 of the op that produced the value is 1 when
 * the next op takes it, and that op's imm then holds its value-taking
 * handler (op_sdv_*; x3 and imm are unused by these instructions
 * otherwise).  Only fused handlers, and only while the MXCSR is live, take
 * this path; the ops' own handlers stay as they are for the rest. */
typedef void (*sd_next_fn)(struct cpu *c, const struct op *op, __m128 prev);
#define SD_PASS(c, ob, d)                                                               \
    do {                                                                                \
        if ((ob)->x3) {                                                                 \
            (c)->cur = (ob) + 1;                                                        \
            ((sd_next_fn)(intptr_t)(ob)[1].imm)((c), (ob) + 1, (d));                    \
            return;                                                                     \
        }                                                                               \
        NEXT(c, ob);                                                                    \
    } while (0)

#define FZ_SRC_x(c, op) XMM(c, (op)->x2)
#define FZ_SRC_m(c, op) sse_src_m64(c, op)
#define FZ_D_D(c, ob, a) (a)
#define FZ_S_D(c, ob, a) XMM(c, (ob)->x2)
#define FZ_D_S(c, ob, a) XMM(c, (ob)->x1)
#define FZ_S_S(c, ob, a) (a)
#define FZ_D_DS(c, ob, a) (a)
#define FZ_S_DS(c, ob, a) (a)
#define FZ_ONE(A, F, B, V)                                                              \
    static void op_fz_##A##_##F##_##B##_##V(struct cpu *c, const struct op *op)         \
    {                                                                                   \
        if (UNLIKELY(!c->mxcsr_live)) {                                                 \
            op_##A##_##F(c, op);                                                        \
            return;                                                                     \
        }                                                                               \
        __m128 s = FZ_SRC_##F(c, op), a = XMM(c, op->x1);                               \
        k_##A(&a, s);                                                                   \
        XMM(c, op->x1) = a;                                                             \
        const struct op *ob = op + 1;                                                   \
        __m128 d = FZ_D_##V(c, ob, a), t = FZ_S_##V(c, ob, a);                          \
        k_##B(&d, t);                                                                   \
        XMM(c, ob->x1) = d;                                                             \
        SD_PASS(c, ob, d);                                                              \
    }
#define FZ_KINDS(X, ...) X(__VA_ARGS__, addsd) X(__VA_ARGS__, subsd) X(__VA_ARGS__, mulsd) \
                         X(__VA_ARGS__, divsd)
#define FZ_VARIANTS(A, F, B) FZ_ONE(A, F, B, D) FZ_ONE(A, F, B, S) FZ_ONE(A, F, B, DS)
#define FZ_SECOND(A, F) FZ_KINDS(FZ_VARIANTS, A, F)
#define FZ_FIRST(A) FZ_SECOND(A, x) FZ_SECOND(A, m)
FZ_FIRST(addsd)
FZ_FIRST(subsd)
FZ_FIRST(mulsd)
FZ_FIRST(divsd)

#define FZ_ROW_V(A, F, B) { op_fz_##A##_##F##_##B##_D, op_fz_##A##_##F##_##B##_S, op_fz_##A##_##F##_##B##_DS },
#define FZ_ROW_B(A, F) { FZ_KINDS(FZ_ROW_V, A, F) }
#define FZ_ROW_A(A) { FZ_ROW_B(A, x), FZ_ROW_B(A, m) },
enum { FZ_D, FZ_S, FZ_DS };
static const cpu_handler fused[4][2][4][3] = { FZ_ROW_A(addsd) FZ_ROW_A(subsd) FZ_ROW_A(mulsd)
                                                   FZ_ROW_A(divsd) };
/* The handlers of the fusable kinds, in the order of the table: register
 * and memory forms. */
static const cpu_handler fz_kind[4][2] = { { op_addsd_x, op_addsd_m }, { op_subsd_x, op_subsd_m },
                                           { op_mulsd_x, op_mulsd_m }, { op_divsd_x, op_divsd_m } };

/* The value-taking handlers of the chains: prev is the value of the
 * previous op's destination. */
#define SDV_ONE(B, V)                                                                   \
    static void op_sdv_##B##_##V(struct cpu *c, const struct op *ob, __m128 prev)       \
    {                                                                                   \
        __m128 d = FZ_D_##V(c, ob, prev), t = FZ_S_##V(c, ob, prev);                    \
        k_##B(&d, t);                                                                   \
        XMM(c, ob->x1) = d;                                                             \
        SD_PASS(c, ob, d);                                                              \
    }
#define SDV_KIND(B) SDV_ONE(B, D) SDV_ONE(B, S) SDV_ONE(B, DS)
SDV_KIND(addsd)
SDV_KIND(subsd)
SDV_KIND(mulsd)
SDV_KIND(divsd)
#define SDV_ROW(B) { op_sdv_##B##_D, op_sdv_##B##_S, op_sdv_##B##_DS },
static const sd_next_fn sdv[4][3] = { SDV_ROW(addsd) SDV_ROW(subsd) SDV_ROW(mulsd) SDV_ROW(divsd) };

static int fz_find(cpu_handler fn, unsigned form)
{
    for (int k = 0; k < 4; k++)
        if (fz_kind[k][form] == fn)
            return k;
    return -1;
}

/* How the op b reads the destination of the op a before it: FZ_D, FZ_S,
 * FZ_DS, or -1 (not at all). */
static int sd_link(const struct op *a, const struct op *b)
{
    bool d = b->x1 == a->x1, s = b->x2 == a->x1;
    return d && s ? FZ_DS : d ? FZ_D : s ? FZ_S : -1;
}

/* Extend the chain ending with the fused handler's last op ops[j] by the
 * register-form scalar-double ops after it that read the value before
 * them; returns the index of the chain's last op. */
static unsigned sd_chain(struct op *ops, unsigned j, unsigned n)
{
    for (; j + 1 < n; j++) {
        int k = fz_find(ops[j + 1].fn, 0), v = k < 0 ? -1 : sd_link(&ops[j], &ops[j + 1]);
        if (v < 0)
            break;
        ops[j].x3 = 1;
        ops[j + 1].imm = (int64_t)(intptr_t)sdv[k][v];
    }
    return j;
}

/* ------------------------------------------------------------ conversions
 * CVTSI2SD (register source) and the next instruction when it is an ADDSD
 * SUBSD MULSD DIVSD reading the converted register x (as its destination,
 * with a register or an m64 source, or as its register source) run as one
 * handler.  Compilers zero x right before the conversion (PXOR x,x or
 * XORPS / XORPD x,x: the conversion keeps the upper half, and the zeroing
 * breaks the dependency on its old value); when that zeroing is the op
 * just before, it is part of the handler too, with or without a third
 * instruction.  Only while the guest's MXCSR is live, as the pairs above;
 * else the first instruction's own work is done and the next op's handler
 * runs.  The arithmetic's memory operand is read after the instructions
 * before it are committed and c->cur is at it, so a fault there is the one
 * the guest would see. */
#define CV_RUN(c, oc, B, init)                                                          \
    ({                                                                                  \
        __m128d v_ = _mm_castps_pd(init);                                               \
        int##B##_t r_ = (int##B##_t)GPR##B(c, (oc)->r2);                                \
        __asm__ volatile("cvtsi2sd%z1 %1, %0" : "+x"(v_) : "r"(r_));                    \
        _mm_castpd_ps(v_);                                                              \
    })
/* The head of a handler: Z, zeroing at op and the conversion at op + 1;
 * C, the conversion at op.  It converts into a (committed), and leaves oc
 * pointing at the conversion's op, and c->cur at it (cpu/cpu.h: a fault
 * is then at it). */
#define CV_HEAD_Z(c, op, B)                                                             \
    if (UNLIKELY(!c->mxcsr_live)) {                                                     \
        XMM(c, op->x1) = _mm_setzero_ps();                                              \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    const struct op *oc = op + 1;                                                       \
    __m128 a = CV_RUN(c, oc, B, _mm_setzero_ps());                                      \
    XMM(c, op->x1) = a;                                                                 \
    c->cur = oc;
#define CV_HEAD_C(c, op, B)                                                             \
    if (UNLIKELY(!c->mxcsr_live)) {                                                     \
        sse_cvtsi2sd_r[B == 64](c, op);                                                 \
        return;                                                                         \
    }                                                                                   \
    const struct op *oc = op;                                                           \
    __m128 a = CV_RUN(c, oc, B, XMM(c, op->x1));                                        \
    XMM(c, op->x1) = a;
static void op_zc_32(struct cpu *c, const struct op *op)
{
    CV_HEAD_Z(c, op, 32)
    NEXT(c, oc);
}
static void op_zc_64(struct cpu *c, const struct op *op)
{
    CV_HEAD_Z(c, op, 64)
    NEXT(c, oc);
}
/* The arithmetic's source and destination values by how it reads x (a,
 * the converted value): D its destination (F: its source's form), S its
 * register source, DS both. */
#define CV_S_x_D(c, ob, a) XMM(c, (ob)->x2)
#define CV_S_m_D(c, ob, a) sse_src_m64(c, ob)
#define CV_S_x_S(c, ob, a) (a)
#define CV_S_x_DS(c, ob, a) (a)
#define CV_D_D(c, ob, a) (a)
#define CV_D_S(c, ob, a) XMM(c, (ob)->x1)
#define CV_D_DS(c, ob, a) (a)
#define CV_ONE(H, B, K, F, V)                                                           \
    static void op_cv##H##_##B##_##K##_##F##_##V(struct cpu *c, const struct op *op)    \
    {                                                                                   \
        CV_HEAD_##H(c, op, B)                                                           \
        const struct op *ob = oc + 1;                                                   \
        c->cur = ob; /* a fault reading its operand is at it */                         \
        __m128 t = CV_S_##F##_##V(c, ob, a), d = CV_D_##V(c, ob, a);                    \
        k_##K(&d, t);                                                                   \
        XMM(c, ob->x1) = d;                                                             \
        SD_PASS(c, ob, d);                                                              \
    }
#define CV_KIND(H, B, K) CV_ONE(H, B, K, x, D) CV_ONE(H, B, K, x, S) CV_ONE(H, B, K, x, DS) \
                         CV_ONE(H, B, K, m, D)
#define CV_WIDTH(H, B) CV_KIND(H, B, addsd) CV_KIND(H, B, subsd) CV_KIND(H, B, mulsd)      \
                       CV_KIND(H, B, divsd)
CV_WIDTH(Z, 32)
CV_WIDTH(Z, 64)
CV_WIDTH(C, 32)
CV_WIDTH(C, 64)

#define CV_ROW_K(H, B, K)                                                               \
    { op_cv##H##_##B##_##K##_x_D, op_cv##H##_##B##_##K##_x_S, op_cv##H##_##B##_##K##_x_DS, \
      op_cv##H##_##B##_##K##_m_D },
#define CV_ROW_B(H, B) { CV_ROW_K(H, B, addsd) CV_ROW_K(H, B, subsd) CV_ROW_K(H, B, mulsd)   \
                         CV_ROW_K(H, B, divsd) },
enum { CV_XD, CV_XS, CV_XDS, CV_MD };
/* [zeroing before][width][kind][link] */
static const cpu_handler cv_fused[2][2][4][4] = { { CV_ROW_B(C, 32) CV_ROW_B(C, 64) },
                                                  { CV_ROW_B(Z, 32) CV_ROW_B(Z, 64) } };

/* Fuse the conversion at ops[i] (after a zeroing of its register at
 * ops[i - 1] when z) with what follows; returns how many ops after
 * ops[i] the fused handler covers, or -1 when there is nothing to fuse. */
static int cv_fuse(struct op *ops, unsigned i, unsigned n, bool z)
{
    struct op *oc = &ops[i];
    int w = oc->fn == sse_cvtsi2sd_r[0] ? 0 : oc->fn == sse_cvtsi2sd_r[1] ? 1 : -1;
    if (w < 0)
        return -1;
    if (i + 1 < n) {
        struct op *ob = &ops[i + 1];
        int k = fz_find(ob->fn, 0), v = -1;
        if (k >= 0)
            v = sd_link(oc, ob); /* CV_XD, CV_XS, CV_XDS */
        else if ((k = fz_find(ob->fn, 1)) >= 0 && ob->x1 == oc->x1)
            v = CV_MD;
        if (v >= 0) {
            ops[i - z].fn = cv_fused[z][w][k][v];
            return 1;
        }
    }
    if (!z)
        return -1;
    ops[i - 1].fn = w ? op_zc_64 : op_zc_32;
    return 0;
}

/* A zeroing of op's destination (PXOR x,x, XORPS/XORPD x,x). */
static bool is_zeroing(const struct op *op)
{
    return (op->fn == sse_pxor_rr || op->fn == sse_xor_x) && op->x2 == op->x1;
}

void sse_fuse_pairs(struct op *ops, unsigned n)
{
    for (unsigned i = 0; i + 1 < n; i++) {
        bool z = is_zeroing(&ops[i]) && ops[i + 1].x1 == ops[i].x1;
        int more = cv_fuse(ops, i + z, n, z);
        if (more > 0) {
            i = sd_chain(ops, i + z + 1, n); /* the ops it covers */
            continue;
        }
        if (more == 0) {
            i += z;
            continue;
        }
        int a = fz_find(ops[i].fn, 0), form = 0, b = fz_find(ops[i + 1].fn, 0);
        if (a < 0) {
            a = fz_find(ops[i].fn, 1);
            form = 1;
        }
        if (a < 0 || b < 0)
            continue;
        int v = sd_link(&ops[i], &ops[i + 1]);
        if (v < 0)
            continue;
        ops[i].fn = fused[a][form][b][v];
        i = sd_chain(ops, i + 1, n); /* the second op and the chain after it */
    }
    sse_int_chains(ops, n);
}

/* ------------------------------------------------------------ decoding */
static bool dec_cmp(struct decoder *d, unsigned which)
{
    if (d->in->operand_count_visible != 3 || !is_imm(d, 2))
        return false; /* string CMPSD */
    unsigned k = (unsigned)dec_imm(d, 2) & 7;
    return sse_dec_xm(d, cmp_h[which][k][0], cmp_h[which][k][1]);
}

bool dec_sse_fp_arith(struct decoder *d)
{
    switch (d->in->mnemonic) {
#define CASE(MN, insn, M, T)                                                            \
    case ZYDIS_MNEMONIC_##MN:                                                           \
        return sse_dec_xm(d, op_##insn##_x, op_##insn##_m);
    ARITH_LIST(CASE)
    CASE(COMISS, comiss, S, NONE)
    CASE(UCOMISS, ucomiss, S, NONE)
    CASE(COMISD, comisd, Q, NONE)
    CASE(UCOMISD, ucomisd, Q, NONE)
#undef CASE
    case ZYDIS_MNEMONIC_CMPPS: return dec_cmp(d, C_PS);
    case ZYDIS_MNEMONIC_CMPSS: return dec_cmp(d, C_SS);
    case ZYDIS_MNEMONIC_CMPPD: return dec_cmp(d, C_PD);
    case ZYDIS_MNEMONIC_CMPSD: return dec_cmp(d, C_SD);
    default: return false;
    }
}
