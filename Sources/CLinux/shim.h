// Linux calls and constants that Glibc declares only under _GNU_SOURCE.
// Declared here by hand: defining _GNU_SOURCE in a module would change
// types that other modules (Dispatch, Glibc) already define.
#ifndef HOIST_CLINUX_SHIM_H
#define HOIST_CLINUX_SHIM_H

#include <malloc.h>
#include <sys/types.h>
#include <sys/uio.h>
// zlib's crc32, for S3's x-amz-checksum-crc32 (zlib1g-dev).
#include <zlib.h>

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

// <linux/mman.h>, for cachestat(2) (Linux 6.5; 451 on every architecture).
struct hoist_cachestat_range { unsigned long long off, len; };
struct hoist_cachestat { unsigned long long nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted; };
extern long syscall(long number, ...);

/// How many pages of the range are in the page cache; -1 where the kernel
/// cannot tell.
static inline long long hoist_cached_pages(int fd, off_t offset, size_t length) {
    struct hoist_cachestat_range range = { (unsigned long long)offset, length };
    struct hoist_cachestat stat;
    if (syscall(451, fd, &range, &stat, 0) != 0) return -1;
    return (long long)stat.nr_cache;
}

#include <stdint.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

/// Whether this CPU computes CRC-32C in hardware (SSE4.2's crc32).
static inline int hoist_crc32c_in_hardware(void) {
#if defined(__x86_64__)
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return (c & bit_SSE4_2) != 0;
#else
    return 0;
#endif
}

#if defined(__x86_64__)
/// CRC-32C (Castagnoli, as GCS's crc32c) of `count` bytes, continuing
/// `crc` (0 to begin); only where hoist_crc32c_in_hardware() says so.
__attribute__((target("sse4.2")))
static inline uint32_t hoist_crc32c_hardware(uint32_t crc, const unsigned char *bytes, size_t count) {
    uint64_t value = ~crc & 0xffffffffu;
    while (count >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, bytes, 8);
        value = __builtin_ia32_crc32di(value, word);
        bytes += 8;
        count -= 8;
    }
    uint32_t small = (uint32_t)value;
    while (count > 0) {
        small = __builtin_ia32_crc32qi(small, *bytes++);
        count--;
    }
    return ~small;
}
#endif

#endif
