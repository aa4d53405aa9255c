/* Symbols of the guest's code, for the tools (tools/symbols.c): built from
 * the ELF files the guest has mapped executable (the program, ld.so, every
 * shared object, the vDSO), found through elfemu_maps(). */
#ifndef TOOLS_SYMBOLS_H
#define TOOLS_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elfemu.h"

struct syms;

struct syms *syms_new(elfemu *vm);
void syms_free(struct syms *s);

/* The guest's mappings changed (mmap, munmap, mprotect...): the next
 * lookup scans them again.  Files already read are kept. */
void syms_changed(struct syms *s);

/* The symbol at addr and addr's offset in it; false when none covers it.
 * The name lives as long as s. */
bool syms_find(struct syms *s, uint64_t addr, const char **name, uint64_t *offset);

/* "name" or "name+0x12" into out; 0 (and "") when no symbol covers addr. */
size_t syms_format(struct syms *s, uint64_t addr, char *out, size_t size);

/* The guest addresses of the symbols called name in every mapped module
 * (at most max); how many were found. */
size_t syms_addresses(struct syms *s, const char *name, uint64_t *out, size_t max);

/* Whether syscall nr (of the ABI with word size bits) may change the
 * executable mappings (mmap, mprotect, munmap, mremap): a tool calls
 * syms_changed() after it succeeds. */
bool syms_maps_call(int bits, uint64_t nr);

#endif
