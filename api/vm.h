/* What api/ files other than vm.c need of a VM. */
#ifndef API_VM_H
#define API_VM_H

#include "elfemu.h"
#include "mm/space.h"

/* The VM's address space; NULL before a successful load. */
struct mm_space *vm_space(elfemu *vm);

/* The VM's own thread: the CPU elfemu_run() runs. */
struct cpu *vm_cpu(elfemu *vm);

/* Remove every hook of vm (api/hooks.c), when it is destroyed. */
void hooks_forget(elfemu *vm);

#endif
