/* x87 data transfer: FLD (m32fp, m64fp, m80fp, ST(i)), FILD (m16, m32,
 * m64), FBLD, the constants FLD1 FLDL2T FLDL2E FLDPI FLDLG2 FLDLN2 FLDZ,
 * FST/FSTP (m32fp, m64fp, m80fp, ST(i) and the FSTP aliases), FIST/FISTP
 * (m16, m32, m64), FISTTP (m16, m32, m64), FBSTP, FXCH (and its aliases),
 * FCMOVcc, FFREE, FFREEP.
 *
 * Conversions run on the host (cpu/x87.h): FLD m32fp/m64fp (SNaN -> IE,
 * denormal -> DE), the constants (rounded by RC), integer and BCD loads and
 * stores (rounding, integer indefinite, IE/PE).  A store runs the popping
 * form of the instruction on the host: it pops exactly when it stored
 * (an unmasked IE, OE or UE suppresses both), which tells whether the
 * guest's memory is written.  80-bit and register moves are plain copies:
 * they convert nothing and raise nothing but stack faults. */
#include "cpu/x87.h"

#define AI __attribute__((always_inline)) inline

static inline void store_bytes(struct cpu *c, uint64_t a, const void *v, unsigned n)
{
    switch (n) {
    case 2: { uint16_t x; memcpy(&x, v, 2); store16(c, a, x); break; }
    case 4: { uint32_t x; memcpy(&x, v, 4); store32(c, a, x); break; }
    case 8: { uint64_t x; memcpy(&x, v, 8); store64(c, a, x); break; }
    default: memcpy(g2h(c, a), v, n); break;
    }
}

static inline void load_bytes(struct cpu *c, uint64_t a, void *v, unsigned n)
{
    switch (n) {
    case 2: { uint16_t x = load16(c, a); memcpy(v, &x, 2); break; }
    case 4: { uint32_t x = load32(c, a); memcpy(v, &x, 4); break; }
    case 8: { uint64_t x = load64(c, a); memcpy(v, &x, 8); break; }
    default: memcpy(v, g2h(c, a), n); break;
    }
}

/* A push onto a full register (ST(7) not empty) is a stack overflow; with
 * IE masked the indefinite is pushed (SDM vol. 1, 8.5.1.1).  True when the
 * push may go on. */
static inline bool push_ok(struct cpu *c)
{
    if (LIKELY(x87_empty_phys(c, (c->ftop - 1) & 7u)))
        return true;
    if (x87_stack_fault(c, true)) {
        long double ind;
        f80_indefinite(&ind);
        x87_push(c, &ind);
    }
    return false;
}

/* ------------------------------------------------------------ loads */
static AI void x87_load(struct cpu *c, const struct op *op, void (*k)(struct x87_io *),
                        unsigned msize)
{
    struct x87_io io;
    x87_wait(c);
    if (msize)
        load_bytes(c, op_ea(c, op), &io.m, msize);
    if (push_ok(c)) {
        const long double *none = &c->fpr[c->ftop]; /* no input: any register */
        x87_run(c, &io, k, none, none);
        if (x87_host_delta(&io) == 1)
            x87_push(c, &io.r[0]);
        x87_flags(c, io.sw, FSW_C1);
    }
    NEXT(c, op);
}

