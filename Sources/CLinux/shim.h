// Linux calls and constants that Glibc declares only under _GNU_SOURCE.
// Declared here by hand: defining _GNU_SOURCE in a module would change
// types that other modules (Dispatch, Glibc) already define.
#ifndef HOIST_CLINUX_SHIM_H
#define HOIST_CLINUX_SHIM_H

#include <sys/types.h>
#include <sys/uio.h>

// <linux/fcntl.h>: F_LINUX_SPECIFIC_BASE + 0 and + 1.
static const int hoist_F_SETLEASE = 1024;
static const int hoist_F_GETLEASE = 1025;
// <linux/fs.h>
static const int hoist_RWF_NOWAIT = 0x00000008;

extern ssize_t preadv2(int fd, const struct iovec *vector, int count, off_t offset, int flags);

/// pread that never waits for a disk: -1 with errno EAGAIN when the bytes
/// are not all in the page cache (Linux 4.14).
static inline ssize_t hoist_pread_nowait(int fd, void *buffer, size_t count, off_t offset) {
    struct iovec vector = { buffer, count };
    return preadv2(fd, &vector, 1, offset, hoist_RWF_NOWAIT);
}

#endif
