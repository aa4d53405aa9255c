/* bench helper geninput (bench/src/geninput.c): the deterministic generator
 * and the C translation unit's writer. */
#ifndef BENCH_GENINPUT_H
#define BENCH_GENINPUT_H

#include <stdint.h>

/* The next number of the fixed-seed xorshift generator. */
uint64_t gen_next(void);

/* Writes a C translation unit of about BYTES bytes to stdout (geninput_c.c). */
void gen_c(long bytes);

#endif
