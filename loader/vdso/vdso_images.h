/* The vDSO images the loader maps into every guest.
 *
 * Both are small, real ELF shared objects linked at build time from
 * vdso64.S / vdso32.S with vdso.lds and embedded as byte arrays by
 * embed.cmake (see CMakeLists.txt here).  They are linked at address 0
 * with one PT_LOAD at file offset 0, so a file offset is also the offset
 * from the address the image is mapped at: map the bytes as they are and
 * point AT_SYSINFO_EHDR at them.  Symbol values come from ldr_elf_dynsym()
 * (loader/elf_sym.h), e.g. AT_SYSINFO = base + value of __kernel_vsyscall.
 *
 * This header is also included by the .S sources (to share the constants
 * below), hence the __ASSEMBLER__ guard. */
#ifndef LDR_VDSO_IMAGES_H
#define LDR_VDSO_IMAGES_H

/* LINUX_VERSION_CODE placed in the images' "Linux" ELF note.  glibc before
 * 2.37 reads it at startup (_dl_discover_osversion) and refuses to run
 * ("FATAL: kernel too old") if it is below its configured minimum, so it
 * must look like a modern kernel: 6.1.0, the Debian 12 kernel. */
#define LDR_VDSO_LINUX_VERSION_CODE 0x060100

/* The images are linked to fit in two pages: the loader reserves that much
 * for [vdso] and the unit test holds the build to it. */
#define LDR_VDSO_MAX_SIZE 8192

/* Offset, from __kernel_vsyscall, of the landing pad after `int $0x80`
 * (push ecx; push edx; push ebp; mov %esp,%ebp; sysenter; int $0x80 is
 * 1+1+1+2+2+2 bytes).  As on Linux, SYSENTER returns there rather than
 * to the next instruction, which restores ebp/edx/ecx and returns. */
#define LDR_VDSO32_SYSENTER_RETURN_OFFSET 9

#ifndef __ASSEMBLER__
#include <stddef.h>

/* Defined in the generated vdso_images.c; 16-byte aligned so the ELF
 * headers can be read in place. */
extern const unsigned char ldr_vdso64_image[];
extern const size_t ldr_vdso64_size;
extern const unsigned char ldr_vdso32_image[];
extern const size_t ldr_vdso32_size;
#endif

#endif
