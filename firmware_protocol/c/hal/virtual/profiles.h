/* The shipped table profiles (config/tables/NAME.yaml) as virtual tables. */
#ifndef MJT_VIRTUAL_PROFILES_H
#define MJT_VIRTUAL_PROFILES_H

#include "mjt_table.h"

typedef struct {
    const char *name;
    mjt_config config;
    uint32_t ms[MJT_OPERATION_COUNT]; /* each operation's duration at speed 1, by MJT_OPERATION_* */
} virtual_profile;

#define FIRMWARE "mjt-c-1.0"
#define FEATURES_1_1 (MJT_FEATURE_MASK_COUNTERS | MJT_FEATURE_MASK_SENSOR_TEST)
#define LIMITS 80000u, 20000u /* the build limit, any other mechanism's */
#define TIMINGS(shuffle) {0, 6000, shuffle, 6000, 2000, 2000, 1000, 1000}

static const virtual_profile VIRTUAL_PROFILES[] = {
    {"four-port", {"four-port-136", FIRMWARE, 136, {17, 17, 17, 17}, 4, 2, 1, 1, 1, 1, 1, MJT_WIND_MARKER_MOTORISED,
                   3000, 64, 4, 1, FEATURES_1_1, LIMITS}, TIMINGS(30000)},
    {"four-port-sticks", {"four-port-sticks", FIRMWARE, 136, {17, 17, 17, 17}, 4, 2, 1, 1, 1, 1, 1,
                          MJT_WIND_MARKER_MOTORISED, 3000, 64, 4, 1,
                          FEATURES_1_1 | MJT_FEATURE_MASK_STICK_READER, LIMITS}, TIMINGS(30000)},
    {"basic", {"basic-136", FIRMWARE, 136, {17, 17, 17, 17}, 4, 2, 0, 0, 1, 1, 1, MJT_WIND_MARKER_LAMP,
               3000, 64, 4, 1, FEATURES_1_1, LIMITS}, TIMINGS(40000)},
    {"sanma-108", {"sanma-108", FIRMWARE, 108, {13, 14, 13, 14}, 3, 2, 1, 1, 1, 1, 1, MJT_WIND_MARKER_MOTORISED,
                   3000, 64, 4, 1, FEATURES_1_1, LIMITS}, TIMINGS(26000)},
    {"mcr-144", {"mcr-144", FIRMWARE, 144, {18, 18, 18, 18}, 4, 2, 1, 0, 1, 1, 1, MJT_WIND_MARKER_MOTORISED,
                 3000, 64, 4, 1, FEATURES_1_1, LIMITS}, TIMINGS(34000)},
};
#define VIRTUAL_PROFILE_COUNT (sizeof VIRTUAL_PROFILES / sizeof VIRTUAL_PROFILES[0])

#endif
