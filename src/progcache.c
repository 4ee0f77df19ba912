/* progcache.c - built programs kept in a folder (see progcache.h). */
#include "progcache.h"

#include "env.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* An entry: this line, the key's length (8 bytes, the host's order),
 * the key, the binary's length (8 bytes), its CRC-32 (zlib's, 8 bytes),
 * the binary; nothing after. The CRC keeps a damaged binary, which an
 * implementation might load and run, from being used. */
static const char magic[] = "histo program cache 2\n";
#define MAGIC_LEN (sizeof magic - 1)
/* No program binary here comes near this; a longer "entry" is not one. */
#define MAX_ENTRY ((uint64_t)1 << 30)

/* This run's programs: found, built and stored, built and not stored;
 * the first thing that went wrong, for the report. */
static unsigned hits, stored, unstored;
static char trouble[512];
static char state[1024];

static void note_trouble(const char *fmt, const char *a, const char *b)
{
    if (trouble[0] == '\0')
        snprintf(trouble, sizeof trouble, fmt, a, b);
}

const char *progcache_state(void)
{
    const char *dir = progcache_dir();
    if (dir == NULL)
        return "off";
    snprintf(state, sizeof state,
             "%s: %u found, %u built and stored, %u built and not stored%s%s",
             dir, hits, stored, unstored, trouble[0] ? "; " : "", trouble);
    return state;
}

const char *progcache_dir(void)
{
    return env_value(ENV_HISTO_PROGRAM_CACHE);
}

char *progcache_key(const struct device_info *dev, const char *options,
                    char *const *texts, const size_t *lens, size_t n,
                    size_t *len)
{
    const char *const parts[] = {dev->platform_name, dev->platform_version,
                                 dev->name, dev->version, dev->driver};
    size_t hlen = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i)
        hlen += strlen(parts[i] ? parts[i] : "?") + 1;
    const size_t olen = strlen(options);
    size_t total = hlen + olen + 1;
    for (size_t i = 0; i < n; ++i)
        total += lens[i];
    char *key = malloc(total);
    if (key == NULL) {
        histo_error("out of host memory for the program cache's key");
        return NULL;
    }
    size_t at = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; ++i) {
        const char *part = parts[i] ? parts[i] : "?";
        const size_t plen = strlen(part);
        memcpy(key + at, part, plen);
        key[at + plen] = '\n';
        at += plen + 1;
    }
    memcpy(key + at, options, olen + 1);
    at += olen + 1;
    for (size_t i = 0; i < n; ++i) {
        memcpy(key + at, texts[i], lens[i]);
        at += lens[i];
    }
    *len = total;
    return key;
}

/* FNV-1a, 64 bits: where an entry is looked for. */
static uint64_t key_hash(const char *key, size_t len)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; ++i) {
        h ^= (unsigned char)key[i];
        h *= 0x100000001b3u;
    }
    return h;
}

/* DIR/HASH.clbin, or NULL (no host memory). */
static char *entry_path(const char *dir, const char *key, size_t len)
{
    const size_t plen = strlen(dir) + 32;
    char *path = malloc(plen);
    if (path != NULL)
        snprintf(path, plen, "%s/%016" PRIx64 ".clbin", dir,
                 key_hash(key, len));
    return path;
}

/* Reads a whole regular file of at most MAX_ENTRY bytes into *data;
 * false with errno set (EINVAL: not a regular file or too long). */
static bool read_entry(const char *path, unsigned char **data, size_t *len)
{
    *data = NULL;
    const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    bool ok = false;
    if (fstat(fd, &st) != 0)
        goto done;
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_ENTRY) {
        errno = EINVAL;
        goto done;
    }
    *len = (size_t)st.st_size;
    *data = malloc(*len + 1);
    if (*data == NULL)
        goto done;
    size_t got = 0;
    while (got < *len) {
        const ssize_t r = read(fd, *data + got, *len - got);
        if (r <= 0) {
            if (r == 0)
                errno = EINVAL;
            goto done;
        }
        got += (size_t)r;
    }
    ok = true;
done:;
    const int saved = errno;
    close(fd);
    if (!ok) {
        free(*data);
        *data = NULL;
    }
    errno = saved;
    return ok;
}

/* zlib's CRC-32 of a binary, in pieces of at most 1 GiB. */
static uint64_t binary_crc(const unsigned char *bin, size_t len)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t at = 0; at < len;) {
        const size_t n = len - at < (1u << 30) ? len - at : (1u << 30);
        crc = crc32(crc, bin + at, (uInt)n);
        at += n;
    }
    return crc;
}

/* The binary of an entry whose key is key and whose CRC matches: *bin and *bin_len point into
 * data; false where the entry is another key's, damaged or malformed. */
static bool entry_binary(const unsigned char *data, size_t len,
                         const char *key, size_t key_len,
                         const unsigned char **bin, size_t *bin_len)
{
    uint64_t klen = 0, blen = 0, crc = 0;
    if (len < MAGIC_LEN + 24 || memcmp(data, magic, MAGIC_LEN) != 0)
        return false;
    memcpy(&klen, data + MAGIC_LEN, 8);
    if (klen != key_len || len - MAGIC_LEN - 24 < klen
        || memcmp(data + MAGIC_LEN + 8, key, key_len) != 0)
        return false;
    memcpy(&blen, data + MAGIC_LEN + 8 + klen, 8);
    memcpy(&crc, data + MAGIC_LEN + 16 + klen, 8);
    if (blen == 0 || blen != len - MAGIC_LEN - 24 - klen)
        return false;
    *bin = data + MAGIC_LEN + 24 + klen;
    *bin_len = (size_t)blen;
    return crc == binary_crc(*bin, *bin_len);
}

