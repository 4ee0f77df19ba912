/* program.c - kernel source loading and building (see program.h). */
#include "program.h"

#include "counts.h"
#include "env.h"
#include "outfile.h"
#include "params.h"
#include "progcache.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define DEF(name) " -D" #name "=" STR(name)

/* Every constant the kernels use comes from params.h through here. */
#define CONSTANTS \
    DEF(HISTO_SATURATE) \
    DEF(HISTO_EYE_SAMPLES) \
    DEF(HISTO_EYE_RUN) \
    DEF(HISTO_EYE_COPIES) \
    DEF(HISTO_MAX_BATCHES) \
    DEF(HISTO_REDUCE_LANES) \
    DEF(HISTO_WORK_GROUP) \
    DEF(HISTO_EYE_LO) \
    DEF(HISTO_EYE_HI) \
    DEF(HISTO_EYE_TILES) \
    DEF(HISTO_EYE_BATCHES) \
    DEF(HISTO_EYE_COLS) \
    DEF(HISTO_EYE_ROWS) \
    DEF(HISTO_EYE_STRIDE) \
    DEF(HISTO_EYE_RAN) \
    DEF(HISTO_EYE_ADDS) \
    DEF(HISTO_ADDS_HOT) \
    DEF(HISTO_ADDS_PLAIN) \
    DEF(HISTO_ADDS_UNSAMPLED) \
    DEF(HISTO_ADDS_NARROW) \
    DEF(HISTO_FUSED_TICKETS) \
    DEF(HISTO_FUSED_PARTICIPANTS) \
    DEF(HISTO_FUSED_ARRIVED) \
    DEF(HISTO_FUSED_CTL_WORDS) \
    DEF(HISTO_EYE_COL_BUCKETS) \
    DEF(HISTO_EYE_COL_TAIL_INV) \
    DEF(HISTO_EYE_ROW_SUB) \
    DEF(HISTO_EYE_ROW_BUCKETS) \
    DEF(HISTO_EYE_2D_MAX_TILES) \
    DEF(HISTO_WORKLOAD_WIDTH) \
    DEF(HISTO_TILE_GROUP_BOUND) \
    DEF(HISTO_PLAIN_MAX_VALUES) \
    DEF(HISTO_EYE_HOT_INV) \
    DEF(HISTO_BUCKET_BINS) \
    DEF(HISTO_BUCKET_CHUNK) \
    DEF(HISTO_BUCKET_LOCAL_WORDS) \
    DEF(HISTO_BUCKET_PAD) \
    DEF(HISTO_BUCKET_QUADS) \
    DEF(HISTO_BUCKET_ROUNDS) \
    DEF(HISTO_BUCKET_TEAM) \
    DEF(HISTO_CPU_LINE_LOG2) \
    DEF(HISTO_CPU_CHUNK) \
    DEF(HISTO_CPU_BRANCHY_SHARE)

/* The OpenCL C version every program is built as, unless its defines
 * name another (struct program_defines). */
#define DEFAULT_STD "CL1.2"
static const char options[] = "-cl-std=" DEFAULT_STD CONSTANTS;

/* The options above, the strategy's defines and the device's, then
 * $HISTO_CL_OPTIONS when set: extra options for the implementation's compiler
 * (-cl-nv-verbose prints NVIDIA's register report; the build log is then
 * shown even when the build succeeds). */
static char *full_options;

const char *program_options(void)
{
    return full_options != NULL ? full_options : options;
}

/* NVIDIA's compiler fits registers to one group at most (OpenCL C has no
 * launch bounds; reqd_work_group_size gives the group's size, not how
 * many should share an SM), and gives the tile kernel 40 registers: a group
 * of 1024 work-items then takes 40K of an SM's 64K registers and a second
 * group does not fit. Where the device takes NVIDIA's compiler options,
 * registers are capped so that HISTO_CU_THREADS work-items fit an SM (32 on
 * Hopper; no spills; docs/design.md). Writes "" elsewhere. */
#define CL_DEVICE_REGISTERS_PER_BLOCK_NV_ 0x4002
static void register_cap(const struct device_info *dev, char *out,
                         size_t len)
{
    out[0] = '\0';
    cl_uint regs = 0;
    if (!dev->nv_compiler
        || clGetDeviceInfo(dev->id, CL_DEVICE_REGISTERS_PER_BLOCK_NV_,
                           sizeof regs, &regs, NULL) != CL_SUCCESS)
        return;
    if (regs / HISTO_CU_THREADS >= 16)
        snprintf(out, len, " -cl-nv-maxrregcount=%u", regs / HISTO_CU_THREADS);
}

/* `restrict` defined away where quirks.c says a compiler cannot take it
 * (Oclgrind's): it is a promise to the optimizer only, so the kernels
 * mean the same without it. */
static void simulator_options(const struct device_info *dev, char *out,
                              size_t len)
{
    const size_t used = strlen(out);
    if ((dev->quirks.flags & QUIRK_NO_RESTRICT) != 0 && used + 13 < len)
        memcpy(out + used, " -Drestrict=", 13);
}

