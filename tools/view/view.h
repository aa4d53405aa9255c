/* elfemu-view: the window's state and its panes.  Each pane is drawn by
 * its own file (pane_*.c) into a rectangle; clickable things register a
 * hit region while they are drawn, which the input code (input.c) looks
 * up on a click. */
#ifndef TOOLS_VIEW_VIEW_H
#define TOOLS_VIEW_VIEW_H

#include <stdbool.h>

#include <SDL.h>

#include "tools/view/font.h"
#include "tools/view/mapbar.h"
#include "tools/view/session.h"
#include "tools/view/stackfig.h"

#define VIEW_MAX_HITS 512

enum hit_kind {
    HIT_STACK_SLOT,     /* value: a slot index of the figure */
    HIT_ADDRESS,        /* value: an address (a register, an auxv value): jump to it */
    HIT_DISASM_LINE,    /* value: the instruction's address (toggles a breakpoint) */
    HIT_MAP_ENTRY,      /* value: an entry index of the bar */
};

struct hit {
    SDL_Rect rect;
    enum hit_kind kind;
    uint64_t value;
};

struct view {
    SDL_Renderer *r;
    struct font font;
    int w, h;                   /* the drawing area, pixels */
    struct session *s;
    struct mapbar bar;
    unsigned bar_gen;           /* the session's maps_gen the bar was built at */
    bool have_bar;
    struct stackfig fig;
    int fig_top;                /* the first slot shown (scrolling) */
    int fig_selected;           /* a slot picked by a click, -1 */
    int map_selected;           /* a bar entry picked by a click, -1 */
    uint64_t disasm_at;         /* show code here instead of at rip (0: follow rip) */
    bool show_fp;               /* the x87/SSE registers instead of the code */
    bool show_live;             /* the live stack instead of the initial one */
    bool prompting;             /* reading a breakpoint's address or symbol */
    bool prompt_fresh;          /* the 'b' that opened it still has its text event to come */
    char prompt[128];
    struct hit hits[VIEW_MAX_HITS];
    int nhits;
};

/* Colours of the theme. */
extern const SDL_Color COL_BG, COL_PANE, COL_TEXT, COL_DIM, COL_TITLE, COL_ACCENT, COL_CHANGED,
    COL_CURRENT, COL_BREAK, COL_ARROW, COL_SELECT;

/* A mapping's colour from its permissions (and kind for gaps). */
SDL_Color view_prot_colour(int prot, enum mapbar_kind kind);

/* Drawing helpers (draw.c). */
void draw_fill(struct view *v, SDL_Rect r, SDL_Color c);
void draw_outline(struct view *v, SDL_Rect r, SDL_Color c);
void draw_line(struct view *v, int x0, int y0, int x1, int y1, SDL_Color c);
/* An arrow head at (x, y) pointing left (dir -1) or right (dir +1). */
void draw_arrow_head(struct view *v, int x, int y, int dir, SDL_Color c);
int draw_text(struct view *v, int x, int y, SDL_Color c, const char *text, int max_chars);
int draw_textf(struct view *v, int x, int y, SDL_Color c, int max_chars, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* The pane's frame and title; returns the inner rectangle below the title. */
SDL_Rect draw_pane(struct view *v, SDL_Rect r, const char *title);
void view_add_hit(struct view *v, SDL_Rect r, enum hit_kind kind, uint64_t value);

/* The panes. */
void pane_map(struct view *v, SDL_Rect r);
void pane_stack(struct view *v, SDL_Rect r);
void pane_live(struct view *v, SDL_Rect r);
void pane_regs(struct view *v, SDL_Rect r);
void pane_fpregs(struct view *v, SDL_Rect r);
void pane_disasm(struct view *v, SDL_Rect r);
void pane_syslog(struct view *v, SDL_Rect r);
void pane_output(struct view *v, SDL_Rect r);

/* The register pane's fields (drawn by pane_regs(), written by
 * --state-file), each marked when it changed since the last stop. */
struct reg_field {
    char name[12];
    char value[64];
    bool changed;
    bool is_address;    /* a click jumps to value_u */
    uint64_t value_u;
};
#define REG_FIELDS 24
int regs_fields(struct session *s, struct reg_field out[REG_FIELDS]);

/* The code pane's lines (pane_disasm.c), also written by --state-file. */
struct code_line {
    bool header;        /* "<name>:" above the first instruction of a symbol */
    bool ok;            /* the instruction could be read and decoded (else the last line) */
    uint64_t addr;
    char text[160];     /* the header, or the instruction with its target named */
};
/* Up to rows lines of code around at (some before it when its function's
 * start is near); how many. */
int code_lines(struct session *s, uint64_t at, int rows, struct code_line *out);

/* The whole window: the panes laid out for v->w x v->h, the status and
 * the shortcuts; rebuilds the models when the guest changed. */
void view_draw(struct view *v);

#endif
