/* Names of the auxiliary vector entries, for --explain and the viewer. */
#include <elf.h>
#include <stddef.h>

#include "elfemu.h"

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif
#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#define AT_RSEQ_ALIGN 28
#endif

const char *elfemu_auxv_name(uint64_t type)
{
    switch (type) {
#define N(x) case x: return #x;
    N(AT_NULL) N(AT_IGNORE) N(AT_EXECFD) N(AT_PHDR) N(AT_PHENT) N(AT_PHNUM) N(AT_PAGESZ)
    N(AT_BASE) N(AT_FLAGS) N(AT_ENTRY) N(AT_NOTELF) N(AT_UID) N(AT_EUID) N(AT_GID)
    N(AT_EGID) N(AT_PLATFORM) N(AT_HWCAP) N(AT_CLKTCK) N(AT_SECURE) N(AT_BASE_PLATFORM)
    N(AT_RANDOM) N(AT_HWCAP2) N(AT_EXECFN) N(AT_SYSINFO) N(AT_SYSINFO_EHDR)
    N(AT_MINSIGSTKSZ) N(AT_RSEQ_FEATURE_SIZE) N(AT_RSEQ_ALIGN)
#undef N
    }
    return NULL;
}