static const char *extra_options(void)
{
    return env_value(ENV_HISTO_CL_OPTIONS);
}

/* The path of a kernel file as the user finds it: the kernels folder
 * joined with the file name. NULL after printing why. */
static char *source_path(const char *dir, const char *name)
{
    const size_t plen = strlen(dir) + 1 + strlen(name) + 1;
    char *path = malloc(plen);
    if (path == NULL) {
        histo_error("out of host memory loading kernel '%s'", name);
        return NULL;
    }
    snprintf(path, plen, "%s/%s", dir, name);
    return path;
}

/* Reads a whole text file; returns NULL after printing why. */
static char *read_source(const char *path, size_t *len)
{
    char *text = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        histo_error("cannot open kernel source '%s': %s (set --kernels or "
                    "HISTO_KERNEL_DIR to the kernels folder)", path,
                    strerror(errno));
        goto done;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        histo_error("cannot read kernel source '%s': %s", path,
                    strerror(errno));
        goto done;
    }
    const long size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        histo_error("cannot read kernel source '%s': %s", path,
                    strerror(errno));
        goto done;
    }
    text = malloc((size_t)size + 1);
    if (text == NULL) {
        histo_error("out of host memory loading kernel '%s'", path);
        goto done;
    }
    if (fread(text, 1, (size_t)size, f) != (size_t)size) {
        histo_error("cannot read kernel source '%s'", path);
        free(text);
        text = NULL;
        goto done;
    }
    text[size] = '\0';
    *len = (size_t)size;
done:
    if (f != NULL)
        fclose(f);
    return text;
}

/* "\n#line 1 \"PATH\"\n", put before a file's source so that the
 * compiler's messages name the project's file and line, not the
 * runtime's temporary copy of the sources (PoCL's kcache/tempfile_*.cl).
 * The leading newline ends the previous file's last line should it lack
 * one. '"' and '\\' are escaped as in a C string literal; control
 * characters, which a #line name cannot hold, become '?'. NULL after
 * printing why. */
static char *line_directive(const char *path, size_t *len)
{
    static const char head[] = "\n#line 1 \"", tail[] = "\"\n";
    const size_t plen = strlen(path);
    char *text = malloc(sizeof head + 2 * plen + sizeof tail);
    if (text == NULL) {
        histo_error("out of host memory loading kernel '%s'", path);
        return NULL;
    }
    size_t n = sizeof head - 1;
    memcpy(text, head, n);
    for (size_t i = 0; i < plen; ++i) {
        const unsigned char c = (unsigned char)path[i];
        if (c == '"' || c == '\\')
            text[n++] = '\\';
        text[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    memcpy(text + n, tail, sizeof tail);
    *len = n + sizeof tail - 1;
    return text;
}

static void print_build_log(cl_program program, cl_device_id device)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                              &size) != CL_SUCCESS || size == 0)
        return;
    char *log = malloc(size + 1);
    if (log == NULL)
        return;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size,
                              log, NULL) == CL_SUCCESS) {
        log[size] = '\0';
        fprintf(stderr, "histo: build log:\n%s\n", log);
    }
    free(log);
}

/* Every kernel file this process read, once each, with the digest of the
 * bytes it gave the compiler: histo.out's build.kernel_sources names the
 * code that ran, whatever the tree it came from. */
#define MAX_SOURCES 32
static struct {
    char name[64];
    char digest[COUNTS_DIGEST_CHARS];
} sources[MAX_SOURCES];
static size_t nsources;

