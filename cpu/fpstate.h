/* The x87/SSE state as an FXSAVE image (SDM vol. 1, 10.5.1, table 10-2):
 * used by FXSAVE/FXRSTOR, signal frames and the test harness. */
#ifndef CPU_FPSTATE_H
#define CPU_FPSTATE_H

#include <stdint.h>

#include "cpu/cpu.h"

#define FXSAVE_SIZE 512
#define MXCSR_MASK_VALUE 0xffffu /* DAZ supported */

/* The x87 status word with TOP in bits 11-13. */
static inline uint16_t cpu_fsw(const struct cpu *c)
{
    return (uint16_t)((c->fsw & ~0x3800u) | ((unsigned)(c->ftop & 7) << 11));
}

/* Write the 64-bit FXSAVE image of c's state into out[512]. */
void cpu_fxsave_image(const struct cpu *c, uint8_t *out);
/* Load c's x87/SSE state from a 64-bit FXSAVE image. */
void cpu_fxrstor_image(struct cpu *c, const uint8_t *in);

#endif
