/* Reading ELF32/ELF64 fields from a file image in memory, for the tools'
 * symbol tables (tools/symbols.c, tools/symbols_plt.c): little-endian
 * fields of width 2, 4 or 8, and bounds checks against the image size. */
#ifndef TOOLS_ELFREAD_H
#define TOOLS_ELFREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* [off, off + len) lies inside an image of size bytes. */
static inline bool elf_in_image(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

/* A field of width 4 or 8 at p. */
static inline uint64_t elf_rd(const uint8_t *p, int w)
{
    if (w == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint32_t elf_rd32(const uint8_t *p) { return (uint32_t)elf_rd(p, 4); }
static inline uint16_t elf_rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

/* One section header, the fields the tools use (ELF32 ones widened). */
struct elf_shdr {
    uint32_t name, type, link;
    uint64_t addr, offset, size, entsize;
};

/* Section i of the image (is64: ELF64); false when its header is outside
 * the image.  shoff and shentsize come from the ELF header. */
static inline bool elf_section(const uint8_t *img, size_t size, bool is64, uint64_t shoff,
                               unsigned shentsize, unsigned i, struct elf_shdr *out)
{
    uint64_t o = shoff + (uint64_t)i * shentsize;
    if (shentsize < (is64 ? 64u : 40u) || !elf_in_image(o, shentsize, size))
        return false;
    const uint8_t *s = img + o;
    int w = is64 ? 8 : 4;
    /* name type flags addr offset size link info align entsize */
    out->name = elf_rd32(s);
    out->type = elf_rd32(s + 4);
    out->addr = elf_rd(s + (is64 ? 16 : 12), w);
    out->offset = elf_rd(s + (is64 ? 24 : 16), w);
    out->size = elf_rd(s + (is64 ? 32 : 20), w);
    out->link = elf_rd32(s + (is64 ? 40 : 24));
    out->entsize = elf_rd(s + (is64 ? 56 : 36), w);
    return true;
}

#endif
