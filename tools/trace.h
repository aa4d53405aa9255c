/* --trace: one line per executed instruction, built on the public hooks
 * (tools/trace.c). */
#ifndef TOOLS_TRACE_H
#define TOOLS_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "elfemu.h"

struct trace_options {
    bool on;                /* --trace */
    bool mem;               /* --trace=mem: each memory access too */
    bool att;               /* --syntax=att (default intel) */
    bool have_range;        /* --trace-range=LO-HI: only addresses in [LO, HI) */
    uint64_t range_lo, range_hi;
    const char *sym;        /* --trace-sym=NAME: only inside NAME and its callees */
    uint64_t start;         /* --trace-start=N: from instruction number N (1 = first) */
    uint64_t count;         /* --trace-count=N: at most N lines (0: no limit) */
    const char *file;       /* --trace-file: NULL for stderr */
    bool append;            /* open the file for appending */
};

/* Install the hooks on a loaded VM; 0, or -1 with a message printed. */
int trace_begin(elfemu *vm, const struct trace_options *o);

/* The run is over: the last lines, and the output flushed and closed. */
void trace_end(elfemu *vm);

#endif
