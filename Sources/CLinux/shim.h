// Linux interfaces that Swift's Glibc module does not export: epoll, eventfd and thread
// names for UnixSupport's event loop, a socket peer's credentials, and malloc_trim.
#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H

#include <malloc.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
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

#endif