int progcache_load(cl_context context, const struct device_info *dev,
                   const char *key, size_t key_len, const char *options,
                   cl_program *program)
{
    *program = NULL;
    char *path = entry_path(progcache_dir(), key, key_len);
    if (path == NULL) {
        histo_error("out of host memory for the program cache's path");
        return HISTO_EXIT_INTERNAL;
    }
    unsigned char *data = NULL;
    size_t len = 0;
    const unsigned char *bin = NULL;
    size_t bin_len = 0;
    if (!read_entry(path, &data, &len)) {
        if (errno == ENOMEM) {
            histo_error("out of host memory reading '%s'", path);
            free(path);
            return HISTO_EXIT_INTERNAL;
        }
        if (errno != ENOENT)
            note_trouble("%s unread: %s", path,
                         errno == EINVAL ? "not a regular file of an entry's size"
                                         : strerror(errno));
    } else if (!entry_binary(data, len, key, key_len, &bin, &bin_len)) {
        note_trouble("%s%s holds another program, or is damaged", path, "");
    } else {
        cl_int bin_status = CL_SUCCESS, err = CL_SUCCESS;
        cl_program p = clCreateProgramWithBinary(
            context, 1, &dev->id, &bin_len, &bin, &bin_status, &err);
        if (err == CL_SUCCESS && bin_status == CL_SUCCESS)
            err = clBuildProgram(p, 1, &dev->id, options, NULL, NULL);
        else if (err == CL_SUCCESS)
            err = bin_status;
        if (err == CL_SUCCESS) {
            *program = p;
            ++hits;
        } else {
            if (p != NULL)
                clReleaseProgram(p);
            note_trouble("the implementation refused %s: %s", path,
                         cl_error_name(err));
        }
    }
    free(data);
    free(path);
    return HISTO_OK;
}

/* Writes the entry to a new temporary file in dir and renames it to
 * path; NULL or why not. */
static const char *write_entry(const char *dir, const char *path,
                               const char *key, size_t key_len,
                               const unsigned char *bin, size_t bin_len,
                               char *why, size_t why_len)
{
    static unsigned serial;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(why, why_len, "cannot make %s: %s", dir, strerror(errno));
        return why;
    }
    const size_t tlen = strlen(dir) + 64;
    char *tmp = malloc(tlen);
    if (tmp == NULL)
        return "no host memory";
    snprintf(tmp, tlen, "%s/.histo-tmp-%ld-%u", dir, (long)getpid(),
             serial++);
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
    if (fd < 0) {
        snprintf(why, why_len, "cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return why;
    }
    const uint64_t klen = key_len, blen = bin_len,
                   crc = binary_crc(bin, bin_len);
    FILE *f = fdopen(fd, "wb");
    bool ok = f != NULL && fwrite(magic, 1, MAGIC_LEN, f) == MAGIC_LEN
           && fwrite(&klen, 8, 1, f) == 1
           && fwrite(key, 1, key_len, f) == key_len
           && fwrite(&blen, 8, 1, f) == 1 && fwrite(&crc, 8, 1, f) == 1
           && fwrite(bin, 1, bin_len, f) == bin_len;
    const int werr = errno;
    if (f != NULL ? fclose(f) != 0 : close(fd) != 0)
        ok = false;
    struct stat st;
    const char *out = NULL;
    if (!ok) {
        snprintf(why, why_len, "cannot write %s: %s", tmp, strerror(werr));
        out = why;
    } else if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "%s is there and is not a regular file",
                 path);
        out = why;
    } else if (rename(tmp, path) != 0) {
        snprintf(why, why_len, "cannot rename %s to %s: %s", tmp, path,
                 strerror(errno));
        out = why;
    }
    if (out != NULL)
        unlink(tmp);
    free(tmp);
    return out;
}

void progcache_store(cl_program program, const char *key, size_t key_len)
{
    const char *dir = progcache_dir();
    char *path = entry_path(dir, key, key_len);
    char why[512] = "no host memory";
    const char *fault = why;
    size_t bin_len = 0;
    unsigned char *bin = NULL;
    cl_uint ndev = 0;
    if (path == NULL)
        goto done;
    if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev,
                         NULL) != CL_SUCCESS || ndev != 1
        || clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof bin_len,
                            &bin_len, NULL) != CL_SUCCESS) {
        fault = "the implementation does not say the binary's size";
        goto done;
    }
    if (bin_len == 0 || bin_len > MAX_ENTRY) {
        fault = "the implementation gives no binary";
        goto done;
    }
    if ((bin = malloc(bin_len)) == NULL)
        goto done;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bin, &bin,
                         NULL) != CL_SUCCESS) {
        fault = "the implementation does not give the binary";
        goto done;
    }
    fault = write_entry(dir, path, key, key_len, bin, bin_len, why,
                        sizeof why);
done:
    if (fault == NULL) {
        ++stored;
    } else {
        ++unstored;
        note_trouble("not stored: %s%s", fault, "");
        fprintf(stderr, "histo: note: program cache: %s\n", fault);
    }
    free(bin);
    free(path);
}
