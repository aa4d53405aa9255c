/* The output files of the CLI's tools (see tools/outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/outfile.h"

/* Where the tools' descriptors go: out of the way of the guest's
 * lowest-free-number allocation. */
#define OUTFILE_FD_MIN 900

int outfile_open(const char *path, bool append, const char *what)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (append ? 0 : O_TRUNC), 0666);
    if (fd < 0) {
        fprintf(stderr, "elfemu: cannot open the %s %s: %s\n", what, path, strerror(errno));
        return -1;
    }
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, OUTFILE_FD_MIN);
    if (moved >= 0) {
        close(fd);
        fd = moved;
    }
    return fd;
}

void outfile_absolute(const char *path, char *out, size_t size)
{
    char cwd[PATH_MAX] = "";
    if (path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
        cwd[0] = 0;
    snprintf(out, size, "%s%s%s", cwd, cwd[0] ? "/" : "", path);
}

void outfile_write(int fd, const char *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, buf + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
}
