/* elfemu-view: what keys, clicks and --script words do. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "tools/view/input.h"
#include "tools/view/park.h"

/* Jump to what an address is: its stack slot, its code, its mapping. */
static void jump_to(struct view *v, uint64_t addr)
{
    int slot = stackfig_find(&v->fig, addr);
    if (slot >= 0) {
        v->fig_selected = slot;
        v->fig_top = slot - 6;  /* pane_stack() clamps it */
    }
    int e = mapbar_find(&v->bar, addr);
    if (e >= 0 && v->bar.e[e].kind != MAPBAR_GAP) {
        v->map_selected = e;
        if (v->bar.e[e].prot & PROT_EXEC)
            v->disasm_at = addr == v->s->regs.rip ? 0 : addr;
        snprintf(v->s->status, sizeof(v->s->status), "%#lx is in %s", (unsigned long)addr,
                 v->bar.e[e].label);
    }
}

void input_click(struct view *v, int x, int y)
{
    for (int i = v->nhits; i-- > 0;) {
        const struct hit *h = &v->hits[i];
        if (x < h->rect.x || y < h->rect.y || x >= h->rect.x + h->rect.w ||
            y >= h->rect.y + h->rect.h)
            continue;
        switch (h->kind) {
        case HIT_STACK_SLOT: {
            const struct stackfig_slot *s = &v->fig.slots[h->value];
            if (stackfig_is_pointer(s))
                jump_to(v, s->value);
            else
                v->fig_selected = (int)h->value;
            break;
        }
        case HIT_ADDRESS:
            jump_to(v, h->value);
            break;
        case HIT_DISASM_LINE:
            session_toggle_breakpoint(v->s, h->value);
            break;
        case HIT_MAP_ENTRY:
            v->map_selected = (int)h->value;
            snprintf(v->s->status, sizeof(v->s->status), "%s: [%#lx, %#lx)",
                     v->bar.e[h->value].label, (unsigned long)v->bar.e[h->value].start,
                     (unsigned long)v->bar.e[h->value].end);
            break;
        }
        return;
    }
}

static void command(struct view *v, void (*fn)(struct session *))
{
    /* A command stops a run first; a step or a slice in progress ends in
     * a moment (keys come faster than the runner under load): wait for it.
     * Only a call that waits (a read) keeps the runner, and the key. */
    if (v->s->goal != GOAL_NONE)
        session_pause(v->s);
    if (v->s->posted)
        session_poll(v->s, 500);
    if (v->s->posted) {
        snprintf(v->s->status, sizeof(v->s->status),
                 "the program is busy: c or space pauses it, q quits");
        return;
    }
    session_mark(v->s);
    v->disasm_at = 0;
    fn(v->s);
}

static void run_to_main(struct session *s) { session_run_to_main(s); }

/* 't': the registers, the code and the live stack of the next parked
 * guest thread, then the first one again. */
static void show_next_thread(struct view *v)
{
    struct session *s = v->s;
    if (s->posted || s->exited)
        return;
    int tid = park_next(s, s->shown_tid);
    if (tid && park_show(s, tid)) {
        s->shown_tid = tid;
        snprintf(s->status, sizeof(s->status), "thread %d, parked at a block boundary", tid);
    } else {
        s->shown_tid = 0;
        elfemu_get_regs(s->vm, &s->regs);
        elfemu_get_fpstate(s->vm, s->fp);
        snprintf(s->status, sizeof(s->status), "the first thread (the one the keys step)");
    }
    /* Another thread's registers: nothing to highlight against. */
    s->prev = s->regs;
    memcpy(s->prev_fp, s->fp, sizeof(s->fp));
    v->disasm_at = 0;
}

bool input_key(struct view *v, SDL_Keycode key)
{
    struct session *s = v->s;
    if (v->prompting) {
        if (key == SDLK_RETURN || key == SDLK_KP_ENTER) {
            v->prompting = false;
            if (v->prompt[0])
                session_add_breakpoint(s, v->prompt);
        } else if (key == SDLK_ESCAPE) {
            v->prompting = false;
        } else if (key == SDLK_BACKSPACE && v->prompt[0]) {
            v->prompt[strlen(v->prompt) - 1] = 0;
        }
        return true;
    }
    switch (key) {
    case SDLK_q:
    case SDLK_ESCAPE:
        return false;
    case SDLK_s: command(v, session_step); break;
    case SDLK_n: command(v, session_step_over); break;
    case SDLK_y: command(v, session_run_to_syscall); break;
    case SDLK_m: command(v, run_to_main); break;
    case SDLK_c:
    case SDLK_SPACE:
        if (s->goal != GOAL_NONE)
            session_pause(s);
        else if (s->posted)
            session_run_free(s); /* a step that waits in a call: run on from it */
        else
            command(v, session_run_free);
        break;
    case SDLK_t: show_next_thread(v); break;
    case SDLK_b:
        v->prompting = true;
        v->prompt_fresh = true;
        v->prompt[0] = 0;
        break;
    case SDLK_f: v->show_fp = !v->show_fp; break;
    case SDLK_l: v->show_live = !v->show_live; break;
    case SDLK_PAGEUP: v->fig_top -= 10; break;
    case SDLK_PAGEDOWN: v->fig_top += 10; break;
    case SDLK_HOME: v->disasm_at = 0; break;
    default: break;
    }
    return true;
}

void input_text(struct view *v, const char *text)
{
    if (!v->prompting)
        return;
    /* SDL sends the text of a key after its key event: the 'b' itself. */
    bool opening = v->prompt_fresh && !strcmp(text, "b");
    v->prompt_fresh = false;
    if (opening)
        return;
    size_t n = strlen(v->prompt);
    for (; *text && n + 1 < sizeof(v->prompt); text++)
        if (*text > ' ' && *text < 127)
            v->prompt[n++] = *text;
    v->prompt[n] = 0;
}

/* click-slot=PREFIX: a click in the middle of the row of the first stack
 * slot whose text starts with PREFIX, as drawn now (demos and tests name
 * the row; its pixels depend on the font). */
static int click_slot(struct view *v, const char *prefix)
{
    view_draw(v);
    for (int i = 0; i < v->nhits; i++) {
        const struct hit *h = &v->hits[i];
        if (h->kind == HIT_STACK_SLOT &&
            !strncmp(v->fig.slots[h->value].text, prefix, strlen(prefix))) {
            input_click(v, h->rect.x + h->rect.w / 2, h->rect.y + h->rect.h / 2);
            return 1;
        }
    }
    snprintf(v->s->status, sizeof(v->s->status), "no stack slot %.100s in view", prefix);
    return 1;
}

int input_script_word(struct view *v, const char *word)
{
    if (!strncmp(word, "click-slot=", 11))
        return click_slot(v, word + 11);
    if (!strncmp(word, "b=", 2)) {
        session_add_breakpoint(v->s, word + 2);
        return 1;
    }
    static const struct { const char *word; SDL_Keycode key; } keys[] = {
        { "s", SDLK_s }, { "n", SDLK_n }, { "y", SDLK_y }, { "m", SDLK_m }, { "c", SDLK_c },
        { "f", SDLK_f }, { "l", SDLK_l }, { "q", SDLK_q }, { "t", SDLK_t }, { "pgup", SDLK_PAGEUP }, { "pgdn", SDLK_PAGEDOWN },
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (!strcmp(word, keys[i].word))
            return input_key(v, keys[i].key) ? 1 : 0;
    return -1;
}
