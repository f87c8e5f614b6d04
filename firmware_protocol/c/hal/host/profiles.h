/* The shipped table profiles (config/tables/NAME.yaml) as the host build's virtual tables. */
#ifndef MJT_HOST_PROFILES_H
#define MJT_HOST_PROFILES_H

#include "mjt_table.h"

typedef struct {
    const char *name;
    mjt_config config;
    /* seconds at speed 1, by operation (MJT_OPERATION_*); 0: idle */
    double seconds[MJT_OPERATION_COUNT];
    int stick_reader;
} host_profile;

#define FIRMWARE "mjt-c-1.0"
#define ALL_FEATURES (MJT_FEATURE_MASK_COUNTERS | MJT_FEATURE_MASK_SENSOR_TEST)
#define LIMITS 80000u, 20000u

static const host_profile PROFILES[] = {
    {"four-port", {"four-port-136", FIRMWARE, 136, {17, 17, 17, 17}, 4, 2, 1, 1, 1, 1, 1, MJT_WIND_MARKER_MOTORISED,
                   3000, 64, 4, 1, ALL_FEATURES, LIMITS},
     {0, 6, 30, 6, 2, 2, 1, 1}, 0},
    {"four-port-sticks", {"four-port-sticks", FIRMWARE, 136, {17, 17, 17, 17}, 4, 2, 1, 1, 1, 1, 1,
                          MJT_WIND_MARKER_MOTORISED, 3000, 64, 4, 1, ALL_FEATURES | MJT_FEATURE_MASK_STICK_READER, LIMITS},
     {0, 6, 30, 6, 2, 2, 1, 1}, 1},
    {"basic", {"basic-136", FIRMWARE, 136, {17, 17, 17, 17}, 4, 2, 0, 0, 1, 1, 1, MJT_WIND_MARKER_LAMP,
               3000, 64, 4, 1, ALL_FEATURES, LIMITS},
     {0, 6, 40, 6, 2, 2, 1, 1}, 0},
    {"sanma-108", {"sanma-108", FIRMWARE, 108, {13, 14, 13, 14}, 3, 2, 1, 1, 1, 1, 1, MJT_WIND_MARKER_MOTORISED,
                   3000, 64, 4, 1, ALL_FEATURES, LIMITS},
     {0, 6, 26, 6, 2, 2, 1, 1}, 0},
    {"mcr-144", {"mcr-144", FIRMWARE, 144, {18, 18, 18, 18}, 4, 2, 1, 0, 1, 1, 1, MJT_WIND_MARKER_MOTORISED,
                 3000, 64, 4, 1, ALL_FEATURES, LIMITS},
     {0, 6, 34, 6, 2, 2, 1, 1}, 0},
};

#endif
