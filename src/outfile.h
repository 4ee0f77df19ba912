/*
 * outfile.h - output files that appear whole or not at all.
 *
 * Data goes to a temporary file in the destination's folder, which is
 * renamed over the destination only once every byte was written and the
 * file closed cleanly. After a failure no file that looks valid is left.
 */
#ifndef HISTO_OUTFILE_H
#define HISTO_OUTFILE_H

#include <stdio.h>

struct outfile {
    FILE *f;          /* write here between open and commit */
    char *path;       /* final name                          */
    char *tmp_path;   /* temporary name in the same folder   */
};

/* Returns 0, or HISTO_EXIT_OUTPUT after printing why. */
int outfile_open(struct outfile *out, const char *path);

/* Closes and renames into place; on any error removes the temporary file
 * and returns HISTO_EXIT_OUTPUT after printing why. */
int outfile_commit(struct outfile *out);

/* Closes and removes the temporary file (safe to call twice). */
void outfile_abort(struct outfile *out);

/* Removes a previous output at path, so a failed run cannot leave an older
 * file behind that would pass for this run's result. */
int outfile_remove_stale(const char *path);

#endif
