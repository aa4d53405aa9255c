/* String instructions: MOVS STOS LODS CMPS SCAS (B/W/D/Q) with REP, REPE
 * and REPNE, and XLAT.  SDM vol. 2B: "MOVS/MOVSB/MOVSW/MOVSD/MOVSQ", "STOS",
 * "LODS", "CMPS", "SCAS", "REP/REPE/REPZ/REPNE/REPNZ", "XLAT/XLATB".
 *
 * Operands are implicit: the source at seg:rSI (DS, which a segment
 * override may replace -- only FS and GS have a base on Linux), the
 * destination at ES:rDI (never overridden; base 0), the count in rCX.  DF
 * picks the direction.  With a 32-bit address size (0x67 in 64-bit mode,
 * the default for ia32) ESI/EDI/ECX are used, wrap at 2^32 and are written
 * as 32-bit registers (zero-extended; the host does the same, see
 * tests/unit/test_string.c).  16-bit addressing is not implemented.
 *
 * REP runs the element rCX times (not at all for rCX = 0); REPE/REPNE on
 * CMPS/SCAS also stop after an element whose comparison leaves ZF = 0 /
 * ZF = 1; flags are those of the last comparison, as CMP sets them.  F2
 * (REPNE) on MOVS/STOS/LODS repeats like REP on the hosts (checked in the
 * tests); the SDM lists only REP for them.
 *
 * Faults.  A fault in the middle of a REP leaves rSI/rDI/rCX describing the
 * elements completed before the faulting one, and rip at the instruction, so
 * that it resumes where it stopped (SDM vol. 2B, "REP": the register state
 * of a suspended repeated string operation is preserved).  The element loops
 * therefore commit the registers after every element; a compiler barrier
 * keeps those stores before the next guest access, which may longjmp out of
 * the handler.  REP MOVS and REP STOS of at least BULK_MIN bytes go through
 * host memmove/memset in chunks: each chunk is checked against the guest
 * mappings first (mm_check), and the first one that is not wholly accessible
 * hands the rest to the element loop, which then faults at the precise
 * element.  The bulk copy is used only where it is identical to the
 * element-by-element copy: not when the destination starts inside the part
 * of the source still to be read (a forward copy to [src+1, src+n)
 * replicates a pattern; so does a backward copy mirrored), and not when an
 * address would wrap.
 *
 * Interrupts.  The CPU takes interrupts between the iterations of a REP, so
 * a signal does not wait for the end of a 1 GiB REP STOS: the bulk path
 * after every chunk, and the element loops every ATTN_ELEMS elements, look
 * at the thread's attention word (CPU_ATTN_*) and, when there is work,
 * stop with the registers describing the elements done and rip at the
 * instruction, which the dispatch loop resumes once it has attended to it
 * (delivered the signal, dropped invalidated code).  Self-modifying code:
 * a bulk store into a page holding decoded code faults on the host (such
 * pages are write-protected, cpu/block.c), which drops the page's code and
 * retries the store; the REP then stops at its next chunk, with the rest
 * of its block, which may have been overwritten. */
#include <emmintrin.h>
#include <sys/mman.h>

#include "cpu/decode.h"
#include "cpu/hook.h"
#include "cpu/flags.h"
#include "cpu/mem.h"

enum {
    BULK_MIN = 256,            /* bytes: below this the element loop is as fast */
    BULK_CHUNK = 1 << 16,      /* bytes checked and copied at a time */
};
#define BULK_MAX (1ull << 48)  /* larger than any guest space: no overflow in n * size */

/* Keep the register commits of an element before the next guest access. */
#define BARRIER() __asm__ volatile("" ::: "memory")

/* Address-size register access: A = 64 or 32. */
#define AREG_64(i) (c->r[i])
#define AREG_32(i) ((uint64_t)(uint32_t)c->r[i])
#define ASET_64(i, v) (c->r[i] = (uint64_t)(v))
#define ASET_32(i, v) (c->r[i] = (uint32_t)(v))
#define WRAP_64(v) ((uint64_t)(v))
#define WRAP_32(v) ((uint64_t)(uint32_t)(v))

