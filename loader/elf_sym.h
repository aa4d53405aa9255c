/* Dynamic-symbol lookup in an ELF shared object held in memory.
 *
 * Used on our own vDSO images (to find __kernel_vsyscall for AT_SYSINFO,
 * and by the unit test to check the images the way a libc reads them), but
 * written for any ELF32/ELF64 little-endian x86 object: the image is the
 * file's bytes, and addresses found in the dynamic section are turned into
 * file offsets through the PT_LOAD headers.  (For the vDSO, linked at 0 in
 * one segment at offset 0, the two are the same.)
 *
 * The image is untrusted: every read is checked against `size`, and a
 * malformed image gives -1, never a crash or a read outside it. */
#ifndef LDR_ELF_SYM_H
#define LDR_ELF_SYM_H

#include <stddef.h>
#include <stdint.h>

/* Which symbol hash table a lookup walks. */
enum ldr_elf_hash {
    LDR_ELF_HASH_ANY,  /* DT_GNU_HASH if present, else DT_HASH, as glibc does */
    LDR_ELF_HASH_SYSV, /* DT_HASH only: what musl's vDSO lookup uses */
    LDR_ELF_HASH_GNU,  /* DT_GNU_HASH only */
};

/* Find the defined (global or weak) dynamic symbol `name`; when `version`
 * is not NULL it must be defined at that version (DT_VERSYM/DT_VERDEF),
 * as glibc's dl_vdso_vsym asks.  On success stores st_value (an address
 * relative to the load base) in *value_out, if not NULL, and returns 0;
 * returns -1 if the symbol is absent or the image is malformed. */
int ldr_elf_dynsym(const void *image, size_t size, const char *name,
                   const char *version, uint64_t *value_out);

/* The same, walking only the given hash table (the test uses it to check
 * that both tables of the vDSO are right, since glibc and musl each read
 * a different one). */
int ldr_elf_dynsym_via(const void *image, size_t size, enum ldr_elf_hash hash,
                       const char *name, const char *version,
                       uint64_t *value_out);

/* Point *out at the DT_SONAME string inside the image; 0 or -1. */
int ldr_elf_soname(const void *image, size_t size, const char **out);

#endif
