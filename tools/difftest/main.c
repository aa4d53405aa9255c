/* elfemu-difftest: run a program in the emulator and, in lockstep, natively
 * under ptrace; stop at the first instruction where they disagree.
 *
 *   elfemu-difftest [options] PROGRAM [ARGS...]
 *   elfemu-difftest [options] --fuzz SEED COUNT
 *
 * Exit status: 0 no mismatch, 1 mismatch, 2 an instruction the emulator
 * does not implement, 3 difftest could not run, 64 usage, 126/127 like a
 * shell when PROGRAM cannot be loaded. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/difftest/difftest.h"

extern char **environ;

static void usage(FILE *f)
{
    fputs("usage: elfemu-difftest [options] PROGRAM [ARGS...]\n"
          "       elfemu-difftest [options] --fuzz SEED COUNT\n"
          "Run PROGRAM in the emulator and natively (single-stepped under ptrace) side by\n"
          "side, comparing the state after every instruction; stop at the first difference.\n\n"
          "  --fp-interval=N   compare x87/SSE state and written memory every N instructions\n"
          "                    (default 1; 0: never)\n"
          "  --fp-all          compare x87/SSE state after every instruction, not only\n"
          "                    after those that can change it\n"
          "  --max=N           stop after N instructions\n"
          "  --start=N         compare only from instruction N on (both sides still step)\n"
          "  --full-sync       after every system call copy all changed writable memory\n"
          "  -q, --quiet       no summary line when nothing differs\n"
          "  -v, --verbose     log every replayed system call\n"
          "  --seed N          the emulator's seed for AT_RANDOM (default 0)\n"
          "  -L, --root DIR    interpreter sysroot, as for elfemu\n"
          "  -E VAR=VALUE      set VAR in the guest's environment\n"
          "  -U VAR            remove VAR from the guest's environment\n"
          "  -0 ARGV0          pass ARGV0 as argv[0]\n"
          "  --fuzz SEED COUNT run COUNT generated programs of random instructions instead\n"
          "                    of PROGRAM (case k uses seed SEED+k; a failing case is kept\n"
          "                    as elfemu-difftest-fuzz-SEED.elf in the current directory)\n"
          "  --fuzz-len=N      random instructions per generated program (default 48)\n"
          "  --keep-going      with --fuzz: report every failing case, not just the first\n"
          "  -h, --help        this help\n\n"
          "Exit status: 0 no mismatch, 1 mismatch, 2 unimplemented instruction in the\n"
          "emulator, 3 difftest could not run, 64 usage error, 126/127 not loadable.\n",
          f);
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "elfemu-difftest: %s%s%s (try --help)\n", msg, arg ? ": " : "",
            arg ? arg : "");
    return -1;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return false;
    *out = strtoull(s, &end, 0);
    return !errno && !*end;
}

/* The guest's environment: a copy of ours, changed by -E and -U. */
struct env {
    char **v;
    size_t n;
};

static int env_index(const struct env *e, const char *name, size_t len)
{
    for (size_t i = 0; i < e->n; i++)
        if (!strncmp(e->v[i], name, len) && e->v[i][len] == '=')
            return (int)i;
    return -1;
}

static bool env_set(struct env *e, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    int i = env_index(e, assignment, (size_t)(eq - assignment));
    if (i >= 0) {
        e->v[i] = (char *)assignment;
        return true;
    }
    char **v = realloc(e->v, (e->n + 2) * sizeof(*v));
    if (!v)
        return false;
    e->v = v;
    e->v[e->n++] = (char *)assignment;
    e->v[e->n] = NULL;
    return true;
}

static void env_unset(struct env *e, const char *name)
{
    int i = env_index(e, name, strlen(name));
    if (i < 0)
        return;
    memmove(&e->v[i], &e->v[i + 1], (e->n - (size_t)i) * sizeof(*e->v));
    e->n--;
}

struct cmdline {
    struct dt_options o;
    elfemu_config cfg;
    struct env env;
    const char *argv0;
    char **prog;        /* PROGRAM and its arguments */
    bool fuzz;
    uint64_t fuzz_seed, fuzz_count, fuzz_len;
};

