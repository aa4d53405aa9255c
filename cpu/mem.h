/* Guest memory access from handlers: effective addresses, loads, stores.
 *
 * An access is one bounds compare and a host load or store at mem + addr:
 * the host MMU enforces the guest's permissions, and a host fault inside
 * the guest space becomes a precise guest SIGSEGV (mm/fault.c).  ia32
 * addresses are 32-bit by construction (the effective address is
 * truncated), so only 64-bit guests need the compare; the guard after the
 * space absorbs an access that starts inside it and runs past the end. */
#ifndef CPU_MEM_H
#define CPU_MEM_H

#include <signal.h>
#include <string.h>

#include "cpu/cpu.h"

/* The effective address of op's memory operand, segment base included. */
static inline uint64_t op_ea(const struct cpu *c, const struct op *op)
{
    uint64_t a = (uint64_t)(int64_t)op->disp + GPR64(c, op->base) +
                 (GPR64(c, op->index) << op->scale);
    if (op->flags & OPF_ADDR32)
        a = (uint32_t)a;
    return a + c->seg_base[op->seg];
}

/* The effective address without the segment base (LEA). */
static inline uint64_t op_lea(const struct cpu *c, const struct op *op)
{
    uint64_t a = (uint64_t)(int64_t)op->disp + GPR64(c, op->base) +
                 (GPR64(c, op->index) << op->scale);
    return (op->flags & OPF_ADDR32) ? (uint32_t)a : a;
}

/* Host pointer for an access at guest address a of a 64-bit guest; faults
 * when a is outside the guest space (SIGSEGV, like a non-canonical or
 * kernel address). */
static inline void *g2h64(struct cpu *c, uint64_t a)
{
    if (UNLIKELY(a > c->mem_limit))
        cpu_fault(c, SIGSEGV, 1 /* SEGV_MAPERR */, a);
    return c->mem + a;
}

/* Host pointer for an access at guest address a, either guest. */
static inline void *g2h(struct cpu *c, uint64_t a)
{
    if (c->bits == 32)
        return c->mem + (uint32_t)a;
    return g2h64(c, a);
}

/* ------------------------------------------------------------ operand forms
 * The hot handlers (MOV, MOVZX/MOVSX, the ALU, LEA...) exist once per form
 * of their memory operand, which the decoder picks (dec_addr_mode()), so
 * that an access computes only the parts of the address it has:
 *   AM_ANY  everything op_ea() handles: FS/GS bases, the 0x67 prefix
 *   AM_B64  a 64-bit guest's [base + disp] (base may be rip or none)
 *   AM_X64  a 64-bit guest's [base + index * scale + disp]
 *   AM_B32  an ia32 guest's [base + disp] without FS/GS: the address wraps
 *           at 4 GiB, and nothing below 4 GiB needs the bounds compare
 *   AM_X32  an ia32 guest's [base + index * scale + disp] without FS/GS
 * Handler families are generated for every form by ADDR_MODES(). */
enum addr_mode { AM_ANY, AM_B64, AM_X64, AM_B32, AM_X32, AM_COUNT };

/* X(AM, suffix, ...) for every form, in enum order: handler families and
 * their tables are generated with it. */
#define ADDR_MODES(X, ...)                                                              \
    X(AM_ANY, any, __VA_ARGS__) X(AM_B64, b64, __VA_ARGS__) X(AM_X64, x64, __VA_ARGS__)  \
    X(AM_B32, b32, __VA_ARGS__) X(AM_X32, x32, __VA_ARGS__)
/* A table row { prefix8_sfx, prefix16_sfx, prefix32_sfx, prefix64_sfx }: with
 * ADDR_MODES, the [AM_COUNT][4] table of a handler family by form and width. */
#define AM_WIDTHS_ROW(AM, sfx, prefix) { prefix##8_##sfx, prefix##16_##sfx, prefix##32_##sfx, prefix##64_##sfx },

/* The guest address of op's memory operand in form am (a constant). */
static inline __attribute__((always_inline)) uint64_t am_ea(const struct cpu *c,
                                                             const struct op *op, unsigned am)
{
    switch (am) {
    case AM_B64:
        return GPR64(c, op->base) + (uint64_t)(int64_t)op->disp;
    case AM_X64:
        return GPR64(c, op->base) + (uint64_t)(int64_t)op->disp + (GPR64(c, op->index) << op->scale);
    case AM_B32:
        return (uint32_t)(GPR32(c, op->base) + (uint32_t)op->disp);
    case AM_X32:
        return (uint32_t)(GPR32(c, op->base) + (uint32_t)op->disp + (GPR32(c, op->index) << op->scale));
    default:
        return op_ea(c, op);
    }
}

/* The host pointer for guest address a from am_ea() in form am (faults as
 * g2h()); for handlers that look at the address first (alignment checks). */
static inline __attribute__((always_inline)) void *am_host(struct cpu *c, uint64_t a, unsigned am)
{
    switch (am) {
    case AM_B64: case AM_X64: return g2h64(c, a);
    case AM_B32: case AM_X32: return c->mem + a;
    default: return g2h(c, a);
    }
}

