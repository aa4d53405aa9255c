/* Parsing elfemu's command line, in the spirit of qemu-user's options.
 * Options come before PROGRAM; everything after PROGRAM belongs to it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syscalls/exec_env.h"
#include "tools/options.h"

void options_usage(FILE *f)
{
    fputs("usage: elfemu [options] PROGRAM [ARGS...]\n"
          "Run a Linux x86_64 or ia32 ELF program (or #! script) in the emulator.\n\n"
          "  -L, --root DIR     a foreign root: every path the guest names (interpreter,\n"
          "                     libraries, open, exec, stat...) is looked up in DIR\n"
          "                     first, the host's used when DIR lacks it\n"
          "  -E VAR=VALUE[,VAR=VALUE...]\n"
          "                     set variables in the guest's environment\n"
          "  -U VAR[,VAR...]    remove variables from the guest's environment\n"
          "  -0 ARGV0           pass ARGV0 as argv[0] instead of PROGRAM\n"
          "  --explain          describe what the loader did and draw the initial stack,\n"
          "                     then run the program\n"
          "  --explain-only     the same, without running the program\n"
          "  --seed N           make every random thing (AT_RANDOM, --aslr offsets)\n"
          "                     reproducible from the number N\n"
          "  --aslr             randomise the layout like Linux (default: deterministic)\n"
          "  --strace           show every syscall in strace's style (to stderr)\n"
          "  --trace[=mem]      show every executed instruction: number, thread (when\n"
          "                     there are several), address, symbol+offset, bytes,\n"
          "                     disassembly, the registers and flags it changed;\n"
          "                     =mem adds each memory access (size, address, value)\n"
          "  --syntax=intel|att the disassembly's syntax (default intel)\n"
          "  --trace-range=LO-HI  only instructions at addresses LO <= a < HI\n"
          "  --trace-sym=NAME   only while inside function NAME and what it calls\n"
          "  --trace-start=N    from the Nth executed instruction on (the first is 1)\n"
          "  --trace-count=N    at most N instruction lines, then run at full speed\n"
          "  --trace-file FILE  write the --strace and --trace lines to FILE instead\n"
          "                     of stderr (truncated)\n"
          "  --trace-file-append FILE\n"
          "                     the same, appending (what elfemu passes itself when the\n"
          "                     guest calls execve, so one file holds the whole tree)\n"
          "  --execve           (internal) PROGRAM is a path taken as execve() takes it,\n"
          "                     not searched in $PATH; used when a guest execs\n"
          "  --close-fd N       (internal) close descriptor N once PROGRAM is loaded\n"
          "  --exec-rlimits L   (internal) the guest's RLIMIT_AS and RLIMIT_DATA\n"
          "  --trace-pids       prefix every --strace line with the pid from the start\n"
          "                     (passed on execve once the guest has forked)\n"
          "  --stats[=json]     at the end, what the run did: instructions, wall time,\n"
          "                     MIPS, blocks decoded and executed, SMC invalidations,\n"
          "                     syscalls by name, the top mnemonics and functions;\n"
          "                     =json: as one JSON object (to stderr)\n"
          "  --stats-file FILE  write the --stats report to FILE (truncated), not stderr\n"
          "  --stats-file-append FILE\n"
          "                     the same, appending (passed on when the guest execs)\n"
          "  --coverage FILE    write the basic blocks the program ran to FILE in the\n"
          "                     drcov format (modules: the program, ld.so, every shared\n"
          "                     object, the vDSO)\n"
          "  -h, --help         show this help\n"
          "  --version          show the version\n",
          f);
}

static int env_find(char **env, const char *name, size_t len)
{
    for (int i = 0; env[i]; i++)
        if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
            return i;
    return -1;
}

static int env_unset(char **env, const char *name)
{
    int i = env_find(env, name, strlen(name));
    if (i < 0)
        return 0;
    free(env[i]);
    for (; env[i]; i++)
        env[i] = env[i + 1];
    return 0;
}

static char **env_set(char **env, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    int i = env_find(env, assignment, (size_t)(eq - assignment));
    char *copy = strdup(assignment);
    if (!copy)
        return NULL;
    if (i >= 0) {
        free(env[i]);
        env[i] = copy;
        return env;
    }
    int n = 0;
    while (env[n])
        n++;
    char **e = realloc(env, (size_t)(n + 2) * sizeof(*e));
    if (!e)
        return NULL;
    e[n] = copy;
    e[n + 1] = NULL;
    return e;
}

/* Remember option words a guest's execve must pass on (cfg.reexec_argv). */
static int keep(struct options *o, const char *w1, const char *w2)
{
    const char **v = realloc(o->reexec, (size_t)(o->nreexec + 3) * sizeof(*v));
    if (!v)
        return -1;
    o->reexec = v;
    v[o->nreexec++] = w1;
    if (w2)
        v[o->nreexec++] = w2;
    v[o->nreexec] = NULL;
    o->cfg.reexec_argv = v;
    return 0;
}

