/* device.c - platform and device discovery and choice (see device.h). */
#include "device.h"
#include "env.h"
#include "quirks.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The device types, in the order a label of several lists them; the same
 * words select a type with --device. CL_DEVICE_TYPE_DEFAULT is left out:
 * it marks the platform's default device, not a kind of device. */
static const struct {
    cl_device_type type;
    const char *word;
} type_words[] = {
    {CL_DEVICE_TYPE_GPU, "GPU"},
    {CL_DEVICE_TYPE_CPU, "CPU"},
    {CL_DEVICE_TYPE_ACCELERATOR, "ACCELERATOR"},
    {CL_DEVICE_TYPE_CUSTOM, "CUSTOM"},
};
#define NTYPE_WORDS (sizeof type_words / sizeof type_words[0])

const struct device_cl_api device_cl_opencl = {
    .get_platform_ids = clGetPlatformIDs,
    .get_platform_info = clGetPlatformInfo,
    .get_device_ids = clGetDeviceIDs,
    .get_device_info = clGetDeviceInfo,
};

/* A string longer than this is a broken answer, not a name. */
#define STRING_MAX 65536u

/* Queries of one platform or one device. The first failure is described
 * in `why` and every later query is skipped, so that a query function
 * reads as a plain list of fields; the caller then skips the entry. */
struct info_reader {
    const struct device_cl_api *api;
    bool of_device;          /* device's queries, else platform's */
    cl_platform_id platform;
    cl_device_id device;
    char *why;               /* DEVICE_SKIP_TEXT bytes, "" while none failed */
    bool out_of_memory;      /* host memory: fatal, not a skip */
};

static bool reader_failed(const struct info_reader *r)
{
    return r->why[0] != '\0' || r->out_of_memory;
}

static bool ask(struct info_reader *r, cl_uint param, const char *param_name,
                size_t size, void *value, size_t *size_ret)
{
    if (reader_failed(r))
        return false;
    const cl_int err =
        r->of_device
            ? r->api->get_device_info(r->device, param, size, value,
                                      size_ret)
            : r->api->get_platform_info(r->platform, param, size, value,
                                        size_ret);
    if (err == CL_SUCCESS)
        return true;
    snprintf(r->why, DEVICE_SKIP_TEXT, "%s(%s) failed: %s (%d)",
             r->of_device ? "clGetDeviceInfo" : "clGetPlatformInfo",
             param_name, cl_error_name(err), (int)err);
    return false;
}

/* A string of any length: its size first, then the string. The buffer
 * has one byte more than the size, zeroed, so that an answer without its
 * terminating NUL still ends. NULL when the query failed. */
static char *ask_string(struct info_reader *r, cl_uint param,
                        const char *param_name)
{
    size_t size = 0;
    if (!ask(r, param, param_name, 0, NULL, &size))
        return NULL;
    if (size == 0 || size > STRING_MAX) {
        snprintf(r->why, DEVICE_SKIP_TEXT, "%s(%s) gave a size of %zu bytes",
                 r->of_device ? "clGetDeviceInfo" : "clGetPlatformInfo",
                 param_name, size);
        return NULL;
    }
    char *s = histo_calloc(size + 1, 1, param_name);
    if (s == NULL) {
        r->out_of_memory = true;
        return NULL;
    }
    if (!ask(r, param, param_name, size, s, NULL)) {
        free(s);
        return NULL;
    }
    return s;
}

/* The first of an array of size_t (CL_DEVICE_MAX_WORK_ITEM_SIZES holds
 * one per dimension, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS of them, at least
 * 3): its size first, so that a device of more dimensions is read whole. */
static bool ask_first_size(struct info_reader *r, cl_uint param,
                           const char *param_name, size_t *first)
{
    size_t size = 0;
    if (!ask(r, param, param_name, 0, NULL, &size))
        return false;
    if (size < sizeof(size_t) || size > STRING_MAX) {
        snprintf(r->why, DEVICE_SKIP_TEXT, "clGetDeviceInfo(%s) gave a size "
                 "of %zu bytes", param_name, size);
        return false;
    }
    size_t *values = histo_calloc(size / sizeof(size_t) + 1, sizeof(size_t),
                                  param_name);
    if (values == NULL) {
        r->out_of_memory = true;
        return false;
    }
    const bool ok = ask(r, param, param_name, size, values, NULL);
    *first = values[0];
    free(values);
    return ok;
}

