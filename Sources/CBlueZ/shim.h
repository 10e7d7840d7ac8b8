// CBlueZ: what Swift needs from libdbus-1 and libbluetooth.
//
// Swift imports most of both C APIs directly. This header adds the few things
// it cannot: libdbus's type codes are macros with casts (`((int) 's')`), the
// variadic dbus_message_append_args/get_args are unusable, so callers use
// DBusMessageIter instead, and ioctl(2) is variadic with request codes built by
// macros (HCIDEVDOWN); the management socket's address is a struct Swift
// cannot fill portably. Every shim is prefixed `cbluez_`.
#ifndef CBLUEZ_SHIM_H
#define CBLUEZ_SHIM_H

#include <dbus/dbus.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

// D-Bus type codes, re-declared as constants Swift can see.
static const int cbluez_type_invalid = DBUS_TYPE_INVALID;
static const int cbluez_type_byte = DBUS_TYPE_BYTE;
static const int cbluez_type_boolean = DBUS_TYPE_BOOLEAN;
static const int cbluez_type_int16 = DBUS_TYPE_INT16;
static const int cbluez_type_uint16 = DBUS_TYPE_UINT16;
static const int cbluez_type_int32 = DBUS_TYPE_INT32;
static const int cbluez_type_uint32 = DBUS_TYPE_UINT32;
static const int cbluez_type_int64 = DBUS_TYPE_INT64;
static const int cbluez_type_uint64 = DBUS_TYPE_UINT64;
static const int cbluez_type_double = DBUS_TYPE_DOUBLE;
static const int cbluez_type_string = DBUS_TYPE_STRING;
static const int cbluez_type_object_path = DBUS_TYPE_OBJECT_PATH;
static const int cbluez_type_signature = DBUS_TYPE_SIGNATURE;
static const int cbluez_type_unix_fd = DBUS_TYPE_UNIX_FD;
static const int cbluez_type_array = DBUS_TYPE_ARRAY;
static const int cbluez_type_variant = DBUS_TYPE_VARIANT;
static const int cbluez_type_struct = DBUS_TYPE_STRUCT;
static const int cbluez_type_dict_entry = DBUS_TYPE_DICT_ENTRY;

static const int cbluez_message_type_method_call = DBUS_MESSAGE_TYPE_METHOD_CALL;
static const int cbluez_message_type_method_return = DBUS_MESSAGE_TYPE_METHOD_RETURN;
static const int cbluez_message_type_error = DBUS_MESSAGE_TYPE_ERROR;
static const int cbluez_message_type_signal = DBUS_MESSAGE_TYPE_SIGNAL;

static const unsigned int cbluez_watch_readable = DBUS_WATCH_READABLE;
static const unsigned int cbluez_watch_writable = DBUS_WATCH_WRITABLE;
static const unsigned int cbluez_watch_hangup = DBUS_WATCH_HANGUP;
static const unsigned int cbluez_watch_error = DBUS_WATCH_ERROR;

/// Parses "XX:XX:XX:XX:XX:XX" into `b` (little-endian, as bdaddr_t); 0 on success.
static inline int cbluez_str2ba(const char *str, unsigned char b[6]) {
    if (bachk(str) < 0) return -1;
    bdaddr_t addr;
    if (str2ba(str, &addr) < 0) return -1;
    for (int i = 0; i < 6; i++) b[i] = addr.b[i];
    return 0;
}

/// Resets HCI controller `dev_id` (hciN) as `hciconfig hciN reset` does: down, then up,
/// through libbluetooth's raw HCI socket. Needs CAP_NET_ADMIN. Blocks while the kernel
/// initialises the controller (up to its HCI init timeout). 0 on success, else the errno
/// of the step that failed.
static inline int cbluez_hci_reset(int dev_id) {
    int dd = hci_open_dev(dev_id);
    if (dd < 0) return errno;
    int result = 0;
    if (ioctl(dd, HCIDEVDOWN, dev_id) < 0) {
        result = errno;
    } else if (ioctl(dd, HCIDEVUP, dev_id) < 0 && errno != EALREADY) {
        result = errno;
    }
    hci_close_dev(dd);
    return result;
}

/// Opens the kernel's Bluetooth management socket (the control channel of every controller,
/// HCI_DEV_NONE), non-blocking and closed on exec, to listen to its events: the descriptor,
/// else -errno. Events like Device Found reach only sockets opened with CAP_NET_ADMIN.
static inline int cbluez_mgmt_open(void) {
    int fd = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, BTPROTO_HCI);
    if (fd < 0) return -errno;
    struct sockaddr_hci address = {0};
    address.hci_family = AF_BLUETOOTH;
    address.hci_dev = HCI_DEV_NONE;
    address.hci_channel = HCI_CHANNEL_CONTROL;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        int code = errno;
        close(fd);
        return -code;
    }
    return fd;
}

#endif
