/* The bmi instruction family: being written (see the CPU core issue).
 * Until it lands, its mnemonics are claimed by no family and execute as
 * unimplemented instructions (logged, SIGILL). */
#include "cpu/decode.h"

bool dec_bmi(struct decoder *d)
{
    (void)d;
    return false;
}
