/* The foundation's few instructions: enough for a libc-free hello.
 * Semantics per the SDM; register writes follow the x86_64 rules (a 32-bit
 * write zero-extends, 8- and 16-bit writes merge). */
#include <signal.h>

#include "cpu/cpu.h"

static void set_reg(struct cpu *c, unsigned r, unsigned size, uint64_t v)
{
    switch (size) {
    case 8: c->r[r] = v; break;
    case 4: c->r[r] = (uint32_t)v; break;
    case 2: c->r[r] = (c->r[r] & ~0xffffull) | (uint16_t)v; break;
    default: c->r[r] = (c->r[r] & ~0xffull) | (uint8_t)v; break;
    }
}

/* The effective address of a memory operand (no segment base: LEA ignores it). */
static uint64_t effective_address(const struct cpu *c, const struct cpu_op *op)
{
    const struct cpu_mem *m = &op->mem;
    uint64_t a = (uint64_t)m->disp;
    if (m->rip_relative)
        a += c->rip + op->len;
    if (m->base != 0xff)
        a += c->r[m->base];
    if (m->index != 0xff)
        a += c->r[m->index] * m->scale;
    return c->bits == 32 ? (uint32_t)a : a;
}

void op_mov_Gv_Iv(struct cpu *c, const struct cpu_op *op)
{
    set_reg(c, op->dst, op->size, (uint64_t)op->imm);
    c->rip += op->len;
}

void op_mov_Gv_Ev_reg(struct cpu *c, const struct cpu_op *op)
{
    set_reg(c, op->dst, op->size, c->r[op->src]);
    c->rip += op->len;
}

void op_lea_Gv_M(struct cpu *c, const struct cpu_op *op)
{
    set_reg(c, op->dst, op->size, effective_address(c, op));
    c->rip += op->len;
}

void op_nop(struct cpu *c, const struct cpu_op *op)
{
    c->rip += op->len;
}

/* SYSCALL: rcx <- next rip, r11 <- rflags (SDM vol. 2B, SYSCALL); the
 * kernel returns with both clobbered that way. */
void op_syscall(struct cpu *c, const struct cpu_op *op)
{
    c->rip += op->len;
    c->r[R_CX] = c->rip;
    c->r[R_11] = c->rflags;
    sys_dispatch_64(c);
}

void op_int80(struct cpu *c, const struct cpu_op *op)
{
    c->rip += op->len;
    sys_dispatch_32(c);
}

void op_ud2(struct cpu *c, const struct cpu_op *op)
{
    cpu_raise(c, SIGILL);
}

void op_int3(struct cpu *c, const struct cpu_op *op)
{
    c->rip += op->len; /* the trap is reported after the instruction */
    cpu_raise(c, SIGTRAP);
}

/* Privileged and I/O instructions: #GP in user mode, SIGSEGV on Linux. */
void op_privileged(struct cpu *c, const struct cpu_op *op)
{
    cpu_raise(c, SIGSEGV);
}
