/*
 * fake_nvml.c - a stand-in for libnvidia-ml.so.1 (build/libfake-nvml.so,
 * loaded through $HISTO_NVML_LIB) so that the tests drive energy.c's
 * NVML path without a GPU. Its one GPU sits at the PCI address
 * $FAKE_NVML_BUS (as nvmlDeviceGetHandleByPciBusId_v2 is asked for it,
 * e.g. "00000000:65:00.0"); its energy counter starts at
 * $FAKE_NVML_START_MJ and moves $FAKE_NVML_STEP_MJ each time it is read;
 * its power reads $FAKE_NVML_MW. $FAKE_NVML_NO_ENERGY makes the counter
 * unsupported, $FAKE_NVML_INIT_FAILS the initialisation fail.
 */
#include <stdlib.h>
#include <string.h>

enum { OK = 0, ERROR_UNINITIALIZED = 1, ERROR_NOT_SUPPORTED = 3,
       ERROR_NOT_FOUND = 6, ERROR_UNKNOWN = 999 };

static int ready;
static unsigned long long counter;
static int the_gpu;

static unsigned long long env_number(const char *name, unsigned long long d)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? strtoull(v, NULL, 10) : d;
}

int nvmlInit_v2(void)
{
    if (getenv("FAKE_NVML_INIT_FAILS") != NULL)
        return ERROR_UNKNOWN;
    ready = 1;
    counter = env_number("FAKE_NVML_START_MJ", 1000000);
    return OK;
}

int nvmlShutdown(void)
{
    ready = 0;
    return OK;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **device)
{
    const char *want = getenv("FAKE_NVML_BUS");
    if (!ready)
        return ERROR_UNINITIALIZED;
    if (want == NULL || strcmp(bus, want) != 0)
        return ERROR_NOT_FOUND;
    *device = &the_gpu;
    return OK;
}

int nvmlDeviceGetTotalEnergyConsumption(void *device, unsigned long long *mj)
{
    if (!ready || device != &the_gpu)
        return ERROR_UNINITIALIZED;
    if (getenv("FAKE_NVML_NO_ENERGY") != NULL)
        return ERROR_NOT_SUPPORTED;
    *mj = counter;
    counter += env_number("FAKE_NVML_STEP_MJ", 0);
    return OK;
}

int nvmlDeviceGetPowerUsage(void *device, unsigned int *mw)
{
    if (!ready || device != &the_gpu)
        return ERROR_UNINITIALIZED;
    *mw = (unsigned int)env_number("FAKE_NVML_MW", 0);
    return OK;
}

const char *nvmlErrorString(int r)
{
    return r == ERROR_NOT_FOUND ? "Not Found"
         : r == ERROR_NOT_SUPPORTED ? "Not Supported"
         : r == ERROR_UNINITIALIZED ? "Uninitialized" : "Unknown Error";
}
