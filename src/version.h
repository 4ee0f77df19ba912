/*
 * version.h - histo's version number, set here and nowhere else, and what
 * histo --version prints.
 */
#ifndef HISTO_VERSION_H
#define HISTO_VERSION_H

#include <stdio.h>

/* Major.minor.patch: the major number changes when a command line, an
 * output's format (histo.out, --raw, the BMP) or an exit status changes
 * incompatibly, the minor number when something is added, the patch
 * number for fixes that change none of these. */
#define HISTO_VERSION "1.0.0"

/* Writes to f: "histo VERSION", "commit: ID" (the commit the build was
 * made from, HISTO_COMMIT from the GNUmakefile), what built it ("cc =",
 * "compiler =", "cflags =", "ldflags =", "ldlibs =", from the
 * GNUmakefile's flags.h) and "kernel
 * build options: OPTIONS" (program_options() before any build: what every
 * kernel is built with, to which a run adds the histogram's width and
 * the device's own options; histo.out's build.options has them all).
 * Returns 0, or HISTO_EXIT_OUTPUT after saying why when f cannot be
 * written. */
int version_print(FILE *f);

#endif
