/* elfemu-view: an SDL2 window onto a guest run by libelfemu, for teaching
 * exec and the ABI (issue 8).  This file: the options, the window's event
 * loop, the headless --screenshot mode and --state-file. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <SDL.h>
#include <SDL_ttf.h>

#include "syscalls/exec_env.h"
#include "tools/view/input.h"
#include "tools/view/options.h"
#include "tools/view/png.h"
#include "tools/view/relaunch.h"
#include "tools/view/runner.h"
#include "tools/view/view.h"

extern char **environ;

#ifndef ELFEMU_VIEW_FONT
#define ELFEMU_VIEW_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
#endif

static void usage(FILE *f)
{
    fprintf(f,
        "usage: elfemu-view [options] PROGRAM [ARGS...]\n"
        "  -E VAR=VALUE       set VAR in the guest's environment\n"
        "  -U VAR             remove VAR from it\n"
        "  --env-clear        start from an empty environment\n"
        "  -0 ARGV0           argv[0] for the guest\n"
        "  -L DIR             prefix for the interpreter and libraries\n"
        "  --seed N, --aslr   as for elfemu\n"
        "  --screenshot FILE.png  draw without a display and write a PNG\n"
        "  --at=entry|main|exit|N where the screenshot is taken (default entry)\n"
        "  --size WxH         the window or screenshot size (default 1280x800)\n"
        "  --script \"WORDS\"   keys to press first: s n y m c f l t pgup pgdn q b=WHERE\n"
        "                     click-slot=TEXT (a click on the stack row starting with TEXT)\n"
        "  --state-file FILE  write the state (registers, status, the panes' text) at the end\n"
        "  --font FILE.ttf, --font-size N  a monospaced TrueType font\n"
        "keys: s step, n step over, y run to the next syscall, m run to main,\n"
        "      c or space run/pause, b breakpoint, f x87/SSE, l live stack, t next thread,\n"
        "      q quit\n");
}

static int set_env(struct view_options *o, const char *var, bool remove)
{
    size_t klen = strcspn(var, "=");
    for (int i = 0; i < o->nenv; i++)
        if (!strncmp(o->env[i], var, klen) && o->env[i][klen] == '=') {
            o->env[i] = o->env[--o->nenv];
            break;
        }
    if (remove)
        return 0;
    char **e = realloc(o->env, (size_t)(o->nenv + 2) * sizeof(char *));
    if (!e)
        return -1;
    o->env = e;
    o->env[o->nenv++] = (char *)var;
    o->env[o->nenv] = NULL;
    return 0;
}

/* Is a the option name, with its value in the next word?  Then that word
 * is used up (*i moves on); a missing value is an error, said once. */
static bool takes(const char *a, const char *name, const char *val, int *i)
{
    if (strcmp(a, name))
        return false;
    if (!val) {
        fprintf(stderr, "elfemu-view: %s needs a value\n", name);
        return false;
    }
    ++*i;
    return true;
}

