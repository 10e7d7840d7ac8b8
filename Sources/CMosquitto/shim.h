// CMosquitto: libmosquitto (Debian's libmosquitto-dev, the library libmosquitto1), the
// Eclipse Mosquitto project's MQTT client library behind blectld's optional MQTT output,
// with the MQTT protocol constants (property identifiers, protocol versions) it uses.
//
// The library is loaded when the first MQTT client is made (dlopen), not linked: linked,
// it and what it links (OpenSSL's libssl and libcrypto) cost every blectld 1.8 MB of
// resident memory at start, MQTT configured or not (measured 2026-12-01: libcrypto 1.46 MB,
// libssl 0.25 MB, libmosquitto 0.08 MB of an idle `blectld --mock`). Swift calls the
// library through the table `cmq_load` fills (`cmq_table()`), each field named as the
// function without its `mosquitto_` prefix (`new` is `create`).
#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

/// The library's functions blectl calls.
struct cmq_functions {
    __typeof__(&mosquitto_lib_init) _Nonnull lib_init;
    __typeof__(&mosquitto_new) _Nonnull create;
    __typeof__(&mosquitto_destroy) _Nonnull destroy;
    __typeof__(&mosquitto_user_data_set) _Nonnull user_data_set;
    __typeof__(&mosquitto_int_option) _Nonnull int_option;
    __typeof__(&mosquitto_username_pw_set) _Nonnull username_pw_set;
    __typeof__(&mosquitto_tls_set) _Nonnull tls_set;
    __typeof__(&mosquitto_tls_opts_set) _Nonnull tls_opts_set;
    __typeof__(&mosquitto_tls_insecure_set) _Nonnull tls_insecure_set;
    __typeof__(&mosquitto_will_set) _Nonnull will_set;
    __typeof__(&mosquitto_property_add_int32) _Nonnull property_add_int32;
    __typeof__(&mosquitto_property_free_all) _Nonnull property_free_all;
    __typeof__(&mosquitto_connect_bind_v5) _Nonnull connect_bind_v5;
    __typeof__(&mosquitto_socket) _Nonnull socket;
    __typeof__(&mosquitto_publish) _Nonnull publish;
    __typeof__(&mosquitto_subscribe) _Nonnull subscribe;
    __typeof__(&mosquitto_disconnect) _Nonnull disconnect;
    __typeof__(&mosquitto_want_write) _Nonnull want_write;
    __typeof__(&mosquitto_loop_read) _Nonnull loop_read;
    __typeof__(&mosquitto_loop_write) _Nonnull loop_write;
    __typeof__(&mosquitto_loop_misc) _Nonnull loop_misc;
    __typeof__(&mosquitto_connect_v5_callback_set) _Nonnull connect_v5_callback_set;
    __typeof__(&mosquitto_disconnect_v5_callback_set) _Nonnull disconnect_v5_callback_set;
    __typeof__(&mosquitto_publish_v5_callback_set) _Nonnull publish_v5_callback_set;
    __typeof__(&mosquitto_message_v5_callback_set) _Nonnull message_v5_callback_set;
    __typeof__(&mosquitto_connack_string) _Nonnull connack_string;
    __typeof__(&mosquitto_reason_string) _Nonnull reason_string;
    __typeof__(&mosquitto_strerror) _Nonnull strerror;
};

/// The table, and why loading failed (NULL once it worked).
struct cmq_library {
    struct cmq_functions functions;
    const char *failure;
};

static inline struct cmq_library *cmq_library(void) {
    static struct cmq_library library = {.failure = "not loaded"};
    return &library;
}

static inline void cmq_load_once(void) {
    struct cmq_library *library = cmq_library();
    void *handle = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) handle = dlopen("libmosquitto.so", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        library->failure = dlerror();
        return;
    }
    struct cmq_functions *f = &library->functions;
#define CMQ_FIND(field, name)                                                                      \
    if ((*(void **)&f->field = dlsym(handle, #name)) == NULL) {                                    \
        library->failure = "libmosquitto lacks " #name;                                            \
        return;                                                                                    \
    }
    CMQ_FIND(lib_init, mosquitto_lib_init)
    CMQ_FIND(create, mosquitto_new)
    CMQ_FIND(destroy, mosquitto_destroy)
    CMQ_FIND(user_data_set, mosquitto_user_data_set)
    CMQ_FIND(int_option, mosquitto_int_option)
    CMQ_FIND(username_pw_set, mosquitto_username_pw_set)
    CMQ_FIND(tls_set, mosquitto_tls_set)
    CMQ_FIND(tls_opts_set, mosquitto_tls_opts_set)
    CMQ_FIND(tls_insecure_set, mosquitto_tls_insecure_set)
    CMQ_FIND(will_set, mosquitto_will_set)
    CMQ_FIND(property_add_int32, mosquitto_property_add_int32)
    CMQ_FIND(property_free_all, mosquitto_property_free_all)
    CMQ_FIND(connect_bind_v5, mosquitto_connect_bind_v5)
    CMQ_FIND(socket, mosquitto_socket)
    CMQ_FIND(publish, mosquitto_publish)
    CMQ_FIND(subscribe, mosquitto_subscribe)
    CMQ_FIND(disconnect, mosquitto_disconnect)
    CMQ_FIND(want_write, mosquitto_want_write)
    CMQ_FIND(loop_read, mosquitto_loop_read)
    CMQ_FIND(loop_write, mosquitto_loop_write)
    CMQ_FIND(loop_misc, mosquitto_loop_misc)
    CMQ_FIND(connect_v5_callback_set, mosquitto_connect_v5_callback_set)
    CMQ_FIND(disconnect_v5_callback_set, mosquitto_disconnect_v5_callback_set)
    CMQ_FIND(publish_v5_callback_set, mosquitto_publish_v5_callback_set)
    CMQ_FIND(message_v5_callback_set, mosquitto_message_v5_callback_set)
    CMQ_FIND(connack_string, mosquitto_connack_string)
    CMQ_FIND(reason_string, mosquitto_reason_string)
    CMQ_FIND(strerror, mosquitto_strerror)
#undef CMQ_FIND
    library->failure = NULL;
}

/// Loads the library once (later calls return the first outcome); NULL on success, else
/// why it failed (the dynamic loader's message).
static inline const char *cmq_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cmq_load_once);
    return cmq_library()->failure;
}

/// The functions, once ``cmq_load`` succeeded.
static inline const struct cmq_functions *cmq_table(void) {
    return &cmq_library()->functions;
}

#endif
