/*
 * device.h - finding OpenCL platforms and devices, choosing one, and
 * opening a context and an in-order profiling queue on it.
 */
#ifndef HISTO_DEVICE_H
#define HISTO_DEVICE_H

#include "error.h"
#include "quirks.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Why an entry was skipped: the query that failed and its error. */
#define DEVICE_SKIP_TEXT 160

/* Strings are allocated and read whole, whatever their length: they are
 * matched by --platform/--device, written to histo.out and key the tune
 * cache, so a cut name would match and record something the driver did
 * not say. A skipped entry keeps its index and its reason; its other
 * fields may be unset (strings NULL) and nothing selects it. */
/* The fence the device's compiler offers for ordering a work-item's
 * global memory accesses as seen by the other work-groups of the same
 * launch: what the fused strategy's barrier needs (eye_fused.cl). OpenCL
 * C 1.2's mem_fence orders a work-item's accesses for itself alone
 * (NVIDIA's compiler makes it a fence of the group's scope, membar.cta);
 * OpenCL C 2.0, and 3.0 where the device lists the features
 * __opencl_c_atomic_scope_device and __opencl_c_atomic_order_acq_rel,
 * have atomic_work_item_fence at memory_scope_device; NVIDIA's compiler
 * takes PTX as inline assembly: membar.gl, or from compute capability 7
 * a release add and acquire loads of gpu scope. Decides where fused fits
 * (eye.c's fits, strategy_choose in strategies.c) and the fused
 * program's build options (eye.c). */
enum device_fence {
    DEVICE_FENCE_NONE = 0, /* mem_fence only */
    DEVICE_FENCE_C30,
    DEVICE_FENCE_C20,
    DEVICE_FENCE_PTX,      /* membar.gl (compute capability below 7) */
    DEVICE_FENCE_PTX_ACQ,  /* red.release.gpu, ld.acquire.gpu (7 and up) */
};

struct device_info {
    cl_device_id id;
    char skipped[DEVICE_SKIP_TEXT]; /* "" when usable                 */
    char *name;
    char *vendor;
    char *version;           /* CL_DEVICE_VERSION   */
    char *driver;            /* CL_DRIVER_VERSION   */
    /* its platform's CL_PLATFORM_NAME and CL_PLATFORM_VERSION, read whole
     * by discovery (the platform's strings, not the device's own; NULL
     * for a device made by hand) */
    const char *platform_name, *platform_version;
    cl_device_type type;
    char type_name[32];      /* every type it reports: "GPU|CPU|..."     */
    cl_uint compute_units;
    cl_ulong local_mem;      /* CL_DEVICE_LOCAL_MEM_SIZE, bytes, whatever
                                the type below (at least 32 KiB on a
                                full-profile device, even a CPU)        */
    /* CL_LOCAL: dedicated local memory (a GPU's scratchpad); CL_GLOBAL:
     * local memory is carved from global memory and cached like it (CPUs,
     * PoCL); CL_NONE: none (custom devices only). Decides where each
     * strategy fits (strategy_choose, strategies.c). */
    cl_device_local_mem_type local_mem_type;
    cl_bool little_endian;   /* CL_DEVICE_ENDIAN_LITTLE                 */
    cl_ulong global_mem;
    cl_ulong max_alloc;
    size_t max_work_group;   /* CL_DEVICE_MAX_WORK_GROUP_SIZE          */
    size_t max_work_items;   /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0]: a 1-D
                                group has at most this many too       */
    /* Its PCI address, where the implementation tells it
     * (cl_khr_pci_bus_info, or NVIDIA's CL_DEVICE_PCI_*_ID_NV): how
     * energy.c finds the GPU's own counters. Optional: a failed query
     * leaves pci_known false and skips nothing. */
    bool pci_known;
    cl_uint pci_domain, pci_bus, pci_device, pci_function;
    /* For the record of the system (optional, as above): the highest
     * clock, MHz (0 unknown), and whether its memory has error
     * correction (CL_DEVICE_ERROR_CORRECTION_SUPPORT; -1 unknown). */
    cl_uint max_clock_mhz;
    int ecc;
    /* Whether CL_DEVICE_EXTENSIONS lists cl_nv_compiler_options and
     * cl_nv_device_attribute_query: NVIDIA's compiler, which takes its
     * -cl-nv-* options and inline PTX (program.c, eye_fused.cl). */
    bool nv_compiler;
    /* Optional too: a failed query leaves DEVICE_FENCE_NONE. */
    enum device_fence fence;
    /* The rows of quirks.c its platform's name and its driver's version
     * match (none for a device made by hand). */
    struct quirks quirks;
};

