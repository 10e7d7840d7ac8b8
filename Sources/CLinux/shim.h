// Linux interfaces that Swift's Glibc module does not export: epoll, eventfd and thread
// names for ConcurrencySupport's event loop, a socket peer's credentials, and malloc_trim.
#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H

#include <malloc.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timex.h>
#include <sys/types.h>

// A GNU extension; declared here rather than through _GNU_SOURCE, which would change
// libc's struct definitions under the other modules that include them.
extern int pthread_setname_np(pthread_t thread, const char *name);

// `struct ucred` (what SO_PEERCRED returns, socket(7)) is a GNU extension too: the same
// three fields, in the kernel's order.
struct clinux_ucred {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};

static const int clinux_epoll_ctl_add = EPOLL_CTL_ADD;
static const int clinux_epoll_ctl_mod = EPOLL_CTL_MOD;
static const int clinux_epoll_ctl_del = EPOLL_CTL_DEL;

// Whether the kernel says the system clock is synchronised (an NTP daemon or
// systemd-timesyncd keeps it): adjtimex(2) without STA_UNSYNC and not TIME_ERROR.
// 1 synchronised, 0 not, -1 when the call failed.
static inline int clinux_clock_synchronized(void) {
    struct timex state = {0};
    int result = adjtimex(&state);
    if (result < 0) return -1;
    return (result != TIME_ERROR && (state.status & STA_UNSYNC) == 0) ? 1 : 0;
}

#endif
