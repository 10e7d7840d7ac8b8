// CNettle: Nettle's AES-128 in CCM mode, for encrypted advertisements (BTHome, Xiaomi MiBeacon).
//
// Nettle (Debian's nettle-dev, the library libnettle8) is used rather than OpenSSL's libcrypto
// for its size: 0.3 MB against 4.7 MB on disk, and about 0.55 MB against 3.9 MB resident in a
// process that uses it (blectld's idle memory is a target).
//
// The library is loaded the first time a sealed payload is opened or made (dlopen), not
// linked: most gateways configure no key and never run it, and linked it was resident in
// every blectld. Swift calls it through the table `cnettle_load` fills (`cnettle_table()`),
// each field named as the function without its `nettle_ccm_aes128_` prefix. The types and
// sizes (`struct ccm_aes128_ctx`) come from the headers as before.
#ifndef CNETTLE_SHIM_H
#define CNETTLE_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <nettle/ccm.h>

/// The library's functions blectl calls.
struct cnettle_functions {
    __typeof__(&nettle_ccm_aes128_set_key) _Nonnull set_key;
    __typeof__(&nettle_ccm_aes128_set_nonce) _Nonnull set_nonce;
    __typeof__(&nettle_ccm_aes128_decrypt) _Nonnull decrypt;
    __typeof__(&nettle_ccm_aes128_decrypt_message) _Nonnull decrypt_message;
    __typeof__(&nettle_ccm_aes128_encrypt_message) _Nonnull encrypt_message;
};

/// The table, and why loading failed (NULL once it worked).
struct cnettle_library {
    struct cnettle_functions functions;
    const char *failure;
};

static inline struct cnettle_library *cnettle_library(void) {
    static struct cnettle_library library = {.failure = "not loaded"};
    return &library;
}

static inline void cnettle_load_once(void) {
    struct cnettle_library *library = cnettle_library();
    void *handle = dlopen("libnettle.so.8", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) handle = dlopen("libnettle.so", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        library->failure = dlerror();
        return;
    }
    struct cnettle_functions *f = &library->functions;
#define CNETTLE_FIND(field, name)                                                                  \
    if ((*(void **)&f->field = dlsym(handle, #name)) == NULL) {                                    \
        library->failure = "libnettle lacks " #name;                                               \
        return;                                                                                    \
    }
    CNETTLE_FIND(set_key, nettle_ccm_aes128_set_key)
    CNETTLE_FIND(set_nonce, nettle_ccm_aes128_set_nonce)
    CNETTLE_FIND(decrypt, nettle_ccm_aes128_decrypt)
    CNETTLE_FIND(decrypt_message, nettle_ccm_aes128_decrypt_message)
    CNETTLE_FIND(encrypt_message, nettle_ccm_aes128_encrypt_message)
#undef CNETTLE_FIND
    library->failure = NULL;
}

/// Loads the library once (later calls return the first outcome); NULL on success, else
/// why it failed (the dynamic loader's message).
static inline const char *cnettle_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cnettle_load_once);
    return cnettle_library()->failure;
}

/// The functions, once ``cnettle_load`` succeeded.
static inline const struct cnettle_functions *cnettle_table(void) {
    return &cnettle_library()->functions;
}

#endif