struct platform_info {
    cl_platform_id id;
    char skipped[DEVICE_SKIP_TEXT]; /* "" when usable                 */
    char *name;
    char *vendor;
    char *version;
    struct quirks quirks;    /* the rows of quirks.c its name matches,
                                of any driver version                  */
    cl_uint ndevices;        /* with the skipped ones                 */
    struct device_info *devices;
};

/* What the fence is, for histo.out: "device scope (OpenCL C 3.0
 * atomic_work_item_fence)" and so on. */
const char *device_fence_name(enum device_fence fence);

/* Platforms and devices keep the indexes OpenCL enumerates them in, the
 * skipped ones included, so that an index in --list, --platform/--device
 * and histo.out names the same entry whether or not another entry's
 * query fails on a given run. */
struct device_list {
    cl_uint nplatforms;
    struct platform_info *platforms;
    /* selection, filled by device_select */
    cl_uint platform;
    cl_uint device;
};

/* The OpenCL queries that discovery makes, as a table so that the unit
 * tests can replace them with fakes that fail for one entry. */
struct device_cl_api {
    cl_int (CL_API_CALL *get_platform_ids)(cl_uint, cl_platform_id *,
                                           cl_uint *);
    cl_int (CL_API_CALL *get_platform_info)(cl_platform_id, cl_platform_info,
                                            size_t, void *, size_t *);
    cl_int (CL_API_CALL *get_device_ids)(cl_platform_id, cl_device_type,
                                         cl_uint, cl_device_id *, cl_uint *);
    cl_int (CL_API_CALL *get_device_info)(cl_device_id, cl_device_info,
                                          size_t, void *, size_t *);
};

/* The OpenCL library's own functions. */
extern const struct device_cl_api device_cl_opencl;

/* Enumerates every platform and its devices through `api`. A platform or
 * device whose query fails is skipped, with one warning on stderr, and
 * the rest are kept. Returns 0, or an exit status: HISTO_EXIT_DEVICE when
 * no platform is found or no usable device remains. */
int device_enumerate_with(const struct device_cl_api *api,
                          struct device_list *list);

/* device_enumerate_with(&device_cl_opencl, list). */
int device_enumerate(struct device_list *list);

/* Picks a device from the --platform / --device strings (either NULL).
 * --device is an index, a type word (CPU, GPU, ACCELERATOR, CUSTOM: a
 * device matches each type it reports) or part of a name. Without
 * --platform, PoCL is tried first, then every platform in order; the
 * first that has a matching device gives it. Returns 0, or
 * HISTO_EXIT_DEVICE after naming what is available, or after saying why
 * the chosen device cannot run histo (a byte order other than the
 * host's). */
int device_select(struct device_list *list, const char *platform,
                  const char *device);

/* Whether a --device value asks for all of the platform's devices
 * ("all"): the one place that word is compared. */
bool device_spec_all(const char *devices);

/* device_select for a comma-separated list of --device items (each as
 * device_select takes it; the same device may be named twice), or "all":
 * every usable device of the platform device_select picks without
 * --device. All must be on one platform. Fills out[0..*n) (at most max);
 * the selection (device_selected) is the first. Returns 0 or an exit
 * status after saying why. */
int device_select_many(struct device_list *list, const char *platform,
                       const char *devices, const struct device_info **out,
                       size_t max, size_t *n);

static inline const struct device_info *
device_selected(const struct device_list *list)
{
    return &list->platforms[list->platform].devices[list->device];
}

/* The device's compute units, at least 1 (what work is sized by). */
static inline uint64_t device_units(const struct device_info *d)
{
    return d->compute_units > 0 ? d->compute_units : 1;
}

/* "local", "global" or "none" for CL_LOCAL, CL_GLOBAL, CL_NONE. */
const char *device_local_mem_name(cl_device_local_mem_type type);

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
