/* The sse42 instruction family: being written (see the CPU core issue).
 * Until it lands, its mnemonics are claimed by no family and execute as
 * unimplemented instructions (logged, SIGILL). */
#include "cpu/decode.h"

bool dec_sse42(struct decoder *d)
{
    (void)d;
    return false;
}