static void note_source(const char *name, const char *text, size_t len)
{
    for (size_t i = 0; i < nsources; ++i)
        if (strcmp(sources[i].name, name) == 0)
            return;
    if (nsources == MAX_SOURCES || strlen(name) >= sizeof sources[0].name)
        return;
    snprintf(sources[nsources].name, sizeof sources[0].name, "%s", name);
    counts_digest((const uint8_t *)text, len, sources[nsources].digest);
    ++nsources;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

void program_sources_report(FILE *f)
{
    qsort(sources, nsources, sizeof sources[0], by_name);
    fputs("build.kernel_sources =", f);
    for (size_t i = 0; i < nsources; ++i)
        fprintf(f, "%s %s %s", i > 0 ? "," : "", sources[i].name,
                sources[i].digest);
    fputs(nsources == 0 ? " none\n" : "\n", f);
}

/* Two strings a file into texts and lens (2 * nfiles each, NULL-filled
 * by the caller): its #line directive, then its text. Returns 0 or an
 * exit status; the caller frees what was read either way. */
static int load_sources(const char *kernel_dir, const char *const *files,
                        size_t nfiles, char **texts, size_t *lens)
{
    for (size_t i = 0; i < nfiles; ++i) {
        char *path = source_path(kernel_dir, files[i]);
        if (path == NULL)
            return HISTO_EXIT_INTERNAL;
        texts[2 * i] = line_directive(path, &lens[2 * i]);
        if (texts[2 * i] == NULL) {
            free(path);
            return HISTO_EXIT_INTERNAL;
        }
        texts[2 * i + 1] = read_source(path, &lens[2 * i + 1]);
        free(path);
        if (texts[2 * i + 1] == NULL)
            return HISTO_EXIT_DEVICE;
        note_source(files[i], texts[2 * i + 1], lens[2 * i + 1]);
    }
    return HISTO_OK;
}

/* full_options for one try: the OpenCL C version, the constants, the
 * try's defines DEF, the device's CAP and the user's EXTRA. */
static int compose_options(const struct program_defines *defines,
                           const char *def, const char *cap,
                           const char *extra)
{
    int status = HISTO_OK;
    free(full_options);
    full_options = NULL;
    const char *std = defines != NULL && defines->std[0] != '\0'
                    ? defines->std : DEFAULT_STD;
    const size_t len = sizeof options + strlen(std)
                     + strlen(cap) + strlen(def) + 1
                     + (extra ? strlen(extra) : 0);
    HOST_ALLOC(full_options, len);
    snprintf(full_options, len, "-cl-std=%s%s%s%s%s%s%s", std, CONSTANTS,
             *def ? " " : "", def, cap, extra ? " " : "",
             extra ? extra : "");
fail:
    return status;
}

/* The sources built with full_options into *program: loaded from the
 * program cache where it has them (*key: the cache's key, made here),
 * else built from source, stored there when built. *err is the build's
 * result; the status is HISTO_OK unless something else failed. */
static int build_once(cl_context context, const struct device_info *dev,
                      char **texts, size_t *lens, size_t nstrings,
                      char **key, size_t *key_len, cl_program *program,
                      cl_int *err)
{
    int status = HISTO_OK;
    cl_device_id device = dev->id;
    if (progcache_dir() != NULL) {
        free(*key);
        *key = progcache_key(dev, program_options(), texts, lens, nstrings,
                             key_len);
        if (*key == NULL)
            return HISTO_EXIT_INTERNAL;
        if ((status = progcache_load(context, dev, *key, *key_len,
                                     program_options(), program))
                != HISTO_OK)
            return status;
        if (*program != NULL) {
            *err = CL_SUCCESS;
            return HISTO_OK;
        }
    }
    CL_CREATE(*program, clCreateProgramWithSource(
                            context, (cl_uint)nstrings, (const char **)texts,
                            lens, &cl_err_));
    *err = clBuildProgram(*program, 1, &device, program_options(), NULL,
                          NULL);
    if (*err == CL_SUCCESS && *key != NULL)
        progcache_store(*program, *key, *key_len);
fail:
    return status;
}

int program_build(cl_context context, const struct device_info *dev,
                  const char *kernel_dir, const char *const *files,
                  size_t nfiles, const struct program_defines *defines,
                  cl_program *program)
{
    int status = HISTO_OK;
    char **texts = NULL;
    size_t *lens = NULL;
    char *key = NULL; /* the program cache's, where there is one */
    size_t key_len = 0;
    *program = NULL;
    const size_t nstrings = 2 * nfiles;
    HOST_ALLOC(texts, nstrings);
    HOST_ALLOC(lens, nstrings);
    if ((status = load_sources(kernel_dir, files, nfiles, texts, lens))
            != HISTO_OK)
        goto fail;
    const char *extra = extra_options();
    char cap[64];
    register_cap(dev, cap, sizeof cap);
    simulator_options(dev, cap, sizeof cap);
    const size_t ndefs = defines != NULL ? defines->count : 0;
    cl_int err = CL_SUCCESS;
    for (size_t t = 0; t < (ndefs > 0 ? ndefs : 1); ++t) {
        const char *def = ndefs > 0 ? defines->text[t] : "";
        if (*program != NULL)
            clReleaseProgram(*program);
        *program = NULL;
        if ((status = compose_options(defines, def, cap, extra))
                != HISTO_OK
            || (status = build_once(context, dev, texts, lens, nstrings,
                                    &key, &key_len, program, &err))
                   != HISTO_OK)
            goto fail;
        if (err == CL_SUCCESS || t + 1 >= ndefs)
            break;
        fprintf(stderr, "histo: note: the build with %s failed (%s); "
                        "building with %s instead\n",
                def, cl_error_name(err), defines->text[t + 1]);
        print_build_log(*program, dev->id);
    }
    if (err != CL_SUCCESS) {
        cl_report("clBuildProgram(program, 1, &device, options, NULL, NULL)",
                  err, __FILE__, __LINE__);
        fprintf(stderr, "histo: build options: %s\n", program_options());
        print_build_log(*program, dev->id);
        status = HISTO_EXIT_DEVICE;
        goto fail;
    }
    if (extra != NULL)
        print_build_log(*program, dev->id);
    goto done;
fail:
    if (*program != NULL)
        clReleaseProgram(*program);
    *program = NULL;
done:
    /* the implementation's compiler may have put signal handlers of its
     * own in place (PoCL's LLVM does): histo's back */
    outfile_restore_signals();
    free(key);
    for (size_t i = 0; texts != NULL && i < 2 * nfiles; ++i)
        free(texts[i]);
    free(texts);
    free(lens);
    return status;
}
