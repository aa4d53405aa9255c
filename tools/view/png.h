/* elfemu-view: a PNG writer (tools/view/png.c), our own, on zlib. */
#ifndef TOOLS_VIEW_PNG_H
#define TOOLS_VIEW_PNG_H

#include <stddef.h>
#include <stdint.h>

/* Write w x h pixels (rows of @p pitch bytes, each pixel 0xAARRGGBB in a
 * uint32_t, alpha ignored) to path as an 8-bit RGB PNG; 0, or -1 with
 * errno set (EIO when zlib fails). */
int png_write_rgb(const char *path, const uint32_t *pixels, int w, int h, size_t pitch);

#endif
