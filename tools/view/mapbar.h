/* elfemu-view: the model of the memory-map pane (tools/view/mapbar.c).
 *
 * The guest's mappings (elfemu_maps()) become a list of bar entries, the
 * highest address first as the pane draws them, each classified (program
 * segment, its BSS, the interpreter, heap, shared object, anonymous mmap,
 * vDSO, stack) and labelled.  The unmapped holes between them are entries
 * too, so the bar covers the whole used range.  mapbar_layout() gives each
 * entry a vertical extent: log-scaled by size, since a 4 KiB vDSO and a
 * 8 MiB stack must both be visible.  No SDL here: the unit test checks it. */
#ifndef TOOLS_VIEW_MAPBAR_H
#define TOOLS_VIEW_MAPBAR_H

#include <stddef.h>
#include <stdint.h>

#include "elfemu.h"

enum mapbar_kind {
    MAPBAR_PROGRAM,     /* a PT_LOAD of the program, mapped from its file */
    MAPBAR_BSS,         /* zero pages after a PT_LOAD's file part */
    MAPBAR_INTERP,      /* a PT_LOAD of the interpreter (ld.so) */
    MAPBAR_HEAP,        /* brk */
    MAPBAR_LIBRARY,     /* a file mapping of anything else: shared objects */
    MAPBAR_MMAP,        /* anonymous mmap */
    MAPBAR_VDSO,
    MAPBAR_STACK,
    MAPBAR_GAP,         /* nothing mapped */
};

struct mapbar_entry {
    uint64_t start, end;    /* [start, end) */
    int prot;               /* PROT_*; 0 for a gap */
    enum mapbar_kind kind;
    char label[96];         /* "showargs text", "[stack]", "libc.so.6 data", "unmapped" */
    int y0, y1;             /* the pane's rows [y0, y1), set by mapbar_layout() */
};

struct mapbar {
    struct mapbar_entry *e; /* highest address first */
    size_t n;
};

/* Build the entries from the mappings (in address order, as elfemu_maps()
 * gives them) and the loader's record; 0, or -1 when out of memory. */
int mapbar_build(struct mapbar *bar, const elfemu_map *maps, size_t nmaps,
                 const elfemu_load_info *li);

/* The same from a VM's current mappings. */
int mapbar_build_vm(struct mapbar *bar, elfemu *vm);

/* Rows [0, height) for the entries: top = highest address, each mapping's
 * height growing with log2 of its size, each gap a thin fixed band. */
void mapbar_layout(struct mapbar *bar, int height);

/* The entry holding addr (gaps included), or -1 outside the bar. */
int mapbar_find(const struct mapbar *bar, uint64_t addr);

/* "program", "bss", "ld.so", "heap", "library", "mmap", "vdso", "stack", "gap". */
const char *mapbar_kind_name(enum mapbar_kind k);

/* "r-x" */
void mapbar_prot_str(int prot, char out[4]);

void mapbar_free(struct mapbar *bar);

#endif
