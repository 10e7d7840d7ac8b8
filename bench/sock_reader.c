/*
 * sock_reader: a `blectl watch --json` stand-in that costs next to nothing, so blectld's
 * figures are not the client's. Connects to blectld's socket (retrying every millisecond
 * until it exists), sends {"v":1,"id":1,"cmd":"subscribe"}, then reads JSON lines; for every
 * "reading" event it stores CLOCK_MONOTONIC at the read() that brought the line in, the
 * device and the raw value.
 *
 *   sock_reader --socket PATH --out FILE [--connect-timeout-ms 10000]
 *
 * Prints "subscribed" on stdout once the subscribe reply arrived. On SIGTERM/SIGINT (or
 * when the daemon closes) writes FILE (one line per reading: "ns device value", the same
 * format as c_subscriber) and exits 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct record {
    uint64_t ns;
    int32_t device;
    uint8_t length;
    char value[19];
};

static struct record *records;
static size_t record_count, record_capacity = 4000000;
static unsigned long long other_lines, dropped;
static int subscribed;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, const char *detail) {
    fprintf(stderr, "sock_reader: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* The string value of "key":"…" in a JSON line (no escapes expected in these fields). */
static const char *field(const char *line, const char *key, size_t *length) {
    const char *at = strstr(line, key);
    if (!at) return NULL;
    at += strlen(key);
    const char *end = strchr(at, '"');
    if (!end) return NULL;
    *length = (size_t)(end - at);
    return at;
}

static void line(char *text, uint64_t ns) {
    if (!strstr(text, "\"type\":\"reading\"")) {
        if (!subscribed && strstr(text, "\"id\":1") && strstr(text, "\"ok\":true")) {
            subscribed = 1;
            printf("subscribed\n");
            fflush(stdout);
        }
        other_lines++;
        return;
    }
    size_t address_length = 0, raw_length = 0;
    const char *address = field(text, "\"address\":\"", &address_length);
    const char *raw = field(text, "\"raw\":\"", &raw_length);
    int device = -1;
    /* DC:A6:32:00:HH:LL → thermometer index HHLL - 1 */
    if (address && address_length == 17 && strncmp(address, "DC:A6:32:", 9) == 0)
        device = (hexval(address[12]) * 16 + hexval(address[13])) * 256 + hexval(address[15]) * 16 +
                 hexval(address[16]) - 1;
    if (record_count == record_capacity) {
        dropped++;
        return;
    }
    struct record *r = &records[record_count++];
    r->ns = ns;
    r->device = device;
    r->length = raw ? (uint8_t)(raw_length < sizeof r->value ? raw_length : sizeof r->value) : 0;
    if (raw) memcpy(r->value, raw, r->length);
}

static void write_records(const char *path) {
    FILE *out = fopen(path, "w");
    if (!out) die("cannot write", path);
    for (size_t i = 0; i < record_count; i++) {
        struct record *r = &records[i];
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
    const char *socket_path = NULL, *out = NULL;
    long connect_timeout_ms = 10000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc) socket_path = argv[++i];
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(argv[i], "--connect-timeout-ms") == 0 && i + 1 < argc) connect_timeout_ms = atol(argv[++i]);
        else die("usage: sock_reader --socket PATH --out FILE [--connect-timeout-ms MS]", NULL);
    }
    if (!socket_path || !out) die("need --socket and --out", NULL);
    records = malloc(record_capacity * sizeof *records);
    if (!records) die("out of memory", NULL);

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    int signals = signalfd(-1, &mask, SFD_CLOEXEC);

    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(socket_path) >= sizeof address.sun_path) die("socket path too long", socket_path);
    strcpy(address.sun_path, socket_path);
    int fd = -1;
    uint64_t deadline = now_ns() + (uint64_t)connect_timeout_ms * 1000000u;
    for (;;) {
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (connect(fd, (struct sockaddr *)&address, sizeof address) == 0) break;
        close(fd);
        if (now_ns() > deadline) die("cannot connect", socket_path);
        struct signalfd_siginfo info;
        struct pollfd p = {signals, POLLIN, 0};
        if (poll(&p, 1, 1) > 0 && read(signals, &info, sizeof info) > 0) die("stopped before connecting", NULL);
    }
    static const char request[] = "{\"v\":1,\"id\":1,\"cmd\":\"subscribe\"}\n";
    if (write(fd, request, sizeof request - 1) != (ssize_t)(sizeof request - 1)) die("write", strerror(errno));

    static char buffer[1 << 20];
    size_t used = 0;
    for (;;) {
        struct pollfd fds[2] = {{fd, POLLIN, 0}, {signals, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            die("poll", strerror(errno));
        }
        if (fds[1].revents) break;
        if (!fds[0].revents) continue;
        ssize_t n = read(fd, buffer + used, sizeof buffer - 1 - used);
        if (n <= 0) break;
        uint64_t ns = now_ns();
        used += (size_t)n;
        buffer[used] = 0;
        char *start = buffer, *newline;
        while ((newline = memchr(start, '\n', used - (size_t)(start - buffer)))) {
            *newline = 0;
            line(start, ns);
            start = newline + 1;
        }
        used -= (size_t)(start - buffer);
        memmove(buffer, start, used);
        if (used == sizeof buffer - 1) die("line too long", NULL);
    }
    write_records(out);
    printf("records %zu other %llu dropped %llu\n", record_count, other_lines, dropped);
    fflush(stdout);
    return 0;
}
