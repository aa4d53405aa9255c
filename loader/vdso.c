/* Mapping the vDSO: arch_setup_additional_pages() / map_vdso().
 *
 * The images are real small shared objects built from loader/vdso/ (vdso64.S, vdso32.S) by
 * the build and embedded in the library.  They are mapped read+exec at the
 * next free place of the mmap area (below the interpreter, as on Linux) and
 * announced with AT_SYSINFO_EHDR; ia32 also gets AT_SYSINFO, the address of
 * __kernel_vsyscall. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "loader/elf_sym.h"
#include "loader/loader.h"
#include "loader/vdso/vdso_images.h"

int ldr_map_vdso(struct mm_space *mm, int bits, elfemu_load_info *info)
{
    const unsigned char *image = bits == 64 ? ldr_vdso64_image : ldr_vdso32_image;
    size_t size = bits == 64 ? ldr_vdso64_size : ldr_vdso32_size;
    uint64_t len = mm_page_up(size);
    uint64_t at = mm_find_free(mm, len, MM_PAGE_SIZE);
    if (!at)
        return -ENOMEM;
    int e = mm_map_anon(mm, at, len, PROT_READ | PROT_WRITE, 0, "[vdso]");
    if (e)
        return e;
    memcpy(mm->base + at, image, size);
    e = mm_protect(mm, at, len, PROT_READ | PROT_EXEC);
    if (e)
        return e;
    info->vdso_base = at;
    mm->vdso_base = at;
    info->vdso_size = len;
    info->vdso_sysinfo = 0;
    if (bits == 32) {
        uint64_t off;
        if (ldr_elf_dynsym(image, size, "__kernel_vsyscall", "LINUX_2.5", &off) != 0)
            return -ENOEXEC;
        info->vdso_sysinfo = at + off;
    }
    return 0;
}
