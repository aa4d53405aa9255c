/* Saving and restoring the x87/SSE state: FXSAVE, FXRSTOR (and the REX.W
 * forms with 64-bit FIP/FDP), XSAVE, XSAVEOPT, XSAVEC, XRSTOR (standard and
 * compacted forms), XGETBV.
 *
 * The emulated processor has XCR0 = 3 (x87 and SSE, SDM vol. 1, 13.3), so
 * the XSAVE area is the 512-byte legacy region (the FXSAVE layout) plus the
 * 64-byte header, and the compacted format is the same as the standard one
 * but for XCOMP_BV.  XINUSE (13.6) is computed from the values: x87 state
 * is in use unless FCW = 037FH, FSW = 0, every register empty and every
 * register zero (the host's answer after FXRSTOR; FOP/FIP/FDP are not
 * considered, as on the host), SSE state unless every XMM register is 0.
 * XSAVEOPT uses the init optimization but not the modified one (allowed:
 * 13.9).  None of these waits for pending x87 exceptions (seen on the
 * host).  A misaligned area (16 bytes for FXSAVE, 64 for XSAVE) is #GP:
 * SIGSEGV. */
#include "cpu/fpstate.h"
#include "cpu/sse.h"
#include "cpu/x87.h"

#define XCR0 3u
#define XSAVE_HDR 512

/* The parts of the legacy region: x87 is bytes 0-23 and 32-159, SSE is
 * MXCSR/MXCSR_MASK (24-31) and the XMM registers (160-415, or 160-287 for
 * an ia32 guest, which has eight). */
static unsigned xmm_end(const struct cpu *c) { return c->bits == 64 ? 416 : 288; }

static void gp_fault(struct cpu *c)
{
    cpu_fault(c, SIGSEGV, 0x80 /* SI_KERNEL */, 0);
}

/* The legacy image of the current state in the format of the instruction
 * (w64: REX.W, 64-bit FIP/FDP; else 32-bit offsets and null selectors). */
static void legacy_image(const struct cpu *c, uint8_t *img, bool w64)
{
    cpu_fxsave_image(c, img);
    if (!w64) {
        memset(img + 12, 0, 4);
        memset(img + 20, 0, 4);
    }
}

/* Load the state from a merged legacy image (every part either from memory
 * or as it was), with what the hardware does to loaded values: FCW reserved
 * bits, ES/B recomputed, 32-bit FIP/FDP without REX.W. */
static void legacy_load(struct cpu *c, const uint8_t *img, bool w64)
{
    cpu_fxrstor_image(c, img);
    c->fcw = (uint16_t)((c->fcw & FCW_WRITABLE) | FCW_FIXED);
    x87_set_fsw(c, c->fsw);
    if (!w64) {
        c->fip = (uint32_t)c->fip;
        c->fdp = (uint32_t)c->fdp;
    }
}

static void check_mxcsr(struct cpu *c, const uint8_t *img)
{
    uint32_t mxcsr;
    memcpy(&mxcsr, img + 24, 4);
    if (mxcsr & ~MXCSR_MASK_VALUE)
        gp_fault(c);
}

/* ------------------------------------------------------------ FXSAVE, FXRSTOR */
static void op_fxsave(struct cpu *c, const struct op *op)
{
    uint8_t img[FXSAVE_SIZE];
    uint64_t a = op_ea(c, op);
    sse_check_align16(c, a);
    legacy_image(c, img, op->x3);
    memcpy(g2h(c, a), img, xmm_end(c)); /* bytes 416-511 are left alone */
    NEXT(c, op);
}

static void op_fxrstor(struct cpu *c, const struct op *op)
{
    uint8_t img[FXSAVE_SIZE];
    uint64_t a = op_ea(c, op);
    sse_check_align16(c, a);
    legacy_image(c, img, true);
    memcpy(img, g2h(c, a), xmm_end(c));
    check_mxcsr(c, img);
    legacy_load(c, img, op->x3);
    NEXT(c, op);
}

/* ------------------------------------------------------------ XSAVE family */
static unsigned xinuse(const struct cpu *c)
{
    unsigned r = 0;
    if (c->fcw != FCW_INIT || x87_fsw(c) != 0 || c->ftag != 0xff)
        r |= 1;
    for (unsigned p = 0; p < 8 && !(r & 1); p++) {
        static const uint8_t zero[10];
        if (memcmp(&c->fpr[p], zero, 10) != 0)
            r |= 1;
    }
    for (unsigned i = 0; i < 16 && !(r & 2); i++)
        if (c->xmm[i].q[0] | c->xmm[i].q[1])
            r |= 2;
    return r;
}

enum { XS_SAVE, XS_OPT, XS_COMPACT };