#define LOADOP(name, insn, msize)                                                       \
    X87_KERNEL(k_##name, X87_LOAD0, insn)                                               \
    static void op_##name(struct cpu *c, const struct op *op)                           \
    {                                                                                   \
        x87_load(c, op, k_##name, msize);                                               \
    }
LOADOP(fld_m32, "flds %[m]", 4)
LOADOP(fld_m64, "fldl %[m]", 8)
LOADOP(fild_m16, "filds %[m]", 2)
LOADOP(fild_m32, "fildl %[m]", 4)
LOADOP(fild_m64, "fildll %[m]", 8)
LOADOP(fbld, "fbld %[m]", 10)
LOADOP(fld1, "fld1", 0)
LOADOP(fldl2t, "fldl2t", 0)
LOADOP(fldl2e, "fldl2e", 0)
LOADOP(fldpi, "fldpi", 0)
LOADOP(fldlg2, "fldlg2", 0)
LOADOP(fldln2, "fldln2", 0)
LOADOP(fldz, "fldz", 0)

/* FLD m80fp: loaded as it is, whatever the encoding. */
static void op_fld_m80(struct cpu *c, const struct op *op)
{
    long double v;
    x87_wait(c);
    load_bytes(c, op_ea(c, op), &v, 10);
    if (push_ok(c)) {
        x87_push(c, &v);
        x87_set_fsw(c, c->fsw & ~FSW_C1);
    }
    NEXT(c, op);
}

/* FLD ST(i): an empty ST(i) is a stack underflow, reported before a
 * stack overflow (C1 = 0); with IE masked the indefinite is pushed, over
 * whatever ST(7) held (seen on the host). */
static void op_fld_st(struct cpu *c, const struct op *op)
{
    long double v;
    x87_wait(c);
    f80_copy(&v, &c->fpr[x87_phys(c, op->x1)]);
    if (x87_empty(c, op->x1)) {
        if (x87_stack_fault(c, false)) {
            f80_indefinite(&v);
            x87_push(c, &v);
        }
    } else if (push_ok(c)) {
        x87_push(c, &v);
        x87_set_fsw(c, c->fsw & ~FSW_C1);
    }
    NEXT(c, op);
}

/* ------------------------------------------------------------ stores */
/* The masked response to storing an empty ST(0): the indefinite of the
 * destination format (SDM vol. 1, 4.8.3.7, 4.2.2, 4.7). */
static const uint8_t indef_f32[4] = { 0, 0, 0xc0, 0xff };
static const uint8_t indef_f64[8] = { 0, 0, 0, 0, 0, 0, 0xf8, 0xff };
static const uint8_t indef_f80[10] = { 0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0xff };
static const uint8_t indef_int[8] = { 0, 0, 0, 0, 0, 0, 0, 0x80 };
static const uint8_t indef_i16[2] = { 0, 0x80 };
static const uint8_t indef_i32[4] = { 0, 0, 0, 0x80 };
static const uint8_t indef_bcd[10] = { 0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0xff };

/* Stack underflow on a store: with IE masked the indefinite is stored
 * (memory first) and the pop happens; unmasked, nothing but the flags. */
static void store_underflow(struct cpu *c, uint64_t a, const void *indef, unsigned msize, bool pop)
{
    if (c->fcw & FSW_IE) {
        store_bytes(c, a, indef, msize);
        if (pop)
            x87_pop(c);
    }
    x87_stack_fault(c, false);
}

static AI void x87_store(struct cpu *c, const struct op *op, void (*k)(struct x87_io *),
                         unsigned msize, bool pop, const void *indef)
{
    struct x87_io io;
    x87_wait(c);
    uint64_t a = op_ea(c, op);
    unsigned p0 = c->ftop;
    if (UNLIKELY(x87_empty_phys(c, p0))) {
        store_underflow(c, a, indef, msize, pop);
    } else {
        x87_run(c, &io, k, &c->fpr[p0], &c->fpr[p0]);
        bool stored = x87_host_delta(&io) == -1;
        if (stored)
            store_bytes(c, a, &io.m, msize);
        x87_flags(c, io.sw, FSW_C1);
        if (stored && pop)
            x87_pop(c);
    }
    NEXT(c, op);
}

#define STOREK(name, insn) X87_KERNEL(k_##name, X87_LOAD1, insn " %[m]")
#define STORE(name, msize, indef)                                                       \
    static void op_##name(struct cpu *c, const struct op *op)                           \
    {                                                                                   \
        x87_store(c, op, k_##name, msize, false, indef);                                \
    }
#define STOREP(name, msize, indef)                                                      \
    static void op_##name##p(struct cpu *c, const struct op *op)                        \
    {                                                                                   \
        x87_store(c, op, k_##name, msize, true, indef);                                 \
    }
STOREK(fst_m32, "fstps") STORE(fst_m32, 4, indef_f32) STOREP(fst_m32, 4, indef_f32)
STOREK(fst_m64, "fstpl") STORE(fst_m64, 8, indef_f64) STOREP(fst_m64, 8, indef_f64)
STOREK(fist_m16, "fistps") STORE(fist_m16, 2, indef_i16) STOREP(fist_m16, 2, indef_i16)
STOREK(fist_m32, "fistpl") STORE(fist_m32, 4, indef_i32) STOREP(fist_m32, 4, indef_i32)
STOREK(fist_m64, "fistpll") STOREP(fist_m64, 8, indef_int)
STOREK(fisttp_m16, "fisttps") STOREP(fisttp_m16, 2, indef_i16)
STOREK(fisttp_m32, "fisttpl") STOREP(fisttp_m32, 4, indef_i32)
STOREK(fisttp_m64, "fisttpll") STOREP(fisttp_m64, 8, indef_int)
STOREK(fbst, "fbstp") STOREP(fbst, 10, indef_bcd)

/* FSTP m80fp: a copy. */
static void op_fstp_m80(struct cpu *c, const struct op *op)
{
    x87_wait(c);
    uint64_t a = op_ea(c, op);
    if (x87_empty(c, 0)) {
        store_underflow(c, a, indef_f80, 10, true);
    } else {
        store_bytes(c, a, &c->fpr[c->ftop], 10);
        x87_set_fsw(c, c->fsw & ~FSW_C1);
        x87_pop(c);
    }
    NEXT(c, op);
}

/* FST/FSTP ST(i): a copy (x2: pop). */
static void op_fst_st(struct cpu *c, const struct op *op)
{
    x87_wait(c);
    unsigned pi = x87_phys(c, op->x1);
    if (x87_empty(c, 0)) {
        if (!x87_stack_fault(c, false))
            goto done;
        f80_indefinite(&c->fpr[pi]);
        c->ftag &= (uint8_t)~(1u << pi);
    } else {
        f80_copy(&c->fpr[pi], &c->fpr[c->ftop]);
        c->ftag &= (uint8_t)~(1u << pi);
        x87_set_fsw(c, c->fsw & ~FSW_C1);
    }
    if (op->x2)
        x87_pop(c);
done:
    NEXT(c, op);
}

/* D9 D8+i, the FSTP alias Zydis calls FSTPNCE: with an empty ST(0) the
 * host raises nothing and only pops (C1 = 0). */
static void op_fstpnce(struct cpu *c, const struct op *op)
{
    if (!x87_empty(c, 0)) {
        op_fst_st(c, op);
        return;
    }
    x87_wait(c);
    x87_set_fsw(c, c->fsw & ~FSW_C1);
    x87_pop(c);
    NEXT(c, op);
}

/* ------------------------------------------------------------ FXCH, FCMOVcc */
static void op_fxch(struct cpu *c, const struct op *op)
{
    x87_wait(c);
    unsigned p0 = c->ftop, pi = x87_phys(c, op->x1);
    if (x87_empty_phys(c, p0) || x87_empty_phys(c, pi)) {
        /* Masked: the empty operands become the indefinite, then swap. */
        if (!x87_stack_fault(c, false))
            goto done;
        if (x87_empty_phys(c, p0))
            f80_indefinite(&c->fpr[p0]);
        if (x87_empty_phys(c, pi))
            f80_indefinite(&c->fpr[pi]);
        c->ftag &= (uint8_t)~((1u << p0) | (1u << pi));
    } else {
        x87_set_fsw(c, c->fsw & ~FSW_C1);
    }
    long double t;
    f80_copy(&t, &c->fpr[p0]);
    f80_copy(&c->fpr[p0], &c->fpr[pi]);
    f80_copy(&c->fpr[pi], &t);
done:
    NEXT(c, op);
}

/* FCMOVcc ST(0), ST(i): x2 is the condition (as in Jcc). */
static void op_fcmov(struct cpu *c, const struct op *op)
{
    x87_wait(c);
    unsigned p0 = c->ftop, pi = x87_phys(c, op->x1);
    if (x87_empty_phys(c, p0) || x87_empty_phys(c, pi)) {
        if (x87_stack_fault(c, false)) {
            f80_indefinite(&c->fpr[p0]);
            c->ftag &= (uint8_t)~(1u << p0);
        }
    } else if (cpu_cond(c, op->x2)) {
        f80_copy(&c->fpr[p0], &c->fpr[pi]);
    }
    NEXT(c, op);
}

/* ------------------------------------------------------------ FFREE, FFREEP */
static void op_ffree(struct cpu *c, const struct op *op)
{
    x87_wait(c);
    c->ftag |= (uint8_t)(1u << x87_phys(c, op->x1));
    x87_set_fsw(c, c->fsw & ~FSW_C1);
    if (op->x2)
        x87_pop(c);
    NEXT(c, op);
}

/* ------------------------------------------------------------ decoding */
/* Memory forms by opcode (D9..DF odd rows and DD) and ModRM.reg. */
static const cpu_handler mem_h[8][8] = {
    [1] = { op_fld_m32, NULL, op_fst_m32, op_fst_m32p },                        /* D9 */
    [3] = { op_fild_m32, op_fisttp_m32p, op_fist_m32, op_fist_m32p, NULL, op_fld_m80, NULL, op_fstp_m80 },
    [5] = { op_fld_m64, op_fisttp_m64p, op_fst_m64, op_fst_m64p },              /* DD */
    [7] = { op_fild_m16, op_fisttp_m16p, op_fist_m16, op_fist_m16p, op_fbld, op_fild_m64, op_fbstp,
            op_fist_m64p },                                                     /* DF */
};

static const cpu_handler const_h[8] = { op_fld1, op_fldl2t, op_fldl2e, op_fldpi, op_fldlg2, op_fldln2, op_fldz, NULL };

/* FCMOVcc conditions: DA /0..3 = B E BE U, DB /0..3 = NB NE NBE NU. */
static const uint8_t fcmov_cc[2][4] = { { 2, 4, 6, 10 }, { 3, 5, 7, 11 } };

bool x87_dec_ldst(struct decoder *d, unsigned opc, unsigned mod, unsigned reg, unsigned rm)
{
    struct op *op = d->op;
    unsigned row = opc - 0xd8;
    if (mod != 3) {
        op->fn = mem_h[row][reg];
        return op->fn != NULL;
    }
    op->x1 = (uint8_t)rm;
    switch (opc) {
    case 0xd9:
        switch (reg) {
        case 0: op->fn = op_fld_st; return true;
        case 1: op->fn = op_fxch; return true;
        case 3: op->fn = op_fstpnce; op->x2 = 1; return true;  /* FSTP1 alias */
        case 5: op->fn = const_h[rm]; return op->fn != NULL;
        default: return false;
        }
    case 0xda:
    case 0xdb:
        if (reg >= 4)
            return false;
        op->fn = op_fcmov;
        op->x2 = fcmov_cc[opc - 0xda][reg];
        return true;
    case 0xdd:
        switch (reg) {
        case 0: op->fn = op_ffree; return true;
        case 1: op->fn = op_fxch; return true;                 /* FXCH4 alias */
        case 2: op->fn = op_fst_st; return true;
        case 3: op->fn = op_fst_st; op->x2 = 1; return true;
        default: return false;
        }
    case 0xdf:
        switch (reg) {
        case 0: op->fn = op_ffree; op->x2 = 1; return true;    /* FFREEP */
        case 1: op->fn = op_fxch; return true;                 /* FXCH7 alias */
        case 2:
        case 3: op->fn = op_fst_st; op->x2 = 1; return true;   /* FSTP8, FSTP9 aliases */
        default: return false;
        }
    default:
        return false;
    }
}
