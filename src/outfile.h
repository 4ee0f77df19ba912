/*
 * outfile.h - output files that appear whole or not at all, and never
 * destroy what their path points at.
 *
 * What is at an output path decides how it is written:
 *   - nothing, or a regular file: the data goes to a temporary file in the
 *     same folder (".NAME.tmp.XXXXXX"), renamed over the path only once
 *     every byte was written and the file closed cleanly;
 *   - a character device, FIFO or socket (/dev/null, a pipe, a terminal):
 *     opened for writing and written in place, never removed or renamed
 *     over; "-" is standard output, written the same way;
 *   - a symbolic link is followed: the file it leads to is treated as
 *     above, and the link itself stays;
 *   - a folder, a block device or anything else is refused.
 * After a failure, or SIGINT, SIGTERM or SIGHUP, the temporary files and
 * the outputs this run already renamed into place are removed (see
 * outfile_defer and outfile_handle_signals), so nothing that looks valid
 * is left.
 */
#ifndef HISTO_OUTFILE_H
#define HISTO_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile {
    FILE *f;          /* write here between open and commit         */
    char *path;       /* the path as given, for messages            */
    char *target;     /* where the data goes, symbolic links followed */
    char *tmp_path;   /* temporary file beside target, or NULL      */
    int slot;         /* cleanup slot of tmp_path, -1 when none     */
    int err;          /* errno of a failed write, set by the writer */
    FILE *sink;       /* outfile_open_text: where commit writes f's text */
    char *text;       /* outfile_open_text: the text f has gathered      */
    size_t text_len;
    bool shared;      /* set before commit for a file other runs
                         share (the tune cache): kept once renamed  */
};

/* Checks what is at path before the run: refuses a folder, a block device
 * or anything that cannot be written (HISTO_EXIT_OUTPUT, message printed).
 * When path leads to a regular file, that file is removed, so a failed run
 * cannot leave an earlier output that would pass for this run's. Nothing
 * else is ever removed. */
int outfile_prepare(const char *path);

/* Opens path for writing (a temporary file, or the device or FIFO in
 * place). Returns 0, or HISTO_EXIT_OUTPUT after printing why. */
int outfile_open(struct outfile *out, const char *path);

/* outfile_open for text written with fprintf: the text gathers in memory
 * and commit writes it in one call, so a failed write is reported with
 * its cause (ENOSPC, EPIPE) however the stream's buffer was flushed. */
int outfile_open_text(struct outfile *out, const char *path);

/* Flushes and closes. A temporary file is renamed into place now, or,
 * after outfile_defer, by outfile_publish_all (a file other runs share,
 * out->shared, always now). On any error the temporary file is removed
 * and HISTO_EXIT_OUTPUT returned after printing why. */
int outfile_commit(struct outfile *out);

/* Closes and removes the temporary file (safe to call twice). */
void outfile_abort(struct outfile *out);

/* From now on commits keep each output complete under its temporary name
 * until outfile_publish_all renames them all into place together, so a
 * run killed before the end (even by SIGKILL) leaves no output that looks
 * like a result: at most ".NAME.tmp.XXXXXX" files. */
void outfile_defer(void);

/* Renames every committed output into place. On a failure removes them
 * all again and returns HISTO_EXIT_OUTPUT after printing why. */
int outfile_publish_all(void);

/* The run failed: removes the committed outputs, whether still under
 * their temporary names or already renamed into place. */
void outfile_discard_all(void);

/* Installs handlers for SIGINT, SIGTERM and SIGHUP (those not ignored when
 * histo started) that remove temporary and committed outputs, print one
 * line and end the process by the same signal (exit status 128 + N in a
 * shell); SIGPIPE is ignored, so a closed pipe is a write error. Called
 * again, it puts them back where a library replaced them, and ignores
 * again what was ignored at start. */
void outfile_handle_signals(void);

/* Where outfile_handle_signals ran before, puts histo's handlers back
 * (an implementation's compiler may put its own in place: PoCL's LLVM
 * does); else nothing, so a tool that never asked keeps its own. */
void outfile_restore_signals(void);

/* Waits for an exclusive lock on PATH.lock beside the regular file (or
 * nothing) that path leads to, for read-modify-write updates by
 * concurrent runs; the lock file stays, empty. Returns the descriptor to
 * pass to outfile_unlock, or -1 when path leads to a device or FIFO (no
 * lock needed) or the lock cannot be had (errno set). A process that dies
 * holding it loses the lock with it. */
int outfile_lock(const char *path);
void outfile_unlock(int fd);

/* Whether path (or "-") is the file standard output writes to; false for
 * NULL (no such output). */
bool outfile_is_stdout(const char *path);

/* Follows symbolic links at the end of path (at most 40) and makes the
 * folder absolute and canonical where it exists. Returns a malloc'ed
 * string, or NULL with errno set. */
char *outfile_resolve(const char *path);

#endif
