/* The output files of the CLI's tools (--trace-file, --stats-file,
 * --coverage): opened out of the guest's way (tools/outfile.c). */
#ifndef TOOLS_OUTFILE_H
#define TOOLS_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "elfemu.h"

/* Open path for writing (created; truncated unless append), close-on-exec,
 * at a descriptor number far above what the guest allocates (its lowest
 * free numbers stay free).  The descriptor, or -1 with a one-line message
 * naming what (e.g. "trace file") printed. */
int outfile_open(const char *path, bool append, const char *what);

/* path made absolute against the current directory into out, so that an
 * elfemu re-executed by the guest's execve (after a chdir) finds it. */
void outfile_absolute(const char *path, char *out, size_t size);

/* Write all of buf to fd (retrying short writes and EINTR). */
void outfile_write(int fd, const char *buf, size_t len);

#endif