static int parse(struct cmdline *c, int argc, char **argv)
{
    memset(c, 0, sizeof(*c));
    c->o.fp_interval = 1;
    elfemu_config_init(&c->cfg);
    c->cfg.have_seed = true;
    c->cfg.log_unimplemented = false;
    while (environ && environ[c->env.n])
        c->env.n++;
    c->env.v = calloc(c->env.n + 1, sizeof(char *));
    if (!c->env.v)
        return usage_error("out of memory", NULL);
    memcpy(c->env.v, environ, c->env.n * sizeof(char *));

    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
#define OPT(name) (nl == strlen(name) && !strncmp(a, name, nl))
        /* Options with a value take it after '=' or as the next word. */
#define VALUE() (eq ? eq + 1 : (i++, val))
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        } else if (!strcmp(a, "--version")) {
            printf("elfemu-difftest 0.1\n");
            return 1;
        } else if (OPT("--fp-interval") || OPT("--max") || OPT("--start") || OPT("--seed")) {
            const char *v = VALUE();
            uint64_t x;
            if (!parse_u64(v, &x))
                return usage_error("expected a number for", a);
            if (OPT("--fp-interval"))
                c->o.fp_interval = x;
            else if (OPT("--max"))
                c->o.max = x;
            else if (OPT("--start"))
                c->o.start = x;
            else
                c->cfg.seed = x;
        } else if (!strcmp(a, "--fuzz")) {
            if (i + 2 >= argc || !parse_u64(argv[i + 1], &c->fuzz_seed) ||
                !parse_u64(argv[i + 2], &c->fuzz_count))
                return usage_error("--fuzz needs SEED and COUNT", NULL);
            c->fuzz = true;
            i += 2;
        } else if (OPT("--fuzz-len")) {
            const char *v = VALUE();
            if (!parse_u64(v, &c->fuzz_len) || c->fuzz_len == 0 || c->fuzz_len > 400)
                return usage_error("--fuzz-len needs a number from 1 to 400", v);
        } else if (!strcmp(a, "--fp-all")) {
            c->o.fp_all = true;
        } else if (!strcmp(a, "--keep-going")) {
            c->o.keep_going = true;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            c->o.quiet = true;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            c->o.verbose = true;
        } else if (!strcmp(a, "--full-sync")) {
            c->o.full_sync = true;
        } else if (!strcmp(a, "-L") || OPT("--root")) {
            const char *v = VALUE();
            if (!v)
                return usage_error("-L needs a directory", NULL);
            c->cfg.sysroot = v;
        } else if (!strcmp(a, "-E")) {
            if (!val || !strchr(val, '=') || val[0] == '=')
                return usage_error("-E needs VAR=VALUE", val);
            if (!env_set(&c->env, val))
                return usage_error("out of memory", NULL);
            i++;
        } else if (!strcmp(a, "-U")) {
            if (!val)
                return usage_error("-U needs a variable name", NULL);
            env_unset(&c->env, val);
            i++;
        } else if (!strcmp(a, "-0")) {
            if (!val)
                return usage_error("-0 needs an argument", NULL);
            c->argv0 = val;
            i++;
        } else {
            return usage_error("unknown option", a);
        }
#undef OPT
#undef VALUE
    }
    if (c->fuzz) {
        if (i < argc)
            return usage_error("--fuzz takes no PROGRAM", argv[i]);
        return 0;
    }
    if (i >= argc)
        return usage_error("no PROGRAM given", NULL);
    c->prog = argv + i;
    return 0;
}

int main(int argc, char **argv)
{
    struct cmdline c;
    int r = parse(&c, argc, argv);
    if (r != 0) {
        free(c.env.v);
        return r > 0 ? 0 : DT_EXIT_USAGE;
    }
    signal(SIGPIPE, SIG_IGN);
    if (c.fuzz) {
        int st = dt_fuzz(c.fuzz_seed, c.fuzz_count, c.fuzz_len ? (unsigned)c.fuzz_len : 48, &c.o);
        free(c.env.v);
        return st;
    }
    char *path = elfemu_find_program(c.prog[0]);
    if (!path) {
        free(c.env.v);
        return DT_EXIT_ERROR;
    }
    if (c.argv0)
        c.prog[0] = (char *)c.argv0;

    /* The child first: it must not inherit the emulator's guest-space reservation. */
    struct native n;
    int status = DT_EXIT_ERROR;
    elfemu *vm = NULL;
    if (native_spawn(&n) != 0)
        goto out;
    vm = elfemu_create(&c.cfg);
    if (!vm) {
        fprintf(stderr, "elfemu-difftest: out of memory\n");
        goto out;
    }
    elfemu_error err;
    if (elfemu_load(vm, path, c.prog, c.env.v, &err) != 0) {
        fprintf(stderr, "elfemu-difftest: %s\n", err.message);
        status = err.status;
        goto out;
    }
    if (mirror_build(&n, vm) != 0)
        goto out;
    status = dt_run(&n, vm, &c.o);
out:
    native_kill(&n);
    elfemu_destroy(vm);
    dt_syms_free();
    free(path);
    free(c.env.v);
    return status;
}
