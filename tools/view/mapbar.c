/* elfemu-view: the memory-map pane's model (see mapbar.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tools/view/mapbar.h"

const char *mapbar_kind_name(enum mapbar_kind k)
{
    static const char *const names[] = { "program", "bss", "ld.so", "heap", "library",
                                         "mmap", "vdso", "stack", "gap" };
    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

void mapbar_prot_str(int prot, char out[4])
{
    out[0] = (prot & PROT_READ) ? 'r' : '-';
    out[1] = (prot & PROT_WRITE) ? 'w' : '-';
    out[2] = (prot & PROT_EXEC) ? 'x' : '-';
    out[3] = 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Does [start, end) lie inside the pages of one of the image's PT_LOADs
 * but past the pages mapped from the file?  That is its BSS. */
static bool in_bss(const elfemu_image *img, uint64_t start, uint64_t end)
{
    for (unsigned i = 0; i < img->nsegments; i++) {
        const elfemu_segment *s = &img->segments[i];
        uint64_t seg_end = (s->vaddr + s->mem_size + 4095) & ~4095ull;
        if (start >= s->map_end && end <= seg_end && s->bss_end > s->bss_start)
            return true;
    }
    return false;
}

static bool in_image(const elfemu_image *img, uint64_t start, uint64_t end)
{
    return img->end > img->start && start >= (img->start & ~4095ull) &&
           end <= ((img->end + 4095) & ~4095ull);
}

/* A segment's usual name from its permissions. */
static const char *segment_role(int prot)
{
    if (prot & PROT_EXEC)
        return "text";
    if (prot & PROT_WRITE)
        return "data";
    return prot & PROT_READ ? "rodata" : "guard";
}

static void classify(struct mapbar_entry *e, const elfemu_map *m, const elfemu_load_info *li)
{
    const elfemu_image *img = NULL;
    if (in_image(&li->program, m->start, m->end))
        img = &li->program;
    else if (li->has_interp && in_image(&li->interp, m->start, m->end))
        img = &li->interp;
    if (img) {
        bool bss = m->name[0] != '/' && in_bss(img, m->start, m->end);
        e->kind = bss ? MAPBAR_BSS : img == &li->program ? MAPBAR_PROGRAM : MAPBAR_INTERP;
        snprintf(e->label, sizeof(e->label), "%s %s", base_name(img->path),
                 bss ? "bss" : segment_role(m->prot));
    } else if (!strcmp(m->name, "[stack]")) {
        e->kind = MAPBAR_STACK;
    } else if (!strcmp(m->name, "[vdso]") || !strcmp(m->name, "[vvar]")) {
        e->kind = MAPBAR_VDSO;
    } else if (!strcmp(m->name, "[heap]") || (m->start == li->brk_start && !m->name[0])) {
        e->kind = MAPBAR_HEAP;
        snprintf(e->label, sizeof(e->label), "[heap]");
    } else if (m->name[0] == '/' || (m->name[0] && m->name[0] != '[')) {
        e->kind = MAPBAR_LIBRARY;
        snprintf(e->label, sizeof(e->label), "%s %s", base_name(m->name), segment_role(m->prot));
    } else {
        e->kind = MAPBAR_MMAP;
        snprintf(e->label, sizeof(e->label), "%s", m->name[0] ? m->name : "mmap");
    }
    if (!e->label[0])
        snprintf(e->label, sizeof(e->label), "%s", m->name);
}

int mapbar_build(struct mapbar *bar, const elfemu_map *maps, size_t nmaps,
                 const elfemu_load_info *li)
{
    bar->n = 0;
    bar->e = calloc(2 * nmaps + 1, sizeof(*bar->e));
    if (!bar->e)
        return -1;
    /* Highest first, with a gap entry wherever two mappings do not touch. */
    for (size_t k = nmaps; k-- > 0;) {
        const elfemu_map *m = &maps[k];
        if (bar->n > 0 && bar->e[bar->n - 1].start > m->end) {
            struct mapbar_entry *g = &bar->e[bar->n++];
            g->start = m->end;
            g->end = bar->e[bar->n - 2].start;
            g->kind = MAPBAR_GAP;
            snprintf(g->label, sizeof(g->label), "unmapped");
        }
        struct mapbar_entry *e = &bar->e[bar->n++];
        e->start = m->start;
        e->end = m->end;
        e->prot = m->prot;
        classify(e, m, li);
    }
    return 0;
}

int mapbar_build_vm(struct mapbar *bar, elfemu *vm)
{
    size_t n = elfemu_maps(vm, NULL, 0);
    elfemu_map *maps = calloc(n ? n : 1, sizeof(*maps));
    if (!maps)
        return -1;
    n = elfemu_maps(vm, maps, n);
    int r = mapbar_build(bar, maps, n, elfemu_get_load_info(vm));
    free(maps);
    return r;
}

/* A mapping's share of the bar: 1 for a page, +1 for each doubling. */
static double weight(const struct mapbar_entry *e)
{
    if (e->kind == MAPBAR_GAP)
        return 0.6;
    double pages = (double)((e->end - e->start + 4095) / 4096);
    return 1.0 + log2(pages);
}

void mapbar_layout(struct mapbar *bar, int height)
{
    double total = 0;
    for (size_t i = 0; i < bar->n; i++)
        total += weight(&bar->e[i]);
    /* Cumulative rounding: the rows touch and end exactly at height. */
    double acc = 0;
    for (size_t i = 0; i < bar->n; i++) {
        bar->e[i].y0 = (int)lround(acc / total * height);
        acc += weight(&bar->e[i]);
        bar->e[i].y1 = (int)lround(acc / total * height);
    }
}

int mapbar_find(const struct mapbar *bar, uint64_t addr)
{
    for (size_t i = 0; i < bar->n; i++)
        if (addr >= bar->e[i].start && addr < bar->e[i].end)
            return (int)i;
    return -1;
}

void mapbar_free(struct mapbar *bar)
{
    free(bar->e);
    bar->e = NULL;
    bar->n = 0;
}