#define ASK_STRING(r, param) ask_string((r), (param), #param)
#define ASK_VALUE(r, param, field)                                        \
    ask((r), (param), #param, sizeof(field), &(field), NULL)

/* Every type the device reports, "|"-separated ("GPU|CPU|ACCELERATOR"
 * for Oclgrind), so that --list, histo.out and --device agree on what a
 * device is; "OTHER" when it reports none of them. */
static void type_label(cl_device_type type, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t t = 0; t < NTYPE_WORDS; ++t)
        if ((type & type_words[t].type) && len < size)
            len += (size_t)snprintf(out + len, size - len, "%s%s",
                                    len > 0 ? "|" : "", type_words[t].word);
    if (len == 0)
        snprintf(out, size, "OTHER");
}

/* cl_khr_pci_bus_info's query and what it returns, and NVIDIA's
 * cl_nv_device_attribute_query (the PCI bus, the slot, device << 3 |
 * function, and the domain): spelled here, since CL headers older than
 * the extensions lack them. */
#define HISTO_CL_DEVICE_PCI_BUS_INFO_KHR 0x410F
struct pci_bus_info_khr {
    cl_uint domain, bus, device, function;
};
#define HISTO_CL_DEVICE_PCI_BUS_ID_NV 0x4008
#define HISTO_CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#define HISTO_CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A
#define HISTO_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000

/* Whether the space-separated `list` names extension `name`. */
static bool lists_extension(const char *list, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = strstr(list, name); p != NULL;
         p = strstr(p + 1, name))
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* d's PCI address where the implementation tells it; silent otherwise.
 * An extension's query is made only where `list`, CL_DEVICE_EXTENSIONS,
 * names it: an implementation without it rightly calls the query invalid
 * (Oclgrind reports it as an API error). */
static void query_pci(const struct device_cl_api *api, struct device_info *d,
                      const char *list)
{
    const bool khr_ext = lists_extension(list, "cl_khr_pci_bus_info");
    const bool nv_ext = lists_extension(list, "cl_nv_device_attribute_query");
    struct pci_bus_info_khr khr;
    cl_uint bus, slot, domain = 0;
    if (khr_ext && api->get_device_info(d->id,
                                        HISTO_CL_DEVICE_PCI_BUS_INFO_KHR,
                                        sizeof khr, &khr, NULL)
                       == CL_SUCCESS) {
        d->pci_domain = khr.domain;
        d->pci_bus = khr.bus;
        d->pci_device = khr.device;
        d->pci_function = khr.function;
        d->pci_known = true;
    } else if (nv_ext
               && api->get_device_info(d->id, HISTO_CL_DEVICE_PCI_BUS_ID_NV,
                                       sizeof bus, &bus, NULL) == CL_SUCCESS
               && api->get_device_info(d->id, HISTO_CL_DEVICE_PCI_SLOT_ID_NV,
                                       sizeof slot, &slot, NULL)
                      == CL_SUCCESS) {
        if (api->get_device_info(d->id, HISTO_CL_DEVICE_PCI_DOMAIN_ID_NV,
                                 sizeof domain, &domain, NULL) != CL_SUCCESS)
            domain = 0;
        d->pci_domain = domain;
        d->pci_bus = bus;
        d->pci_device = slot >> 3;
        d->pci_function = slot & 7;
        d->pci_known = true;
    }
}

/* OpenCL 3.0's queries of the OpenCL C features a device supports, and
 * the record it answers with: spelled here, since the project builds
 * against the OpenCL 1.2 API (error.h). */
#define HISTO_CL_DEVICE_OPENCL_C_FEATURES 0x106F
struct name_version {
    cl_uint version;
    char name[64];
};