#define W_8 0
#define W_16 1
#define W_32 2
#define W_64 3

/* The element step for the current DF. */
#define STEP(B) ((c->rflags & FL_DF) ? -(uint64_t)((B) / 8) : (uint64_t)((B) / 8))
/* Linear address of the source at offset si. */
#define SRC(si) (c->seg_base[op->seg] + (si))

/* ------------------------------------------------------------ bulk REP MOVS / REP STOS */
/* Fill len bytes (a multiple of size) with copies of the size-byte value v. */
static void fill(uint8_t *p, uint64_t v, unsigned size, uint64_t len)
{
    static const uint64_t spread[9] = { 0, 0x0101010101010101ull, 0x0001000100010001ull, 0,
                                        0x0000000100000001ull, 0, 0, 0, 1 };
    uint64_t pat = (size == 8 ? v : v & ((1ull << (8 * size)) - 1)) * spread[size];
    if (pat == (uint8_t)pat * 0x0101010101010101ull) {
        memset(p, (uint8_t)pat, len);
        return;
    }
    uint64_t i = 0;
    for (; i + 8 <= len; i += 8)
        memcpy(p + i, &pat, 8);
    memcpy(p + i, &pat, len - i); /* i is a multiple of size: the pattern continues */
}

/* memmove(d, s, len) for the bulk path, but not the host's memmove: from a
 * few KiB on that is REP MOVSB, which on the guest space ran 14x slower
 * than this loop on the benchmark machine (AMD EPYC: 400 MiB in 64 KiB
 * chunks, 0.27 s against 0.019 s).  Ascending 64-byte groups, each loaded
 * before it is stored, give memmove's result whenever the destination does
 * not start inside the source (d <= s or d >= s + len); memmove otherwise. */
static void copy(uint8_t *d, const uint8_t *s, uint64_t len)
{
    if (d > s && d < s + len) {
        memmove(d, s, len);
        return;
    }
    uint64_t i = 0;
    for (; i + 64 <= len; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
        __m128i f = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
        _mm_storeu_si128((__m128i *)(void *)(d + i), a);
        _mm_storeu_si128((__m128i *)(void *)(d + i + 16), b);
        _mm_storeu_si128((__m128i *)(void *)(d + i + 32), e);
        _mm_storeu_si128((__m128i *)(void *)(d + i + 48), f);
    }
    memmove(d + i, s + i, len - i);
}

/* Work for the thread (CPU_ATTN_*: a signal to deliver, code dropped, a
 * stop) stops a long REP between two elements, as the CPU takes interrupts
 * between iterations: rCX/rSI/rDI describe the elements done, rip stays at
 * the instruction, and the handler returns to the dispatch loop, which
 * attends to the work and then resumes the REP where it stopped (SDM vol.
 * 2B, "REP").  Not while hooks are on: hooked blocks report an instruction
 * once it completes (so a signal may wait for the end of a long REP). */
static bool rep_interrupted(const struct cpu *c)
{
    return UNLIKELY(c->attention) && !cpu_hooks_enabled();
}

enum bulk { BULK_DONE, BULK_REST, BULK_STOPPED };

/* Return to the dispatch loop from a REP, with the rest of its block left
 * undone: stopped by rep_interrupted() (done false: rip stays at it), or
 * done (rip after it).  The loop counts the block's instructions once the
 * block returns: those that did not retire are taken off first. */
static void rep_leave(struct cpu *c, const struct op *op, bool done)
{
    uint64_t skipped = done ? 0 : 1;
    for (const struct op *o = op + 1; o->fn != op_block_end; o++) {
        skipped++;
        if (o->flags & OPF_BRANCH)
            break;
    }
    c->icount -= skipped;
    cpu_rip_set(c, cpu_rip(c) + (done ? op->len : 0));
}

