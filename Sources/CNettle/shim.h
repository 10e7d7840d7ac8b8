// CNettle: Nettle's AES-128 in CCM mode, for encrypted BTHome advertisements.
//
// Nettle (Debian's nettle-dev) is used rather than OpenSSL's libcrypto for its size: 0.3 MB
// against 4.7 MB on disk, and about 0.55 MB against 3.9 MB resident in a process that uses it
// (blectld's idle memory is a target).
// Nettle names its functions through macros (`ccm_aes128_set_key` is
// `nettle_ccm_aes128_set_key`); Swift sees the `nettle_` names.
#ifndef CNETTLE_SHIM_H
#define CNETTLE_SHIM_H

#include <nettle/ccm.h>

#endif
