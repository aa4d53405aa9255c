/* x87 control: FNOP, FINCSTP, FDECSTP, FLDCW, FNSTCW, FNSTSW (AX, m16),
 * FNCLEX, FNINIT, FNENI/FNDISI/FNSETPM (no-ops since the 80387), FNSTENV,
 * FLDENV, FNSAVE, FRSTOR.
 *
 * The FN- instructions do not wait for pending exceptions; FLDCW, FLDENV,
 * FRSTOR and the rest do (SDM vol. 1, 8.3.12, and seen on the host).
 * Environment images are the protected-mode formats of SDM vol. 1, figures
 * 8-9 and 8-10: 28 bytes with a 32-bit operand size, 14 with a 16-bit one;
 * FNSAVE/FRSTOR add the eight registers in stack order (108 or 94 bytes).
 * Unused halves of the 32-bit format read as 0xffff, as on the host.
 * FIP/FDP/FOP are not modelled: they are stored and loaded as they are in
 * struct cpu (0 unless an image put something there), with null selectors. */
#include "cpu/x87.h"

static void op_fnop(struct cpu *c, const struct op *op)
{
    x87_wait(c);
    NEXT(c, op);
}

/* FNENI, FNDISI, FNSETPM: ignored since the 80387 (SDM vol. 1, 8.3.13). */
static void op_fnop_nowait(struct cpu *c, const struct op *op)
{
    NEXT(c, op);
}

/* FINCSTP / FDECSTP (x1 = +1 / -1): TOP moves, tags stay, C1 = 0. */
static void op_fincdecstp(struct cpu *c, const struct op *op)
{
    x87_wait(c);
    c->ftop = (uint8_t)((c->ftop + (int8_t)op->x1) & 7);
    x87_set_fsw(c, c->fsw & ~FSW_C1);
    NEXT(c, op);
}

static inline void x87_set_fcw(struct cpu *c, unsigned v)
{
    cpu_x87_release(c); /* the next instruction loads the new one */
    c->fcw = (uint16_t)((v & FCW_WRITABLE) | FCW_FIXED);
    x87_set_fsw(c, c->fsw); /* new masks: ES and B follow */
}

static void op_fldcw(struct cpu *c, const struct op *op)
{
    x87_wait(c);
    x87_set_fcw(c, load16(c, op_ea(c, op)));
    NEXT(c, op);
}

static void op_fnstcw(struct cpu *c, const struct op *op)
{
    store16(c, op_ea(c, op), c->fcw);
    NEXT(c, op);
}

static void op_fnstsw_m(struct cpu *c, const struct op *op)
{
    store16(c, op_ea(c, op), x87_fsw(c));
    NEXT(c, op);
}

static void op_fnstsw_ax(struct cpu *c, const struct op *op)
{
    set_gpr16(c, SLOT_GPR(R_AX), x87_fsw(c));
    NEXT(c, op);
}

/* FNCLEX: exception flags, SF, ES and B cleared; C0-C3 stay (the host
 * leaves them). */
static void op_fnclex(struct cpu *c, const struct op *op)
{
    cpu_x87_release(c);
    x87_set_fsw(c, c->fsw & FSW_CC);
    NEXT(c, op);
}

/* FNINIT: the registers keep their contents (SDM vol. 1, 8.1.10). */
static void x87_init(struct cpu *c)
{
    cpu_x87_release(c);
    c->fcw = FCW_INIT;
    c->fsw = 0;
    c->ftop = 0;
    c->ftag = 0xff;
    c->fop = 0;
    c->fip = c->fdp = 0;
}

static void op_fninit(struct cpu *c, const struct op *op)
{
    x87_init(c);
    NEXT(c, op);
}

/* ------------------------------------------------------------ environment */
/* op->x1: 1 for the 16-bit formats.  Returns the image size. */
static unsigned env_store(const struct cpu *c, uint8_t *img, bool o16)
{
    unsigned tw = 0;
    for (unsigned p = 0; p < 8; p++)
        tw |= x87_tag2(c, p) << (2 * p);
    if (o16) {
        uint16_t w[7] = { c->fcw, x87_fsw(c), (uint16_t)tw, (uint16_t)c->fip, 0, (uint16_t)c->fdp, 0 };
        memcpy(img, w, 14);
        return 14;
    }
    uint32_t d[7] = {
        0xffff0000u | c->fcw, 0xffff0000u | x87_fsw(c), 0xffff0000u | tw, (uint32_t)c->fip,
        (uint32_t)(c->fop & 0x7ffu) << 16, (uint32_t)c->fdp, 0xffff0000u,
    };
    memcpy(img, d, 28);
    return 28;
}

