/* /proc/<pid>/ files that must describe the guest rather than the emulator
 * process hosting it.  Their content is generated when the guest opens
 * them and handed over as a descriptor on a sealed memfd, so read, pread,
 * lseek, mmap and fstat work on it as on any file; everything else
 * in /proc is the host's (our descriptors, limits, credentials and
 * threads are the guest's own).
 *
 * What the loader built is recorded once by procfs_set_image() before the
 * guest runs and only read afterwards. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/prctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mm/space.h"
#include "syscalls/paths.h"
#include "syscalls/procfs.h"

/* The mm_struct fields /proc shows, as load_elf_binary() and
 * create_elf_tables() set them. */
static struct {
    int bits;
    unsigned nauxv;
    uint64_t auxv[32][2];
    uint64_t start_code, end_code, start_data, end_data, start_brk, start_stack;
    uint64_t arg_start, arg_end, env_start, env_end;
} img;

/* Point the host process's own mm fields at the guest's, so that other
 * processes (ps, pgrep, a parent reading /proc/<pid>/cmdline) see the
 * guest's command line, environment and auxv through the kernel's files of
 * this process.  PR_SET_MM_MAP needs no privilege for these fields.  exe
 * stays elfemu: the kernel refuses to replace an exe that is still mapped
 * (EBUSY), and ours always is.  Best effort: when the kernel refuses, only
 * our own views (served below) are the guest's.  The code, data, stack and
 * brk fields keep the host's values. */
