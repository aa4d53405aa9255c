/* --strace formatters for the structures only the i386 ABI has: the old
 * sigaction and sigset, the 32-bit struct stat, struct flock and the packed
 * flock64, old_timespec32, the rlimit of 32-bit longs, user_desc
 * (set_thread_area), _llseek's split offset and mmap2's page offset; and
 * socketcall, shown as the call it multiplexes (strace does the same).
 * As everywhere in --strace, memory that cannot be read is shown as its
 * address. */
#include <string.h>

#include "syscalls/strace_fmt.h"
#include "syscalls/syscalls.h"

/* n bytes at a non-NULL guest address; false when they cannot be read. */
static bool read_all(struct cpu *c, uint64_t addr, void *dst, size_t n)
{
    return addr && guest_read_some(c, addr, dst, n) == n;
}

/* ------------------------------------------------------------ signals */

void fmt_old_sigset(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    uint32_t set;
    if (!read_all(c, addr, &set, sizeof(set)))
        fmt_ptr(b, addr);
    else
        fmt_sigset_bits(b, set, 32);
}

void fmt_old_sigaction(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    /* struct old_sigaction: handler, a 32-bit mask, flags, restorer. */
    uint32_t sa[4];
    if (!read_all(c, addr, sa, sizeof(sa)))
        fmt_ptr(b, addr);
    else
        fmt_sigaction_fields(b, sa[0], sa[1], 32, sa[2], sa[3]);
}

/* ------------------------------------------------------------ files */

void fmt_stat32(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    /* i386 struct stat: u32 dev, u32 ino, u16 mode, nlink, uid, gid, u32
     * rdev, u32 size, ... (64 bytes). */
    uint8_t raw[64];
    if (!read_all(c, addr, raw, sizeof(raw))) {
        fmt_ptr(b, addr);
        return;
    }
    uint16_t mode;
    uint32_t rdev, size;
    memcpy(&mode, raw + 8, 2);
    memcpy(&rdev, raw + 16, 4);
    memcpy(&size, raw + 20, 4);
    fmt_stat_fields(b, mode, rdev, size);
}

/* The three struct flock layouts: where l_start, l_len (both width bytes)
 * and l_pid are, and the size; l_type and l_whence are shorts at 0 and 2
 * in all of them. */
static const struct flock_layout {
    uint8_t start, len, width, pid, size;
} flock_layouts[] = {
    [FLOCK_64] = { 8, 16, 8, 24, 32 },   /* x86_64 struct flock */
    [FLOCK_32] = { 4, 8, 4, 12, 16 },    /* i386 struct flock (compat_flock) */
    [FLOCK64_32] = { 4, 12, 8, 20, 24 }, /* i386 struct flock64, packed */
};

void fmt_flock(struct sbuf *b, struct cpu *c, uint64_t addr, enum flock_kind kind,
               bool with_pid)
{
    static const struct strace_flag types[] = {
        { 0, "F_RDLCK" }, { 1, "F_WRLCK" }, { 2, "F_UNLCK" }, { 0, NULL },
    };
    const struct flock_layout *l = &flock_layouts[kind];
    uint8_t raw[32];
    if (!read_all(c, addr, raw, l->size)) {
        fmt_ptr(b, addr);
        return;
    }
    int16_t type, whence;
    int64_t start = 0, len = 0;
    int32_t pid;
    memcpy(&type, raw, 2);
    memcpy(&whence, raw + 2, 2);
    memcpy(&start, raw + l->start, l->width);
    memcpy(&len, raw + l->len, l->width);
    if (l->width == 4) { /* sign-extended */
        start = (int32_t)start;
        len = (int32_t)len;
    }
    memcpy(&pid, raw + l->pid, 4);
    sb_puts(b, "{l_type=");
    fmt_enum(b, types, (uint64_t)(uint16_t)type, "%llu");
    sb_puts(b, ", l_whence=");
    fmt_enum(b, strace_whence, (uint64_t)(uint16_t)whence, "%llu");
    sb_printf(b, ", l_start=%lld, l_len=%lld", (long long)start, (long long)len);
    if (with_pid)
        sb_printf(b, ", l_pid=%d", pid);
    sb_putc(b, '}');
}

/* ------------------------------------------------------------ times, limits */

