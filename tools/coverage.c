/* --coverage=FILE: the basic blocks the program ran, in DynamoRIO's drcov
 * format (version 2), which Lighthouse, bncov and the lcov converters
 * read.  Built on the public API only (include/elfemu.h).
 *
 *   DRCOV VERSION: 2
 *   DRCOV FLAVOR: elfemu
 *   Module Table: version 2, count N
 *   Columns: id, base, end, entry, checksum, timestamp, path
 *     0, 0x400000, 0x4a8000, 0x401650, 0x00000000, 0x00000000, /path/prog
 *   ...
 *   BB Table: M bbs
 *   M binary entries { uint32 start (offset from the module's base);
 *                      uint16 size; uint16 module id }, little-endian
 *
 * Modules are the files the guest maps executable (the program, ld.so,
 * every shared object) and the vDSO, found through elfemu_maps() and
 * followed through the guest's mmap/mprotect/munmap/mremap (as
 * tools/symbols.c does); a module's base is where its file offset 0 is
 * (or would be) mapped, its end the end of its highest mapping.  Each
 * block is written once however often it ran (a block decoded again after
 * its code changed, with other bytes or another length, is another
 * entry).  A block is placed in its module when the thread first runs it,
 * so code that is unmapped later (dlclose) still counts.  Code outside
 * every module (a JIT's anonymous memory) cannot be expressed in drcov and
 * is left out.
 *
 * Each thread remembers the blocks it has reported in a set of its own (no
 * lock while it runs known blocks); a block new to the thread goes into
 * the process-wide set under a lock.  The file is written by the end hook.
 * It covers the process elfemu started, until it exits, dies or execs:
 * forked children and exec'd programs do not write it. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/coverage.h"
#include "tools/outfile.h"
#include "tools/symbols.h"

struct module {
    char path[256];
    uint64_t base, end;
};

/* A block as the file stores it. */
struct bb {
    uint32_t start;
    uint16_t size, mod;
};

/* A set of blocks keyed by (start, end) (open addressing; key 0: empty). */
struct bset {
    uint64_t *start, *end;
    size_t cap, n;
};

static struct {
    elfemu *vm;
    char file[4096];        /* absolute: the guest may change directories */
    pid_t pid;
    uint64_t entry;
    pthread_mutex_t lock;   /* everything below */
    struct bset all;
    struct bb *bbs;
    size_t nbbs, capbbs;
    struct module *mods;
    unsigned nmods;
    bool stale;             /* the mappings changed since the last scan */
    uint64_t outside;       /* blocks in no module */
} V = { .lock = PTHREAD_MUTEX_INITIALIZER, .stale = true };

static __thread struct bset mine;

/* ------------------------------------------------------------ sets */

static size_t bset_slot(const struct bset *s, uint64_t start, uint64_t end)
{
    size_t j = (size_t)(((start ^ (end << 7)) * 0x9e3779b97f4a7c15ull) >> 22) & (s->cap - 1);
    while (s->end[j] && (s->start[j] != start || s->end[j] != end))
        j = (j + 1) & (s->cap - 1);
    return j;
}

static bool bset_has(const struct bset *s, uint64_t start, uint64_t end)
{
    return s->cap && s->end[bset_slot(s, start, end)];
}

/* Add (start, end) (end > start, so never 0); false when out of memory. */
static bool bset_add(struct bset *s, uint64_t start, uint64_t end)
{
    if (2 * (s->n + 1) > s->cap) {
        struct bset g = { NULL, NULL, s->cap ? 2 * s->cap : 4096, 0 };
        g.start = calloc(g.cap, sizeof(*g.start));
        g.end = calloc(g.cap, sizeof(*g.end));
        if (!g.start || !g.end) {
            free(g.start);
            free(g.end);
            return false;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->end[i]) {
                size_t j = bset_slot(&g, s->start[i], s->end[i]);
                g.start[j] = s->start[i];
                g.end[j] = s->end[i];
                g.n++;
            }
        free(s->start);
        free(s->end);
        *s = g;
    }
    size_t j = bset_slot(s, start, end);
    if (!s->end[j]) {
        s->start[j] = start;
        s->end[j] = end;
        s->n++;
    }
    return true;
}

/* ------------------------------------------------------------ modules */

static bool is_module_file(const char *name)
{
    return name[0] == '/' || !strcmp(name, "[vdso]");
}

/* Every file the guest maps executable is a module (V.lock held). */
static void scan_modules(void)
{
    V.stale = false;
    size_t n = elfemu_maps(V.vm, NULL, 0);
    elfemu_map *maps = calloc(n + 8, sizeof(*maps));
    if (!maps)
        return;
    n = elfemu_maps(V.vm, maps, n + 8);
    for (size_t i = 0; i < n; i++) {
        if (!(maps[i].prot & 4 /* PROT_EXEC */) || !is_module_file(maps[i].name))
            continue;
        /* Its extent: every mapping of the same file around it. */
        const char *path = maps[i].name;
        uint64_t base = maps[i].start - maps[i].offset, end = maps[i].end;
        for (size_t k = 0; k < n; k++)
            if (!strcmp(maps[k].name, path) && maps[k].start - maps[k].offset == base &&
                maps[k].end > end)
                end = maps[k].end;
        unsigned m = 0;
        while (m < V.nmods && !(V.mods[m].base == base && !strcmp(V.mods[m].path, path)))
            m++;
        if (m < V.nmods) {
            if (end > V.mods[m].end)
                V.mods[m].end = end;
            continue;
        }
        struct module *v = realloc(V.mods, (V.nmods + 1) * sizeof(*v));
        if (!v)
            break;
        V.mods = v;
        snprintf(v[m].path, sizeof(v[m].path), "%s", path);
        v[m].base = base;
        v[m].end = end;
        V.nmods++;
    }
    free(maps);
}

