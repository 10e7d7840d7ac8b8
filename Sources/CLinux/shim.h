// Linux interfaces that Swift's Glibc module does not export: epoll, eventfd and thread
// names, for UnixSupport's event loop.
#ifndef CLINUX_SHIM_H
#define CLINUX_SHIM_H

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

// A GNU extension; declared here rather than through _GNU_SOURCE, which would change
// libc's struct definitions under the other modules that include them.
extern int pthread_setname_np(pthread_t thread, const char *name);

static const int clinux_epoll_ctl_add = EPOLL_CTL_ADD;
static const int clinux_epoll_ctl_mod = EPOLL_CTL_MOD;
static const int clinux_epoll_ctl_del = EPOLL_CTL_DEL;

#endif