/* 0, 1 after --help, -1 after a usage error (printed). */
static int parse(struct view_options *o, int argc, char **argv)
{
    memset(o, 0, sizeof(*o));
    elfemu_config_init(&o->cfg);
    o->width = 1280, o->height = 800, o->font_size = 11;
    o->close_fd = -1;
    o->at = "entry";
    o->font = getenv("ELFEMU_VIEW_FONT") ? getenv("ELFEMU_VIEW_FONT") : ELFEMU_VIEW_FONT;
    for (char **e = environ; *e; e++)
        if (set_env(o, *e, false))
            return -1;
    int i = 1, taken;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        } else if (takes(a, "-E", val, &i)) {
            if (!strchr(val, '=')) {
                fprintf(stderr, "elfemu-view: -E wants VAR=VALUE, not %s\n", val);
                return -1;
            }
            set_env(o, val, false);
        } else if (takes(a, "-U", val, &i)) {
            set_env(o, val, true);
        } else if (!strcmp(a, "--env-clear")) {
            o->nenv = 0;
            if (o->env)
                o->env[0] = NULL;
        } else if (takes(a, "-0", val, &i)) {
            o->argv0 = val;
        } else if (takes(a, "-L", val, &i)) {
            o->cfg.sysroot = val;
        } else if (takes(a, "--seed", val, &i)) {
            o->cfg.have_seed = true;
            o->cfg.seed = strtoull(val, NULL, 0);
            o->seed_word = val;
        } else if (!strcmp(a, "--aslr")) {
            o->cfg.aslr = true;
        } else if (takes(a, "--screenshot", val, &i)) {
            o->screenshot = val;
        } else if (!strncmp(a, "--at=", 5)) {
            o->at = a + 5;
        } else if (takes(a, "--at", val, &i)) {
            o->at = val;
        } else if (takes(a, "--size", val, &i)) {
            if (sscanf(val, "%dx%d", &o->width, &o->height) != 2 || o->width < 320 ||
                o->height < 240 || o->width > 8192 || o->height > 8192) {
                fprintf(stderr, "elfemu-view: --size wants WxH between 320x240 and 8192x8192\n");
                return -1;
            }
        } else if (takes(a, "--script", val, &i)) {
            o->script = val;
        } else if (takes(a, "--state-file", val, &i)) {
            o->state_file = val;
        } else if (takes(a, "--font", val, &i)) {
            o->font = val;
        } else if ((taken = relaunch_option(o, a, val, &i)) != 0) {
            /* an option of the guest's execve (relaunch.c) */
            if (taken < 0)
                return -1;
        } else if (takes(a, "--font-size", val, &i)) {
            o->font_size = atoi(val);
            if (o->font_size < 6 || o->font_size > 48) {
                fprintf(stderr, "elfemu-view: --font-size wants 6 to 48\n");
                return -1;
            }
        } else {
            /* An option that wanted a value has said so already. */
            static const char *const valued[] = { "-E", "-U", "-0", "-L", "--seed",
                "--screenshot", "--at", "--size", "--script", "--state-file", "--font",
                "--font-size", "--exec-rlimits", "--close-fd", "--view-pid", "--view-env", NULL };
            bool known = false;
            for (const char *const *v = valued; *v; v++)
                known = known || !strcmp(a, *v);
            if (!known)
                fprintf(stderr, "elfemu-view: unknown option %s (--help lists them)\n", a);
            return -1;
        }
    }
    if (i >= argc) {
        usage(stderr);
        return -1;
    }
    o->program = argv[i];
    o->args = argv + i + 1;
    o->nargs = argc - i - 1;
    if (!o->env && !(o->env = calloc(1, sizeof(char *))))
        return -1;
    if (o->execve) /* a guest's execve (exec_env.h): its environment, as it gave it */
        exec_env_unhide(o->env, false);
    return 0;
}

/* Run the guest to where --at says; 0, or -1 with a message. */
static int run_to(struct session *s, const char *at)
{
    if (!strcmp(at, "entry"))
        return 0;
    if (!strcmp(at, "main")) {
        if (!session_run_to_main(s)) {
            fprintf(stderr, "elfemu-view: --at=main: the program has no symbol main\n");
            return -1;
        }
    } else if (!strcmp(at, "exit")) {
        session_run_free(s);
        s->nbp = 0;
    } else {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(at, &end, 0);
        if (!*at || *end || errno) {
            fprintf(stderr, "elfemu-view: --at wants entry, main, exit or a number, not %s\n", at);
            return -1;
        }
        for (unsigned long long k = 0; k < n && !s->exited; k++) {
            session_mark(s);
            session_step(s);
            while (session_poll(s, -1))
                ;
        }
        return 0;
    }
    while (session_poll(s, -1))
        ;
    if (!strcmp(at, "main") && s->exited) {
        fprintf(stderr, "elfemu-view: --at=main: the program ended before main\n");
        return -1;
    }
    return 0;
}

/* The words of --script, one at a time; runs they start finish first. */
static int run_script(struct view *v, char *words, bool wait)
{
    for (char *w = strtok(words, " \t\n"); w; w = strtok(NULL, " \t\n")) {
        int r = input_script_word(v, w);
        if (r < 0) {
            fprintf(stderr, "elfemu-view: --script: unknown word %s\n", w);
            return -1;
        }
        if (r == 0)
            return 0;
        while (wait && session_poll(v->s, -1))
            ;
    }
    return 1;
}

/* --state-file: the register pane, the selections and the ending. */
static int write_state(const struct view *v, const char *path)
{
    struct session *s = v->s;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "elfemu-view: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct reg_field fields[REG_FIELDS];
    int n = regs_fields(s, fields);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s=%s%s\n", fields[i].name, fields[i].value,
                fields[i].changed ? " (changed)" : "");
    fprintf(f, "program=%s\n", s->li->program.path);
    fprintf(f, "exited=%s\n", s->exited ? "yes" : "no");
    fprintf(f, "status=%s\n", s->status);
    fprintf(f, "syscalls=%zu\n", s->syslog->total);
    /* The syscall pane's text: the --strace lines kept, oldest first. */
    for (size_t i = 0; i < s->syslog->n; i++)
        fprintf(f, "strace=%s\n", textlog_line(s->syslog, i));
    if (v->fig_selected >= 0)
        fprintf(f, "stack_selected=%s\n", v->fig.slots[v->fig_selected].text);
    if (v->map_selected >= 0)
        fprintf(f, "map_selected=%s\n", v->bar.e[v->map_selected].label);
    if (v->disasm_at)
        fprintf(f, "code_at=%#" PRIx64 "\n", v->disasm_at);
    /* The code pane's text (as many lines as a 1280x800 window shows),
     * "> " before the current instruction. */
    struct code_line code[24];
    int nc = code_lines(s, v->disasm_at ? v->disasm_at : s->regs.rip, 24, code);
    for (int i = 0; i < nc; i++) {
        if (code[i].header) {
            fprintf(f, "code=%s\n", code[i].text);
            continue;
        }
        bool current = code[i].addr == s->regs.rip && !s->exited;
        fprintf(f, "code=%s%0*" PRIx64 " %s\n", current ? "> " : "  ", s->bits / 4,
                code[i].addr, code[i].ok ? code[i].text : "(unreadable)");
    }
    fprintf(f, "size=%dx%d\n", v->w, v->h);
    return fclose(f) == 0 ? 0 : -1;
}

