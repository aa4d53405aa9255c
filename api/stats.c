/* The counters of the public API (include/elfemu.h): elfemu_get_stats(),
 * elfemu_code_generation(), elfemu_syscall_name().  Every counter here is
 * kept off the interpreter's hot path: instructions per block (as the
 * dispatch loop always counts them), blocks and invalidations where code
 * is decoded or dropped. */
#include "api/vm.h"
#include "cpu/block.h"
#include "syscalls/syscalls.h"
#include "syscalls/thread.h"

int elfemu_get_stats(elfemu *vm, elfemu_stats *out)
{
    struct mm_space *mm = vm_space(vm);
    if (!mm)
        return -1;
    out->instructions = __atomic_load_n(&vm_cpu(vm)->icount, __ATOMIC_RELAXED) +
                        gthread_icount_others();
    out->blocks_decoded = cpu_blocks_decoded(mm);
    out->smc_invalidations = cpu_smc_invalidations();
    return 0;
}

uint64_t elfemu_code_generation(const elfemu *vm)
{
    (void)vm; /* one guest process per host process */
    return cpu_code_generation();
}

const char *elfemu_syscall_name(int bits, uint64_t nr)
{
    if (nr >= SYS_TABLE_SIZE || (bits != 64 && bits != 32))
        return NULL;
    return bits == 64 ? sys_names_64[nr] : sys_names_32[nr];
}
