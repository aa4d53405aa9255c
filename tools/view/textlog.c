/* elfemu-view: the last lines of a text stream (see textlog.h). */
#include <string.h>

#include "tools/view/textlog.h"

static char *new_line(struct textlog *t)
{
    size_t slot;
    if (t->n < TEXTLOG_LINES) {
        slot = (t->first + t->n++) % TEXTLOG_LINES;
    } else {
        slot = t->first;
        t->first = (t->first + 1) % TEXTLOG_LINES;
    }
    t->lines[slot][0] = 0;
    t->open = 1;
    t->total++;
    return t->lines[slot];
}

void textlog_add(struct textlog *t, const char *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char *line = t->open ? t->lines[(t->first + t->n - 1) % TEXTLOG_LINES] : new_line(t);
        if (bytes[i] == '\n') {
            t->open = 0;
            continue;
        }
        size_t k = strlen(line);
        if (k + 1 < TEXTLOG_WIDTH) {
            unsigned char ch = (unsigned char)bytes[i];
            line[k] = (ch == '\t') ? ' ' : (ch < 32 || ch == 127) ? '.' : (char)ch;
            line[k + 1] = 0;
        }
    }
}

const char *textlog_line(const struct textlog *t, size_t i)
{
    return i < t->n ? t->lines[(t->first + i) % TEXTLOG_LINES] : "";
}
