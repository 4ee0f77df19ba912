/* version.c - histo --version (see version.h). */
#include "version.h"

#include "error.h"
#include "program.h"

#include <errno.h>
#include <string.h>

/* The short commit id as git saw the tree at the build, with "-modified"
 * when tracked files differed from it; where git could not see the tree,
 * "unknown", or the id HISTO_COMMIT named with "-unverified"; and the
 * sha256 of the host sources (docs/harness.md, "Provenance", gives the
 * command that reproduces it). Given by the GNUmakefile, which rebuilds
 * this file alone when they change. */
#ifndef HISTO_COMMIT
#define HISTO_COMMIT "unknown"
#endif
#ifndef HISTO_SOURCES
#define HISTO_SOURCES "unknown"
#endif

/* What built this binary, one "KEY = VALUE" line each (cc, compiler,
 * cflags, ldflags, ldlibs): the build folder's flags.h, which the
 * GNUmakefile writes from the flags it compiles and links with. */
static const char build_flags[] =
#include "flags.h"
    ;

int version_print(FILE *f)
{
    errno = 0;
    if (fprintf(f, "histo %s\ncommit: %s\nsources = %s\n%skernel build "
                   "options: %s\n",
                HISTO_VERSION, HISTO_COMMIT, HISTO_SOURCES, build_flags,
                program_options()) < 0
        || fflush(f) != 0) {
        histo_error("cannot write the version: %s",
                    errno != 0 ? strerror(errno) : "write error");
        return HISTO_EXIT_OUTPUT;
    }
    return HISTO_OK;
}