/* The host pointer of op's memory operand in form am (faults as g2h()). */
static inline __attribute__((always_inline)) void *am_ptr(struct cpu *c, const struct op *op,
                                                          unsigned am)
{
    return am_host(c, am_ea(c, op, am), am);
}

/* The host pointer of op's memory operand in form am for an op that a
 * handler runs after an earlier op of its own (the second half of a fused
 * pair or sequence): c->cur points at op before the access, so that a
 * fault there finds the earlier ops done and this one not begun.  The
 * empty asm takes the address as made from c->cur: the compiler can
 * neither drop that store (NEXT stores c->cur again) nor move the access
 * above it. */
static inline __attribute__((always_inline)) void *am_ptr_later(struct cpu *c, const struct op *op,
                                                                unsigned am)
{
    c->cur = op;
    void *p = am_ptr(c, op, am);
    __asm__ volatile("" : "+r"(p) : "m"(c->cur));
    return p;
}

#define DEFINE_ACCESS(bits)                                                             \
    static inline uint##bits##_t load##bits(struct cpu *c, uint64_t a)                  \
    {                                                                                   \
        uint##bits##_t v;                                                               \
        memcpy(&v, g2h(c, a), sizeof(v));                                               \
        return v;                                                                       \
    }                                                                                   \
    static inline void store##bits(struct cpu *c, uint64_t a, uint##bits##_t v)        \
    {                                                                                   \
        memcpy(g2h(c, a), &v, sizeof(v));                                               \
    }
DEFINE_ACCESS(8)
DEFINE_ACCESS(16)
DEFINE_ACCESS(32)
DEFINE_ACCESS(64)
#undef DEFINE_ACCESS

/* Loads and stores through a host pointer from am_ptr(). */
#define DEFINE_HOST_ACCESS(bits)                                                        \
    static inline uint##bits##_t ld##bits(const void *p)                                \
    {                                                                                   \
        uint##bits##_t v;                                                               \
        memcpy(&v, p, sizeof(v));                                                       \
        return v;                                                                       \
    }                                                                                   \
    static inline void st##bits(void *p, uint##bits##_t v) { memcpy(p, &v, sizeof(v)); }
DEFINE_HOST_ACCESS(8)
DEFINE_HOST_ACCESS(16)
DEFINE_HOST_ACCESS(32)
DEFINE_HOST_ACCESS(64)
#undef DEFINE_HOST_ACCESS

static inline void load128(struct cpu *c, uint64_t a, void *dst) { memcpy(dst, g2h(c, a), 16); }
static inline void store128(struct cpu *c, uint64_t a, const void *src) { memcpy(g2h(c, a), src, 16); }

/* Sized access by a run-time size (1, 2, 4, 8), for the rarer handlers. */
static inline uint64_t load_n(struct cpu *c, uint64_t a, unsigned size)
{
    switch (size) {
    case 1: return load8(c, a);
    case 2: return load16(c, a);
    case 4: return load32(c, a);
    default: return load64(c, a);
    }
}

static inline void store_n(struct cpu *c, uint64_t a, unsigned size, uint64_t v)
{
    switch (size) {
    case 1: store8(c, a, (uint8_t)v); break;
    case 2: store16(c, a, (uint16_t)v); break;
    case 4: store32(c, a, (uint32_t)v); break;
    default: store64(c, a, v); break;
    }
}

/* Register read/write by size, for the rarer handlers. */
static inline uint64_t get_reg_n(const struct cpu *c, uint8_t off, unsigned size)
{
    switch (size) {
    case 1: return GPR8(c, off);
    case 2: return GPR16(c, off);
    case 4: return GPR32(c, off);
    default: return GPR64(c, off);
    }
}

static inline void set_reg_n(struct cpu *c, uint8_t off, unsigned size, uint64_t v)
{
    switch (size) {
    case 1: set_gpr8(c, off, v); break;
    case 2: set_gpr16(c, off, v); break;
    case 4: set_gpr32(c, off, v); break;
    default: set_gpr64(c, off, v); break;
    }
}

/* The stack: 8-byte slots for 64-bit guests (push64/pop64), 4 for ia32
 * (push32/pop32: only ia32 guests use them, whose esp is an address below
 * 4 GiB; ss base is 0). */
static inline void push64(struct cpu *c, uint64_t v)
{
    uint64_t sp = c->r[R_SP] - 8;
    st64(g2h64(c, sp), v);
    c->r[R_SP] = sp;
}

static inline uint64_t pop64(struct cpu *c)
{
    uint64_t v = ld64(g2h64(c, c->r[R_SP]));
    c->r[R_SP] += 8;
    return v;
}

static inline void push32(struct cpu *c, uint32_t v)
{
    uint32_t sp = (uint32_t)c->r[R_SP] - 4;
    st32(c->mem + sp, v);
    set_gpr32(c, SLOT_GPR(R_SP), sp);
}

static inline uint32_t pop32(struct cpu *c)
{
    uint32_t sp = (uint32_t)c->r[R_SP];
    uint32_t v = ld32(c->mem + sp);
    set_gpr32(c, SLOT_GPR(R_SP), sp + 4);
    return v;
}

#endif