static void publish(const struct mm_space *mm)
{
    char st[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, st, sizeof(st) - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return;
    st[n] = 0;
    char *p = strrchr(st, ')');
    unsigned long long f[53] = { 0 };
    char *save, *tok = p ? strtok_r(p + 1, " \n", &save) : NULL;
    for (int i = 3; tok && i < 53; i++, tok = strtok_r(NULL, " \n", &save))
        f[i] = strtoull(tok, NULL, 10);
    uint64_t base = (uint64_t)(uintptr_t)mm->base;
    struct prctl_mm_map m = {
        .start_code = f[26], .end_code = f[27], .start_stack = f[28],
        .start_data = f[45], .end_data = f[46], .start_brk = f[47],
        .brk = (uint64_t)(uintptr_t)sbrk(0),
        .arg_start = base + img.arg_start, .arg_end = base + img.arg_end,
        .env_start = base + img.env_start, .env_end = base + img.env_end,
        .exe_fd = (uint32_t)-1,
    };
    /* saved_auxv holds host words: only a 64-bit guest's pairs fit as they are. */
    __u64 auxv[2 * 32];
    if (img.bits == 64) {
        unsigned k = 0;
        for (unsigned i = 0; i < img.nauxv; i++) {
            auxv[k++] = img.auxv[i][0];
            auxv[k++] = img.auxv[i][1];
            if (img.auxv[i][0] == 0)
                break;
        }
        m.auxv = auxv;
        m.auxv_size = k * sizeof(uint64_t);
    }
    if (prctl(PR_SET_MM, PR_SET_MM_MAP, &m, sizeof(m), 0) != 0 && m.auxv_size) {
        m.auxv_size = 0; /* an auxv longer than the kernel's saved_auxv */
        m.auxv = NULL;
        prctl(PR_SET_MM, PR_SET_MM_MAP, &m, sizeof(m), 0);
    }
}

void procfs_set_image(const struct mm_space *mm, const elfemu_load_info *info)
{
    img.bits = info->bits;
    img.nauxv = info->nauxv < 32 ? info->nauxv : 32;
    memcpy(img.auxv, info->auxv, sizeof(img.auxv));
    /* load_elf_binary(): code is the executable PT_LOADs; start_data and
     * end_data the loader keeps in the space (brk's RLIMIT_DATA uses them). */
    img.start_code = ~0ull;
    img.end_code = 0;
    img.start_data = mm->start_data;
    img.end_data = mm->end_data;
    const elfemu_image *p = &info->program;
    for (unsigned i = 0; i < p->nsegments && i < 16; i++) {
        const elfemu_segment *s = &p->segments[i];
        uint64_t end = s->vaddr + s->file_size;
        if ((s->prot & PROT_EXEC) && s->vaddr < img.start_code)
            img.start_code = s->vaddr;
        if ((s->prot & PROT_EXEC) && end > img.end_code)
            img.end_code = end;
    }
    if (img.start_code == ~0ull)
        img.start_code = 0;
    img.start_brk = info->brk_start;
    img.start_stack = info->sp;
    /* The strings: argv's, then envp's, then the execfn string. */
    img.arg_start = info->strings_low;
    img.env_end = info->execfn_addr;
    img.env_start = img.env_end;
    if (info->envc > 0) {
        uint64_t w = 0;
        if (mm_read(mm, info->envp_addr, &w, info->bits == 64 ? 8 : 4) == 0)
            img.env_start = w;
    }
    img.arg_end = img.env_start;
    publish(mm);
}

/* ------------------------------------------------------------ content */

struct sbuf {
    char *p;
    size_t n, cap;
    bool failed;
};

static void sb_add(struct sbuf *b, const void *data, size_t len)
{
    if (b->failed)
        return;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + len)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    char tmp[PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (k > 0)
        sb_add(b, tmp, (size_t)k < sizeof(tmp) ? (size_t)k : sizeof(tmp) - 1);
}

/* show_map_vma(): "start-end perms offset major:minor inode", padded to
 * column 73 before the name; unnamed mappings end after "inode ". */
static void gen_maps(struct cpu *c, struct sbuf *b)
{
    const struct mm_space *mm = c->mm;
    mm_lock(mm); /* other guest threads may map and unmap meanwhile */
    for (size_t i = 0; i < mm->vmas.n; i++) {
        const struct mm_vma *v = &mm->vmas.v[i];
        bool file = !(v->flags & MM_VMA_ANON);
        char line[128];
        int k = snprintf(line, sizeof(line), "%08llx-%08llx %c%c%c%c %08llx %02x:%02x %llu ",
                         (unsigned long long)v->start, (unsigned long long)v->end,
                         v->prot & PROT_READ ? 'r' : '-', v->prot & PROT_WRITE ? 'w' : '-',
                         v->prot & PROT_EXEC ? 'x' : '-', v->flags & MM_VMA_SHARED ? 's' : 'p',
                         file ? (unsigned long long)v->offset : 0ull,
                         file ? major((dev_t)v->dev) : 0u, file ? minor((dev_t)v->dev) : 0u,
                         file ? (unsigned long long)v->ino : 0ull);
        sb_add(b, line, (size_t)k);
        const char *name = v->name ? v->name : "";
        if (file) /* a file inside the -L root by the guest's name for it */
            name = path_guest_view(name);
        if (*name) {
            if (k < 73)
                sb_printf(b, "%*s", 73 - k, "");
            sb_add(b, name, strlen(name));
        }
        sb_add(b, "\n", 1);
    }
    mm_unlock(mm);
}

static void gen_auxv(struct sbuf *b)
{
    for (unsigned i = 0; i < img.nauxv; i++) {
        if (img.bits == 64) {
            sb_add(b, img.auxv[i], 16);
        } else {
            uint32_t pair[2] = { (uint32_t)img.auxv[i][0], (uint32_t)img.auxv[i][1] };
            sb_add(b, pair, 8);
        }
        if (img.auxv[i][0] == 0)
            break;
    }
}

/* Guest memory [start, end) into b; what cannot be read is left out, as the
 * kernel's access_remote_vm() gives up. */
static void add_guest(struct cpu *c, struct sbuf *b, uint64_t start, uint64_t end)
{
    char tmp[4096];
    while (start < end) {
        size_t n = end - start < sizeof(tmp) ? (size_t)(end - start) : sizeof(tmp);
        if (mm_read(c->mm, start, tmp, n) != 0)
            return;
        sb_add(b, tmp, n);
        start += n;
    }
}

/* get_mm_cmdline(): the argument strings; when the guest overwrote the NUL
 * at their end (setproctitle), the title up to the first NUL, which may run
 * on into the environment strings. */
static void gen_cmdline(struct cpu *c, struct sbuf *b)
{
    char last = 0;
    if (img.arg_end > img.arg_start && mm_read(c->mm, img.arg_end - 1, &last, 1) == 0 && last) {
        struct sbuf all = { 0 };
        add_guest(c, &all, img.arg_start, img.env_end);
        size_t len = all.p ? strnlen(all.p, all.n) : 0;
        if (len < all.n)
            len++;
        sb_add(b, all.p, len);
        free(all.p);
        return;
    }
    add_guest(c, b, img.arg_start, img.arg_end);
}

/* Read a whole host file into b; 0 or -errno. */
static int add_host_file(struct sbuf *b, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    char tmp[4096];
    ssize_t n;
    while ((n = read(fd, tmp, sizeof(tmp))) > 0)
        sb_add(b, tmp, (size_t)n);
    int e = n < 0 ? -errno : 0;
    close(fd);
    return e;
}

/* The guest's memory totals, as task_mem() counts them. */
struct vm_totals {
    uint64_t total, data, stack, exec;
};

static struct vm_totals vm_totals(const struct mm_space *mm)
{
    struct vm_totals t = { 0 };
    mm_lock(mm);
    for (size_t i = 0; i < mm->vmas.n; i++) {
        const struct mm_vma *v = &mm->vmas.v[i];
        uint64_t len = v->end - v->start;
        t.total += len;
        if (v->flags & MM_VMA_GROWSDOWN)
            t.stack += len;
        else if ((v->prot & PROT_WRITE) && !(v->flags & MM_VMA_SHARED))
            t.data += len;
        else if ((v->prot & PROT_EXEC) && !(v->prot & PROT_WRITE))
            t.exec += len;
    }
    mm_unlock(mm);
    return t;
}

static const char *task_dir(int tid, char *buf, size_t size)
{
    if (tid)
        snprintf(buf, size, "/proc/self/task/%d", tid);
    else
        snprintf(buf, size, "/proc/self");
    return buf;
}

/* do_task_stat(): the host's line with the memory fields (vsize, code,
 * stack, data, brk, argument and environment ranges) set to the guest's. */
static int gen_stat(struct cpu *c, struct sbuf *b, int tid)
{
    char path[128], dir[64];
    snprintf(path, sizeof(path), "%s/stat", task_dir(tid, dir, sizeof(dir)));
    struct sbuf host = { 0 };
    int e = add_host_file(&host, path);
    sb_add(&host, "", 1);
    if (e || host.failed) {
        free(host.p);
        return e ? e : -ENOMEM;
    }
    /* Fields 1-2 ("pid (comm)") end at the last ')'; the rest split at spaces. */
    char *close_paren = strrchr(host.p, ')');
    if (!close_paren) {
        free(host.p);
        return -EIO;
    }
    struct vm_totals t = vm_totals(c->mm);
    sb_add(b, host.p, (size_t)(close_paren + 1 - host.p));
    char *save, *tok = strtok_r(close_paren + 1, " \n", &save);
    for (int field = 3; tok; field++, tok = strtok_r(NULL, " \n", &save)) {
        uint64_t v;
        switch (field) {
        case 23: v = t.total; break;
        case 26: v = img.start_code; break;
        case 27: v = img.end_code; break;
        case 28: v = img.start_stack; break;
        case 45: v = img.start_data; break;
        case 46: v = img.end_data; break;
        case 47: v = img.start_brk; break;
        case 48: v = img.arg_start; break;
        case 49: v = img.arg_end; break;
        case 50: v = img.env_start; break;
        case 51: v = img.env_end; break;
        default:
            sb_printf(b, " %s", tok);
            continue;
        }
        sb_printf(b, " %llu", (unsigned long long)v);
    }
    sb_add(b, "\n", 1);
    free(host.p);
    return 0;
}

/* proc_pid_status(): the host's lines with the Vm* sizes of task_mem() for
 * the guest's mappings.  VmPeak is the current size (no high-water mark is
 * kept); VmRSS and the other resident counts are the host's. */
static int gen_status(struct cpu *c, struct sbuf *b, int tid)
{
    char path[128], dir[64];
    snprintf(path, sizeof(path), "%s/status", task_dir(tid, dir, sizeof(dir)));
    struct sbuf host = { 0 };
    int e = add_host_file(&host, path);
    sb_add(&host, "", 1);
    if (e || host.failed) {
        free(host.p);
        return e ? e : -ENOMEM;
    }
    struct vm_totals t = vm_totals(c->mm);
    uint64_t text = mm_page_up(img.end_code) - mm_page_down(img.start_code);
    if (img.end_code <= img.start_code)
        text = 0;
    if (text > t.exec)
        text = t.exec;
    struct { const char *key; uint64_t bytes; } fix[] = {
        { "VmPeak:", t.total }, { "VmSize:", t.total }, { "VmData:", t.data },
        { "VmStk:", t.stack }, { "VmExe:", text }, { "VmLib:", t.exec - text },
    };
    char *save, *line = strtok_r(host.p, "\n", &save);
    for (; line; line = strtok_r(NULL, "\n", &save)) {
        size_t i = 0;
        for (; i < sizeof(fix) / sizeof(fix[0]); i++)
            if (!strncmp(line, fix[i].key, strlen(fix[i].key)))
                break;
        if (i < sizeof(fix) / sizeof(fix[0]))
            sb_printf(b, "%s\t%8llu kB\n", fix[i].key, (unsigned long long)(fix[i].bytes >> 10));
        else
            sb_printf(b, "%s\n", line);
    }
    free(host.p);
    return 0;
}

/* task_statm(): "size resident shared text lib data dt" in pages; the
 * resident and shared counts are the host's, the others the guest's. */
static int gen_statm(struct cpu *c, struct sbuf *b, int tid)
{
    char path[128], dir[64];
    snprintf(path, sizeof(path), "%s/statm", task_dir(tid, dir, sizeof(dir)));
    struct sbuf host = { 0 };
    int e = add_host_file(&host, path);
    sb_add(&host, "", 1);
    unsigned long long h[7];
    if (e || host.failed || sscanf(host.p, "%llu %llu %llu %llu %llu %llu %llu", &h[0], &h[1],
                                   &h[2], &h[3], &h[4], &h[5], &h[6]) != 7) {
        free(host.p);
        return e ? e : host.failed ? -ENOMEM : -EIO;
    }
    free(host.p);
    struct vm_totals t = vm_totals(c->mm);
    uint64_t text = img.end_code > img.start_code
                        ? mm_page_up(img.end_code) - mm_page_down(img.start_code) : 0;
    sb_printf(b, "%llu %llu %llu %llu 0 %llu 0\n", (unsigned long long)(t.total / MM_PAGE_SIZE),
              h[1], h[2], (unsigned long long)(text / MM_PAGE_SIZE),
              (unsigned long long)((t.data + t.stack) / MM_PAGE_SIZE));
    return 0;
}

/* ------------------------------------------------------------ lookup, open */

enum procfs_file procfs_lookup(const char *path, int *tid)
{
    static const struct { const char *name; enum procfs_file f; } files[] = {
        { "exe", PROCFS_EXE },         { "maps", PROCFS_MAPS },     { "auxv", PROCFS_AUXV },
        { "cmdline", PROCFS_CMDLINE }, { "environ", PROCFS_ENVIRON }, { "stat", PROCFS_STAT },
        { "status", PROCFS_STATUS },   { "statm", PROCFS_STATM },   { "mem", PROCFS_MEM },
    };
    *tid = 0;
    if (strncmp(path, "/proc/", 6) != 0)
        return PROCFS_NONE;
    const char *p = path + 6;
    char *end;
    if (*p < '0' || *p > '9')
        return PROCFS_NONE;
    long pid = strtol(p, &end, 10);
    if (*end != '/' || (pid != getpid() && pid != gettid()))
        return PROCFS_NONE;
    if (pid != getpid())
        *tid = (int)pid; /* the calling thread's own (hidden) /proc/<tid> */
    p = end + 1;
    if (!strncmp(p, "task/", 5)) {
        p += 5;
        if (*p < '0' || *p > '9')
            return PROCFS_NONE;
        long t = strtol(p, &end, 10);
        if (*end != '/')
            return PROCFS_NONE;
        if (t != gettid()) { /* another thread of ours? */
            char dir[64];
            snprintf(dir, sizeof(dir), "/proc/self/task/%ld", t);
            if (access(dir, F_OK) != 0)
                return PROCFS_NONE;
        }
        *tid = (int)t;
        p = end + 1;
    }
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        if (!strcmp(p, files[i].name))
            return files[i].f;
    return PROCFS_NONE;
}

/* A descriptor on a memfd holding b, opened with the guest's access mode
 * and flags (O_CLOEXEC, O_NONBLOCK...).  The content is sealed: a write
 * through an O_RDWR descriptor fails (EPERM where the real file says
 * EINVAL). */
static int64_t serve(const struct sbuf *b, const char *name, int flags, mode_t mode)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -errno;
    size_t off = 0;
    while (off < b->n) {
        ssize_t n = write(fd, b->p + off, b->n - off);
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            return -e;
        }
        off += (size_t)n;
    }
    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    fchmod(fd, mode & 07777); /* fstat shows the real file's 0444 or 0400 */
    /* Reopened so that the description has the guest's mode (a write to a
     * read-only one is EBADF as on the real file) and starts at offset 0. */
    char self[64];
    snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
    int keep = flags & (O_CLOEXEC | O_NONBLOCK | O_NOATIME | O_LARGEFILE | O_SYNC | O_DSYNC |
                        O_ASYNC | O_NOCTTY);
    int r = open(self, (flags & O_ACCMODE) == O_RDWR ? O_RDWR | keep : O_RDONLY | keep);
    int e = errno;
    close(fd);
    return r < 0 ? -e : r;
}

