/*
 * c_subscriber: the practical floor of a BlueZ notification consumer, in C on libdbus.
 *
 * Set-up (what any central must do): StartDiscovery on hci0, Connect every thermometer as
 * its Device1 appears (DC:A6:32:…), StopDiscovery once all N are seen, StartNotify on each
 * temperature characteristic (UUID 00000002-…-3e5b444b…) as it appears. Then one match
 * rule for GattCharacteristic1 PropertiesChanged and a filter function that, per message,
 * reads CLOCK_MONOTONIC, finds the device and the Value bytes and stores a record.
 * Nothing else runs: the main loop blocks in poll() on the bus socket and a signalfd.
 *
 *   c_subscriber --address ADDR --devices N --out FILE [--no-match] [--max-records M] [--adverts]
 *
 * Prints "subscribed N" on stdout once every StartNotify is answered. On SIGTERM/SIGINT
 * it writes FILE (one line per notification: "ns device value") and exits 0.
 * --no-match subscribes without the PropertiesChanged match rule, so the bus delivers
 * nothing: the mock's own ceiling (bench/run.sh "mock ceiling").
 *
 * --adverts: the floor of an advertisement consumer instead (bench/theengs_bench.py). The
 * discovery filter a gateway sets (Transport=le, DuplicateData=true), StartDiscovery and one
 * match rule for Device1 PropertiesChanged; per message the filter reads the clock, finds the
 * sensor (A4:C1:38:AD:…, the mock's advertisers) and the first ServiceData or
 * ManufacturerData bytes and stores a record. No decoding, no output: what any libdbus
 * program pays to hear the advertisements. "subscribed N" once N sensors have appeared.
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#define TEMP_UUID_PREFIX "00000002-710e-4a5b-8d75-3e5b444b"
#define MAX_DEVICES 1024

struct record {
    uint64_t ns;
    uint32_t device;
    uint8_t length;
    char value[19];
};

static struct record *records;
static size_t record_count, record_capacity;
static uint64_t dropped;

static int wanted, adverts;
static int found, connected_replies, notify_replies;
static char device_seen[MAX_DEVICES];
static char notify_sent[MAX_DEVICES];
static DBusConnection *conn;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, const char *detail) {
    fprintf(stderr, "c_subscriber: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* "…/dev_<prefix>HH_LL[/…]" → HHLL - 1, or -1: the mock numbers its peripherals so. */
static int index_after(const char *path, const char *prefix) {
    const char *dev = strstr(path, prefix);
    if (!dev) return -1;
    dev += strlen(prefix);
    int h1 = hexval(dev[0]), h2 = hexval(dev[1]), l1 = hexval(dev[3]), l2 = hexval(dev[4]);
    if (h1 < 0 || h2 < 0 || dev[2] != '_' || l1 < 0 || l2 < 0) return -1;
    int index = (h1 * 16 + h2) * 256 + (l1 * 16 + l2) - 1;
    return index >= 0 && index < MAX_DEVICES ? index : -1;
}

/* "/org/bluez/hci0/dev_DC_A6_32_00_HH_LL[/…]" → thermometer index HHLL - 1, or -1. */
static int device_index(const char *path) { return index_after(path, "/dev_DC_A6_32_00_"); }

/* "/org/bluez/hci0/dev_A4_C1_38_AD_HH_LL" → advertising sensor index, or -1. */
static int advertiser_index(const char *path) { return index_after(path, "/dev_A4_C1_38_AD_"); }

static void pending_done(DBusPendingCall *pending, void *data) {
    const char *what = data;
    DBusMessage *reply = dbus_pending_call_steal_reply(pending);
    if (reply && dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR) {
        const char *message = "";
        dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &message, DBUS_TYPE_INVALID);
        fprintf(stderr, "c_subscriber: %s failed: %s %s\n", what, dbus_message_get_error_name(reply), message);
        exit(1);
    }
    if (strcmp(what, "Connect") == 0) connected_replies++;
    else notify_replies++;
    if (reply) dbus_message_unref(reply);
    dbus_pending_call_unref(pending);
}

static void call_async(const char *path, const char *interface, const char *member) {
    DBusMessage *call = dbus_message_new_method_call("org.bluez", path, interface, member);
    DBusPendingCall *pending = NULL;
    if (!call || !dbus_connection_send_with_reply(conn, call, &pending, 30000) || !pending) die("send", member);
    dbus_pending_call_set_notify(pending, pending_done, (void *)(strcmp(member, "Connect") == 0 ? "Connect" : "StartNotify"), NULL);
    dbus_message_unref(call);
}

