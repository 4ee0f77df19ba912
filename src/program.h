/*
 * program.h - loading kernel sources from the kernels folder and building
 * them with the shared constants of params.h as -D options.
 */
#ifndef HISTO_PROGRAM_H
#define HISTO_PROGRAM_H

#include "device.h"
#include "error.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* -D options chosen at run time (a work-group size from the device), as
 * alternatives: the first that builds is kept; and the OpenCL C version
 * to build as, for all of them ("CL3.0"; "": OpenCL C 1.2). */
#define PROGRAM_MAX_DEFINES 2
struct program_defines {
    char text[PROGRAM_MAX_DEFINES][160];
    size_t count; /* 0: none */
    char std[8];
};

/* Builds one program from the files (names relative to kernel_dir) on the
 * device (its compiler's options from what device.c found), for any
 * histogram (no option depends on the input: one build, and one entry in
 * every kernel cache, serves every shape), with each of `defines` (NULL:
 * none) in turn until one builds; a
 * failed alternative gets a note and its build log on stderr. On a build
 * failure prints the options and the build log. Returns 0 or an exit
 * status. */
int program_build(cl_context context, const struct device_info *dev,
                  const char *kernel_dir, const char *const *files,
                  size_t nfiles, const struct program_defines *defines,
                  cl_program *program);

/* histo.out's build.kernel_sources line: each kernel file read so far
 * (by name), with the sha256 of its bytes as `sha256sum` prints it. */
void program_sources_report(FILE *f);

/* The build options, for the report. */
const char *program_options(void);

#endif