static int view_init(struct view *v, SDL_Renderer *r, struct session *s,
                     const struct view_options *o)
{
    memset(v, 0, sizeof(*v));
    v->r = r;
    v->s = s;
    v->w = o->width;
    v->h = o->height;
    v->fig_selected = v->map_selected = -1;
    /* The figure starts scrolled to its bottom (argc, argv, envp, auxv):
     * with a big environment its strings are what does not fit. */
    v->fig_top = INT_MAX;
    char why[512];
    if (font_open(&v->font, r, o->font, o->font_size, why, sizeof(why)) != 0) {
        fprintf(stderr, "elfemu-view: %s\n", why);
        return -1;
    }
    if (stackfig_build(&v->fig, s->vm, s->li) != 0) {
        fprintf(stderr, "elfemu-view: cannot read the initial stack\n");
        return -1;
    }
    return 0;
}

static void view_fini(struct view *v)
{
    font_close(&v->font);
    mapbar_free(&v->bar);
    stackfig_free(&v->fig);
}

/* --screenshot: draw into a surface with the software renderer (no
 * display, no video driver) and write it as a PNG. */
static int headless(struct session *s, const struct view_options *o, char *script)
{
    SDL_Surface *surf = SDL_CreateRGBSurfaceWithFormat(0, o->width, o->height, 32,
                                                       SDL_PIXELFORMAT_ARGB8888);
    SDL_Renderer *r = surf ? SDL_CreateSoftwareRenderer(surf) : NULL;
    if (!r) {
        fprintf(stderr, "elfemu-view: cannot create the software renderer: %s\n", SDL_GetError());
        return 1;
    }
    struct view v;
    int status = 1;
    if (view_init(&v, r, s, o) != 0 || (script && run_script(&v, script, true) < 0))
        goto out;
    view_draw(&v);
    SDL_RenderPresent(r);
    if (png_write_rgb(o->screenshot, surf->pixels, surf->w, surf->h, (size_t)surf->pitch) != 0) {
        fprintf(stderr, "elfemu-view: cannot write %s: %s\n", o->screenshot, strerror(errno));
        goto out;
    }
    status = o->state_file && write_state(&v, o->state_file) != 0;
out:
    view_fini(&v);
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(surf);
    return status;
}

/* The window: events, runs in slices of instructions, a frame after each. */
static int interactive(struct session *s, const struct view_options *o, char *script)
{
    /* Without a display SDL would fall back to its offscreen driver and
     * show a window nobody can see; SDL_VIDEODRIVER still chooses freely. */
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY") && !getenv("SDL_VIDEODRIVER")) {
        fprintf(stderr, "elfemu-view: no display (DISPLAY and WAYLAND_DISPLAY are unset); "
                        "--screenshot works without one\n");
        return 1;
    }
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "elfemu-view: no display: %s (--screenshot works without one)\n",
                SDL_GetError());
        return 1;
    }
    char title[256];
    snprintf(title, sizeof(title), "elfemu-view: %s", o->program);
    SDL_Window *win = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                       o->width, o->height, SDL_WINDOW_RESIZABLE);
    SDL_Renderer *r = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE) : NULL;
    if (!r) {
        fprintf(stderr, "elfemu-view: cannot open the window: %s\n", SDL_GetError());
        return 1;
    }
    SDL_SetWindowMinimumSize(win, 640, 400);
    struct view v;
    if (view_init(&v, r, s, o) != 0) {
        view_fini(&v);
        return 1;
    }
    SDL_StartTextInput();
    char *words = script ? strtok(script, " \t\n") : NULL;
    for (bool going = true; going;) {
        SDL_Event e;
        bool busy = s->goal != GOAL_NONE || s->posted || words;
        /* Idle: sleep until something happens (redraw at least 4 times a second). */
        if (busy ? SDL_PollEvent(&e) : SDL_WaitEventTimeout(&e, 250)) {
            do {
                if (e.type == SDL_QUIT)
                    going = false;
                else if (e.type == SDL_KEYDOWN)
                    going = input_key(&v, e.key.keysym.sym) && going;
                else if (e.type == SDL_TEXTINPUT)
                    input_text(&v, e.text.text);
                else if (e.type == SDL_MOUSEBUTTONDOWN && e.button.button == SDL_BUTTON_LEFT)
                    input_click(&v, e.button.x, e.button.y);
                else if (e.type == SDL_MOUSEWHEEL)
                    v.fig_top -= 3 * e.wheel.y;
            } while (SDL_PollEvent(&e));
        }
        /* The runner works on while the window draws: a guest blocked in
         * a read leaves it waiting, and the keys go on working. */
        if (s->goal != GOAL_NONE || s->posted) {
            session_poll(s, 40);
        } else if (words && going) {
            int rw = input_script_word(&v, words);
            if (rw < 0)
                fprintf(stderr, "elfemu-view: --script: unknown word %s\n", words);
            going = rw != 0;
            words = strtok(NULL, " \t\n");
        }
        SDL_GetRendererOutputSize(r, &v.w, &v.h);
        view_draw(&v);
        SDL_RenderPresent(r);
    }
    int status = o->state_file && write_state(&v, o->state_file) != 0;
    view_fini(&v);
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(win);
    return status;
}

