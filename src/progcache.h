/*
 * progcache.h - built programs kept in a folder ($HISTO_PROGRAM_CACHE),
 * for implementations that compile every run from source (Intel's CPU
 * runtime; PoCL and NVIDIA cache their own: docs/design.md, "The
 * program cache").
 *
 * An entry holds the whole key it was built for: the platform's and
 * device's names and versions, the driver's version, the build options
 * and every byte of the sources. An entry is used only when its key is
 * byte for byte the one asked for, so a changed kernel, option or driver
 * never meets an old binary; the file's name is a hash of the key, a
 * place to look, not a proof. An entry the implementation refuses
 * (clCreateProgramWithBinary or clBuildProgram fails) is replaced by a
 * build from source. Storing is best effort: a folder that cannot be
 * written costs a note on stderr, never the run. Entries are written to a
 * temporary file in the folder and renamed into place, never over
 * anything but a regular file.
 */
#ifndef HISTO_PROGCACHE_H
#define HISTO_PROGCACHE_H

#include "device.h"

#include <stddef.h>

/* The cache folder from the environment, or NULL: none. */
const char *progcache_dir(void);

/* The key for a program built from the n strings (texts, lens) with the
 * options on dev; *len its length. NULL after printing why (no host
 * memory). */
char *progcache_key(const struct device_info *dev, const char *options,
                    char *const *texts, const size_t *lens, size_t n,
                    size_t *len);

/* The entry for key, built for dev with the options: a program in
 * *program, or NULL where there is none or the implementation refuses
 * it (the report then says why). Returns 0 or an exit status (no host
 * memory). */
int progcache_load(cl_context context, const struct device_info *dev,
                   const char *key, size_t key_len, const char *options,
                   cl_program *program);

/* Writes program's binary as key's entry; a failure is a note. */
void progcache_store(cl_program program, const char *key, size_t key_len);

/* What the cache did for this run's programs, for histo.out's
 * build.program_cache: "off", or the folder, how many programs were
 * found, built and stored, built and not stored, and the first trouble
 * (an entry refused or unreadable, a store that failed). */
const char *progcache_state(void);

#endif
