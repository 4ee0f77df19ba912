/* energy.c - the devices' energy counters (see energy.h). */
#include "energy.h"

#include "env.h"
#include "error.h"
#include "timer.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* NVML's counter is in millijoules but follows the driver's power
 * sampling, so a figure needs about a second of iterations; RAPL's is in
 * microjoules and updated about every millisecond. */
#define NVML_MIN_S 1.0
#define RAPL_MIN_S 0.1
/* RAPL has no instant power reading: idle power is its counter over this
 * long before the run. */
#define ENERGY_IDLE_S 0.05

/* The part of NVML's C API histo calls, by the types its header gives
 * (nvml.h is not needed to build: the library is opened at run time). */
typedef int nvml_return;
typedef void *nvml_device;
static struct {
    void *lib;
    int users;
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*by_pci)(const char *bus, nvml_device *device);
    nvml_return (*energy)(nvml_device device, unsigned long long *mj);
    nvml_return (*power)(nvml_device device, unsigned int *mw);
    const char *(*error)(nvml_return r);
} nvml;

static const char *nvml_error(nvml_return r)
{
    const char *s = nvml.error != NULL ? nvml.error(r) : NULL;
    return s != NULL ? s : "unknown NVML error";
}

/* Loads and initialises NVML once; reason set when it cannot. */
static bool nvml_load(char *reason, size_t len)
{
    if (nvml.users > 0) {
        ++nvml.users;
        return true;
    }
    const char *path = env_value(ENV_HISTO_NVML_LIB);
    if (path == NULL)
        path = "libnvidia-ml.so.1";
    if ((nvml.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        snprintf(reason, len, "NVML (%s) cannot be loaded: %s", path,
                 dlerror());
        return false;
    }
    /* POSIX: a function pointer is read through a void * */
    *(void **)&nvml.init = dlsym(nvml.lib, "nvmlInit_v2");
    *(void **)&nvml.shutdown = dlsym(nvml.lib, "nvmlShutdown");
    *(void **)&nvml.by_pci = dlsym(nvml.lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nvml.energy = dlsym(nvml.lib,
                                   "nvmlDeviceGetTotalEnergyConsumption");
    *(void **)&nvml.power = dlsym(nvml.lib, "nvmlDeviceGetPowerUsage");
    *(void **)&nvml.error = dlsym(nvml.lib, "nvmlErrorString");
    nvml_return r;
    if (nvml.init == NULL || nvml.shutdown == NULL || nvml.by_pci == NULL
        || nvml.energy == NULL) {
        snprintf(reason, len, "NVML (%s) lacks the functions histo needs",
                 path);
    } else if ((r = nvml.init()) != 0) {
        snprintf(reason, len, "nvmlInit failed: %s", nvml_error(r));
    } else {
        nvml.users = 1;
        return true;
    }
    dlclose(nvml.lib);
    memset(&nvml, 0, sizeof nvml);
    return false;
}

static void nvml_release(void)
{
    if (nvml.users == 0 || --nvml.users > 0)
        return;
    nvml.shutdown();
    dlclose(nvml.lib);
    memset(&nvml, 0, sizeof nvml);
}

/* An NVIDIA GPU: its NVML device by PCI bus id, its counter and its
 * power now. */
static void open_nvml(struct energy_device *d)
{
    const struct device_info *dev = d->device;
    char bus[32];
    snprintf(bus, sizeof bus, "%08x:%02x:%02x.%x", (unsigned)dev->pci_domain,
             (unsigned)dev->pci_bus, (unsigned)dev->pci_device,
             (unsigned)dev->pci_function);
    if (!nvml_load(d->reason, sizeof d->reason))
        return;
    nvml_device h = NULL;
    unsigned long long mj;
    nvml_return r = nvml.by_pci(bus, &h);
    if (r != 0) {
        snprintf(d->reason, sizeof d->reason, "NVML has no GPU at the "
                 "device's PCI address %s: %s", bus, nvml_error(r));
    } else if ((r = nvml.energy(h, &mj)) != 0) {
        snprintf(d->reason, sizeof d->reason, "the GPU at %s has no energy "
                 "counter: %s", bus, nvml_error(r));
    } else {
        d->source = ENERGY_NVML;
        d->nvml_device = h;
        d->ndomains = 1; /* one counter, 64 bits: it does not wrap */
        d->max_range[0] = 0;
        d->resolution_j = 1e-3;
        d->min_s = NVML_MIN_S;
        snprintf(d->counter, sizeof d->counter, "NVML total energy of the "
                 "GPU at PCI %s (the board: GPU and its memory)", bus);
        unsigned int mw;
        if (nvml.power != NULL && nvml.power(h, &mw) == 0)
            d->idle_watts = mw / 1000.0;
        return;
    }
    nvml_release();
}

/* "PATH cannot be VERB: the error", and where permission was refused
 * that this is usual. */
static void errno_why(char *why, size_t len, const char *path,
                      const char *verb, int e)
{
    snprintf(why, len, "%s cannot be %s: %s%s", path, verb, strerror(e),
             e == EACCES || e == EPERM ? " (root only on many kernels)" : "");
}

/* A counter file's first line as a number. False, with why the file
 * failed in why (after its path), where it cannot be opened or read, is
 * not a regular file (sysfs's counters are: a FIFO in its place would
 * block the read forever, so it is opened without blocking and looked
 * at first) or holds no number. */
static bool read_number(const char *path, uint64_t *v, char *why,
                        size_t len)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        errno_why(why, len, path, "opened", errno);
        return false;
    }
    struct stat st;
    char buf[64];
    ssize_t got = -1;
    if (fstat(fd, &st) != 0)
        errno_why(why, len, path, "read", errno);
    else if (!S_ISREG(st.st_mode))
        snprintf(why, len, "%s is not a regular file (a folder, FIFO or "
                 "device)", path);
    else if ((got = read(fd, buf, sizeof buf - 1)) < 0)
        errno_why(why, len, path, "read", errno);
    close(fd);
    if (got < 0)
        return false;
    buf[got] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    char *end;
    errno = 0;
    const unsigned long long n = strtoull(buf, &end, 10);
    if (end == buf || errno != 0 || *end != '\0' || buf[0] == '-') {
        /* the text as printable characters, at most 20 */
        for (char *c = buf; *c != '\0'; ++c)
            if ((unsigned char)*c < 32 || (unsigned char)*c > 126)
                *c = '?';
        snprintf(why, len, "%s holds no number: '%.20s'", path, buf);
        return false;
    }
    *v = n;
    return true;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The package domains (intel-rapl:N, no sub-domain :N:M) under dir. */
static size_t rapl_domains(const char *dir, char names[][ENERGY_PATH_MAX],
                           size_t most)
{
    DIR *dp = opendir(dir);
    if (dp == NULL)
        return 0;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL && n < most) {
        const char *s = de->d_name;
        if (strncmp(s, "intel-rapl:", 11) != 0 || strchr(s + 11, ':') != NULL)
            continue;
        snprintf(names[n++], ENERGY_PATH_MAX, "%s/%s", dir, s);
    }
    closedir(dp);
    /* readdir's order is the file system's: sorted, reports repeat */
    qsort(names, n, ENERGY_PATH_MAX, compare_names);
    return n;
}

