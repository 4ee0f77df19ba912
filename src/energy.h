/*
 * energy.h - the energy the devices use over the timed iterations, from
 * their own counters, where they have one:
 *
 *   nvml   an NVIDIA GPU's total-energy counter (millijoules since the
 *          driver loaded, nvmlDeviceGetTotalEnergyConsumption), the GPU
 *          matched to the OpenCL device by PCI bus id, never by index;
 *          libnvidia-ml.so.1 is loaded at run time ($HISTO_NVML_LIB), so
 *          histo builds and runs where it is absent;
 *   rapl   for a CPU device, Linux powercap's package counters
 *          ($HISTO_POWERCAP_DIR, default /sys/class/powercap,
 *          intel-rapl:N/energy_uj, AMD's too): the whole package, not
 *          the OpenCL device alone;
 *   none   anything else, with the reason.
 *
 * Nothing here fails a run: a counter that cannot be found or read is a
 * reason in histo.out. A figure is given only when the timed iterations
 * lasted long enough for the counter (ENERGY_MIN_S for its source, or
 * $HISTO_ENERGY_MIN_S, a test hook) and it moved; otherwise the reason
 * says so instead of printing a quotient of noise.
 */
#ifndef HISTO_ENERGY_H
#define HISTO_ENERGY_H

#include "device.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define ENERGY_MAX_DEVICES 16
#define ENERGY_MAX_DOMAINS 8
#define ENERGY_PATH_MAX 512

enum energy_source { ENERGY_NONE, ENERGY_NVML, ENERGY_RAPL };

/* One device measured (several shares on one device measure it once). */
struct energy_device {
    const struct device_info *device;
    enum energy_source source;
    char reason[256];          /* source none, or no figure: why         */
    char counter[256];         /* what is read, for histo.out            */
    double resolution_j;       /* the counter's unit                     */
    double min_s;              /* shortest span it gives a figure for    */
    double idle_watts;         /* before the run; < 0: unknown           */
    void *nvml_device;         /* nvml: the handle                       */
    size_t ndomains;           /* counters read: rapl's packages, nvml 1 */
    char domain[ENERGY_MAX_DOMAINS][ENERGY_PATH_MAX]; /* rapl: folders   */
    uint64_t max_range[ENERGY_MAX_DOMAINS]; /* where each wraps, 0: never */
    uint64_t start[ENERGY_MAX_DOMAINS];     /* counter at energy_start  */
    bool started;
    bool measured;             /* joules holds a figure                  */
    double joules;
};

struct energy {
    size_t ndevices;
    struct energy_device dev[ENERGY_MAX_DEVICES];
    double start_s, seconds;   /* the span measured (host clock)         */
    unsigned long iterations;
};

/* Finds each distinct device's counter and reads its idle power (a
 * power reading, or the counter over ENERGY_IDLE_S). No counter fails
 * it: returns 0, or HISTO_EXIT_USAGE where HISTO_ENERGY_MIN_S is not a
 * number of seconds within its bounds (env.h). */
int energy_open(struct energy *e, const struct device_info *const *devices,
                size_t ndevices);

/* Reads every counter at the start and the end of the timed iterations;
 * energy_stop works out each device's joules over `iterations`. */
void energy_start(struct energy *e);
void energy_stop(struct energy *e, unsigned long iterations);

/* Whether every device was measured (a total exists), and the total. */
bool energy_total(const struct energy *e, double *joules);

/* histo.out's energy.* keys. */
void energy_report(const struct energy *e, FILE *f);

/* The console line "histo: energy ..." where every device was measured;
 * nothing otherwise (histo.out says why). */
void energy_summary(const struct energy *e, FILE *f);

/* Releases NVML if it was loaded. */
void energy_close(struct energy *e);

/* How two readings of a counter that wraps after max_range (rapl's
 * max_energy_range_uj; 0: never) compare. */
enum energy_delta {
    ENERGY_DELTA_OK,           /* *moved holds the movement              */
    ENERGY_DELTA_ABOVE_RANGE,  /* a reading above max_range              */
    ENERGY_DELTA_BACK          /* a step back that cannot be one wrap    */
};

/* Test hook, for the unit tests too: the movement from start to end. A
 * step back is taken for one wrap only where the wrapped movement is
 * under half the range: a counter that steps back by less than half its
 * range (or at all, where it never wraps) has not wrapped, and a
 * figure from it would be the range, not the energy. */
enum energy_delta energy_counter_delta(uint64_t start, uint64_t end,
                                       uint64_t max_range, uint64_t *moved);

#endif
