/* elfemu-view: monospace text (tools/view/font.c).  The printable ASCII
 * glyphs of a TrueType font (DejaVu Sans Mono from Debian's
 * fonts-dejavu-core by default) are rendered once with SDL2_ttf into an
 * atlas texture, white on transparent; text is drawn glyph by glyph with
 * the texture tinted to the wanted colour. */
#ifndef TOOLS_VIEW_FONT_H
#define TOOLS_VIEW_FONT_H

#include <SDL.h>

struct font {
    SDL_Texture *atlas;
    int w, h;       /* every glyph's advance and the line height, pixels */
};

/* Open the font file at @p path in @p size points for renderer @p r; 0, or
 * -1 with a one-line reason in @p why. */
int font_open(struct font *f, SDL_Renderer *r, const char *path, int size, char *why,
              size_t why_size);
void font_close(struct font *f);

/* Draw @p text at (x, y) (its top left) in colour @p c, at most
 * @p max_chars characters (-1: all); returns the width drawn. */
int font_draw(const struct font *f, SDL_Renderer *r, int x, int y, SDL_Color c, const char *text,
              int max_chars);

#endif
