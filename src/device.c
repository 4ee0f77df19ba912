/* device.c - platform and device discovery and choice (see device.h). */
#include "device.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Without --platform, the embedded CPU implementation is the default: the
 * workload must run the same way on any machine that has PoCL. */
#define DEFAULT_PLATFORM_NAME "Portable Computing Language"

static int query_device(struct device_info *d)
{
    int status = HISTO_OK;
    CL_CALL(clGetDeviceInfo(d->id, CL_DEVICE_NAME, sizeof d->name, d->name,
                            NULL));
    CL_CALL(clGetDeviceInfo(d->id, CL_DEVICE_VENDOR, sizeof d->vendor,
                            d->vendor, NULL));
    CL_CALL(clGetDeviceInfo(d->id, CL_DEVICE_VERSION, sizeof d->version,
                            d->version, NULL));
    CL_CALL(clGetDeviceInfo(d->id, CL_DRIVER_VERSION, sizeof d->driver,
                            d->driver, NULL));
    CL_CALL(clGetDeviceInfo(d->id, CL_DEVICE_TYPE, sizeof d->type, &d->type,
                            NULL));
    CL_CALL(clGetDeviceInfo(d->id, CL_DEVICE_MAX_COMPUTE_UNITS,
                            sizeof d->compute_units, &d->compute_units, NULL));
    CL_CALL(clGetDeviceInfo(d->id, CL_DEVICE_LOCAL_MEM_SIZE,
                            sizeof d->local_mem, &d->local_mem, NULL));
    CL_CALL(clGetDeviceInfo(d->id, CL_DEVICE_LOCAL_MEM_TYPE,
                            sizeof d->local_mem_type, &d->local_mem_type,
                            NULL));
    CL_CALL(clGetDeviceInfo(d->id, CL_DEVICE_GLOBAL_MEM_SIZE,
                            sizeof d->global_mem, &d->global_mem, NULL));
    CL_CALL(clGetDeviceInfo(d->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                            sizeof d->max_alloc, &d->max_alloc, NULL));
    CL_CALL(clGetDeviceInfo(d->id, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                            sizeof d->max_work_group, &d->max_work_group,
                            NULL));
fail:
    return status;
}

static int query_platform(struct platform_info *p)
{
    int status = HISTO_OK;
    cl_device_id *ids = NULL;
    CL_CALL(clGetPlatformInfo(p->id, CL_PLATFORM_NAME, sizeof p->name,
                              p->name, NULL));
    CL_CALL(clGetPlatformInfo(p->id, CL_PLATFORM_VENDOR, sizeof p->vendor,
                              p->vendor, NULL));
    CL_CALL(clGetPlatformInfo(p->id, CL_PLATFORM_VERSION, sizeof p->version,
                              p->version, NULL));
    cl_int err = clGetDeviceIDs(p->id, CL_DEVICE_TYPE_ALL, 0, NULL,
                                &p->ndevices);
    if (err == CL_DEVICE_NOT_FOUND) {
        p->ndevices = 0; /* a platform without devices is not an error */
        return HISTO_OK;
    }
    CL_CALL(err);
    HOST_ALLOC(ids, p->ndevices);
    HOST_ALLOC(p->devices, p->ndevices);
    CL_CALL(clGetDeviceIDs(p->id, CL_DEVICE_TYPE_ALL, p->ndevices, ids, NULL));
    for (cl_uint d = 0; d < p->ndevices; ++d) {
        p->devices[d].id = ids[d];
        if ((status = query_device(&p->devices[d])) != HISTO_OK)
            goto fail;
    }
fail:
    free(ids);
    return status;
}

int device_enumerate(struct device_list *list)
{
    int status = HISTO_OK;
    cl_platform_id *ids = NULL;
    memset(list, 0, sizeof *list);

    cl_int err = clGetPlatformIDs(0, NULL, &list->nplatforms);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || list->nplatforms == 0) {
        histo_error("no OpenCL platform found: install one (PoCL: apt-get "
                    "install pocl-opencl-icd) or check /etc/OpenCL/vendors");
        return HISTO_EXIT_DEVICE;
    }
    CL_CALL(err);
    HOST_ALLOC(ids, list->nplatforms);
    HOST_ALLOC(list->platforms, list->nplatforms);
    CL_CALL(clGetPlatformIDs(list->nplatforms, ids, NULL));
    for (cl_uint p = 0; p < list->nplatforms; ++p) {
        list->platforms[p].id = ids[p];
        if ((status = query_platform(&list->platforms[p])) != HISTO_OK)
            goto fail;
    }
fail:
    free(ids);
    return status;
}

