/* Syscall argument counts for the tools (elfemu-view's log), from the
 * --strace formats of syscalls/list.h (the names: api/stats.c). */
#include <string.h>

#include "elfemu.h"
#include "syscalls/syscalls.h"

int elfemu_syscall_nargs(int bits, uint64_t nr)
{
    if (nr >= SYS_TABLE_SIZE || (bits != 64 && bits != 32))
        return -1;
    const char *spec = bits == 64 ? sys_spec_64[nr] : sys_spec_32[nr];
    const char *colon = spec ? strchr(spec, ':') : NULL;
    if (!colon)
        return -1;
    int n = 0;
    for (const char *p = colon + 1; *p; p++) {
        if (*p == 'J') {            /* clone's flags and child_stack */
            n += 2;
        } else if (*p == '_' && p[1]) {
            p++;
            n += *p == 'j' ? 3 : 1; /* clone's parent_tid, child_tid, tls */
        } else {
            n++;
        }
    }
    return n;
}