/* Reads domain k's counter of d into *uj; why it failed in why. */
static bool rapl_read(const struct energy_device *d, size_t k, uint64_t *uj,
                      char *why, size_t len)
{
    char path[ENERGY_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/energy_uj", d->domain[k]);
    return read_number(path, uj, why, len);
}

/* d's counters now, one a domain, in the counter's unit (resolution_j). */
static bool read_counter(const struct energy_device *d, uint64_t *v)
{
    if (d->source == ENERGY_NVML) {
        unsigned long long mj;
        if (nvml.energy(d->nvml_device, &mj) != 0)
            return false;
        v[0] = mj;
        return true;
    }
    char why[256];
    for (size_t k = 0; k < d->ndomains; ++k)
        if (!rapl_read(d, k, &v[k], why, sizeof why))
            return false;
    return true;
}

/* The joules d's counters moved from `start` to `now` (each may wrap
 * once, at its max_range) into *joules; false, with the reason in
 * `why`, where a pair of readings is unreliable. */
static bool joules_since(const struct energy_device *d,
                         const uint64_t *start, const uint64_t *now,
                         double *joules, char *why, size_t why_size)
{
    uint64_t total = 0;
    for (size_t k = 0; k < d->ndomains; ++k) {
        uint64_t moved = 0;
        const char *name = d->source == ENERGY_NVML ? "the NVML counter"
                                                    : d->domain[k];
        switch (energy_counter_delta(start[k], now[k], d->max_range[k],
                                     &moved)) {
        case ENERGY_DELTA_OK:
            total += moved;
            continue;
        case ENERGY_DELTA_ABOVE_RANGE:
            snprintf(why, why_size, "unreliable: %s read %" PRIu64 " then %"
                     PRIu64 ", above its max_energy_range_uj %" PRIu64,
                     name, start[k], now[k], d->max_range[k]);
            return false;
        case ENERGY_DELTA_BACK:
            snprintf(why, why_size, "unreliable: %s stepped back from %"
                     PRIu64 " to %" PRIu64 ", which is no wrap of its "
                     "range (%" PRIu64 ")", name, start[k], now[k],
                     d->max_range[k]);
            return false;
        }
    }
    *joules = (double)total * d->resolution_j;
    return true;
}

/* A CPU device: the host's package counters. */
static void open_rapl(struct energy_device *d)
{
    const char *dir = env_value(ENV_HISTO_POWERCAP_DIR);
    if (dir == NULL)
        dir = "/sys/class/powercap";
    d->ndomains = rapl_domains(dir, d->domain, ENERGY_MAX_DOMAINS);
    if (d->ndomains == 0) {
        snprintf(d->reason, sizeof d->reason, "no RAPL package counter "
                 "under %s (none on this host, or a virtual machine's)",
                 dir);
        return;
    }
    uint64_t start[ENERGY_MAX_DOMAINS];
    for (size_t k = 0; k < d->ndomains; ++k) {
        char path[ENERGY_PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/max_energy_range_uj", d->domain[k]);
        if (!rapl_read(d, k, &start[k], d->reason, sizeof d->reason)
            || !read_number(path, &d->max_range[k], d->reason,
                            sizeof d->reason)) {
            d->ndomains = 0;
            return;
        }
    }
    d->source = ENERGY_RAPL;
    d->resolution_j = 1e-6;
    d->min_s = RAPL_MIN_S;
    snprintf(d->counter, sizeof d->counter, "RAPL, %zu CPU package%s under "
             "%s (the whole package, not the OpenCL device alone)",
             d->ndomains, d->ndomains == 1 ? "" : "s", dir);
    const double t0 = timer_now();
    const struct timespec pause = {0, (long)(ENERGY_IDLE_S * 1e9)};
    nanosleep(&pause, NULL);
    uint64_t now[ENERGY_MAX_DOMAINS];
    const bool ok = read_counter(d, now);
    const double s = timer_now() - t0;
    double joules;
    char why[sizeof d->reason];
    if (ok && s > 0
        && joules_since(d, start, now, &joules, why, sizeof why))
        d->idle_watts = joules / s;
}

enum energy_delta energy_counter_delta(uint64_t start, uint64_t end,
                                       uint64_t max_range, uint64_t *moved)
{
    *moved = 0;
    if (max_range > 0 && (start > max_range || end > max_range))
        return ENERGY_DELTA_ABOVE_RANGE;
    if (end >= start) {
        *moved = end - start;
        return ENERGY_DELTA_OK;
    }
    const uint64_t wrapped = max_range - start + end;
    if (max_range == 0 || wrapped > max_range / 2)
        return ENERGY_DELTA_BACK;
    *moved = wrapped;
    return ENERGY_DELTA_OK;
}

int energy_open(struct energy *e, const struct device_info *const *devices,
                size_t ndevices)
{
    memset(e, 0, sizeof *e);
    double min_s = -1;
    const int status = env_number(ENV_HISTO_ENERGY_MIN_S, &min_s);
    if (status != HISTO_OK)
        return status;
    for (size_t i = 0; i < ndevices && e->ndevices < ENERGY_MAX_DEVICES;
         ++i) {
        bool seen = false;
        for (size_t j = 0; j < e->ndevices; ++j)
            seen = seen || e->dev[j].device == devices[i];
        if (seen)
            continue;
        struct energy_device *d = &e->dev[e->ndevices++];
        d->device = devices[i];
        d->idle_watts = -1;
        if (d->device->pci_known)
            open_nvml(d);
        else if (d->device->type & CL_DEVICE_TYPE_CPU)
            open_rapl(d);
        else
            snprintf(d->reason, sizeof d->reason, "the OpenCL device "
                     "reports no PCI address (cl_khr_pci_bus_info) and is "
                     "not a CPU: no counter of its own is known");
        if (d->source != ENERGY_NONE && min_s >= 0)
            d->min_s = min_s;
    }
    return HISTO_OK;
}

void energy_start(struct energy *e)
{
    for (size_t i = 0; i < e->ndevices; ++i) {
        struct energy_device *d = &e->dev[i];
        d->started = d->source != ENERGY_NONE && read_counter(d, d->start);
        d->measured = false;
        if (d->source != ENERGY_NONE && !d->started)
            snprintf(d->reason, sizeof d->reason, "the counter could not be"
                     " read at the start of the timed iterations");
    }
    e->start_s = timer_now();
}

void energy_stop(struct energy *e, unsigned long iterations)
{
    e->seconds = timer_now() - e->start_s;
    e->iterations = iterations;
    for (size_t i = 0; i < e->ndevices; ++i) {
        struct energy_device *d = &e->dev[i];
        if (!d->started)
            continue;
        uint64_t now[ENERGY_MAX_DOMAINS];
        const bool ok = read_counter(d, now);
        double joules = 0;
        if (!ok) {
            snprintf(d->reason, sizeof d->reason, "the counter could not be"
                     " read at the end of the timed iterations");
        } else if (!joules_since(d, d->start, now, &joules, d->reason,
                                 sizeof d->reason)) {
            /* the reason says why; a counter that proved unreliable over
             * the run gives no idle figure either (its idle window may
             * simply have seen no step) */
            d->idle_watts = -1;
        } else if (e->seconds < d->min_s) {
            snprintf(d->reason, sizeof d->reason, "the timed iterations "
                     "took %.3f s, shorter than the %.1f s this counter "
                     "needs for a figure: run more iterations", e->seconds,
                     d->min_s);
        } else if (joules < 100 * d->resolution_j) {
            snprintf(d->reason, sizeof d->reason, "the counter moved %.6f J"
                     " in %.3f s, under 100 of its steps of %g J: no "
                     "figure", joules, e->seconds, d->resolution_j);
        } else {
            d->joules = joules;
            d->measured = true;
            d->reason[0] = '\0';
        }
    }
}

bool energy_total(const struct energy *e, double *joules)
{
    *joules = 0;
    for (size_t i = 0; i < e->ndevices; ++i) {
        if (!e->dev[i].measured)
            return false;
        *joules += e->dev[i].joules;
    }
    return e->ndevices > 0 && e->iterations > 0;
}

static const char *source_name(enum energy_source s)
{
    return s == ENERGY_NVML ? "nvml" : s == ENERGY_RAPL ? "rapl" : "none";
}

/* The sources of all devices: one name, "mixed", or "none" when any
 * has none. */
static const char *overall_source(const struct energy *e)
{
    const char *name = e->ndevices > 0 ? source_name(e->dev[0].source)
                                       : "none";
    for (size_t i = 0; i < e->ndevices; ++i) {
        if (e->dev[i].source == ENERGY_NONE)
            return "none";
        if (strcmp(source_name(e->dev[i].source), name) != 0)
            name = "mixed";
    }
    return name;
}

/* The sum of the devices' idle powers; false when one is unknown. */
static bool total_idle(const struct energy *e, double *watts)
{
    *watts = 0;
    for (size_t i = 0; i < e->ndevices; ++i) {
        if (e->dev[i].idle_watts < 0)
            return false;
        *watts += e->dev[i].idle_watts;
    }
    return e->ndevices > 0;
}

void energy_report(const struct energy *e, FILE *f)
{
    double total, idle;
    fprintf(f, "energy.source = %s\n", overall_source(e));
    if (energy_total(e, &total)) {
        fprintf(f, "energy.joules = %.6f\n", total);
        fprintf(f, "energy.joules_per_iteration = %.9f\n",
                total / (double)e->iterations);
        fprintf(f, "energy.mean_watts = %.3f\n", total / e->seconds);
        fprintf(f, "energy.seconds = %.6f\n", e->seconds);
    } else {
        for (size_t i = 0; i < e->ndevices; ++i)
            if (!e->dev[i].measured) {
                fprintf(f, "energy.reason = %s%s%s\n",
                        e->ndevices > 1 ? e->dev[i].device->name : "",
                        e->ndevices > 1 ? ": " : "", e->dev[i].reason);
                break;
            }
    }
    if (total_idle(e, &idle))
        fprintf(f, "energy.idle_watts = %.3f\n", idle);
    fprintf(f, "energy.devices = %zu\n", e->ndevices);
    for (size_t i = 0; i < e->ndevices; ++i) {
        const struct energy_device *d = &e->dev[i];
        fprintf(f, "energy.device.%zu.name = %s\n", i, d->device->name);
        fprintf(f, "energy.device.%zu.source = %s\n", i,
                source_name(d->source));
        if (d->source != ENERGY_NONE) {
            fprintf(f, "energy.device.%zu.counter = %s\n", i, d->counter);
            fprintf(f, "energy.device.%zu.resolution_j = %g\n", i,
                    d->resolution_j);
            if (d->idle_watts >= 0)
                fprintf(f, "energy.device.%zu.idle_watts = %.3f\n", i,
                        d->idle_watts);
        }
        if (d->measured)
            fprintf(f, "energy.device.%zu.joules = %.6f\n", i, d->joules);
        else
            fprintf(f, "energy.device.%zu.reason = %s\n", i, d->reason);
    }
}

void energy_summary(const struct energy *e, FILE *f)
{
    double total;
    if (!energy_total(e, &total))
        return;
    fprintf(f, "histo: energy %.3f mJ an iteration, %.1f W mean over the "
               "timed iterations", total * 1e3 / (double)e->iterations,
            total / e->seconds);
    double idle = 0;
    bool known = true;
    for (size_t i = 0; i < e->ndevices; ++i) {
        known = known && e->dev[i].idle_watts >= 0;
        idle += e->dev[i].idle_watts;
    }
    if (known)
        fprintf(f, " (%.1f W before them)", idle);
    fprintf(f, "; %s\n", e->dev[0].source == ENERGY_NVML
                         ? "the GPU's own counter (NVML)"
                         : "the CPU package's counter (RAPL)");
}

void energy_close(struct energy *e)
{
    for (size_t i = 0; i < e->ndevices; ++i)
        if (e->dev[i].source == ENERGY_NVML)
            nvml_release();
    memset(e, 0, sizeof *e);
}