static void xsave_any(struct cpu *c, const struct op *op)
{
    uint8_t img[FXSAVE_SIZE];
    uint64_t a = op_ea(c, op);
    if (a & 63)
        gp_fault(c);
    unsigned rfbm = (unsigned)c->r[R_AX] & XCR0, inuse = xinuse(c), kind = op->x2;
    uint64_t bv = load64(c, a + XSAVE_HDR);
    legacy_image(c, img, op->x3);
    uint8_t *m = g2h(c, a);
    /* Which parts are written: plain XSAVE writes whatever RFBM asks for;
     * XSAVEOPT and XSAVEC skip components in their initial configuration,
     * but XSAVEOPT always writes MXCSR and XSAVEC treats an MXCSR other
     * than 1F80H as SSE state in use (SDM vol. 1, 13.9 and 13.10). */
    unsigned save = kind == XS_SAVE ? rfbm : rfbm & inuse;
    uint32_t mxcsr = cpu_mxcsr_value(c);
    if (kind == XS_COMPACT && mxcsr != 0x1f80)
        save |= rfbm & 2;
    if (save & 1) {
        memcpy(m, img, 24);
        memcpy(m + 32, img + 32, 128);
    }
    if (save & 2)
        memcpy(m + 160, img + 160, xmm_end(c) - 160);
    if ((save & 2) || (kind == XS_OPT && (rfbm & 2)))
        memcpy(m + 24, img + 24, 8);
    if (kind == XS_COMPACT) {
        uint64_t hdr[2] = { save, (1ull << 63) | rfbm };
        memcpy(m + XSAVE_HDR, hdr, 16);
    } else {
        bv = (bv & ~(uint64_t)rfbm) | (inuse & rfbm);
        memcpy(m + XSAVE_HDR, &bv, 8);
    }
    NEXT(c, op);
}

static void op_xrstor(struct cpu *c, const struct op *op)
{
    uint8_t img[FXSAVE_SIZE], mem[FXSAVE_SIZE];
    uint64_t hdr[8];
    uint64_t a = op_ea(c, op);
    if (a & 63)
        gp_fault(c);
    memcpy(hdr, g2h(c, a + XSAVE_HDR), sizeof(hdr));
    memcpy(mem, g2h(c, a), FXSAVE_SIZE);
    uint64_t bv = hdr[0], comp = hdr[1];
    unsigned rfbm = (unsigned)c->r[R_AX] & XCR0;
    bool compacted = comp >> 63;
    /* The header checks of SDM vol. 2, XRSTOR, "Protected Mode Exceptions". */
    if (compacted) {
        if ((comp & ~(1ull << 63) & ~(uint64_t)XCR0) || (bv & ~comp))
            gp_fault(c);
        for (unsigned i = 2; i < 8; i++)
            if (hdr[i])
                gp_fault(c);
    } else if ((bv & ~(uint64_t)XCR0) || hdr[1] || hdr[2]) {
        gp_fault(c);
    }
    /* Build the new legacy image from the current one. */
    legacy_image(c, img, true);
    if (rfbm & 1) {
        if (bv & 1) {
            memcpy(img, mem, 24);
            memcpy(img + 32, mem + 32, 128);
        } else {
            /* Initial x87 state: FCW 037FH, all else (registers too) 0. */
            static const uint8_t init[24] = { 0x7f, 0x03 };
            memcpy(img, init, 24);
            memset(img + 32, 0, 128);
        }
    }
    if (rfbm & 2) {
        unsigned end = xmm_end(c);
        if (bv & 2)
            memcpy(img + 160, mem + 160, end - 160);
        else
            memset(img + 160, 0, end - 160);
        /* The standard form loads MXCSR whenever RFBM[1] is set; the
         * compacted form only with the SSE state, else it is 1F80H. */
        if (!compacted || (bv & 2))
            memcpy(img + 24, mem + 24, 4);
        else
            memcpy(img + 24, &(uint32_t){ 0x1f80 }, 4);
        check_mxcsr(c, img);
    }
    /* A 32-bit FIP/FDP in the non-REX.W format of the image from memory. */
    bool w64 = op->x3 || !(rfbm & bv & 1);
    legacy_load(c, img, w64);
    NEXT(c, op);
}

/* XGETBV: XCR0 for ECX = 0; any other register does not exist (#GP). */
static void op_xgetbv(struct cpu *c, const struct op *op)
{
    if ((uint32_t)c->r[R_CX] != 0)
        gp_fault(c);
    set_gpr32(c, SLOT_GPR(R_AX), XCR0);
    set_gpr32(c, SLOT_GPR(R_DX), 0);
    NEXT(c, op);
}

bool x87_dec_xsave(struct decoder *d)
{
    struct op *op = d->op;
    switch (d->in->mnemonic) {
    case ZYDIS_MNEMONIC_XGETBV: op->fn = op_xgetbv; return true;
    case ZYDIS_MNEMONIC_FXSAVE64: op->x3 = 1; /* fall through */
    case ZYDIS_MNEMONIC_FXSAVE: op->fn = op_fxsave; break;
    case ZYDIS_MNEMONIC_FXRSTOR64: op->x3 = 1; /* fall through */
    case ZYDIS_MNEMONIC_FXRSTOR: op->fn = op_fxrstor; break;
    case ZYDIS_MNEMONIC_XSAVE64: op->x3 = 1; /* fall through */
    case ZYDIS_MNEMONIC_XSAVE: op->fn = xsave_any; op->x2 = XS_SAVE; break;
    case ZYDIS_MNEMONIC_XSAVEOPT64: op->x3 = 1; /* fall through */
    case ZYDIS_MNEMONIC_XSAVEOPT: op->fn = xsave_any; op->x2 = XS_OPT; break;
    case ZYDIS_MNEMONIC_XSAVEC64: op->x3 = 1; /* fall through */
    case ZYDIS_MNEMONIC_XSAVEC: op->fn = xsave_any; op->x2 = XS_COMPACT; break;
    case ZYDIS_MNEMONIC_XRSTOR64: op->x3 = 1; /* fall through */
    case ZYDIS_MNEMONIC_XRSTOR: op->fn = op_xrstor; break;
    default: return false;
    }
    return x87_dec_mem(d);
}
