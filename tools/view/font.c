/* elfemu-view: monospace text through a glyph atlas (see font.h). */
#include <stdio.h>
#include <string.h>

#include <SDL_ttf.h>

#include "tools/view/font.h"

#define FIRST_GLYPH 32
#define LAST_GLYPH 126
#define NGLYPHS (LAST_GLYPH - FIRST_GLYPH + 1)

int font_open(struct font *f, SDL_Renderer *r, const char *path, int size, char *why,
              size_t why_size)
{
    memset(f, 0, sizeof(*f));
    if (!TTF_WasInit() && TTF_Init() != 0) {
        snprintf(why, why_size, "SDL_ttf: %s", TTF_GetError());
        return -1;
    }
    TTF_Font *ttf = TTF_OpenFont(path, size);
    if (!ttf) {
        snprintf(why, why_size, "cannot open the font %s: %s", path, TTF_GetError());
        return -1;
    }
    if (!TTF_FontFaceIsFixedWidth(ttf)) {
        snprintf(why, why_size, "the font %s is not monospaced", path);
        TTF_CloseFont(ttf);
        return -1;
    }
    int adv = 0;
    TTF_GlyphMetrics(ttf, 'M', NULL, NULL, NULL, NULL, &adv);
    f->w = adv;
    /* Every glyph first: a glyph's surface can be taller than the font's
     * height ('_' lies below the descent in DejaVu at small sizes), and
     * the cells and lines must hold the tallest. */
    SDL_Surface *glyphs[NGLYPHS] = { 0 };
    SDL_Color white = { 255, 255, 255, 255 };
    int ok = adv > 0;
    f->h = TTF_FontLineSkip(ttf);
    for (int i = 0; ok && i < NGLYPHS; i++) {
        glyphs[i] = TTF_RenderGlyph_Blended(ttf, (Uint16)(FIRST_GLYPH + i), white);
        ok = glyphs[i] != NULL;
        if (ok && glyphs[i]->h > f->h)
            f->h = glyphs[i]->h;
    }
    SDL_Surface *sheet = ok ? SDL_CreateRGBSurfaceWithFormat(0, f->w * NGLYPHS, f->h, 32,
                                                             SDL_PIXELFORMAT_ARGB8888) : NULL;
    ok = sheet != NULL;
    for (int i = 0; i < NGLYPHS; i++) {
        if (ok) {
            SDL_SetSurfaceBlendMode(glyphs[i], SDL_BLENDMODE_NONE);
            SDL_Rect dst = { i * f->w, 0, glyphs[i]->w, glyphs[i]->h };
            SDL_BlitSurface(glyphs[i], NULL, sheet, &dst);
        }
        SDL_FreeSurface(glyphs[i]);
    }
    if (ok)
        f->atlas = SDL_CreateTextureFromSurface(r, sheet);
    SDL_FreeSurface(sheet);
    TTF_CloseFont(ttf);
    if (!f->atlas) {
        snprintf(why, why_size, "cannot render the font %s: %s", path, SDL_GetError());
        return -1;
    }
    SDL_SetTextureBlendMode(f->atlas, SDL_BLENDMODE_BLEND);
    return 0;
}

void font_close(struct font *f)
{
    if (f->atlas)
        SDL_DestroyTexture(f->atlas);
    f->atlas = NULL;
}

int font_draw(const struct font *f, SDL_Renderer *r, int x, int y, SDL_Color c, const char *text,
              int max_chars)
{
    SDL_SetTextureColorMod(f->atlas, c.r, c.g, c.b);
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && n != max_chars; p++, n++) {
        int ch = (*p >= FIRST_GLYPH && *p <= LAST_GLYPH) ? *p : '?';
        if (ch == ' ')
            continue;
        SDL_Rect src = { (ch - FIRST_GLYPH) * f->w, 0, f->w, f->h };
        SDL_Rect dst = { x + n * f->w, y, f->w, f->h };
        SDL_RenderCopy(r, f->atlas, &src, &dst);
    }
    return n * f->w;
}
