// CMicroHTTPD: what Swift needs from libmicrohttpd (Debian's libmicrohttpd-dev), the
// embedded HTTP server behind blectld's optional HTTP output (the page, /metrics, /api).
//
// MHD_start_daemon takes its options as C variadic arguments, which Swift cannot pass;
// the shim below passes them with their C types. Every shim is prefixed `cmhd_`.
#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// The callbacks and bounds of a daemon serving on an already listening socket.
struct cmhd_settings {
    unsigned int flags;
    int listen_fd;
    MHD_AccessHandlerCallback handler;
    MHD_RequestCompletedCallback completed;
    MHD_NotifyConnectionCallback notify_connection;
    MHD_LogCallback logger;
    /// Passed to every callback.
    void *context;
    unsigned int connection_limit;
    unsigned int connection_timeout_seconds;
    size_t connection_memory_limit;
};

/// Starts a daemon on `settings->listen_fd` (which it then owns and closes); NULL on failure.
static inline struct MHD_Daemon *cmhd_start(const struct cmhd_settings *settings) {
    return MHD_start_daemon(
        settings->flags, 0, NULL, NULL, settings->handler, settings->context,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)settings->listen_fd,
        MHD_OPTION_NOTIFY_COMPLETED, settings->completed, settings->context,
        MHD_OPTION_NOTIFY_CONNECTION, settings->notify_connection, settings->context,
        MHD_OPTION_EXTERNAL_LOGGER, settings->logger, settings->context,
        MHD_OPTION_CONNECTION_LIMIT, settings->connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, settings->connection_timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, settings->connection_memory_limit,
        MHD_OPTION_END);
}

/// The epoll descriptor of a daemon started without a thread of its own (MHD_USE_EPOLL).
static inline int cmhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

#endif
