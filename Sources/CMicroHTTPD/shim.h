// CMicroHTTPD: libmicrohttpd (Debian's libmicrohttpd-dev, the library libmicrohttpd12), the
// embedded HTTP server behind blectld's optional HTTP output (the page, /metrics, /api).
//
// The library is loaded when the HTTP output starts (dlopen), not linked: linked, it and
// what it links (GnuTLS and its dependencies) cost every blectld 2.4 MB of resident memory
// at start, HTTP configured or not. Swift calls the functions below, prefixed `cmhd_`;
// they call the library through the table `cmhd_load` fills. MHD_start_daemon takes its
// options as C variadic arguments, which Swift cannot pass: `cmhd_start` passes them.
#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// The library's functions blectl calls.
struct cmhd_functions {
    __typeof__(&MHD_start_daemon) start_daemon;
    __typeof__(&MHD_stop_daemon) stop_daemon;
    __typeof__(&MHD_suspend_connection) suspend_connection;
    __typeof__(&MHD_resume_connection) resume_connection;
    __typeof__(&MHD_get_connection_values) get_connection_values;
    __typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
    __typeof__(&MHD_add_response_header) add_response_header;
    __typeof__(&MHD_queue_response) queue_response;
    __typeof__(&MHD_destroy_response) destroy_response;
};

/// The table, and why loading failed (NULL once it worked).
struct cmhd_library {
    struct cmhd_functions functions;
    const char *failure;
};

static inline struct cmhd_library *cmhd_library(void) {
    static struct cmhd_library library = {.failure = "not loaded"};
    return &library;
}

static inline void cmhd_load_once(void) {
    struct cmhd_library *library = cmhd_library();
    void *handle = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) handle = dlopen("libmicrohttpd.so", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        library->failure = dlerror();
        return;
    }
    struct cmhd_functions *f = &library->functions;
#define CMHD_FIND(field, name)                                                                     \
    if ((*(void **)&f->field = dlsym(handle, #name)) == NULL) {                                    \
        library->failure = "libmicrohttpd lacks " #name;                                           \
        return;                                                                                    \
    }
    CMHD_FIND(start_daemon, MHD_start_daemon)
    CMHD_FIND(stop_daemon, MHD_stop_daemon)
    CMHD_FIND(suspend_connection, MHD_suspend_connection)
    CMHD_FIND(resume_connection, MHD_resume_connection)
    CMHD_FIND(get_connection_values, MHD_get_connection_values)
    CMHD_FIND(create_response_from_buffer, MHD_create_response_from_buffer)
    CMHD_FIND(add_response_header, MHD_add_response_header)
    CMHD_FIND(queue_response, MHD_queue_response)
    CMHD_FIND(destroy_response, MHD_destroy_response)
#undef CMHD_FIND
    library->failure = NULL;
}

/// Loads the library once (later calls return the first outcome); NULL on success, else
/// why it failed (the dynamic loader's message).
static inline const char *cmhd_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cmhd_load_once);
    return cmhd_library()->failure;
}

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

// The calls below need a successful cmhd_load() first.

/// Starts a daemon on `settings->listen_fd` (which it then owns and closes); NULL on failure.
static inline struct MHD_Daemon *cmhd_start(const struct cmhd_settings *settings) {
    return cmhd_library()->functions.start_daemon(
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

static inline void cmhd_stop(struct MHD_Daemon *daemon) {
    cmhd_library()->functions.stop_daemon(daemon);
}

static inline void cmhd_suspend(struct MHD_Connection *connection) {
    cmhd_library()->functions.suspend_connection(connection);
}

static inline void cmhd_resume(struct MHD_Connection *connection) {
    cmhd_library()->functions.resume_connection(connection);
}

/// Calls `iterator` for each of the query's arguments.
static inline void cmhd_arguments(struct MHD_Connection *connection, MHD_KeyValueIterator iterator, void *context) {
    cmhd_library()->functions.get_connection_values(connection, MHD_GET_ARGUMENT_KIND, iterator, context);
}

/// A response with a copy of `size` bytes of `body`; NULL when memory ran out.
static inline struct MHD_Response *cmhd_response(const void *body, size_t size) {
    return cmhd_library()->functions.create_response_from_buffer(size, (void *)body, MHD_RESPMEM_MUST_COPY);
}

static inline void cmhd_add_header(struct MHD_Response *response, const char *name, const char *value) {
    cmhd_library()->functions.add_response_header(response, name, value);
}

/// Queues `response` (the connection keeps its own reference); MHD_NO when it cannot.
static inline enum MHD_Result cmhd_queue(struct MHD_Connection *connection, unsigned int status,
                                         struct MHD_Response *response) {
    return cmhd_library()->functions.queue_response(connection, status, response);
}

static inline void cmhd_release(struct MHD_Response *response) {
    cmhd_library()->functions.destroy_response(response);
}

#endif
