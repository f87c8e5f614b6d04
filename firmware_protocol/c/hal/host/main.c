/* The host build: the C core on a virtual table, served on a pseudo-terminal.
 *
 *     mjt-host [--profile NAME] [--speed N] [--seed N] [--frame-size N] [--protocol 1.0] [--tick-start MS]
 *
 * prints the pty's path (as `mjtable sim --pty` does) and serves until SIGTERM or SIGINT.
 * SIGUSR1 resets the "MCU": the core starts again from mjt_table_init with a new boot id,
 * while the tiles, the wind marker and the odometer (this board's non-volatile memory)
 * stay where they were. --speed N runs the mechanisms N times faster; --tick-start sets
 * the millisecond tick's first value (4294960000 crosses the 2^32 wrap within seconds). */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "virtual_table.h"

static mjt_table table;
static mjt_rx_ring rx;
static mjt_config config;
static virtual_memory memory; /* survives an MCU reset, not the process */
static int master = -1;
static uint32_t tick_offset;
static volatile sig_atomic_t quit, reset_requested;

static uint32_t tick(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u) + tick_offset;
}

void mjt_hal_uart_write(const uint8_t *bytes, size_t n)
{
    while (n) {
        ssize_t put = write(master, bytes, n);
        if (put < 0 && errno != EINTR && errno != EAGAIN)
            return; /* the line is gone; the link retransmits */
        if (put > 0) {
            bytes += put;
            n -= (size_t)put;
        }
    }
}

static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        reset_requested = 1;
    else
        quit = 1;
}

static int usage(const char *why)
{
    fprintf(stderr, "mjt-host: %s\nusage: mjt-host [--profile NAME] [--speed N] [--seed N] [--frame-size N] "
                    "[--protocol 1.0] [--tick-start MS]\n", why);
    return 2;
}

static const virtual_profile *find_profile(const char *name)
{
    for (size_t p = 0; p < VIRTUAL_PROFILE_COUNT; p++)
        if (!strcmp(VIRTUAL_PROFILES[p].name, name))
            return &VIRTUAL_PROFILES[p];
    return NULL;
}

int main(int argc, char **argv)
{
    const virtual_profile *profile = find_profile("four-port");
    unsigned long speed = 1, frame_size = 0;
    unsigned long long seed = 1;
    int protocol_1_0 = 0;
    for (int i = 1; i < argc; i += 2) {
        const char *opt = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value) return usage("an option needs a value");
        if (!strcmp(opt, "--profile")) profile = find_profile(value);
        else if (!strcmp(opt, "--speed")) speed = strtoul(value, NULL, 10);
        else if (!strcmp(opt, "--seed")) seed = strtoull(value, NULL, 10);
        else if (!strcmp(opt, "--frame-size")) frame_size = strtoul(value, NULL, 10);
        else if (!strcmp(opt, "--protocol")) protocol_1_0 = !strcmp(value, "1.0");
        else if (!strcmp(opt, "--tick-start")) tick_offset = (uint32_t)strtoul(value, NULL, 10) - tick();
        else return usage("unknown option");
    }
    if (!profile) return usage("no such profile (four-port, four-port-sticks, basic, sanma-108, mcr-144)");
    if (!speed) return usage("--speed must be a whole number above 0");
    if (frame_size && (frame_size < MJT_MIN_FRAME || frame_size > MJT_MAX_FRAME))
        return usage("--frame-size must be 32 to 64");
    config = profile->config;
    if (frame_size)
        config.frame_size = (uint8_t)frame_size;
    if (protocol_1_0)
        config.protocol_minor = config.features = 0;

    master = posix_openpt(O_RDWR | O_NOCTTY);
    const char *path = master < 0 || grantpt(master) || unlockpt(master) ? NULL : ptsname(master);
    int slave = path ? open(path, O_RDWR | O_NOCTTY) : -1; /* kept open: hosts may come and go */
    struct termios raw;
    if (slave < 0 || tcgetattr(slave, &raw)) {
        perror("mjt-host: pty");
        return 1;
    }
    cfmakeraw(&raw);
    tcsetattr(slave, TCSANOW, &raw);
    fcntl(master, F_SETFL, O_NONBLOCK);
    printf("%s\n", path);
    fflush(stdout);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGUSR1, on_signal);

    virtual_table_power_on(&table, profile, (uint32_t)speed, seed, &memory);
    mjt_table_init(&table, &config, tick());
    while (!quit) {
        struct pollfd fd = {master, POLLIN, 0};
        poll(&fd, 1, 1);
        uint8_t chunk[256];
        ssize_t got = read(master, chunk, sizeof chunk);
        for (ssize_t i = 0; i < got; i++)
            mjt_rx_put(&rx, chunk[i]); /* what a UART interrupt does */
        if (reset_requested) {
            reset_requested = 0;
            virtual_table_reset();
            mjt_table_init(&table, &config, tick());
        }
        virtual_table_run(tick());
        uint8_t bytes[64];
        uint8_t n;
        while ((n = mjt_rx_take(&rx, bytes, sizeof bytes)) > 0)
            mjt_table_receive(&table, bytes, n, tick());
        mjt_table_poll(&table, tick());
    }
    return 0;
}
