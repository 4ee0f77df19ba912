/*
 * paths.h - the files one run names (input, BMP, report, raw counters,
 * tune cache) must be different files, checked before anything is
 * removed or read.
 */
#ifndef HISTO_PATHS_H
#define HISTO_PATHS_H

#include "cli.h"

/* Refuses (HISTO_EXIT_USAGE, message naming both options) any two of -i,
 * -o, --timing, --raw (when given) and the tune cache (NULL when unused)
 * that are the same file: the same device and inode when it exists, else
 * the same path once symbolic links are followed and the folder made
 * canonical. Nor may an output be the file standard error is open on
 * (-o p.bmp 2>p.bmp; -o - 2>&1 into a file or pipe). The BMP,
 * the report and the raw counters may share a character device (-o
 * /dev/null --timing /dev/null, 2>/dev/null): writing one cannot destroy
 * the other there. */
int paths_check_distinct(const struct histo_options *opt,
                         const char *tune_cache);

#endif