void fmt_timespec32(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    int32_t t[2];
    if (!read_all(c, addr, t, sizeof(t)))
        fmt_ptr(b, addr);
    else
        sb_printf(b, "{tv_sec=%d, tv_nsec=%d}", t[0], t[1]);
}

void fmt_rlimit32(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    /* struct rlimit of 32-bit unsigned longs: RLIM_INFINITY is ~0u. */
    uint32_t r[2];
    if (!read_all(c, addr, r, sizeof(r))) {
        fmt_ptr(b, addr);
        return;
    }
    sb_puts(b, "{rlim_cur=");
    fmt_rlim_val(b, r[0] == ~0u ? ~0ull : r[0]);
    sb_puts(b, ", rlim_max=");
    fmt_rlim_val(b, r[1] == ~0u ? ~0ull : r[1]);
    sb_putc(b, '}');
}

/* ------------------------------------------------------------ set_thread_area */

void fmt_user_desc(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    /* entry_number, base_addr, limit, then the bits seg_32bit, contents (2),
     * read_exec_only, limit_in_pages, seg_not_present, useable. */
    uint32_t d[4];
    if (!read_all(c, addr, d, sizeof(d))) {
        fmt_ptr(b, addr);
        return;
    }
    uint32_t f = d[3];
    sb_printf(b,
              "{entry_number=%d, base_addr=%#x, limit=%#08x, seg_32bit=%u, contents=%u, "
              "read_exec_only=%u, limit_in_pages=%u, seg_not_present=%u, useable=%u}",
              (int32_t)d[0], d[1], d[2], f & 1, (f >> 1) & 3, (f >> 3) & 1, (f >> 4) & 1,
              (f >> 5) & 1, (f >> 6) & 1);
}

void fmt_user_desc_entry(struct sbuf *b, struct cpu *c, uint64_t addr)
{
    int32_t entry;
    if (read_all(c, addr, &entry, sizeof(entry)))
        sb_printf(b, " (entry_number=%d)", entry);
}

/* ------------------------------------------------------------ socketcall */

/* The calls of socketcall(2) in its numbering (SYS_SOCKET = 1 ...): how
 * many argument words it reads, and the i386 syscall number of the same
 * call, whose name and spec the trace shows (0: the call has no number of
 * its own, its spec is here). */
static const struct {
    uint8_t nargs;
    uint16_t nr;
    const char *name, *spec;
} socketcalls[21] = {
    [1] = { 3, 359, NULL, NULL },          [2] = { 3, 361, NULL, NULL },
    [3] = { 3, 362, NULL, NULL },          [4] = { 2, 363, NULL, NULL },
    [5] = { 3, 0, "accept", "d:fYU" },     [6] = { 3, 367, NULL, NULL },
    [7] = { 3, 368, NULL, NULL },          [8] = { 4, 360, NULL, NULL },
    [9] = { 4, 0, "send", "d:fbu_m" },      [10] = { 4, 0, "recv", "d:fBu_m" },
    [11] = { 6, 369, NULL, NULL },         [12] = { 6, 371, NULL, NULL },
    [13] = { 2, 373, NULL, NULL },         [14] = { 5, 366, NULL, NULL },
    [15] = { 5, 365, NULL, NULL },         [16] = { 3, 370, NULL, NULL },
    [17] = { 3, 372, NULL, NULL },         [18] = { 4, 364, NULL, NULL },
    [19] = { 5, 337, NULL, NULL },         [20] = { 4, 345, NULL, NULL },
};

bool strace_socketcall(struct cpu *c, const uint64_t a[6], const char **name,
                       const char **spec, uint64_t args[6])
{
    uint64_t call = (uint32_t)a[0];
    if (call < 1 || call > 20)
        return false;
    uint32_t w[6] = { 0 };
    unsigned n = socketcalls[call].nargs;
    if (!read_all(c, (uint32_t)a[1], w, n * 4u))
        return false;
    unsigned nr = socketcalls[call].nr;
    *name = nr ? sys_names_32[nr] : socketcalls[call].name;
    *spec = nr ? sys_spec_32[nr] : socketcalls[call].spec;
    if (!*name)
        return false;
    for (unsigned i = 0; i < 6; i++)
        args[i] = w[i];
    return true;
}
