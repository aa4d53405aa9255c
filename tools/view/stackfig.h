/* elfemu-view: the model of the initial-stack figure (tools/view/stackfig.c).
 *
 * The stack the loader built, cut into the slots of the seed article's
 * figure, from the top of [stack] down: the end marker, the execfn string,
 * the environment and argument strings, the alignment gap, the platform
 * string, the AT_RANDOM bytes, the padding, the auxv pairs, envp[] and its
 * NULL, argv[] and its NULL, argc.  Every pointer slot that points into the
 * figure knows the slot it points at (the figure's arrows).  Built from
 * the load record and guest memory only, so it shows what the guest will
 * find.  No SDL here: the unit test checks it. */
#ifndef TOOLS_VIEW_STACKFIG_H
#define TOOLS_VIEW_STACKFIG_H

#include <stddef.h>
#include <stdint.h>

#include "elfemu.h"

enum stackfig_kind {
    SF_END_MARKER,   /* the NULL pointer at the very top */
    SF_EXECFN,       /* the program's file name (AT_EXECFN) */
    SF_ENV_STRING,   /* "VAR=value\0" (index: its envp[] index) */
    SF_ARG_STRING,   /* an argument (index: its argv[] index) */
    SF_ALIGN_GAP,    /* arch_align_stack(): to 16 bytes (and the random gap) */
    SF_PLATFORM,     /* "x86_64\0" or "i686\0" (AT_PLATFORM) */
    SF_RANDOM,       /* the 16 AT_RANDOM bytes */
    SF_PADDING,      /* zeros that align the final stack pointer */
    SF_AUXV,         /* one (type, value) pair */
    SF_ENVP,         /* envp[index] */
    SF_ENVP_NULL,
    SF_ARGV,         /* argv[index] */
    SF_ARGV_NULL,
    SF_ARGC,
};

/* The figure's bands, separated by a dashed or dotted line. */
enum stackfig_band { SF_BAND_STRINGS, SF_BAND_AUXV_DATA, SF_BAND_AUXV, SF_BAND_POINTERS };

struct stackfig_slot {
    uint64_t addr, size;
    enum stackfig_kind kind;
    enum stackfig_band band;
    unsigned index;         /* argv/envp index, auxv pair number */
    uint64_t value;         /* the word (pointer slots, argc, auxv value) */
    uint64_t aux_type;      /* SF_AUXV: AT_* */
    char text[112];         /* "argv[1]=0x3fffffffefd0", "'one\0'", "AT_PAGESZ(6)=4096" */
    int target;             /* the slot this one points at, or -1 */
};

struct stackfig {
    int bits;
    uint64_t top;           /* the end of [stack] */
    uint64_t sp;            /* the initial stack pointer (argc's slot) */
    struct stackfig_slot *slots;    /* highest address first */
    size_t n;
};

/* 0, or -1 when out of memory or the stack cannot be read. */
int stackfig_build(struct stackfig *f, elfemu *vm, const elfemu_load_info *li);

/* The slot holding addr, or -1. */
int stackfig_find(const struct stackfig *f, uint64_t addr);

/* Does the slot hold a pointer (argv, envp, or an auxv value that is an address)? */
int stackfig_is_pointer(const struct stackfig_slot *s);

void stackfig_free(struct stackfig *f);

#endif
