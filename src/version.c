/* version.c - histo --version (see version.h). */
#include "version.h"

#include "error.h"
#include "program.h"

#include <errno.h>
#include <string.h>

/* The short commit id, with "-modified" when tracked files differed from
 * it, or "unknown" outside git: given by the GNUmakefile, which rebuilds
 * this file alone when it changes. */
#ifndef HISTO_COMMIT
#define HISTO_COMMIT "unknown"
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
    if (fprintf(f, "histo %s\ncommit: %s\n%skernel build options: %s\n",
                HISTO_VERSION, HISTO_COMMIT, build_flags,
                program_options()) < 0
        || fflush(f) != 0) {
        histo_error("cannot write the version: %s",
                    errno != 0 ? strerror(errno) : "write error");
        return HISTO_EXIT_OUTPUT;
    }
    return HISTO_OK;
}
