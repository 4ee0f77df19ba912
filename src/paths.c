/* paths.c - one run's files are different files (see paths.h). */
#include "paths.h"

#include "error.h"
#include "outfile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct named_file {
    const char *option;  /* as the message names it            */
    const char *path;
    bool output;
    bool cache;          /* shared with other runs              */
    int stdio;           /* 2 for standard error, else 0        */
    bool exists;
    struct stat st;
    char *resolved;      /* when it does not exist, else NULL  */
};

static void identify(struct named_file *f)
{
    if (f->stdio != 0)
        f->exists = fstat(f->stdio, &f->st) == 0;
    else if (strcmp(f->path, "-") == 0)
        f->exists = fstat(f->output ? STDOUT_FILENO : STDIN_FILENO,
                          &f->st) == 0;
    else
        f->exists = stat(f->path, &f->st) == 0;
    if (!f->exists)
        f->resolved = outfile_resolve(f->path);
}

static bool same_file(const struct named_file *a, const struct named_file *b)
{
    if (a->exists != b->exists)
        return false;
    if (a->exists)
        return a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino;
    return strcmp(a->resolved != NULL ? a->resolved : a->path,
                  b->resolved != NULL ? b->resolved : b->path) == 0;
}

int paths_check_distinct(const struct histo_options *opt,
                         const char *tune_cache)
{
    struct named_file files[] = {
        {.option = "-i", .path = opt->input},
        {.option = "-o", .path = opt->output, .output = true},
        {.option = "--timing", .path = opt->timing, .output = true},
        {.option = "--raw", .path = opt->raw, .output = true},
        {.option = "the tune cache", .path = tune_cache, .output = true,
         .cache = true},
        /* messages and progress lines go there: an output in the same
         * file (-o p.bmp 2>p.bmp; -o - 2>&1) would hold them too. An
         * output in standard output's file is written through it, the
         * summary then on stderr (outfile.h). */
        {.option = "standard error", .path = "(descriptor 2)", .output = true,
         .stdio = STDERR_FILENO},
    };
    /* The files this run names, in that order; -o (--no-bmp), --raw and
     * the cache are optional. */
    size_t n = 1;
    if (opt->output != NULL)
        files[n++] = files[1];
    files[n++] = files[2];
    if (opt->raw != NULL)
        files[n++] = files[3];
    if (tune_cache != NULL)
        files[n++] = files[4];
    files[n++] = files[5];
    int status = HISTO_OK;
    for (size_t i = 0; i < n; ++i)
        identify(&files[i]);
    for (size_t i = 0; i < n && status == HISTO_OK; ++i)
        for (size_t j = i + 1; j < n && status == HISTO_OK; ++j) {
            const struct named_file *a = &files[i], *b = &files[j];
            if (b->stdio != 0 && (!a->output || !b->exists))
                continue;
            if (!same_file(a, b))
                continue;
            if (a->output && b->output && a->exists && !b->cache
                && S_ISCHR(a->st.st_mode))
                continue;
            if (b->stdio != 0)
                histo_error("%s '%s' and %s are the same file; writing one "
                            "would destroy the other: give each its own",
                            a->option, a->path, b->option);
            else
                histo_error("%s '%s' and %s '%s' are the same file; writing "
                            "one would destroy the other: give each its own",
                            a->option, a->path, b->option, b->path);
            status = HISTO_EXIT_USAGE;
        }
    for (size_t i = 0; i < n; ++i)
        free(files[i].resolved);
    return status;
}