static void call_blocking(const char *path, const char *interface, const char *member) {
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *call = dbus_message_new_method_call("org.bluez", path, interface, member);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(conn, call, 30000, &error);
    if (!reply) die(member, error.message);
    dbus_message_unref(reply);
    dbus_message_unref(call);
}

/* In an InterfacesAdded a{sa{sv}}: whether `interface` is there, and its string property `name`. */
static int find_interface(DBusMessageIter *dict, const char *interface, const char *name, const char **value) {
    DBusMessageIter entries;
    dbus_message_iter_recurse(dict, &entries);
    while (dbus_message_iter_get_arg_type(&entries) == DBUS_TYPE_DICT_ENTRY) {
        DBusMessageIter entry, properties;
        const char *key;
        dbus_message_iter_recurse(&entries, &entry);
        dbus_message_iter_get_basic(&entry, &key);
        if (strcmp(key, interface) == 0) {
            *value = NULL;
            dbus_message_iter_next(&entry);
            dbus_message_iter_recurse(&entry, &properties);
            while (name && dbus_message_iter_get_arg_type(&properties) == DBUS_TYPE_DICT_ENTRY) {
                DBusMessageIter property, variant;
                const char *property_name;
                dbus_message_iter_recurse(&properties, &property);
                dbus_message_iter_get_basic(&property, &property_name);
                if (strcmp(property_name, name) == 0) {
                    dbus_message_iter_next(&property);
                    dbus_message_iter_recurse(&property, &variant);
                    if (dbus_message_iter_get_arg_type(&variant) == DBUS_TYPE_STRING)
                        dbus_message_iter_get_basic(&variant, value);
                }
                dbus_message_iter_next(&properties);
            }
            return 1;
        }
        dbus_message_iter_next(&entries);
    }
    return 0;
}

static void interfaces_added(DBusMessage *message) {
    DBusMessageIter args, dict;
    const char *path, *uuid;
    if (!dbus_message_iter_init(message, &args) || dbus_message_iter_get_arg_type(&args) != DBUS_TYPE_OBJECT_PATH) return;
    dbus_message_iter_get_basic(&args, &path);
    dbus_message_iter_next(&args);
    if (dbus_message_iter_get_arg_type(&args) != DBUS_TYPE_ARRAY) return;
    dict = args;
    if (adverts) {
        int sensor = advertiser_index(path);
        if (sensor >= 0 && sensor < wanted && !device_seen[sensor] && find_interface(&dict, "org.bluez.Device1", NULL, &uuid)) {
            device_seen[sensor] = 1;
            found++;
        }
        return;
    }
    int index = device_index(path);
    if (index < 0 || index >= wanted) return;
    if (find_interface(&dict, "org.bluez.Device1", NULL, &uuid) && !device_seen[index]) {
        device_seen[index] = 1;
        found++;
        call_async(path, "org.bluez.Device1", "Connect");
    } else if (find_interface(&dict, "org.bluez.GattCharacteristic1", "UUID", &uuid) && uuid &&
               strncmp(uuid, TEMP_UUID_PREFIX, strlen(TEMP_UUID_PREFIX)) == 0 && !notify_sent[index]) {
        notify_sent[index] = 1;
        call_async(path, "org.bluez.GattCharacteristic1", "StartNotify");
    }
}

static void store(uint64_t ns, int device, const char *data, int length) {
    if (record_count == record_capacity) {
        dropped++;
        return;
    }
    struct record *r = &records[record_count++];
    r->ns = ns;
    r->device = (uint32_t)device;
    r->length = (uint8_t)(length < (int)sizeof r->value ? length : (int)sizeof r->value);
    memcpy(r->value, data, r->length);
}

/* The first `ay` in a ServiceData a{sv} or ManufacturerData a{qv} variant: 1 if found. */
static int first_bytes(DBusMessageIter *variant, const char **data, int *length) {
    DBusMessageIter map, entry, inner, bytes;
    if (dbus_message_iter_get_arg_type(variant) != DBUS_TYPE_ARRAY) return 0;
    dbus_message_iter_recurse(variant, &map);
    if (dbus_message_iter_get_arg_type(&map) != DBUS_TYPE_DICT_ENTRY) return 0;
    dbus_message_iter_recurse(&map, &entry);
    dbus_message_iter_next(&entry);
    dbus_message_iter_recurse(&entry, &inner);
    if (dbus_message_iter_get_arg_type(&inner) != DBUS_TYPE_ARRAY) return 0;
    dbus_message_iter_recurse(&inner, &bytes);
    dbus_message_iter_get_fixed_array(&bytes, data, length);
    return 1;
}