/* The major version in "OpenCL X.Y ..." or "OpenCL C X.Y ...", 0 if none. */
static unsigned version_major(const char *s, const char *prefix)
{
    const size_t n = strlen(prefix);
    if (s == NULL || strncmp(s, prefix, n) != 0 || !isdigit((unsigned char)s[n]))
        return 0;
    return (unsigned)strtoul(s + n, NULL, 10);
}

/* Whether an OpenCL 3.0 device lists both OpenCL C features a
 * device-scope acquire-release fence needs. */
static bool lists_fence_features(struct info_reader *r)
{
    size_t size = 0;
    if (!ask(r, HISTO_CL_DEVICE_OPENCL_C_FEATURES,
             "CL_DEVICE_OPENCL_C_FEATURES", 0, NULL, &size)
        || size == 0 || size > STRING_MAX)
        return false;
    const size_t n = size / sizeof(struct name_version);
    struct name_version *f = histo_calloc(n + 1, sizeof *f,
                                          "CL_DEVICE_OPENCL_C_FEATURES");
    if (f == NULL) {
        r->out_of_memory = true;
        return false;
    }
    bool scope = false, order = false;
    if (ask(r, HISTO_CL_DEVICE_OPENCL_C_FEATURES,
            "CL_DEVICE_OPENCL_C_FEATURES", n * sizeof *f, f, NULL))
        for (size_t i = 0; i < n; ++i) {
            f[i].name[sizeof f[i].name - 1] = '\0';
            scope |= strcmp(f[i].name, "__opencl_c_atomic_scope_device") == 0;
            order |= strcmp(f[i].name, "__opencl_c_atomic_order_acq_rel") == 0;
        }
    free(f);
    return scope && order;
}

/* d->fence (device.h), from d->version, the OpenCL C version and
 * features, and d->nv_compiler: the standard fence first, NVIDIA's
 * assembly where the standard one is not offered. Silent where a query
 * fails: the device then has only mem_fence, which costs the fused
 * strategy its place as a default, nothing else. */
static void query_fence(const struct device_cl_api *api, struct device_info *d,
                        bool *out_of_memory)
{
    char why[DEVICE_SKIP_TEXT] = "";
    struct info_reader r = {.api = api, .of_device = true, .device = d->id,
                            .why = why};
    char *c_version = ASK_STRING(&r, CL_DEVICE_OPENCL_C_VERSION);
    const unsigned c_major = version_major(c_version, "OpenCL C ");
    free(c_version);
    why[0] = '\0';
    if (version_major(d->version, "OpenCL ") >= 3 && lists_fence_features(&r))
        d->fence = DEVICE_FENCE_C30;
    else if (c_major >= 2)
        d->fence = DEVICE_FENCE_C20;
    why[0] = '\0';
    cl_uint major = 0;
    if (d->fence == DEVICE_FENCE_NONE && d->nv_compiler)
        d->fence = ask(&r, HISTO_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV,
                       "CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV", sizeof major,
                       &major, NULL)
                       && major >= 7
                   ? DEVICE_FENCE_PTX_ACQ : DEVICE_FENCE_PTX;
    *out_of_memory |= r.out_of_memory;
}

const char *device_fence_name(enum device_fence fence)
{
    switch (fence) {
    case DEVICE_FENCE_C30:
        return "device scope (OpenCL C 3.0 atomic_work_item_fence)";
    case DEVICE_FENCE_C20:
        return "device scope (OpenCL C 2.0 atomic_work_item_fence)";
    case DEVICE_FENCE_PTX:
        return "device scope (NVIDIA PTX membar.gl)";
    case DEVICE_FENCE_PTX_ACQ:
        return "device scope (NVIDIA PTX red.release.gpu, ld.acquire.gpu)";
    case DEVICE_FENCE_NONE:
        break;
    }
    return "work-item (OpenCL C 1.2 mem_fence: ordering across groups not "
           "promised)";
}

