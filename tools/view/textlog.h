/* elfemu-view: the last lines of a text stream (tools/view/textlog.c), for
 * the syscall log and the program's output panes. */
#ifndef TOOLS_VIEW_TEXTLOG_H
#define TOOLS_VIEW_TEXTLOG_H

#include <stddef.h>

#define TEXTLOG_LINES 512
#define TEXTLOG_WIDTH 1024     /* a longer line keeps its first 1023 bytes */

struct textlog {
    char lines[TEXTLOG_LINES][TEXTLOG_WIDTH];   /* a ring */
    size_t first, n;        /* the oldest line kept, how many there are */
    size_t total;           /* lines ever added (the last one may be open) */
    int open;               /* the last line has no newline yet */
};

/* Append bytes: a newline ends a line, other control bytes show as '.'. */
void textlog_add(struct textlog *t, const char *bytes, size_t len);

/* The line i (0: the oldest kept), or "" past the end. */
const char *textlog_line(const struct textlog *t, size_t i);

#endif
