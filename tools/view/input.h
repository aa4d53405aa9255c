/* elfemu-view: keys, clicks and --script words (tools/view/input.c). */
#ifndef TOOLS_VIEW_INPUT_H
#define TOOLS_VIEW_INPUT_H

#include <stdbool.h>

#include "tools/view/view.h"

/* A key; false when it asks to quit. */
bool input_key(struct view *v, SDL_Keycode key);
/* Typed text (the breakpoint prompt). */
void input_text(struct view *v, const char *text);
/* A click at (x, y): the hit regions of the last frame decide. */
void input_click(struct view *v, int x, int y);
/* One word of --script ("s", "n", "y", "m", "c", "f", "l", "q", "pgup", "pgdn",
 * "b=WHERE", "click-slot=PREFIX"): 1 done, 0 quit, -1 not a word we know. */
int input_script_word(struct view *v, const char *word);

#endif
