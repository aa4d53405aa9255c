/* elfemu-view: the theme and small drawing helpers shared by the panes. */
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>

#include "tools/view/view.h"

const SDL_Color COL_BG = { 24, 26, 31, 255 }, COL_PANE = { 32, 35, 42, 255 },
                COL_TEXT = { 220, 223, 228, 255 }, COL_DIM = { 130, 137, 150, 255 },
                COL_TITLE = { 97, 175, 239, 255 }, COL_ACCENT = { 229, 192, 123, 255 },
                COL_CHANGED = { 120, 90, 20, 255 }, COL_CURRENT = { 40, 80, 130, 255 },
                COL_BREAK = { 224, 80, 80, 255 }, COL_ARROW = { 152, 195, 121, 255 },
                COL_SELECT = { 90, 60, 120, 255 };

SDL_Color view_prot_colour(int prot, enum mapbar_kind kind)
{
    if (kind == MAPBAR_GAP)
        return (SDL_Color){ 44, 47, 55, 255 };
    if (prot & PROT_EXEC)
        return (SDL_Color){ 214, 110, 80, 255 };   /* code: red-orange */
    if (prot & PROT_WRITE)
        return (SDL_Color){ 110, 180, 110, 255 };  /* data: green */
    if (prot & PROT_READ)
        return (SDL_Color){ 100, 140, 210, 255 };  /* read-only: blue */
    return (SDL_Color){ 90, 90, 90, 255 };         /* no access: grey */
}

void draw_fill(struct view *v, SDL_Rect r, SDL_Color c)
{
    SDL_SetRenderDrawColor(v->r, c.r, c.g, c.b, c.a);
    SDL_RenderFillRect(v->r, &r);
}

void draw_outline(struct view *v, SDL_Rect r, SDL_Color c)
{
    SDL_SetRenderDrawColor(v->r, c.r, c.g, c.b, c.a);
    SDL_RenderDrawRect(v->r, &r);
}

void draw_line(struct view *v, int x0, int y0, int x1, int y1, SDL_Color c)
{
    SDL_SetRenderDrawColor(v->r, c.r, c.g, c.b, c.a);
    SDL_RenderDrawLine(v->r, x0, y0, x1, y1);
}

void draw_arrow_head(struct view *v, int x, int y, int dir, SDL_Color c)
{
    for (int i = 0; i < 5; i++)
        draw_line(v, x - dir * i, y - i, x - dir * i, y + i, c);
}

int draw_text(struct view *v, int x, int y, SDL_Color c, const char *text, int max_chars)
{
    return font_draw(&v->font, v->r, x, y, c, text, max_chars);
}

int draw_textf(struct view *v, int x, int y, SDL_Color c, int max_chars, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return draw_text(v, x, y, c, buf, max_chars);
}

SDL_Rect draw_pane(struct view *v, SDL_Rect r, const char *title)
{
    draw_fill(v, r, COL_PANE);
    draw_outline(v, r, (SDL_Color){ 60, 64, 74, 255 });
    draw_text(v, r.x + 6, r.y + 3, COL_TITLE, title, -1);
    int top = v->font.h + 6;
    return (SDL_Rect){ r.x + 6, r.y + top, r.w - 12, r.h - top - 3 };
}

void view_add_hit(struct view *v, SDL_Rect r, enum hit_kind kind, uint64_t value)
{
    if (v->nhits < VIEW_MAX_HITS)
        v->hits[v->nhits++] = (struct hit){ r, kind, value };
}