/* After a REP MOVS/STOS ran to r (BULK_DONE or BULK_STOPPED): true when it
 * returned to the dispatch loop.  A completed one does too when code was
 * invalidated, as its stores may have rewritten the instructions after it
 * in its block. */
static bool rep_store_leaves(struct cpu *c, const struct op *op, enum bulk r)
{
    if (r == BULK_DONE && (LIKELY(!(c->attention & CPU_ATTN_CODE)) || cpu_hooks_enabled()))
        return false;
    rep_leave(c, op, r == BULK_DONE);
    return true;
}

/* The element loops look for work every ATTN_ELEMS elements. */
#define ATTN_ELEMS 4096
#define ELEM_ATTN(n) (((n) & (ATTN_ELEMS - 1)) == 0 && (n) && rep_interrupted(c))


/* REP MOVS (stos false) or REP STOS (stos true) of size-byte elements with
 * rCX != 0, as far as whole chunks are accessible.  BULK_DONE: all of it is
 * done; BULK_REST: the registers describe the elements done and the element
 * loop must finish; BULK_STOPPED: stopped for rep_interrupted(). */
static enum bulk rep_bulk(struct cpu *c, const struct op *op, unsigned size, bool a32,
                          bool stos)
{
    uint64_t amask = a32 ? 0xffffffffull : ~0ull;
    uint64_t n = c->r[R_CX] & amask, si = c->r[R_SI] & amask, di = c->r[R_DI] & amask;
    uint64_t seg = c->seg_base[op->seg];
    bool down = c->rflags & FL_DF;
    if (n > BULK_MAX / size)
        return BULK_REST;
    uint64_t bytes = n * size;
    /* The lowest offsets the whole operation touches; no offset may wrap. */
    uint64_t s_lo = si, d_lo = di;
    if (down) {
        if (si < bytes - size || di < bytes - size)
            return BULK_REST;
        s_lo = si - (bytes - size);
        d_lo = di - (bytes - size);
    }
    uint64_t ls = seg + s_lo;
    if (s_lo > amask - (bytes - 1) || d_lo > amask - (bytes - 1) || ls < seg)
        return BULK_REST;
    if (!stos) {
        /* Element order matters only when an element reads bytes that an
         * earlier one wrote: forward, the destination starts inside
         * (src, src + bytes); backward, inside (src - bytes, src).
         * Anything beyond the guest space fails mm_check below. */
        if (down ? d_lo < ls && ls - d_lo < bytes : d_lo > ls && d_lo - ls < bytes)
            return BULK_REST;
    }
    uint64_t v = c->r[R_AX];
    while (n) {
        uint64_t m = n < BULK_CHUNK / size ? n : BULK_CHUNK / size, len = m * size;
        uint64_t sc = down ? si - (len - size) : si, dc = down ? di - (len - size) : di;
        if (!mm_check(c->mm, dc, len, PROT_WRITE))
            return BULK_REST;
        if (stos) {
            fill(c->mem + dc, v, size, len);
        } else {
            if (!mm_check(c->mm, seg + sc, len, PROT_READ))
                return BULK_REST;
            copy(c->mem + dc, c->mem + seg + sc, len);
            si = down ? si - len : si + len;
            c->r[R_SI] = a32 ? (uint32_t)si : si;
        }
        di = down ? di - len : di + len;
        n -= m;
        c->r[R_DI] = a32 ? (uint32_t)di : di;
        c->r[R_CX] = a32 ? (uint32_t)n : n;
        BARRIER();
        if (n && rep_interrupted(c))
            return BULK_STOPPED;
    }
    return BULK_DONE;
}

/* ------------------------------------------------------------ handlers
 * One set per element width B and address size A.  The REP loops run with
 * rCX != 0 and return false when rep_interrupted() stopped them. */
