/*
 * program.h - loading kernel sources from the kernels folder and building
 * them with the shared constants of params.h as -D options.
 */
#ifndef HISTO_PROGRAM_H
#define HISTO_PROGRAM_H

#include "error.h"

#include <stddef.h>
#include <stdint.h>

/* Builds one program from the files (names relative to kernel_dir) on the
 * device, for histograms histo_width bins wide (HISTO_WIDTH in the
 * kernels). On a build failure prints the options and the build log.
 * Returns 0 or an exit status. */
int program_build(cl_context context, cl_device_id device,
                  const char *kernel_dir, const char *const *files,
                  size_t nfiles, uint32_t histo_width, cl_program *program);

/* The build options, for the report. */
const char *program_options(void);

#endif
