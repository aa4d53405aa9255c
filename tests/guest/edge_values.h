/* Operand values at the edges of the flags (zero, carries and signs at
 * each width) for the fused-pair guests (fusedalu.c, memfused.c).
 * Header-only. */
#ifndef GUEST_EDGE_VALUES_H
#define GUEST_EDGE_VALUES_H

static const unsigned long long edge[] = {
    0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0x7fffffff, 0x80000000, 0xfffffffe,
    0xffffffff, 0x12345678, 0x8000000000000000ull, 0x7fffffffffffffffull,
    0xffffffffffffffffull, 0x0123456789abcdefull,
};
#define NEDGE (sizeof(edge) / sizeof(edge[0]))

#endif
