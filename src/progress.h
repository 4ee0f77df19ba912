/*
 * progress.h - how far a long phase has come, on stderr: the timed
 * iterations, their re-run timed on the host, --tune's candidates.
 *
 * Where stderr is a terminal, one line rewritten in place ("\r") four
 * times a second from the first second on, erased when the phase ends so
 * that what follows starts on a clean line. Elsewhere (a file, a pipe) a
 * whole line every HISTO_PROGRESS_INTERVAL seconds (default 10), the
 * first after that long: a shorter phase prints nothing, so short runs'
 * stderr is what it would be without progress. HISTO_PROGRESS_INTERVAL=0
 * turns progress off everywhere.
 *
 * The caller reports units done (iterations whose events it has already
 * waited for); progress_update costs one clock read and prints only when
 * a line is due, so it never waits on the device or adds a
 * synchronisation of its own.
 */
#ifndef HISTO_PROGRESS_H
#define HISTO_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Characters of a progress line at most. */
#define PROGRESS_LINE_MAX 160

struct progress {
    FILE *out;              /* stderr                                     */
    bool tty;               /* out is a terminal: one line in place       */
    bool off;               /* HISTO_PROGRESS_INTERVAL=0, or a failed write */
    double interval_s;      /* between lines when not a terminal          */
    double start_s;         /* timer_now() when the phase began           */
    double due_s;           /* when the next line may be printed          */
    const char *what;       /* "iteration", "tune: candidate"             */
    const char *note;       /* after the percentage, e.g. " of the
                               host-timed run", or ""                     */
    unsigned long total;    /* units of the whole phase; 0: not known yet */
    unsigned long base;     /* units done before the current run_plan     */
    unsigned long per_item; /* 0: the line counts units done; else the
                               units of one item, and the line names the
                               item under way (candidate 3 of 12)         */
    size_t shown;           /* characters of the line now on the terminal */
};

/* Sets p up for stderr: reads HISTO_PROGRESS_INTERVAL (seconds, 0 to
 * 86400, decimals allowed) and whether stderr is a terminal. Returns 0,
 * or HISTO_EXIT_USAGE after saying why the variable is wrong. */
int progress_init(struct progress *p);

/* Starts a phase of total units (0: not known yet): clocks start, and
 * nothing is shown before the first interval has passed. p may be NULL. */
void progress_begin(struct progress *p, const char *what, const char *note,
                    unsigned long total, unsigned long per_item);

/* Tells a phase of several runs (--tune: one a candidate) the units done
 * before the next run and, once known, the phase's total. p may be NULL. */
void progress_rebase(struct progress *p, unsigned long base,
                     unsigned long total);

/* done units of the current run (p->base more of the phase) are done:
 * prints a line when one is due. p may be NULL (no progress). */
void progress_update(struct progress *p, unsigned long done);

/* The line progress_update prints for done units at time now, without
 * "\r" or "\n": "histo: iteration 1200 of 30000 (4%), 12.0 s elapsed,
 * about 4 min 48 s left"; a terminal's is shorter ("1200/30000", no
 * "about"); an item under way reads "histo: tune: candidate 3 of 12 (17%),
 * ..."; before the total is known, "histo: tune: candidate 1, 2.0 s
 * elapsed". */
void progress_line(const struct progress *p, unsigned long done,
                   double now, char *buf, size_t size);

/* Erases the terminal line, if one is shown, so that the next output
 * starts on a clean line; the phase's clocks go on. p may be NULL. */
void progress_clear(struct progress *p);

#endif
