/* The emulator's /proc views of the guest process (syscalls/procfs.c). */
#ifndef SYSCALLS_PROCFS_H
#define SYSCALLS_PROCFS_H

#include "elfemu.h"
#include "syscalls/syscalls.h"

/* The files of /proc/<pid>/ and /proc/<pid>/task/<tid>/ whose host content
 * would describe the emulator instead of the guest. */
enum procfs_file {
    PROCFS_NONE,
    PROCFS_EXE,     /* symlink to the guest program */
    PROCFS_MAPS,    /* the guest's mappings */
    PROCFS_AUXV,    /* the guest's auxiliary vector */
    PROCFS_CMDLINE, /* the guest's argument strings */
    PROCFS_ENVIRON, /* the guest's environment strings */
    PROCFS_STAT,    /* host content, guest memory fields */
    PROCFS_STATUS,  /* host content, guest memory fields */
    PROCFS_STATM,   /* guest sizes, host resident counts */
    PROCFS_MEM,     /* host memory at guest addresses: refused */
};

/* Which file a normalised absolute path names ("/proc/<pid>/maps",
 * "/proc/<pid>/task/<tid>/stat", self and thread-self already replaced by
 * numbers); *tid receives the task (0 for the process's own files).
 * PROCFS_NONE for everything else, which the host serves as it is. */
enum procfs_file procfs_lookup(const char *path, int *tid);

/* Open one of the files above with the guest's open flags: a read-only
 * descriptor on its generated content, the guest program for EXE.  The
 * descriptor or -errno. */
int64_t procfs_open(struct cpu *c, enum procfs_file f, int tid, int flags);

/* Record what the loader built (auxv, argument and environment strings,
 * code and data ranges); once, before the guest runs. */
void procfs_set_image(const struct mm_space *mm, const elfemu_load_info *info);

#endif
