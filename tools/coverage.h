/* --coverage=FILE: basic-block coverage in the drcov format, built on the
 * public hooks (tools/coverage.c). */
#ifndef TOOLS_COVERAGE_H
#define TOOLS_COVERAGE_H

#include "elfemu.h"

/* Install the hooks on a loaded VM; the file is written when the program
 * ends.  0, or -1 with a message printed (e.g. FILE cannot be created). */
int coverage_begin(elfemu *vm, const char *file);

#endif
