/* Command-line options of the elfemu CLI. */
#ifndef TOOLS_OPTIONS_H
#define TOOLS_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "elfemu.h"
#include "tools/stats.h"
#include "tools/trace.h"

struct options {
    elfemu_config cfg;
    bool explain, explain_only;
    const char *argv0;      /* -0: argv[0] for the guest */
    bool execve;            /* --execve: PROGRAM is a path as execve() takes it */
    int close_fd;           /* --close-fd N: close N once PROGRAM is loaded (-1: none) */
    /* The option words a guest execve() passes on to elfemu again, after a
     * free slot [0] for elfemu's own path (cfg.reexec_argv points here). */
    const char **reexec;
    int nreexec;
    char *root;             /* -L DIR made absolute (owned) */
    char **env;             /* the guest's environment (owned) */
    const char *program;    /* PROGRAM as given */
    char **args;            /* PROGRAM's arguments, argv-style, after PROGRAM */
    int nargs;
    struct trace_options trace; /* --trace and its filters */
    struct stats_options stats; /* --stats[=json], --stats-file */
    const char *coverage;   /* --coverage=FILE: drcov output */
};

/* Parse argv; on a usage error prints one line and returns -1, on --help or
 * --version prints and returns 1, else 0. */
int options_parse(struct options *o, int argc, char **argv, char **environ);
void options_usage(FILE *f);
/* Free what options_parse() allocated. */
void options_free(struct options *o);

#endif