/* Load an environment image: tags only say empty (11) or not; the rest is
 * recomputed from the registers when stored. */
static void env_load(struct cpu *c, const uint8_t *img, bool o16)
{
    unsigned cw, sw, tw;
    if (o16) {
        uint16_t w[7];
        memcpy(w, img, 14);
        cw = w[0], sw = w[1], tw = w[2];
        c->fip = w[3];
        c->fdp = w[5];
        c->fop = 0;
    } else {
        uint32_t d[7];
        memcpy(d, img, 28);
        cw = d[0] & 0xffff, sw = d[1] & 0xffff, tw = d[2] & 0xffff;
        c->fip = d[3];
        c->fop = (uint16_t)((d[4] >> 16) & 0x7ff);
        c->fdp = d[5];
    }
    cpu_x87_release(c);
    uint8_t tag = 0;
    for (unsigned p = 0; p < 8; p++)
        if (((tw >> (2 * p)) & 3) == 3)
            tag |= (uint8_t)(1u << p);
    c->ftag = tag;
    c->ftop = (sw >> 11) & 7;
    c->fcw = (uint16_t)((cw & FCW_WRITABLE) | FCW_FIXED);
    x87_set_fsw(c, sw);
}

/* FNSTENV: store, then mask every exception (SDM vol. 2, FSTENV). */
static void op_fnstenv(struct cpu *c, const struct op *op)
{
    uint8_t img[28];
    unsigned n = env_store(c, img, op->x1);
    memcpy(g2h(c, op_ea(c, op)), img, n);
    x87_set_fcw(c, c->fcw | FSW_EXC);
    NEXT(c, op);
}

static void op_fldenv(struct cpu *c, const struct op *op)
{
    uint8_t img[28];
    x87_wait(c);
    memcpy(img, g2h(c, op_ea(c, op)), op->x1 ? 14 : 28);
    env_load(c, img, op->x1);
    NEXT(c, op);
}

/* FNSAVE: the environment and ST(0)..ST(7), then FNINIT. */
static void op_fnsave(struct cpu *c, const struct op *op)
{
    uint8_t img[108];
    unsigned n = env_store(c, img, op->x1);
    for (unsigned i = 0; i < 8; i++)
        memcpy(img + n + 10 * i, &c->fpr[x87_phys(c, i)], 10);
    memcpy(g2h(c, op_ea(c, op)), img, n + 80);
    x87_init(c);
    NEXT(c, op);
}

static void op_frstor(struct cpu *c, const struct op *op)
{
    uint8_t img[108];
    x87_wait(c);
    unsigned n = op->x1 ? 14 : 28;
    memcpy(img, g2h(c, op_ea(c, op)), n + 80);
    env_load(c, img, op->x1);
    for (unsigned i = 0; i < 8; i++)
        memcpy(&c->fpr[x87_phys(c, i)], img + n + 10 * i, 10);
    NEXT(c, op);
}

/* ------------------------------------------------------------ decoding */
bool x87_dec_state(struct decoder *d, unsigned opc, unsigned mod, unsigned reg, unsigned rm)
{
    struct op *op = d->op;
    bool o16 = d->in->operand_width == 16;
    if (mod != 3) {
        op->x1 = o16;
        switch (opc << 4 | reg) {
        case 0xd94: op->fn = op_fldenv; return true;
        case 0xd95: op->fn = op_fldcw; return true;
        case 0xd96: op->fn = op_fnstenv; return true;
        case 0xd97: op->fn = op_fnstcw; return true;
        case 0xdd4: op->fn = op_frstor; return true;
        case 0xdd6: op->fn = op_fnsave; return true;
        case 0xdd7: op->fn = op_fnstsw_m; return true;
        default: return false;
        }
    }
    switch (opc << 8 | 0xc0 | reg << 3 | rm) {
    case 0xd9d0: op->fn = op_fnop; return true;
    case 0xd9f6: op->fn = op_fincdecstp; op->x1 = (uint8_t)-1; return true;
    case 0xd9f7: op->fn = op_fincdecstp; op->x1 = 1; return true;
    case 0xdbe0:
    case 0xdbe1:
    case 0xdbe4: op->fn = op_fnop_nowait; return true;
    case 0xdbe2: op->fn = op_fnclex; return true;
    case 0xdbe3: op->fn = op_fninit; return true;
    case 0xdfe0: op->fn = op_fnstsw_ax; return true;
    default: return false;
    }
}