const char *device_type_name(cl_device_type type)
{
    if (type & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (type & CL_DEVICE_TYPE_CPU)
        return "CPU";
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return "ACCELERATOR";
    return "OTHER";
}

static bool contains_nocase(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    for (; *hay != '\0'; ++hay) {
        size_t i = 0;
        while (i < n && hay[i] != '\0'
               && tolower((unsigned char)hay[i])
                      == tolower((unsigned char)needle[i]))
            ++i;
        if (i == n)
            return true;
    }
    return n == 0;
}

static bool all_digits(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s != '\0'; ++s)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool same_nocase(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; ++a, ++b)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

/* Index of the device of p that spec names, or -1. */
static long match_device(const struct platform_info *p, const char *spec)
{
    if (spec == NULL)
        return p->ndevices > 0 ? 0 : -1;
    if (all_digits(spec)) {
        const unsigned long i = strtoul(spec, NULL, 10);
        return i < p->ndevices ? (long)i : -1;
    }
    static const struct { const char *word; cl_device_type type; } types[] = {
        {"CPU", CL_DEVICE_TYPE_CPU},
        {"GPU", CL_DEVICE_TYPE_GPU},
        {"ACCELERATOR", CL_DEVICE_TYPE_ACCELERATOR},
    };
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
        if (!same_nocase(spec, types[t].word))
            continue;
        for (cl_uint d = 0; d < p->ndevices; ++d)
            if (p->devices[d].type & types[t].type)
                return (long)d;
        return -1;
    }
    for (cl_uint d = 0; d < p->ndevices; ++d)
        if (contains_nocase(p->devices[d].name, spec))
            return (long)d;
    return -1;
}

static bool platform_matches(const struct platform_info *p, cl_uint index,
                             const char *spec)
{
    if (all_digits(spec))
        return strtoul(spec, NULL, 10) == index;
    return contains_nocase(p->name, spec) || contains_nocase(p->vendor, spec);
}

int device_select(struct device_list *list, const char *platform,
                  const char *device)
{
    bool any_platform = false;
    for (int pass = 0; pass < 2; ++pass) {
        for (cl_uint p = 0; p < list->nplatforms; ++p) {
            const struct platform_info *pi = &list->platforms[p];
            if (platform != NULL) {
                if (!platform_matches(pi, p, platform))
                    continue;
            } else if (pass == 0 && device == NULL
                       && !contains_nocase(pi->name, DEFAULT_PLATFORM_NAME)) {
                continue; /* first pass: prefer PoCL when nothing is asked */
            }
            any_platform = true;
            const long d = match_device(pi, device);
            if (d >= 0) {
                list->platform = p;
                list->device = (cl_uint)d;
                return HISTO_OK;
            }
        }
    }
    if (platform != NULL && !any_platform)
        histo_error("no OpenCL platform matches '%s'", platform);
    else
        histo_error("no OpenCL device matches '%s'%s%s", device ? device : "",
                    platform ? " on platform " : "", platform ? platform : "");
    fputs("histo: available platforms and devices:\n", stderr);
    device_print(stderr, list, false);
    return HISTO_EXIT_DEVICE;
}

void device_print(FILE *f, const struct device_list *list, bool selected)
{
    for (cl_uint p = 0; p < list->nplatforms; ++p) {
        const struct platform_info *pi = &list->platforms[p];
        fprintf(f, "platform %u: %s (%s, %s)\n", p, pi->name, pi->vendor,
                pi->version);
        for (cl_uint d = 0; d < pi->ndevices; ++d) {
            const struct device_info *di = &pi->devices[d];
            const bool mark = selected && p == list->platform
                           && d == list->device;
            fprintf(f, "  device %u: %s [%s] %u compute units, %llu KiB "
                       "local memory%s\n", d, di->name,
                    device_type_name(di->type), di->compute_units,
                    (unsigned long long)(di->local_mem / 1024),
                    mark ? "  <- selected" : "");
        }
    }
}

void device_list_free(struct device_list *list)
{
    for (cl_uint p = 0; p < list->nplatforms; ++p)
        free(list->platforms[p].devices);
    free(list->platforms);
    memset(list, 0, sizeof *list);
}

int device_check_alloc(const struct device_info *dev, const char *what,
                       uint64_t bytes)
{
    if (bytes <= dev->max_alloc)
        return HISTO_OK;
    histo_error("the %s buffer needs %" PRIu64 " bytes, more than the %llu "
                "bytes '%s' allows in one allocation "
                "(CL_DEVICE_MAX_MEM_ALLOC_SIZE)", what, bytes,
                (unsigned long long)dev->max_alloc, dev->name);
    return HISTO_EXIT_DEVICE;
}

int device_open(const struct device_list *list, cl_context *context,
                cl_command_queue *queue)
{
    int status = HISTO_OK;
    const struct device_info *d = device_selected(list);
    const cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM,
        (cl_context_properties)list->platforms[list->platform].id, 0};
    *context = NULL;
    *queue = NULL;
    CL_CREATE(*context, clCreateContext(props, 1, &d->id, NULL, NULL,
                                        &cl_err_));
    CL_CREATE(*queue, clCreateCommandQueue(*context, d->id,
                                           CL_QUEUE_PROFILING_ENABLE,
                                           &cl_err_));
    return HISTO_OK;
fail:
    if (*context != NULL)
        clReleaseContext(*context);
    *context = NULL;
    return status;
}
