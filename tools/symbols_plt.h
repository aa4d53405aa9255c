/* Names for the PLT entries of an ELF image, as objdump -d gives them
 * (tools/symbols_plt.c): `puts@plt` for the entry that jumps through the
 * GOT slot of puts's relocation. */
#ifndef TOOLS_SYMBOLS_PLT_H
#define TOOLS_SYMBOLS_PLT_H

#include <stddef.h>
#include <stdint.h>

struct plt_sym {
    uint64_t value, size;   /* the entry's address in the file's own layout, its length */
    char *name;             /* "puts@plt", or a PLT section's name (".plt"); malloc'd */
};

/* The entries of .plt, .plt.sec and .plt.got of the ELF image img (x86_64
 * or i386), named after the dynamic relocation of the GOT slot each one
 * jumps through; a section whose first bytes are no named entry (the lazy
 * PLT's header) is named itself.  Returns how many, in *out (malloc'd,
 * NULL when none; plt_syms_free() frees it). */
size_t plt_syms(const uint8_t *img, size_t size, struct plt_sym **out);
void plt_syms_free(struct plt_sym *v, size_t n);

#endif
