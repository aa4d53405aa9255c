/* End the tool's process the way the guest ended (tools/exit_like.c). */
#ifndef TOOLS_EXIT_LIKE_H
#define TOOLS_EXIT_LIKE_H

#include "elfemu.h"

/* Exit with the guest's status, or die of its signal (no core file), so
 * that our parent sees exactly what it would have seen natively. */
__attribute__((noreturn)) void exit_like(const elfemu_exit *x);

#endif
