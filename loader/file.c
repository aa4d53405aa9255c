/* Opening files for the loader (open_exec) and reading them safely. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <unistd.h>

#include "loader/loader.h"
#include "loader/root.h"

/* Bytes a one-line message must not carry as they are: control characters
 * (a newline in PT_INTERP, the \r of a DOS #! line) are shown escaped. */
static void copy_escaped(char *dst, size_t size, const char *src)
{
    size_t n = 0;
    for (; *src && n + 5 < size; src++) {
        unsigned char ch = (unsigned char)*src;
        if (ch < 0x20 || ch == 0x7f)
            n += (size_t)snprintf(dst + n, size - n, "\\x%02x", ch);
        else
            dst[n++] = (char)ch;
    }
    dst[n] = 0;
}

int ldr_fail(elfemu_error *err, int status, const char *path, const char *fmt, ...)
{
    if (!err)
        return -1;
    err->status = status;
    err->errnum = status == LDR_ENOENT ? ENOENT : ENOEXEC;
    char raw[2 * sizeof(err->message)];
    /* A path too long for the message is shortened in the middle. */
    size_t plen = strlen(path);
    int n = plen > 320 ? snprintf(raw, sizeof(raw), "%.150s...%s: ", path, path + plen - 150)
                       : snprintf(raw, sizeof(raw), "%s: ", path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw + n, sizeof(raw) - (size_t)n, fmt, ap);
    va_end(ap);
    copy_escaped(err->message, sizeof(err->message), raw);
    return -1;
}

static int open_one(struct ldr_file *f, const char *path)
{
    if (strlen(path) >= sizeof(f->path))
        return -ENAMETOOLONG;
    /* open_exec(): only regular files can be executed.  Look before opening:
     * opening a FIFO would block. */
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return S_ISDIR(st.st_mode) ? -EISDIR : -EACCES;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* replaced meanwhile */
        close(fd);
        return -EACCES;
    }
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    strcpy(f->path, path);
    return 0;
}

int ldr_open(struct ldr_file *f, const char *path, const char *sysroot, elfemu_error *err)
{
    f->fd = -1;
    int e = -ENOENT;
    if (sysroot && *sysroot && path[0] == '/') {
        /* Inside the root as if it were "/" (its absolute symlinks stay in
         * it); the host's file when the root has none of that name. */
        char full[PATH_MAX];
        if (ldr_root_lookup(sysroot, path, true, full, sizeof(full)) == 0) {
            e = open_one(f, full);
            goto done;
        }
    }
    e = open_one(f, path);
done:
    if (e == 0)
        return 0;
    ldr_fail(err, e == -ENOENT || e == -ENOTDIR ? LDR_ENOENT : LDR_ENOEXEC, path, "%s",
             strerror(-e));
    if (err) /* open_exec() refuses what is no regular file with EACCES */
        err->errnum = e == -EISDIR ? EACCES : -e;
    return -1;
}

void ldr_close(struct ldr_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}

int ldr_pread(const struct ldr_file *f, void *buf, uint64_t len, uint64_t off)
{
    if (off > f->size || len > f->size - off)
        return -1;
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = pread(f->fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        off += (uint64_t)n;
        len -= (uint64_t)n;
    }
    return 0;
}

/* splitmix64: tiny, fast, and good enough for layout offsets and AT_RANDOM
 * when the user asked for reproducibility with --seed. */
void ldr_rng_init(struct ldr_rng *r, bool have_seed, uint64_t seed)
{
    r->seeded = have_seed;
    r->state = seed;
}

uint64_t ldr_rng_u64(struct ldr_rng *r)
{
    if (!r->seeded) {
        uint64_t v;
        if (getrandom(&v, sizeof(v), 0) == sizeof(v))
            return v;
    }
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void ldr_rng_bytes(struct ldr_rng *r, void *buf, size_t len)
{
    uint8_t *p = buf;
    while (len > 0) {
        uint64_t v = ldr_rng_u64(r);
        size_t n = len < 8 ? len : 8;
        memcpy(p, &v, n);
        p += n;
        len -= n;
    }
}
