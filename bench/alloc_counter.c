/*
 * alloc_counter.so: counts a process's heap allocations, for bench/guard.py's regression
 * guard (allocations per notification; docs/benchmarks.md).
 *
 *   gcc -O2 -shared -fPIC -o alloc_counter.so bench/alloc_counter.c
 *   ALLOC_COUNTER_FILE=/tmp/counts LD_PRELOAD=$PWD/alloc_counter.so blectld …
 *
 * Every malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc and free
 * of the process (all threads; release blectld's statically linked Swift runtime calls
 * libc's malloc like any C code) goes through here to glibc's own (__libc_malloc …, so no
 * dlsym and no recursion), and bumps counters in ALLOC_COUNTER_FILE, a file mapped shared:
 * anyone may read them at any moment, from outside, while the process runs. The file holds
 * a 16-byte header "alloc-counter-1\n" and then little-endian uint64 counters (see enum
 * below). A realloc counts as an allocation when it moves or grows from NULL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

enum { ALLOCATIONS, FREES, BYTES, REALLOCS, COUNTERS };

#define HEADER "alloc-counter-1\n"
#define HEADER_SIZE 16

/* Until the constructor mapped the file (the loader's and libc's own early calls). */
static uint64_t early[COUNTERS];
static uint64_t *counters = early;

__attribute__((constructor)) static void map_counters(void) {
    const char *path = getenv("ALLOC_COUNTER_FILE");
    if (!path || !*path) return;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    size_t size = HEADER_SIZE + sizeof(uint64_t) * COUNTERS;
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return;
    }
    char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return;
    memcpy(map, HEADER, HEADER_SIZE);
    uint64_t *shared = (uint64_t *)(map + HEADER_SIZE);
    for (int i = 0; i < COUNTERS; i++) shared[i] = early[i];
    __atomic_store_n(&counters, shared, __ATOMIC_RELEASE);
    /* A child (blectld spawns nothing on the bench's path, but a shell might) counts apart. */
    unsetenv("ALLOC_COUNTER_FILE");
}

static inline void bump(int counter, uint64_t by) {
    uint64_t *base = __atomic_load_n(&counters, __ATOMIC_ACQUIRE);
    __atomic_fetch_add(&base[counter], by, __ATOMIC_RELAXED);
}

static inline void *allocated(void *pointer, size_t size) {
    if (pointer) {
        bump(ALLOCATIONS, 1);
        bump(BYTES, size);
    }
    return pointer;
}

void *malloc(size_t size) { return allocated(__libc_malloc(size), size); }

void *calloc(size_t count, size_t size) { return allocated(__libc_calloc(count, size), count * size); }

void *realloc(void *old, size_t size) {
    void *pointer = __libc_realloc(old, size);
    if (!old) return allocated(pointer, size);
    if (pointer) bump(REALLOCS, 1);
    if (pointer && pointer != old) {
        bump(ALLOCATIONS, 1);
        bump(FREES, 1);
        bump(BYTES, size);
    }
    if (!pointer && size == 0) bump(FREES, 1); /* realloc(p, 0) frees p */
    return pointer;
}

void free(void *pointer) {
    if (!pointer) return;
    bump(FREES, 1);
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) { return allocated(__libc_memalign(alignment, size), size); }

void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }

void *valloc(size_t size) { return memalign((size_t)sysconf(_SC_PAGESIZE), size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *out = pointer;
    return 0;
}
