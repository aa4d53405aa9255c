/* elfemu-view: the command line (parsed in main.c; relaunch.c passes it
 * on to the viewer a guest's execve starts). */
#ifndef TOOLS_VIEW_OPTIONS_H
#define TOOLS_VIEW_OPTIONS_H

#include <stdbool.h>
#include <sys/types.h>

#include "elfemu.h"

struct view_options {
    elfemu_config cfg;
    const char *screenshot, *at, *script, *state_file, *font, *argv0, *seed_word;
    int width, height, font_size;
    char **env;
    int nenv;
    const char *program;
    char **args;
    int nargs;
    /* Started by a guest's execve (relaunch.c): --execve, --close-fd,
     * --view-pid (the viewed process: the one the window is for) and the
     * --view-env variables of the viewer itself (its display). */
    bool execve;
    int close_fd;
    pid_t view_pid;
    const char **view_env;
    int nview_env;
    const char **words;         /* cfg.reexec_argv */
};

#endif