/* Fills d (its id set); a failed query leaves d->skipped set. */
static int query_device(const struct device_cl_api *api,
                        struct device_info *d)
{
    struct info_reader r = {.api = api, .of_device = true, .device = d->id,
                            .why = d->skipped};
    d->name = ASK_STRING(&r, CL_DEVICE_NAME);
    d->vendor = ASK_STRING(&r, CL_DEVICE_VENDOR);
    d->version = ASK_STRING(&r, CL_DEVICE_VERSION);
    d->driver = ASK_STRING(&r, CL_DRIVER_VERSION);
    if (ASK_VALUE(&r, CL_DEVICE_TYPE, d->type))
        type_label(d->type, d->type_name, sizeof d->type_name);
    ASK_VALUE(&r, CL_DEVICE_MAX_COMPUTE_UNITS, d->compute_units);
    ASK_VALUE(&r, CL_DEVICE_LOCAL_MEM_SIZE, d->local_mem);
    ASK_VALUE(&r, CL_DEVICE_LOCAL_MEM_TYPE, d->local_mem_type);
    ASK_VALUE(&r, CL_DEVICE_ENDIAN_LITTLE, d->little_endian);
    ASK_VALUE(&r, CL_DEVICE_GLOBAL_MEM_SIZE, d->global_mem);
    ASK_VALUE(&r, CL_DEVICE_MAX_MEM_ALLOC_SIZE, d->max_alloc);
    ASK_VALUE(&r, CL_DEVICE_MAX_WORK_GROUP_SIZE, d->max_work_group);
    ask_first_size(&r, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                   "CL_DEVICE_MAX_WORK_ITEM_SIZES", &d->max_work_items);
    /* The extensions, for the optional queries below: read through a
     * reader of its own, so that a failure here skips nothing. */
    char why[DEVICE_SKIP_TEXT] = "";
    struct info_reader x = {.api = api, .of_device = true, .device = d->id,
                            .why = why};
    char *list = ASK_STRING(&x, CL_DEVICE_EXTENSIONS);
    cl_bool ecc = CL_FALSE;
    d->ecc = ASK_VALUE(&x, CL_DEVICE_ERROR_CORRECTION_SUPPORT, ecc) ? ecc != 0
                                                                   : -1;
    if (!ASK_VALUE(&x, CL_DEVICE_MAX_CLOCK_FREQUENCY, d->max_clock_mhz))
        d->max_clock_mhz = 0;
    r.out_of_memory |= x.out_of_memory;
    if (list != NULL) {
        d->nv_compiler = lists_extension(list, "cl_nv_compiler_options")
                      && lists_extension(list, "cl_nv_device_attribute_query");
        query_pci(api, d, list);
        free(list);
    }
    if (!reader_failed(&r))
        query_fence(api, d, &r.out_of_memory);
    return r.out_of_memory ? HISTO_EXIT_INTERNAL : HISTO_OK;
}

/* The platform's device ids into p->devices; a failure sets p->skipped.
 * A platform without devices is not a failure. */
static int list_devices(const struct device_cl_api *api,
                        struct platform_info *p)
{
    int status = HISTO_OK;
    cl_device_id *ids = NULL;
    cl_uint n = 0, got = 0;
    cl_int err = api->get_device_ids(p->id, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && n == 0))
        return HISTO_OK;
    if (err == CL_SUCCESS) {
        HOST_ALLOC(ids, n);
        err = api->get_device_ids(p->id, CL_DEVICE_TYPE_ALL, n, ids, &got);
        n = got < n ? got : n; /* never more than ids holds */
    }
    if (err != CL_SUCCESS) {
        snprintf(p->skipped, sizeof p->skipped,
                 "clGetDeviceIDs(CL_DEVICE_TYPE_ALL) failed: %s (%d)",
                 cl_error_name(err), (int)err);
        goto fail;
    }
    HOST_ALLOC(p->devices, n);
    p->ndevices = n;
    for (cl_uint d = 0; d < n; ++d)
        p->devices[d].id = ids[d];
fail:
    free(ids);
    return status;
}

