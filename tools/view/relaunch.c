/* elfemu-view: a guest's execve starts the viewer again on the new program.
 *
 * A guest's execve is a host execve, as under elfemu (syscalls/exec.c):
 * the library checks everything the kernel checks, then re-executes the
 * program named by elfemu_config.reexec_argv with the guest's program,
 * argv and environment.  Here that program is elfemu-view itself, with the
 * options it was started with, so the viewed process's new program comes
 * up in a new window of the same size (or the same --screenshot run goes
 * on with it), showing the new image -- its memory map and the initial
 * stack the loader built for it -- while everything execve does to a
 * process is exactly what it does under elfemu: close-on-exec descriptors
 * closed, signal dispositions reset, the other threads gone, the same pid.
 *
 * Two things travel in the words besides the options: --view-pid, the
 * process the window is for (the execve of a forked child -- another pid
 * -- runs its program without a window, as elfemu would), and --view-env,
 * the viewer's own display variables: the new process's environment is the
 * guest's, which need not have them. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/exit_like.h"
#include "tools/outfile.h"
#include "tools/view/relaunch.h"

extern char **environ;

/* What the viewer (SDL, its font) reads from its environment. */
static bool display_var(const char *e)
{
    static const char *const names[] = { "DISPLAY=", "WAYLAND_DISPLAY=", "XAUTHORITY=",
                                         "XDG_RUNTIME_DIR=", "HOME=", "ELFEMU_VIEW_FONT=",
                                         "SDL_", NULL };
    for (const char *const *n = names; *n; n++)
        if (!strncmp(e, *n, strlen(*n)))
            return true;
    return false;
}

static int add_view_env(struct view_options *o, const char *e)
{
    const char **v = realloc(o->view_env, (size_t)(o->nview_env + 1) * sizeof(*v));
    if (!v)
        return -1;
    o->view_env = v;
    v[o->nview_env++] = e;
    return 0;
}

int relaunch_option(struct view_options *o, const char *a, const char *val, int *i)
{
    static const char *const valued[] = { "--exec-rlimits", "--close-fd", "--view-pid",
                                          "--view-env", NULL };
    bool wants_value = false;
    for (const char *const *v = valued; *v; v++)
        wants_value = wants_value || !strcmp(a, *v);
    if (wants_value && !val) {
        fprintf(stderr, "elfemu-view: %s needs a value\n", a);
        return -1;
    }
    char *end;
    if (!strcmp(a, "--execve")) {
        o->execve = true;
    } else if (!strcmp(a, "--strace")) {
        /* The library passes its --strace on: the viewer traces anyway. */
    } else if (!strcmp(a, "--trace-pids")) {
        o->cfg.trace_pids = true;
    } else if (!strcmp(a, "--exec-rlimits")) {
        o->cfg.exec_rlimits = val;
    } else if (!strcmp(a, "--close-fd")) {
        long fd = strtol(val, &end, 10);
        if (*end || fd < 0 || fd > 0x7fffffff) {
            fprintf(stderr, "elfemu-view: --close-fd needs a descriptor number\n");
            return -1;
        }
        o->close_fd = (int)fd;
    } else if (!strcmp(a, "--view-pid")) {
        long pid = strtol(val, &end, 10);
        if (*end || pid <= 0) {
            fprintf(stderr, "elfemu-view: --view-pid needs a process id\n");
            return -1;
        }
        o->view_pid = (pid_t)pid;
    } else if (!strcmp(a, "--view-env")) {
        if (!strchr(val, '=') || add_view_env(o, val) != 0) {
            fprintf(stderr, "elfemu-view: --view-env wants VAR=VALUE\n");
            return -1;
        }
    } else {
        return 0;
    }
    if (wants_value)
        ++*i;
    return 1;
}

/* Words are kept until the viewer ends (elfemu_create() copies them). */
static char *kept[16];
static int nkept;

static const char *keep(const char *s)
{
    char *c = nkept < 16 ? strdup(s) : NULL;
    if (c)
        kept[nkept++] = c;
    return c;
}

static const char *absolute(const char *path)
{
    char buf[PATH_MAX];
    outfile_absolute(path, buf, sizeof(buf));
    return keep(buf);
}

int relaunch_prepare(struct view_options *o)
{
    if (o->execve) {
        /* Our display, in our own environment (the guest's was captured). */
        for (int i = 0; i < o->nview_env; i++) {
            char name[256];
            size_t len = strcspn(o->view_env[i], "=");
            snprintf(name, sizeof(name), "%.*s", (int)len, o->view_env[i]);
            setenv(name, o->view_env[i] + len + 1, 1);
        }
    } else {
        o->view_pid = getpid();
        for (char **e = environ; *e; e++)
            if (display_var(*e) && add_view_env(o, *e) != 0)
                return -1;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 0; /* no way back in: the guest's execve fails (ENOSYS) */
    self[n] = 0;
    const char **w = calloc((size_t)(2 * o->nview_env + 32), sizeof(*w));
    if (!w)
        return -1;
    o->words = w;
    int k = 0;
    char number[32];
    w[k++] = keep(self);
    snprintf(number, sizeof(number), "%d", (int)o->view_pid);
    w[k++] = "--view-pid", w[k++] = keep(number);
    for (int i = 0; i < o->nview_env; i++)
        w[k++] = "--view-env", w[k++] = o->view_env[i];
    if (o->cfg.sysroot) {
        char *root = realpath(o->cfg.sysroot, NULL);
        w[k++] = "-L", w[k++] = keep(root ? root : o->cfg.sysroot);
        free(root);
    }
    if (o->seed_word)
        w[k++] = "--seed", w[k++] = o->seed_word;
    if (o->cfg.aslr)
        w[k++] = "--aslr";
    snprintf(number, sizeof(number), "%dx%d", o->width, o->height);
    w[k++] = "--size", w[k++] = keep(number);
    w[k++] = "--font", w[k++] = absolute(o->font);
    snprintf(number, sizeof(number), "%d", o->font_size);
    w[k++] = "--font-size", w[k++] = keep(number);
    w[k++] = "--at", w[k++] = o->at;
    if (o->script)
        w[k++] = "--script", w[k++] = o->script;
    if (o->screenshot)
        w[k++] = "--screenshot", w[k++] = absolute(o->screenshot);
    if (o->state_file)
        w[k++] = "--state-file", w[k++] = absolute(o->state_file);
    for (int i = 0; i < k; i++)
        if (!w[i])
            return -1;
    o->cfg.reexec_argv = w;
    return 0;
}

bool relaunch_detached(const struct view_options *o)
{
    return o->execve && o->view_pid && o->view_pid != getpid();
}

int relaunch_run_windowless(struct view_options *o, const char *path, char **argv)
{
    elfemu *vm = elfemu_create(&o->cfg);
    if (!vm) {
        fprintf(stderr, "elfemu-view: out of memory\n");
        return 1;
    }
    elfemu_error err;
    int loaded = elfemu_load(vm, path, argv, o->env, &err);
    if (o->close_fd >= 0) /* kept open over the execve only for the loader */
        close(o->close_fd);
    if (loaded != 0) {
        fprintf(stderr, "elfemu-view: %s\n", err.message);
        elfemu_destroy(vm);
        return err.status;
    }
    elfemu_exit x;
    if (elfemu_run(vm, &x) != 0) {
        fprintf(stderr, "elfemu-view: internal error: the guest could not be run\n");
        elfemu_destroy(vm);
        return 1;
    }
    exit_like(&x);
}