/* The module holding [start, end), or -1 (V.lock held).  The newest match
 * wins: a file mapped again at an old module's addresses is a new module. */
static int module_of(uint64_t start, uint64_t end)
{
    if (V.stale)
        scan_modules();
    for (unsigned m = V.nmods; m-- > 0;)
        if (V.mods[m].base <= start && end <= V.mods[m].end && end - V.mods[m].base <= UINT32_MAX)
            return (int)m;
    return -1;
}

/* ------------------------------------------------------------ hooks */

/* A block the thread has not reported: into the process-wide set. */
static __attribute__((noinline)) void new_block(uint64_t start, uint64_t end)
{
    if (!bset_add(&mine, start, end))
        return;
    pthread_mutex_lock(&V.lock);
    if (!bset_has(&V.all, start, end) && bset_add(&V.all, start, end)) {
        int m = module_of(start, end);
        if (m < 0 || end - start > UINT16_MAX) {
            V.outside++;
        } else {
            if (V.nbbs == V.capbbs) {
                size_t cap = V.capbbs ? 2 * V.capbbs : 4096;
                struct bb *v = realloc(V.bbs, cap * sizeof(*v));
                if (v) {
                    V.bbs = v;
                    V.capbbs = cap;
                }
            }
            if (V.nbbs < V.capbbs)
                V.bbs[V.nbbs++] = (struct bb){ (uint32_t)(start - V.mods[m].base),
                                               (uint16_t)(end - start), (uint16_t)m };
        }
    }
    pthread_mutex_unlock(&V.lock);
}

static void on_block(elfemu *vm, elfemu_thread *t, uint64_t start, uint64_t end, unsigned n,
                     void *user)
{
    (void)vm, (void)t, (void)n, (void)user;
    if (!bset_has(&mine, start, end))
        new_block(start, end);
}

static void on_sys_after(elfemu *vm, elfemu_thread *t, elfemu_syscall *call, void *user)
{
    (void)vm, (void)t, (void)user;
    if (syms_maps_call(call->bits, call->nr) && call->result >= 0) {
        pthread_mutex_lock(&V.lock);
        /* The blocks run so far keep their modules; new ones may be new. */
        V.stale = true;
        pthread_mutex_unlock(&V.lock);
    }
}

/* ------------------------------------------------------------ the file */

static void on_end(elfemu *vm, elfemu_thread *t, const elfemu_end *end, void *user)
{
    (void)vm, (void)t, (void)end, (void)user;
    if (getpid() != V.pid)
        return; /* a forked child: the file is its parent's */
    pthread_mutex_lock(&V.lock);
    scan_modules(); /* the modules mapped but never run are listed too */
    int fd = outfile_open(V.file, false, "coverage file");
    if (fd >= 0) {
        size_t cap = 256 + (size_t)V.nmods * 400, len = 0;
        char *text = malloc(cap);
        if (text) {
            len += (size_t)snprintf(text + len, cap - len,
                                    "DRCOV VERSION: 2\nDRCOV FLAVOR: elfemu\n"
                                    "Module Table: version 2, count %u\n"
                                    "Columns: id, base, end, entry, checksum, timestamp, path\n",
                                    V.nmods);
            for (unsigned m = 0; m < V.nmods; m++) {
                const struct module *md = &V.mods[m];
                uint64_t entry = md->base <= V.entry && V.entry < md->end ? V.entry : 0;
                len += (size_t)snprintf(text + len, cap - len,
                                        "%3u, %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64
                                        ", 0x00000000, 0x00000000, %s\n",
                                        m, md->base, md->end, entry, md->path);
            }
            len += (size_t)snprintf(text + len, cap - len, "BB Table: %zu bbs\n", V.nbbs);
            outfile_write(fd, text, len);
            free(text);
        }
        /* struct bb is the file's little-endian 8-byte entry, as the host lays it out. */
        outfile_write(fd, (const char *)V.bbs, V.nbbs * sizeof(*V.bbs));
        close(fd);
    }
    pthread_mutex_unlock(&V.lock);
}

_Static_assert(sizeof(struct bb) == 8, "a drcov BB entry is 8 bytes");

int coverage_begin(elfemu *vm, const char *file)
{
    V.vm = vm;
    outfile_absolute(file, V.file, sizeof(V.file));
    V.pid = getpid();
    V.entry = elfemu_get_load_info(vm)->program.entry;
    /* Refuse a file that cannot be written now, not at the end. */
    int fd = outfile_open(file, false, "coverage file");
    if (fd < 0)
        return -1;
    close(fd);
    if (elfemu_hook_block(vm, on_block, NULL) < 0 ||
        elfemu_hook_syscall(vm, NULL, on_sys_after, NULL) < 0 ||
        elfemu_hook_end(vm, on_end, NULL) < 0) {
        fprintf(stderr, "elfemu: cannot install the coverage hooks\n");
        return -1;
    }
    return 0;
}
