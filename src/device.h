/*
 * device.h - finding OpenCL platforms and devices, choosing one, and
 * opening a context and an in-order profiling queue on it.
 */
#ifndef HISTO_DEVICE_H
#define HISTO_DEVICE_H

#include "error.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct device_info {
    cl_device_id id;
    char name[256];
    char vendor[256];
    char version[256];       /* CL_DEVICE_VERSION   */
    char driver[256];        /* CL_DRIVER_VERSION   */
    cl_device_type type;
    cl_uint compute_units;
    cl_ulong local_mem;      /* bytes; 0 if local memory is not dedicated */
    cl_device_local_mem_type local_mem_type;
    cl_ulong global_mem;
    cl_ulong max_alloc;
    size_t max_work_group;
};

struct platform_info {
    cl_platform_id id;
    char name[256];
    char vendor[256];
    char version[256];
    cl_uint ndevices;
    struct device_info *devices;
};

struct device_list {
    cl_uint nplatforms;
    struct platform_info *platforms;
    /* selection, filled by device_select */
    cl_uint platform;
    cl_uint device;
};

/* Enumerates every platform and its devices. Returns 0 or an exit status. */
int device_enumerate(struct device_list *list);

/* Picks a device from the --platform / --device strings (either NULL).
 * Returns 0 or HISTO_EXIT_DEVICE after naming what is available. */
int device_select(struct device_list *list, const char *platform,
                  const char *device);

static inline const struct device_info *
device_selected(const struct device_list *list)
{
    return &list->platforms[list->platform].devices[list->device];
}

const char *device_type_name(cl_device_type type);

/* Prints the platforms and devices, marking the selection if any. */
void device_print(FILE *f, const struct device_list *list, bool selected);

void device_list_free(struct device_list *list);

/* Checks that one buffer of `bytes` fits the device's largest allocation
 * (CL_DEVICE_MAX_MEM_ALLOC_SIZE). Returns 0, or HISTO_EXIT_DEVICE after
 * naming the buffer (`what`), its size and the limit. */
int device_check_alloc(const struct device_info *device, const char *what,
                       uint64_t bytes);

/* Context and queue (in order, profiling on) on the selected device. */
int device_open(const struct device_list *list, cl_context *context,
                cl_command_queue *queue);

#endif
