/* #! scripts, as fs/binfmt_script.c handles them.
 *
 * The first BINPRM_BUF_SIZE bytes are read; the line after "#!" gives the
 * interpreter name and at most one optional argument (everything after the
 * first space or tab, trailing blanks trimmed).  argv[0] is replaced by the
 * script's path, the optional argument and the interpreter name are pushed
 * in front, and the interpreter is loaded instead -- possibly another script,
 * up to the kernel's recursion limit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/loader.h"

#define BINPRM_BUF_SIZE 256

static bool spacetab(char c) { return c == ' ' || c == '\t'; }

static char *next_non_spacetab(char *p, const char *end)
{
    for (; p < end; p++)
        if (!spacetab(*p))
            return p;
    return NULL;
}

static char *next_terminator(char *p, const char *end)
{
    for (; p < end; p++)
        if (spacetab(*p) || *p == '\0')
            return p;
    return NULL;
}

/* Parse the #! line in buf (BINPRM_BUF_SIZE bytes, zero-filled past the end
 * of the file, as prepare_binprm() leaves bprm->buf).  Sets *name and *arg
 * (NULL when absent), writing NULs into buf.  0, or -1 when the line has no
 * usable interpreter (the kernel's -ENOEXEC).  Kept step for step like
 * load_script() so that odd lines split exactly as on Linux. */
static int parse_shebang(char *buf, char **name, char **arg)
{
    char *buf_end = buf + BINPRM_BUF_SIZE - 1;
    char *i_end = memchr(buf, '\n', BINPRM_BUF_SIZE);
    if (!i_end) {
        i_end = next_non_spacetab(buf + 2, buf_end);
        if (!i_end)
            return -1;
        /* No blank or NUL after the name: the path may be truncated. */
        if (!next_terminator(i_end, buf_end))
            return -1;
        i_end = buf_end;
    }
    while (spacetab(i_end[-1]))
        i_end--;
    char *i_name = next_non_spacetab(buf + 2, i_end);
    if (!i_name || i_name == i_end)
        return -1;
    char *i_sep = next_terminator(i_name, i_end);
    char *i_arg = NULL;
    if (i_sep && *i_sep != '\0')
        i_arg = next_non_spacetab(i_sep, i_end);
    *i_end = '\0';
    if (i_sep)
        *i_sep = '\0';
    *name = i_name;
    *arg = i_arg;
    return 0;
}

/* Replace argv[0] by script, then push arg (if any) and name in front. */
static int splice_args(struct ldr_args *a, const char *name, const char *arg, const char *script)
{
    unsigned extra = arg ? 2 : 1;
    char **v = malloc((a->argc + extra + 2) * sizeof(*v));
    if (!v)
        return -1;
    unsigned n = 0;
    v[n++] = strdup(name);
    if (arg)
        v[n++] = strdup(arg);
    v[n++] = strdup(script);
    for (unsigned i = 1; i < a->argc; i++)
        v[n++] = a->argv[i];
    v[n] = NULL;
    if (a->argc > 0)
        free(a->argv[0]);
    free(a->argv);
    a->argv = v;
    a->argc = n;
    for (unsigned i = 0; i < n; i++)
        if (!v[i])
            return -1;
    return 0;
}

int ldr_follow_scripts(struct ldr_args *a, const char *sysroot, elfemu_load_info *info,
                       elfemu_error *err)
{
    for (unsigned depth = 0;; depth++) {
        struct ldr_file f;
        if (ldr_open(&f, a->interp, sysroot, err) != 0) {
            if (depth > 0) {
                /* Name the script whose #! line pointed here. */
                elfemu_error inner = *err;
                ldr_fail(err, inner.status, info->scripts[depth - 1], "interpreter %s",
                         inner.message);
                err->errnum = inner.errnum;
            }
            return -1;
        }
        char buf[BINPRM_BUF_SIZE + 1] = { 0 };
        uint64_t len = f.size < BINPRM_BUF_SIZE ? f.size : BINPRM_BUF_SIZE;
        int rd = ldr_pread(&f, buf, len, 0);
        ldr_close(&f);
        if (rd != 0)
            return ldr_fail(err, LDR_ENOEXEC, a->interp, "cannot read the file");
        if (len < 2 || buf[0] != '#' || buf[1] != '!')
            return 0; /* not a script: the ELF reader decides */
        if (depth >= LDR_MAX_SCRIPT_DEPTH) {
            ldr_fail(err, LDR_ENOEXEC, a->interp,
                     "too many levels of #! interpreters (more than %d)", LDR_MAX_SCRIPT_DEPTH);
            err->errnum = ELOOP;
            return -1;
        }
        char *name, *arg;
        if (parse_shebang(buf, &name, &arg) != 0)
            return ldr_fail(err, LDR_ENOEXEC, a->interp, "bad #! line: no interpreter name");
        snprintf(info->scripts[depth], sizeof(info->scripts[depth]), "%s", a->interp);
        info->nscripts = depth + 1;
        if (splice_args(a, name, arg, a->interp) != 0)
            return ldr_fail(err, LDR_ENOEXEC, a->interp, "out of memory");
        char *next = strdup(name);
        if (!next)
            return ldr_fail(err, LDR_ENOEXEC, a->interp, "out of memory");
        free(a->interp);
        a->interp = next;
    }
}

void ldr_args_free(struct ldr_args *a)
{
    for (unsigned i = 0; a->argv && i < a->argc; i++)
        free(a->argv[i]);
    for (unsigned i = 0; a->envp && i < a->envc; i++)
        free(a->envp[i]);
    free(a->argv);
    free(a->envp);
    free(a->filename);
    free(a->interp);
    memset(a, 0, sizeof(*a));
}