/* Fills p (its id set) and its devices. A failed platform query leaves
 * p->skipped set; a failed device query skips that device only. Each
 * skip is one warning line. */
static int query_platform(const struct device_cl_api *api, cl_uint index,
                          struct platform_info *p)
{
    int status = HISTO_OK;
    struct info_reader r = {.api = api, .platform = p->id, .why = p->skipped};
    p->name = ASK_STRING(&r, CL_PLATFORM_NAME);
    p->vendor = ASK_STRING(&r, CL_PLATFORM_VENDOR);
    p->version = ASK_STRING(&r, CL_PLATFORM_VERSION);
    if (r.out_of_memory)
        return HISTO_EXIT_INTERNAL;
    p->quirks = quirks_match(p->name, NULL);
    if (!reader_failed(&r) && (status = list_devices(api, p)) != HISTO_OK)
        return status;
    if (p->skipped[0] != '\0') {
        histo_error("warning: platform %u skipped: %s", index, p->skipped);
        return HISTO_OK;
    }
    for (cl_uint d = 0; d < p->ndevices; ++d) {
        struct device_info *di = &p->devices[d];
        di->platform_name = p->name;
        di->platform_version = p->version;
        if ((status = query_device(api, di)) != HISTO_OK)
            return status;
        di->quirks = quirks_match(p->name, di->driver);
        if (di->skipped[0] != '\0')
            histo_error("warning: platform %u device %u skipped: %s", index,
                        d, di->skipped);
    }
    return HISTO_OK;
}

static cl_uint usable_devices(const struct device_list *list)
{
    cl_uint n = 0;
    for (cl_uint p = 0; p < list->nplatforms; ++p)
        for (cl_uint d = 0; d < list->platforms[p].ndevices; ++d)
            n += list->platforms[p].devices[d].skipped[0] == '\0';
    return n;
}

int device_enumerate_with(const struct device_cl_api *api,
                          struct device_list *list)
{
    int status = HISTO_OK;
    cl_platform_id *ids = NULL;
    cl_uint n = 0, got = 0;
    memset(list, 0, sizeof *list);

    cl_int err = api->get_platform_ids(0, NULL, &n);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */
        || (err == CL_SUCCESS && n == 0)) {
        histo_error("no OpenCL platform found: install one (PoCL: apt-get "
                    "install pocl-opencl-icd) or check /etc/OpenCL/vendors");
        return HISTO_EXIT_DEVICE;
    }
    if (err == CL_SUCCESS) {
        HOST_ALLOC(ids, n);
        err = api->get_platform_ids(n, ids, &got);
        n = got < n ? got : n; /* never more than ids holds */
    }
    if (err != CL_SUCCESS) {
        cl_report("clGetPlatformIDs", err, __FILE__, __LINE__);
        status = HISTO_EXIT_DEVICE;
        goto fail;
    }
    HOST_ALLOC(list->platforms, n);
    list->nplatforms = n;
    for (cl_uint p = 0; p < n; ++p) {
        list->platforms[p].id = ids[p];
        if ((status = query_platform(api, p, &list->platforms[p]))
            != HISTO_OK)
            goto fail;
    }
    if (usable_devices(list) == 0) {
        histo_error("no usable OpenCL device: %u platform%s found, with no "
                    "device or none that answered its queries", n,
                    n == 1 ? "" : "s");
        status = HISTO_EXIT_DEVICE;
    }
fail:
    free(ids);
    return status;
}

int device_enumerate(struct device_list *list)
{
    return device_enumerate_with(&device_cl_opencl, list);
}

