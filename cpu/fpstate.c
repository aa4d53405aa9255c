/* FXSAVE images <-> CPU state (see cpu/fpstate.h).
 * ST(i) are stored in stack order (relative to TOP); the abridged tag word
 * has bit i set when physical register i is valid (not empty). */
#include <string.h>

#include "cpu/fpstate.h"
#include "cpu/sse.h"
#include "cpu/x87_host.h"

void cpu_fxsave_image(const struct cpu *c, uint8_t *out)
{
    memset(out, 0, FXSAVE_SIZE);
    uint16_t fcw = c->fcw, fsw = cpu_fsw(c), fop = c->fop;
    uint8_t ftw = (uint8_t)~c->ftag;
    uint32_t mxcsr = cpu_mxcsr_value(c), mask = MXCSR_MASK_VALUE;
    memcpy(out + 0, &fcw, 2);
    memcpy(out + 2, &fsw, 2);
    out[4] = ftw;
    memcpy(out + 6, &fop, 2);
    memcpy(out + 8, &c->fip, 8);
    memcpy(out + 16, &c->fdp, 8);
    memcpy(out + 24, &mxcsr, 4);
    memcpy(out + 28, &mask, 4);
    for (int i = 0; i < 8; i++)
        memcpy(out + 32 + 16 * i, &c->fpr[(c->ftop + i) & 7], 10);
    for (int i = 0; i < 16; i++)
        memcpy(out + 160 + 16 * i, &c->xmm[i], 16);
}

void cpu_fxrstor_image(struct cpu *c, const uint8_t *in)
{
    uint16_t fsw, fcw;
    cpu_x87_release(c); /* the flags may go down, the control word change */
    memcpy(&fcw, in + 0, 2);
    memcpy(&fsw, in + 2, 2);
    /* As FXRSTOR does: FCW bit 6 reads as 1, bits 7 and 13-15 as 0; ES and
     * B follow from the exception flags and masks, not from the image. */
    fcw = (uint16_t)((fcw & 0x1f3f) | 0x40);
    fsw = (uint16_t)((fsw & 0x7f7f) | ((fsw & ~fcw & 0x3f) ? 0x8080 : 0));
    c->fcw = fcw;
    c->ftop = (fsw >> 11) & 7;
    c->fsw = fsw & ~0x3800u;
    c->ftag = (uint8_t)~in[4];
    memcpy(&c->fop, in + 6, 2);
    memcpy(&c->fip, in + 8, 8);
    memcpy(&c->fdp, in + 16, 8);
    memcpy(&c->mxcsr, in + 24, 4);
    c->mxcsr_live = false;
    /* Byte copies: the emulator does no x87 loads of its own. */
    for (int i = 0; i < 8; i++) {
        memset(&c->fpr[(c->ftop + i) & 7], 0, sizeof(long double));
        memcpy(&c->fpr[(c->ftop + i) & 7], in + 32 + 16 * i, 10);
    }
    for (int i = 0; i < 16; i++)
        memcpy(&c->xmm[i], in + 160 + 16 * i, 16);
}