int64_t procfs_open(struct cpu *c, enum procfs_file f, int tid, int flags)
{
    static const char *const names[] = {
        [PROCFS_MAPS] = "maps", [PROCFS_AUXV] = "auxv", [PROCFS_CMDLINE] = "cmdline",
        [PROCFS_ENVIRON] = "environ", [PROCFS_STAT] = "stat", [PROCFS_STATUS] = "status",
        [PROCFS_STATM] = "statm",
    };
    if (f == PROCFS_EXE)
        return host_ret(syscall(SYS_openat, AT_FDCWD, sys_exe(), flags, 0));
    /* mem would be the emulator's memory at guest addresses: refused
     * rather than handed out (it is the sandbox's floor). */
    if (f == PROCFS_MEM)
        return -EACCES;
    if (flags & O_DIRECTORY)
        return -ENOTDIR;
    /* The host's file of the same name decides whether this open is
     * allowed (0444/0400 files, which root may open for writing too); a
     * write-only descriptor is the host's own (nothing is read from it). */
    char dir[64], host[128];
    snprintf(host, sizeof(host), "%s/%s", task_dir(tid, dir, sizeof(dir)), names[f]);
    int hfd = (int)syscall(SYS_openat, AT_FDCWD, host, flags, 0);
    if (hfd < 0)
        return -errno;
    if ((flags & O_ACCMODE) == O_WRONLY)
        return hfd;
    struct stat hst;
    mode_t mode = fstat(hfd, &hst) == 0 ? hst.st_mode : 0444;
    close(hfd);
    struct sbuf b = { 0 };
    int e = 0;
    switch (f) {
    case PROCFS_MAPS: gen_maps(c, &b); break;
    case PROCFS_AUXV: gen_auxv(&b); break;
    case PROCFS_CMDLINE: gen_cmdline(c, &b); break;
    case PROCFS_ENVIRON: add_guest(c, &b, img.env_start, img.env_end); break;
    case PROCFS_STAT: e = gen_stat(c, &b, tid); break;
    case PROCFS_STATUS: e = gen_status(c, &b, tid); break;
    case PROCFS_STATM: e = gen_statm(c, &b, tid); break;
    default: e = -ENOENT; break;
    }
    int64_t r = e ? e : b.failed ? -ENOMEM : serve(&b, names[f], flags, mode);
    free(b.p);
    return r;
}
