/* --stats: counters of the run written at its end, built on the public
 * hooks and elfemu_get_stats() (tools/stats.c). */
#ifndef TOOLS_STATS_H
#define TOOLS_STATS_H

#include <stdbool.h>

#include "elfemu.h"

struct stats_options {
    bool on;                /* --stats */
    bool json;              /* --stats=json: one JSON object */
    const char *file;       /* --stats-file: NULL for stderr */
    bool append;            /* open the file for appending */
};

/* Install the hooks on a loaded VM; program names it in the report.  0, or
 * -1 with a message printed.  The report is written when the program ends
 * (its end hook), whichever thread ends it. */
int stats_begin(elfemu *vm, const struct stats_options *o, const char *program);

#endif