static int fail(const char *msg, const char *arg)
{
    fprintf(stderr, "elfemu: %s%s%s (try --help)\n", msg, arg ? ": " : "", arg ? arg : "");
    return -1;
}

/* -E VAR=VALUE[,VAR=VALUE...] (set) or -U VAR[,VAR...] (unset). */
static int env_list(struct options *o, bool set, const char *list)
{
    char *copy = strdup(list);
    if (!copy)
        return fail("out of memory", NULL);
    int r = 0;
    char *p = copy, *tok;
    while (r == 0 && (tok = strsep(&p, ",")) != NULL) {
        if (set && (!strchr(tok, '=') || tok[0] == '='))
            r = fail("-E needs VAR=VALUE", tok);
        else if (!set && (!*tok || strchr(tok, '=')))
            r = fail("-U needs a variable name", tok);
        else if (set && !(o->env = env_set(o->env, tok)))
            r = fail("out of memory", NULL);
        else if (!set)
            env_unset(o->env, tok);
    }
    free(copy);
    return r;
}

static int number(const char *opt, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    *out = strtoull(s, &end, 0);
    if (errno || *end || !*s || *s == '-')
        return fail("not a number", opt);
    return 0;
}

/* --trace[=mem], --syntax=intel|att, --trace-range=LO-HI, --trace-sym=NAME,
 * --trace-start=N, --trace-count=N (each also as "--opt VALUE").  They are
 * passed on to a re-executed elfemu (the guest's execve). */
static int trace_option(struct options *o, const char *a, const char *next, int *i)
{
    struct trace_options *t = &o->trace;
    const char *eq = strchr(a, '=');
    size_t name_len = eq ? (size_t)(eq - a) : strlen(a);
    const char *val = eq ? eq + 1 : NULL;
    if (name_len == 7) { /* --trace */
        if (val && strcmp(val, "mem"))
            return fail("--trace takes only =mem", a);
        t->on = true;
        t->mem |= val != NULL;
        return keep(o, a, NULL) != 0 ? fail("out of memory", NULL) : 0;
    }
    static const char *const names[] = { "--syntax", "--trace-range", "--trace-sym",
                                         "--trace-start", "--trace-count" };
    unsigned k = 0;
    while (k < 5 && (strlen(names[k]) != name_len || strncmp(a, names[k], name_len)))
        k++;
    if (k == 5)
        return fail("unknown option", a);
    if (!val) {
        if (!next)
            return fail("option needs a value", a);
        val = next;
        (*i)++;
    }
    switch (k) {
    case 0:
        if (strcmp(val, "intel") && strcmp(val, "att"))
            return fail("--syntax is intel or att", val);
        t->att = !strcmp(val, "att");
        break;
    case 1: {
        const char *dash = strchr(val, '-');
        char lo[64];
        if (!dash || (size_t)(dash - val) >= sizeof(lo))
            return fail("--trace-range needs LO-HI", val);
        memcpy(lo, val, (size_t)(dash - val));
        lo[dash - val] = 0;
        if (number("--trace-range", lo, &t->range_lo) || number("--trace-range", dash + 1, &t->range_hi))
            return -1;
        if (t->range_hi <= t->range_lo)
            return fail("--trace-range: empty range", val);
        t->have_range = true;
        break;
    }
    case 2:
        if (!*val)
            return fail("--trace-sym needs a name", NULL);
        t->sym = val;
        break;
    case 3:
        if (number("--trace-start", val, &t->start))
            return -1;
        break;
    case 4:
        if (number("--trace-count", val, &t->count))
            return -1;
        if (t->count == 0)
            return fail("--trace-count must be at least 1", val);
        break;
    }
    return keep(o, names[k], val) != 0 ? fail("out of memory", NULL) : 0;
}

/* NAME FILE, NAME=FILE or NAME-append FILE (name e.g. "--trace-file"):
 * the file and whether to append to it.  1 when a is none of them, 0 when
 * it was one, -1 on a usage error. */
static int file_option(const char *name, const char *a, const char *next, int *i,
                       const char **file, bool *append)
{
    size_t n = strlen(name);
    bool inline_val = !strncmp(a, name, n) && a[n] == '=';
    bool app = !strncmp(a, name, n) && !strcmp(a + n, "-append");
    if (!inline_val && !app && strcmp(a, name))
        return 1;
    const char *val = inline_val ? a + n + 1 : next;
    if (!val || !*val) {
        fprintf(stderr, "elfemu: %s needs a file name (try --help)\n", name);
        return -1;
    }
    *file = val;
    *append = app;
    if (!inline_val)
        (*i)++;
    return 0;
}