/* The advertisement floor's hot path: one PropertiesChanged of a Device1. */
static void device_changed(DBusMessage *message, DBusMessageIter *changes, uint64_t ns) {
    int sensor = advertiser_index(dbus_message_get_path(message));
    if (sensor < 0) return;
    if (sensor < wanted && !device_seen[sensor]) { /* known before we came: no InterfacesAdded */
        device_seen[sensor] = 1;
        found++;
    }
    while (dbus_message_iter_get_arg_type(changes) == DBUS_TYPE_DICT_ENTRY) {
        DBusMessageIter entry, variant;
        const char *name, *data;
        int length = 0;
        dbus_message_iter_recurse(changes, &entry);
        dbus_message_iter_get_basic(&entry, &name);
        if (strcmp(name, "ServiceData") == 0 || strcmp(name, "ManufacturerData") == 0) {
            dbus_message_iter_next(&entry);
            dbus_message_iter_recurse(&entry, &variant);
            if (first_bytes(&variant, &data, &length)) store(ns, sensor, data, length);
            return;
        }
        dbus_message_iter_next(changes);
    }
}

/* The hot path: one PropertiesChanged of a GattCharacteristic1 (or a Device1, --adverts). */
static void properties_changed(DBusMessage *message) {
    uint64_t ns = now_ns();
    DBusMessageIter args, changes;
    const char *interface;
    if (!dbus_message_iter_init(message, &args) || dbus_message_iter_get_arg_type(&args) != DBUS_TYPE_STRING) return;
    dbus_message_iter_get_basic(&args, &interface);
    dbus_message_iter_next(&args);
    dbus_message_iter_recurse(&args, &changes);
    if (adverts) {
        if (strcmp(interface, "org.bluez.Device1") == 0) device_changed(message, &changes, ns);
        return;
    }
    if (strcmp(interface, "org.bluez.GattCharacteristic1") != 0) return;
    while (dbus_message_iter_get_arg_type(&changes) == DBUS_TYPE_DICT_ENTRY) {
        DBusMessageIter entry, variant, bytes;
        const char *name;
        dbus_message_iter_recurse(&changes, &entry);
        dbus_message_iter_get_basic(&entry, &name);
        if (strcmp(name, "Value") == 0) {
            const char *data;
            int length = 0;
            dbus_message_iter_next(&entry);
            dbus_message_iter_recurse(&entry, &variant);
            if (dbus_message_iter_get_arg_type(&variant) != DBUS_TYPE_ARRAY) return;
            dbus_message_iter_recurse(&variant, &bytes);
            dbus_message_iter_get_fixed_array(&bytes, &data, &length);
            store(ns, device_index(dbus_message_get_path(message)), data, length);
            return;
        }
        dbus_message_iter_next(&changes);
    }
}

static DBusHandlerResult filter(DBusConnection *connection, DBusMessage *message, void *data) {
    (void)connection;
    (void)data;
    if (dbus_message_get_type(message) != DBUS_MESSAGE_TYPE_SIGNAL) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    const char *member = dbus_message_get_member(message);
    if (strcmp(member, "PropertiesChanged") == 0) {
        properties_changed(message);
        return DBUS_HANDLER_RESULT_HANDLED;
    }
    if (strcmp(member, "InterfacesAdded") == 0) interfaces_added(message);
    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
}

static void add_match(const char *rule) {
    DBusError error;
    dbus_error_init(&error);
    dbus_bus_add_match(conn, rule, &error);
    if (dbus_error_is_set(&error)) die("AddMatch", error.message);
}

/* One `key: variant` entry of an a{sv}: the variant holds one value of `type` (signature `signature`). */
static void append_entry(DBusMessageIter *map, const char *key, int type, const char *signature, const void *value) {
    DBusMessageIter entry, variant;
    dbus_message_iter_open_container(map, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, signature, &variant);
    dbus_message_iter_append_basic(&variant, type, value);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(map, &entry);
}

/* SetDiscoveryFilter({Transport: "le", DuplicateData: true}): every report a PropertiesChanged. */
static void set_discovery_filter(void) {
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *call = dbus_message_new_method_call("org.bluez", "/org/bluez/hci0", "org.bluez.Adapter1",
                                                     "SetDiscoveryFilter");
    DBusMessageIter args, map;
    const char *transport = "le";
    dbus_bool_t yes = 1;
    dbus_message_iter_init_append(call, &args);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &map);
    append_entry(&map, "Transport", DBUS_TYPE_STRING, "s", &transport);
    append_entry(&map, "DuplicateData", DBUS_TYPE_BOOLEAN, "b", &yes);
    dbus_message_iter_close_container(&args, &map);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(conn, call, 30000, &error);
    if (!reply) die("SetDiscoveryFilter", error.message);
    dbus_message_unref(reply);
    dbus_message_unref(call);
}