const char *device_local_mem_name(cl_device_local_mem_type type)
{
    switch (type) {
    case CL_LOCAL: return "local";
    case CL_GLOBAL: return "global";
    case CL_NONE: return "none";
    default: return "unknown";
    }
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

/* Whether d is what a non-index --device spec names (NULL: any device):
 * a type word, which a device of several types matches for each, else
 * part of its name. */
static bool device_matches(const struct device_info *d, const char *spec)
{
    if (spec == NULL)
        return true;
    for (size_t t = 0; t < NTYPE_WORDS; ++t)
        if (same_nocase(spec, type_words[t].word))
            return (d->type & type_words[t].type) != 0;
    return quirks_contains_nocase(d->name, spec);
}

/* Index of the usable device of p that spec names (NULL: the first), or
 * -1. A skipped device matches nothing, not even its own index. */
static long match_device(const struct platform_info *p, const char *spec)
{
    if (spec != NULL && all_digits(spec)) {
        const unsigned long i = strtoul(spec, NULL, 10);
        return i < p->ndevices && p->devices[i].skipped[0] == '\0' ? (long)i
                                                                   : -1;
    }
    for (cl_uint d = 0; d < p->ndevices; ++d)
        if (p->devices[d].skipped[0] == '\0'
            && device_matches(&p->devices[d], spec))
            return (long)d;
    return -1;
}

static bool platform_matches(const struct platform_info *p, cl_uint index,
                             const char *spec)
{
    if (all_digits(spec))
        return strtoul(spec, NULL, 10) == index;
    if (p->skipped[0] != '\0')
        return false; /* its name may be unknown */
    return quirks_contains_nocase(p->name, spec)
        || quirks_contains_nocase(p->vendor, spec);
}

static bool is_default_platform(const struct platform_info *p)
{
    return p->skipped[0] == '\0'
        && (p->quirks.flags & QUIRK_DEFAULT_PLATFORM) != 0;
}

static bool host_is_little_endian(void)
{
    const uint32_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* The host copies the input's bin indexes to the device as they lie in
 * host memory and does not swap them, so the device must share the
 * host's byte order. */
static int check_byte_order(const struct device_info *d)
{
    const bool host_little = host_is_little_endian();
    if ((d->little_endian != CL_FALSE) == host_little)
        return HISTO_OK;
    histo_error("device '%s' is %s-endian and this host %s-endian: histo "
                "copies the 32-bit bin indexes in the host's byte order and "
                "does not swap them; choose another device", d->name,
                host_little ? "big" : "little",
                host_little ? "little" : "big");
    return HISTO_EXIT_DEVICE;
}

int device_select(struct device_list *list, const char *platform,
                  const char *device)
{
    bool any_platform = false;
    /* With --platform, the platforms it names, in order (one pass).
     * Without, PoCL first (pass 0) whatever --device asks, so that a run
     * means the same on every machine that has PoCL; then every platform
     * in order (pass 1). */
    for (int pass = platform != NULL ? 1 : 0; pass < 2; ++pass) {
        for (cl_uint p = 0; p < list->nplatforms; ++p) {
            const struct platform_info *pi = &list->platforms[p];
            if (platform != NULL ? !platform_matches(pi, p, platform)
                                 : pass == 0 && !is_default_platform(pi))
                continue;
            any_platform = true;
            const long d = match_device(pi, device);
            if (d >= 0) {
                list->platform = p;
                list->device = (cl_uint)d;
                return check_byte_order(device_selected(list));
            }
        }
    }
    if (platform != NULL && !any_platform)
        histo_error("no OpenCL platform matches '%s'", platform);
    else if (device == NULL)
        histo_error("no usable OpenCL device on platform '%s'",
                    platform ? platform : "any");
    else
        histo_error("no OpenCL device matches '%s'%s%s", device,
                    platform ? " on platform " : "", platform ? platform : "");
    fputs("histo: available platforms and devices:\n", stderr);
    device_print(stderr, list, false);
    return HISTO_EXIT_DEVICE;
}

bool device_spec_all(const char *devices)
{
    return devices != NULL && strcmp(devices, "all") == 0;
}

int device_select_many(struct device_list *list, const char *platform,
                       const char *devices, const struct device_info **out,
                       size_t max, size_t *n)
{
    *n = 0;
    if (device_spec_all(devices)) {
        int status = device_select(list, platform, NULL);
        if (status != HISTO_OK)
            return status;
        const struct platform_info *pi = &list->platforms[list->platform];
        const cl_uint chosen = list->device;
        for (cl_uint d = 0; d < pi->ndevices && *n < max; ++d) {
            if (pi->devices[d].skipped[0] != '\0')
                continue;
            list->device = d;
            if ((status = check_byte_order(device_selected(list)))
                    != HISTO_OK)
                return status;
            out[(*n)++] = device_selected(list);
        }
        list->device = chosen;
        return HISTO_OK;
    }
    /* A list: each item as --device alone would take it, all on the
     * platform of the first. */
    const char *item = devices;
    cl_uint platform0 = 0, device0 = 0;
    do {
        char one[256];
        const char *comma = item != NULL ? strchr(item, ',') : NULL;
        const size_t len = comma != NULL ? (size_t)(comma - item)
                         : item != NULL ? strlen(item) : 0;
        if (item != NULL && (len == 0 || len >= sizeof one)) {
            histo_error("--device '%s': an empty or overlong item", devices);
            return HISTO_EXIT_USAGE;
        }
        if (*n == max) {
            histo_error("--device '%s': more than %zu devices", devices, max);
            return HISTO_EXIT_USAGE;
        }
        if (item != NULL) {
            memcpy(one, item, len);
            one[len] = '\0';
        }
        const int status = device_select(list, platform,
                                         item != NULL ? one : NULL);
        if (status != HISTO_OK)
            return status;
        if (*n == 0) {
            platform0 = list->platform;
            device0 = list->device;
        } else if (list->platform != platform0) {
            histo_error("--device '%s': the devices are on different "
                        "platforms (%u and %u); one run uses one platform",
                        devices, platform0, list->platform);
            return HISTO_EXIT_DEVICE;
        }
        out[(*n)++] = device_selected(list);
        item = comma != NULL ? comma + 1 : NULL;
    } while (item != NULL);
    list->platform = platform0;
    list->device = device0;
    return HISTO_OK;
}

void device_print(FILE *f, const struct device_list *list, bool selected)
{
    for (cl_uint p = 0; p < list->nplatforms; ++p) {
        const struct platform_info *pi = &list->platforms[p];
        if (pi->skipped[0] != '\0') {
            fprintf(f, "platform %u: skipped: %s\n", p, pi->skipped);
            continue;
        }
        fprintf(f, "platform %u: %s (%s, %s)\n", p, pi->name, pi->vendor,
                pi->version);
        /* say so where RUSTICL_ENABLE's absence is why the list is
         * empty (quirks.c) */
        if (pi->ndevices == 0
            && (pi->quirks.flags & QUIRK_NEEDS_RUSTICL_ENABLE) != 0
            && env_value(ENV_RUSTICL_ENABLE) == NULL)
            fputs("  (no device: rusticl lists none unless RUSTICL_ENABLE "
                  "names a driver; RUSTICL_ENABLE=llvmpipe gives its CPU "
                  "device)\n", f);
        for (cl_uint d = 0; d < pi->ndevices; ++d) {
            const struct device_info *di = &pi->devices[d];
            const bool mark = selected && p == list->platform
                           && d == list->device;
            if (di->skipped[0] != '\0') {
                fprintf(f, "  device %u: skipped: %s\n", d, di->skipped);
                continue;
            }
            fprintf(f, "  device %u: %s [%s] %u compute units, %llu KiB "
                       "local memory (type %s)%s\n", d, di->name,
                    di->type_name, di->compute_units,
                    (unsigned long long)(di->local_mem / 1024),
                    device_local_mem_name(di->local_mem_type),
                    mark ? "  <- selected" : "");
        }
    }
}

void device_list_free(struct device_list *list)
{
    for (cl_uint p = 0; p < list->nplatforms; ++p) {
        struct platform_info *pi = &list->platforms[p];
        for (cl_uint d = 0; d < pi->ndevices; ++d) {
            free(pi->devices[d].name);
            free(pi->devices[d].vendor);
            free(pi->devices[d].version);
            free(pi->devices[d].driver);
        }
        free(pi->devices);
        free(pi->name);
        free(pi->vendor);
        free(pi->version);
    }
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