int options_parse(struct options *o, int argc, char **argv, char **environ)
{
    memset(o, 0, sizeof(*o));
    elfemu_config_init(&o->cfg);
    o->close_fd = -1;
    /* Slot 0 is elfemu's own path, filled in by the caller. */
    if (keep(o, "", NULL) != 0)
        return fail("out of memory", NULL);
    int n = 0;
    while (environ && environ[n])
        n++;
    o->env = calloc((size_t)n + 1, sizeof(char *));
    if (!o->env)
        return fail("out of memory", NULL);
    for (int i = 0; i < n; i++)
        if (!(o->env[i] = strdup(environ[i])))
            return fail("out of memory", NULL);

    int i = 1, r;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            options_usage(stdout);
            return 1;
        } else if (!strcmp(a, "--version")) {
            printf("elfemu 0.1\n");
            return 1;
        } else if (!strcmp(a, "--explain")) {
            o->explain = true;
        } else if (!strcmp(a, "--explain-only")) {
            o->explain = o->explain_only = true;
        } else if (!strcmp(a, "--aslr")) {
            o->cfg.aslr = true;
            if (keep(o, a, NULL) != 0)
                return fail("out of memory", NULL);
        } else if (!strcmp(a, "--strace")) {
            /* passed on to a re-executed elfemu by strace_reexec_args() */
            o->cfg.strace = true;
        } else if (!strcmp(a, "--trace-pids")) {
            o->cfg.trace_pids = true;
        } else if ((r = file_option("--trace-file", a, val, &i, &o->cfg.trace_file,
                                    &o->cfg.trace_append)) <= 0) {
            if (r < 0)
                return -1;
        } else if (!strcmp(a, "--stats") || !strcmp(a, "--stats=json")) {
            o->stats.on = true;
            o->stats.json = a[7] == '=';
            if (keep(o, a, NULL) != 0)
                return fail("out of memory", NULL);
        } else if (!strcmp(a, "--coverage") || !strncmp(a, "--coverage=", 11)) {
            const char *f = a[10] == '=' ? a + 11 : val;
            if (!f || !*f)
                return fail("--coverage needs a file name", NULL);
            o->coverage = f;
            if (a[10] != '=')
                i++;
        } else if (!strncmp(a, "--stats=", 8)) {
            return fail("--stats takes only =json", a);
        } else if ((r = file_option("--stats-file", a, val, &i, &o->stats.file,
                                    &o->stats.append)) <= 0) {
            if (r < 0)
                return -1;
        } else if (!strncmp(a, "--trace", 7) || !strncmp(a, "--syntax", 8)) {
            if (trace_option(o, a, val, &i) != 0)
                return -1;
        } else if (!strcmp(a, "--exec-rlimits")) {
            if (!val)
                return fail("--exec-rlimits needs a value", NULL);
            o->cfg.exec_rlimits = val;
            i++;
        } else if (!strcmp(a, "--execve")) {
            o->execve = true;
        } else if (!strcmp(a, "--close-fd")) {
            char *end;
            long fd = val ? strtol(val, &end, 10) : -1;
            if (!val || *end || fd < 0 || fd > 0x7fffffff)
                return fail("--close-fd needs a descriptor number", val);
            o->close_fd = (int)fd;
            i++;
        } else if (!strcmp(a, "--seed") || !strncmp(a, "--seed=", 7)) {
            const char *s = a[6] == '=' ? a + 7 : val;
            if (!s)
                return fail("--seed needs a number", NULL);
            char *end;
            errno = 0;
            o->cfg.seed = strtoull(s, &end, 0);
            if (errno || *end || !*s)
                return fail("--seed: not a number", s);
            o->cfg.have_seed = true;
            if (keep(o, "--seed", s) != 0)
                return fail("out of memory", NULL);
            if (a[6] != '=')
                i++;
        } else if (!strcmp(a, "-L") || !strcmp(a, "--root")) {
            if (!val)
                return fail("-L needs a directory", NULL);
            /* Absolute, so that a guest's execve after a chdir finds it too. */
            free(o->root);
            o->root = realpath(val, NULL);
            o->cfg.sysroot = o->root ? o->root : val;
            if (keep(o, "-L", o->cfg.sysroot) != 0)
                return fail("out of memory", NULL);
            i++;
        } else if (!strcmp(a, "-E") || !strcmp(a, "-U")) {
            /* As qemu-user: a comma-separated list of VAR=VALUE / VAR. */
            if (!val)
                return fail(a[1] == 'E' ? "-E needs VAR=VALUE" : "-U needs a variable name",
                            NULL);
            if (env_list(o, a[1] == 'E', val) != 0)
                return -1;
            i++;
        } else if (!strcmp(a, "-0")) {
            if (!val)
                return fail("-0 needs an argument", NULL);
            o->argv0 = val;
            i++;
        } else {
            return fail("unknown option", a);
        }
    }
    if (o->execve) {
        /* A guest's execve (exec_env.h): the loader's variables are not the
         * guest's; the guest's own arrive hidden, in place. */
        exec_env_unhide(o->env, true);
    }
    if (i >= argc)
        return fail("no PROGRAM given", NULL);
    o->program = argv[i];
    o->args = argv + i + 1;
    o->nargs = argc - i - 1;
    return 0;
}

void options_free(struct options *o)
{
    for (int i = 0; o->env && o->env[i]; i++)
        free(o->env[i]);
    free(o->env);
    o->env = NULL;
    free(o->reexec);
    o->reexec = NULL;
    free(o->root);
    o->root = NULL;
    o->cfg.reexec_argv = NULL;
}
