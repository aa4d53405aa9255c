/* elfemu: run a Linux x86_64 or ia32 ELF program in the emulator. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfemu.h"
#include "tools/coverage.h"
#include "tools/exit_like.h"
#include "tools/options.h"
#include "tools/outfile.h"
#include "tools/trace.h"

extern char **environ;

/* Add an option a re-executed elfemu (the guest's execve) gets. */
static void pass_on(struct options *o, const char *opt, const char *val)
{
    const char **v = realloc(o->reexec, (size_t)(o->nreexec + 3) * sizeof(*v));
    if (!v)
        return;
    v[o->nreexec++] = opt;
    v[o->nreexec++] = val;
    v[o->nreexec] = NULL;
    o->reexec = v;
    o->cfg.reexec_argv = v;
}

int main(int argc, char **argv)
{
    /* Our own binary, before anything can change what /proc/self/exe is:
     * a guest's execve runs the new program under it again. */
    static char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = 0;
    struct options o;
    int r = options_parse(&o, argc, argv, environ);
    if (r != 0) {
        options_free(&o);
        return r > 0 ? 0 : 2;
    }
    /* Without our path the guest's execve fails (ENOSYS) rather than
     * running the new program outside the emulator. */
    if (n > 0)
        o.reexec[0] = self;
    else
        o.cfg.reexec_argv = NULL;
    /* --trace shares --trace-file with --strace; a re-executed elfemu (the
     * guest's execve) appends to it, found from any directory. */
    static char trace_path[PATH_MAX], stats_path[PATH_MAX];
    if (o.trace.on && o.cfg.trace_file) {
        outfile_absolute(o.cfg.trace_file, trace_path, sizeof(trace_path));
        o.trace.file = trace_path;
        /* --strace opened (and truncated) it already. */
        o.trace.append = o.cfg.trace_append || o.cfg.strace;
        if (!o.cfg.strace && n > 0)
            pass_on(&o, "--trace-file-append", trace_path);
    }
    /* Likewise the --stats file: every process of the tree reports into it. */
    if (o.stats.on && o.stats.file) {
        outfile_absolute(o.stats.file, stats_path, sizeof(stats_path));
        o.stats.file = stats_path;
        if (n > 0)
            pass_on(&o, "--stats-file-append", stats_path);
    }
    /* A guest's execve names the program exactly: no $PATH search. */
    char *path = o.execve ? strdup(o.program) : elfemu_find_program_in(o.program, o.cfg.sysroot);
    char **gargv = calloc((size_t)o.nargs + 2, sizeof(char *));
    elfemu *vm = elfemu_create(&o.cfg);
    int status = 1;
    elfemu_exit x = { false, 0 };
    bool ran = false;
    if (!vm && errno != ENOMEM && o.cfg.strace && o.cfg.trace_file) {
        fprintf(stderr, "elfemu: cannot open the trace file %s: %s\n", o.cfg.trace_file,
                strerror(errno));
        goto out;
    }
    if (!path || !gargv || !vm) {
        fprintf(stderr, "elfemu: out of memory\n");
        goto out;
    }
    gargv[0] = (char *)(o.argv0 ? o.argv0 : o.program);
    for (int i = 0; i < o.nargs; i++)
        gargv[i + 1] = o.args[i];
    elfemu_error err;
    int loaded = elfemu_load(vm, path, gargv, o.env, &err);
    if (o.close_fd >= 0) /* kept open over the execve only for the loader */
        close(o.close_fd);
    if (loaded != 0) {
        fprintf(stderr, "elfemu: %s\n", err.message);
        status = err.status;
        goto out;
    }
    if (o.explain) {
        elfemu_explain(vm, stdout);
        if (o.explain_only) {
            status = 0;
            goto out;
        }
        printf("Running it:\n");
        fflush(stdout);
    }
    if (o.stats.on && stats_begin(vm, &o.stats, o.program) != 0)
        goto out;
    if (o.coverage && coverage_begin(vm, o.coverage) != 0)
        goto out;
    if (o.trace.on && trace_begin(vm, &o.trace) != 0)
        goto out;
    if (elfemu_run(vm, &x) != 0) {
        fprintf(stderr, "elfemu: internal error: the guest could not be run\n");
        goto out;
    }
    ran = true;
    if (o.trace.on)
        trace_end(vm);
out:
    elfemu_destroy(vm);
    free(gargv);
    free(path);
    options_free(&o);
    if (ran)
        exit_like(&x);
    return status;
}