#define GEN_STRING(B, A)                                                                \
    static void op_movs_##B##_##A(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        uint64_t si = AREG_##A(R_SI), di = AREG_##A(R_DI), step = STEP(B);              \
        store##B(c, di, load##B(c, SRC(si)));                                           \
        ASET_##A(R_SI, si + step);                                                      \
        ASET_##A(R_DI, di + step);                                                      \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static bool loop_movs_##B##_##A(struct cpu *c, const struct op *op)                 \
    {                                                                                   \
        uint64_t si = AREG_##A(R_SI), di = AREG_##A(R_DI), n = AREG_##A(R_CX);          \
        uint64_t step = STEP(B);                                                        \
        do {                                                                            \
            store##B(c, di, load##B(c, SRC(si)));                                       \
            si = WRAP_##A(si + step);                                                   \
            di = WRAP_##A(di + step);                                                   \
            n--;                                                                        \
            ASET_##A(R_SI, si);                                                         \
            ASET_##A(R_DI, di);                                                         \
            ASET_##A(R_CX, n);                                                          \
            BARRIER();                                                                  \
            if (ELEM_ATTN(n))                                                           \
                return false;                                                           \
        } while (n);                                                                    \
        return true;                                                                    \
    }                                                                                   \
    static void op_rep_movs_##B##_##A(struct cpu *c, const struct op *op)               \
    {                                                                                   \
        uint64_t n = AREG_##A(R_CX);                                                    \
        if (n) {                                                                        \
            enum bulk r = n >= BULK_MIN / (B / 8)                                       \
                              ? rep_bulk(c, op, B / 8, A == 32, false) : BULK_REST;     \
            if (r == BULK_REST)                                                         \
                r = loop_movs_##B##_##A(c, op) ? BULK_DONE : BULK_STOPPED;              \
            if (rep_store_leaves(c, op, r))                                             \
                return;                                                                 \
        }                                                                               \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_stos_##B##_##A(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        uint64_t di = AREG_##A(R_DI);                                                   \
        store##B(c, di, GPR##B(c, SLOT_GPR(R_AX)));                                     \
        ASET_##A(R_DI, di + STEP(B));                                                   \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static bool loop_stos_##B##_##A(struct cpu *c)                                      \
    {                                                                                   \
        uint64_t di = AREG_##A(R_DI), n = AREG_##A(R_CX), step = STEP(B);               \
        uint##B##_t v = GPR##B(c, SLOT_GPR(R_AX));                                      \
        do {                                                                            \
            store##B(c, di, v);                                                         \
            di = WRAP_##A(di + step);                                                   \
            n--;                                                                        \
            ASET_##A(R_DI, di);                                                         \
            ASET_##A(R_CX, n);                                                          \
            BARRIER();                                                                  \
            if (ELEM_ATTN(n))                                                           \
                return false;                                                           \
        } while (n);                                                                    \
        return true;                                                                    \
    }                                                                                   \
    static void op_rep_stos_##B##_##A(struct cpu *c, const struct op *op)               \
    {                                                                                   \
        uint64_t n = AREG_##A(R_CX);                                                    \
        if (n) {                                                                        \
            enum bulk r = n >= BULK_MIN / (B / 8)                                       \
                              ? rep_bulk(c, op, B / 8, A == 32, true) : BULK_REST;      \
            if (r == BULK_REST)                                                         \
                r = loop_stos_##B##_##A(c) ? BULK_DONE : BULK_STOPPED;                  \
            if (rep_store_leaves(c, op, r))                                             \
                return;                                                                 \
        }                                                                               \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_lods_##B##_##A(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        uint64_t si = AREG_##A(R_SI);                                                   \
        set_gpr##B(c, SLOT_GPR(R_AX), load##B(c, SRC(si)));                             \
        ASET_##A(R_SI, si + STEP(B));                                                   \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_rep_lods_##B##_##A(struct cpu *c, const struct op *op)               \
    {                                                                                   \
        uint64_t si = AREG_##A(R_SI), n = AREG_##A(R_CX), step = STEP(B);               \
        while (n) {                                                                     \
            set_gpr##B(c, SLOT_GPR(R_AX), load##B(c, SRC(si)));                         \
            si = WRAP_##A(si + step);                                                   \
            n--;                                                                        \
            ASET_##A(R_SI, si);                                                         \
            ASET_##A(R_CX, n);                                                          \
            BARRIER();                                                                  \
            if (ELEM_ATTN(n)) {                                                         \
                rep_leave(c, op, false);                                                \
                return;                                                                 \
            }                                                                           \
        }                                                                               \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_cmps_##B##_##A(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        uint64_t si = AREG_##A(R_SI), di = AREG_##A(R_DI), step = STEP(B);              \
        uint##B##_t a = load##B(c, SRC(si)), b = load##B(c, di);                        \
        ASET_##A(R_SI, si + step);                                                      \
        ASET_##A(R_DI, di + step);                                                      \
        lf_set(c, LF_SUB + W_##B, a, b, (uint64_t)a - b);                               \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    /* op->x1: 1 for REPE (go on while equal), 0 for REPNE */                           \
    static void op_rep_cmps_##B##_##A(struct cpu *c, const struct op *op)               \
    {                                                                                   \
        uint64_t si = AREG_##A(R_SI), di = AREG_##A(R_DI), n = AREG_##A(R_CX);          \
        uint64_t step = STEP(B);                                                        \
        bool eq = op->x1;                                                               \
        while (n) {                                                                     \
            uint##B##_t a = load##B(c, SRC(si)), b = load##B(c, di);                    \
            si = WRAP_##A(si + step);                                                   \
            di = WRAP_##A(di + step);                                                   \
            n--;                                                                        \
            ASET_##A(R_SI, si);                                                         \
            ASET_##A(R_DI, di);                                                         \
            ASET_##A(R_CX, n);                                                          \
            lf_set(c, LF_SUB + W_##B, a, b, (uint64_t)a - b);                           \
            BARRIER();                                                                  \
            if ((a == b) != eq)                                                         \
                break;                                                                  \
            if (ELEM_ATTN(n)) {                                                         \
                rep_leave(c, op, false);                                                \
                return;                                                                 \
            }                                                                           \
        }                                                                               \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_scas_##B##_##A(struct cpu *c, const struct op *op)                   \
    {                                                                                   \
        uint64_t di = AREG_##A(R_DI);                                                   \
        uint##B##_t a = GPR##B(c, SLOT_GPR(R_AX)), b = load##B(c, di);                  \
        ASET_##A(R_DI, di + STEP(B));                                                   \
        lf_set(c, LF_SUB + W_##B, a, b, (uint64_t)a - b);                               \
        NEXT(c, op);                                                                    \
    }                                                                                   \
    static void op_rep_scas_##B##_##A(struct cpu *c, const struct op *op)               \
    {                                                                                   \
        uint64_t di = AREG_##A(R_DI), n = AREG_##A(R_CX), step = STEP(B);               \
        uint##B##_t a = GPR##B(c, SLOT_GPR(R_AX));                                      \
        bool eq = op->x1;                                                               \
        while (n) {                                                                     \
            uint##B##_t b = load##B(c, di);                                             \
            di = WRAP_##A(di + step);                                                   \
            n--;                                                                        \
            ASET_##A(R_DI, di);                                                         \
            ASET_##A(R_CX, n);                                                          \
            lf_set(c, LF_SUB + W_##B, a, b, (uint64_t)a - b);                           \
            BARRIER();                                                                  \
            if ((a == b) != eq)                                                         \
                break;                                                                  \
            if (ELEM_ATTN(n)) {                                                         \
                rep_leave(c, op, false);                                                \
                return;                                                                 \
            }                                                                           \
        }                                                                               \
        NEXT(c, op);                                                                    \
    }

#define GEN_STRING_WIDTHS(A) GEN_STRING(8, A) GEN_STRING(16, A) GEN_STRING(32, A) GEN_STRING(64, A)
GEN_STRING_WIDTHS(64)
GEN_STRING_WIDTHS(32)

enum { K_MOVS, K_CMPS, K_STOS, K_LODS, K_SCAS, NKINDS };
#define SWIDTHS(name, A) { op_##name##_8_##A, op_##name##_16_##A, op_##name##_32_##A, op_##name##_64_##A }
#define SKIND(name)                                                                     \
    { { SWIDTHS(name, 64), SWIDTHS(name, 32) }, { SWIDTHS(rep_##name, 64), SWIDTHS(rep_##name, 32) } }
/* [kind][rep][address size: 64, 32][width] */
static const cpu_handler string_h[NKINDS][2][2][4] = {
    SKIND(movs), SKIND(cmps), SKIND(stos), SKIND(lods), SKIND(scas),
};

/* XLAT: AL <- [seg:rBX + AL], the sum at the address size. */
static void op_xlat(struct cpu *c, const struct op *op)
{
    uint64_t a = c->r[R_BX] + GPR8(c, SLOT_GPR(R_AX));
    if (op->flags & OPF_ADDR32)
        a = (uint32_t)a;
    set_gpr8(c, SLOT_GPR(R_AX), load8(c, a + c->seg_base[op->seg]));
    NEXT(c, op);
}

/* ------------------------------------------------------------ decoding */
/* The segment of the overridable (DS) operand: FS and GS have bases; the
 * others are flat on Linux. */
static uint8_t source_seg(const struct decoder *d)
{
    for (unsigned i = 0; i < d->in->operand_count; i++) {
        if (!is_mem(d, i))
            continue;
        ZydisRegister base = d->ops[i].mem.base;
        if (base == ZYDIS_REGISTER_RDI || base == ZYDIS_REGISTER_EDI)
            continue; /* ES:rDI, never overridden */
        switch (d->ops[i].mem.segment) {
        case ZYDIS_REGISTER_FS: return SEG_FS;
        case ZYDIS_REGISTER_GS: return SEG_GS;
        default: return SEG_NONE;
        }
    }
    return SEG_NONE;
}

bool dec_string(struct decoder *d)
{
    const ZydisDecodedInstruction *in = d->in;
    struct op *op = d->op;
    /* Opcodes A4..AF of the one-byte map are exactly the string
     * instructions (the mnemonics MOVSD and CMPSD also name SSE2 ones). */
    if (in->opcode_map != ZYDIS_OPCODE_MAP_DEFAULT)
        return false;
    unsigned kind;
    switch (in->opcode) {
    case 0xa4: case 0xa5: kind = K_MOVS; break;
    case 0xa6: case 0xa7: kind = K_CMPS; break;
    case 0xaa: case 0xab: kind = K_STOS; break;
    case 0xac: case 0xad: kind = K_LODS; break;
    case 0xae: case 0xaf: kind = K_SCAS; break;
    case 0xd7: kind = NKINDS; break;
    default: return false;
    }
    if (in->address_width != 64 && in->address_width != 32)
        return false; /* 16-bit addressing */
    if (in->address_width == 32)
        op->flags |= OPF_ADDR32;
    op->seg = source_seg(d);
    if (kind == NKINDS) {
        op->fn = op_xlat;
        return true;
    }
    unsigned bytes = in->operand_width / 8;
    if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
        return false;
    op->size = (uint8_t)bytes;
    bool rep = op->flags & (OPF_REP | OPF_REPNE);
    op->x1 = (op->flags & OPF_REP) != 0; /* CMPS/SCAS: REPE */
    op->fn = string_h[kind][rep][in->address_width == 32][size_index(bytes)];
    return true;
}