static void write_records(const char *path) {
    FILE *out = fopen(path, "w");
    if (!out) die("cannot write", path);
    for (size_t i = 0; i < record_count; i++) {
        struct record *r = &records[i];
        if (adverts) { /* binary payloads: hex */
            fprintf(out, "%llu %d ", (unsigned long long)r->ns, (int)r->device);
            for (int b = 0; b < r->length; b++) fprintf(out, "%02x", (unsigned char)r->value[b]);
            fputs(r->length ? "\n" : "-\n", out);
            continue;
        }
        char value[sizeof r->value + 1];
        memcpy(value, r->value, r->length);
        value[r->length] = 0;
        for (char *c = value; *c; c++)
            if (*c == ' ') *c = '_';
        fprintf(out, "%llu %d %s\n", (unsigned long long)r->ns, (int)r->device, r->length ? value : "-");
    }
    fclose(out);
}

int main(int argc, char **argv) {
    const char *address = NULL, *out = NULL;
    int match = 1;
    record_capacity = 4000000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--address") == 0 && i + 1 < argc) address = argv[++i];
        else if (strcmp(argv[i], "--devices") == 0 && i + 1 < argc) wanted = atoi(argv[++i]);
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(argv[i], "--max-records") == 0 && i + 1 < argc) record_capacity = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--no-match") == 0) match = 0;
        else if (strcmp(argv[i], "--adverts") == 0) adverts = 1;
        else die("usage: c_subscriber --address ADDR --devices N --out FILE [--no-match] [--max-records M] [--adverts]", NULL);
    }
    if (!address || !out || wanted < 1 || wanted > MAX_DEVICES) die("need --address, --out and --devices 1…1024", NULL);
    /* Reserved, not touched: pages count towards RSS only as records fill them. */
    records = malloc(record_capacity * sizeof *records);
    if (!records) die("out of memory", NULL);

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int signals = signalfd(-1, &mask, SFD_CLOEXEC);

    DBusError error;
    dbus_error_init(&error);
    conn = dbus_connection_open_private(address, &error);
    if (!conn) die("connect", error.message);
    if (!dbus_bus_register(conn, &error)) die("Hello", error.message);
    dbus_connection_add_filter(conn, filter, NULL, NULL);
    add_match("type='signal',sender='org.bluez',interface='org.freedesktop.DBus.ObjectManager',"
              "member='InterfacesAdded'");
    if (match)
        add_match(adverts ? "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
                            "member='PropertiesChanged',arg0='org.bluez.Device1'"
                          : "type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',"
                            "member='PropertiesChanged',arg0='org.bluez.GattCharacteristic1'");

    if (adverts) set_discovery_filter();
    call_blocking("/org/bluez/hci0", "org.bluez.Adapter1", "StartDiscovery");
    int discovering = !adverts;
    while (discovering || (adverts ? found < wanted : notify_replies < wanted)) {
        if (!dbus_connection_read_write_dispatch(conn, 100)) die("bus connection lost", NULL);
        if (discovering && found == wanted) {
            call_blocking("/org/bluez/hci0", "org.bluez.Adapter1", "StopDiscovery");
            discovering = 0;
        }
        struct signalfd_siginfo info;
        struct pollfd p = {signals, POLLIN, 0};
        if (poll(&p, 1, 0) > 0 && read(signals, &info, sizeof info) > 0) die("stopped during set-up", NULL);
    }
    printf("subscribed %d\n", wanted);
    fflush(stdout);

    int fd = -1;
    if (!dbus_connection_get_unix_fd(conn, &fd)) die("no socket", NULL);
    for (;;) {
        while (dbus_connection_dispatch(conn) == DBUS_DISPATCH_DATA_REMAINS) {
        }
        struct pollfd fds[2] = {{fd, POLLIN, 0}, {signals, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            die("poll", strerror(errno));
        }
        if (fds[1].revents) break;
        if (fds[0].revents & (POLLERR | POLLHUP)) break;
        if (fds[0].revents && !dbus_connection_read_write(conn, 0)) break;
    }
    write_records(out);
    printf("records %zu dropped %llu\n", record_count, (unsigned long long)dropped);
    fflush(stdout);
    return 0;
}
