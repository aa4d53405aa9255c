/* The guest's environment across a re-execution of elfemu (exec.c sends,
 * tools/options.c receives).
 *
 * The guest's envp becomes the host environment of the new elfemu, but the
 * host's dynamic loader and libc act on some variables while they load
 * elfemu itself (LD_PRELOAD, LD_LIBRARY_PATH, LD_TRACE_LOADED_OBJECTS,
 * GLIBC_TUNABLES...): under `ldd` the new elfemu would list its own
 * libraries instead of running the guest.  So those guest entries travel
 * with EXEC_ENV_HIDE in front of them, in place (the order the guest sees
 * stays), and the loader gets instead the ones the first elfemu was started
 * with, appended.  The new elfemu drops those and strips the prefix from
 * the others (exec_env_unhide()).  A guest entry that already starts with the prefix is hidden
 * too, so it arrives unchanged. */
#ifndef SYSCALLS_EXEC_ENV_H
#define SYSCALLS_EXEC_ENV_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define EXEC_ENV_HIDE "ELFEMU_GUEST_ENV_"

/* A NAME=VALUE entry the host's loader or libc reads at start-up. */
static inline bool exec_env_loader_var(const char *e)
{
    return strncmp(e, "LD_", 3) == 0 || strncmp(e, "GLIBC_TUNABLES=", 15) == 0;
}

static inline bool exec_env_hidden(const char *e)
{
    return strncmp(e, EXEC_ENV_HIDE, sizeof(EXEC_ENV_HIDE) - 1) == 0;
}

/* The receiving side (elfemu and elfemu-view started by a guest's
 * execve): drop the loader's entries from env and strip the prefix from
 * the hidden ones, in place; dropped entries are freed when free_dropped. */
static inline void exec_env_unhide(char **env, bool free_dropped)
{
    int k = 0;
    for (int j = 0; env[j]; j++) {
        char *e = env[j];
        if (exec_env_hidden(e)) {
            memmove(e, e + sizeof(EXEC_ENV_HIDE) - 1,
                    strlen(e) - (sizeof(EXEC_ENV_HIDE) - 1) + 1);
        } else if (exec_env_loader_var(e)) {
            if (free_dropped)
                free(e);
            continue;
        }
        env[k++] = e;
    }
    env[k] = NULL;
}

#endif