/* What the window's thread works on. */
struct app {
    struct view_options *o;
    struct session *s;
    char *path, **gargv, *script;
    int status;
};

/* The window's thread: SDL, the window or the picture, and the requests
 * to the runner (the main thread, in runner_serve()). */
static void *window_thread(void *arg)
{
    struct app *a = arg;
    struct view_options *o = a->o;
    struct session *s = a->s;
    char why[600];
    a->status = 1;
    if (SDL_Init(0) != 0 || TTF_Init() != 0) {
        fprintf(stderr, "elfemu-view: SDL: %s\n", SDL_GetError());
        goto out;
    }
    int opened = session_open(s, a->path, a->gargv, o->env, &o->cfg, why, sizeof(why), &a->status);
    if (o->close_fd >= 0) /* kept open over the execve only for the loader */
        close(o->close_fd);
    if (opened != 0) {
        fprintf(stderr, "elfemu-view: %s\n", why);
        goto out;
    }
    if (run_to(s, o->at) != 0)
        goto out;
    a->status = o->screenshot ? headless(s, o, a->script) : interactive(s, o, a->script);
out:
    if (!session_close(s)) {
        /* The guest's thread is blocked in a host call (or other guest
         * threads exist): the process ends around it, as elfemu's would. */
        fflush(NULL);
        _exit(a->status);
    }
    TTF_Quit();
    SDL_Quit();
    return NULL;
}

int main(int argc, char **argv)
{
    struct view_options o;
    int r = parse(&o, argc, argv);
    if (r != 0) {
        free(o.env);
        return r > 0 ? 0 : 2;
    }
    /* A guest's execve starts this viewer again on the new program
     * (relaunch.c); in a forked child's process it runs on without a window. */
    if (relaunch_prepare(&o) != 0) {
        fprintf(stderr, "elfemu-view: out of memory\n");
        return 1;
    }
    /* A guest's execve names the program exactly: no $PATH search. */
    char *path = o.execve ? strdup(o.program) : elfemu_find_program_in(o.program, o.cfg.sysroot);
    char **gargv = calloc((size_t)o.nargs + 2, sizeof(char *));
    char *script = o.script ? strdup(o.script) : NULL;
    struct session s;
    if (!path || !gargv || (o.script && !script) || session_init(&s) != 0) {
        fprintf(stderr, "elfemu-view: out of memory\n");
        return 1;
    }
    gargv[0] = (char *)(o.argv0 ? o.argv0 : o.program);
    for (int i = 0; i < o.nargs; i++)
        gargv[i + 1] = o.args[i];
    if (relaunch_detached(&o))
        return relaunch_run_windowless(&o, path, gargv);
    /* The guest runs on this thread (its tid is the pid, as under elfemu);
     * the window gets a thread of its own, which takes no asynchronous
     * signal: those are the guest's. */
    struct app a = { &o, &s, path, gargv, script, 1 };
    sigset_t mask;
    pthread_t window;
    runner_block_signals(&mask);
    int e = pthread_create(&window, NULL, window_thread, &a);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (e != 0) {
        fprintf(stderr, "elfemu-view: cannot start the window's thread: %s\n", strerror(e));
        return 1;
    }
    runner_serve(&s);
    pthread_join(window, NULL);
    free(script);
    free(gargv);
    free(path);
    free(o.env);
    free(o.words);
    free(o.view_env);
    return a.status;
}
