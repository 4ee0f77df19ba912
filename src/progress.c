/* progress.c - progress of long phases on stderr (see progress.h). */
#include "progress.h"

#include "env.h"
#include "error.h"
#include "timer.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Seconds between lines when stderr is not a terminal: rare enough that
 * a log of a long run stays readable. */
#define PROGRESS_INTERVAL_S 10.0
/* On a terminal: nothing for the first second (a short run does not
 * flash a line), then four updates a second. */
#define PROGRESS_TTY_FIRST_S 1.0
#define PROGRESS_TTY_INTERVAL_S 0.25

int progress_init(struct progress *p)
{
    *p = (struct progress){
        .out = stderr,
        .tty = false,
        .off = false,
        .interval_s = PROGRESS_INTERVAL_S,
        .what = "",
        .note = "",
    };
    double v = PROGRESS_INTERVAL_S;
    const int status = env_number(ENV_HISTO_PROGRESS_INTERVAL, &v);
    if (status != HISTO_OK)
        return status;
    p->interval_s = v;
    p->off = v == 0;
    /* isatty's 0 with an errno (not a terminal, or no stderr at all)
     * means the same here: whole lines, or none that anyone sees. */
    const int fd = fileno(p->out);
    p->tty = fd >= 0 && isatty(fd) == 1;
    return HISTO_OK;
}

void progress_begin(struct progress *p, const char *what, const char *note,
                    unsigned long total, unsigned long per_item)
{
    if (p == NULL)
        return;
    p->what = what;
    p->note = note;
    p->total = total;
    p->base = 0;
    p->per_item = per_item;
    p->start_s = timer_now();
    p->due_s = p->start_s + (p->tty ? PROGRESS_TTY_FIRST_S : p->interval_s);
}

void progress_rebase(struct progress *p, unsigned long base,
                     unsigned long total)
{
    if (p == NULL)
        return;
    p->base = base;
    p->total = total;
}

/* A duration as people read it: "12.0 s" under a minute ("12 s" from 10 s
 * on without tenths), "4 min 48 s" under an hour, "2 h 5 min" beyond. */
static void format_duration(char *buf, size_t size, double s, bool tenths)
{
    if (!(s >= 0))
        s = 0;
    if (s > 1e9) /* 31 years: a bound for the conversions below */
        s = 1e9;
    if (s < 9.95 || (tenths && s < 59.95)) {
        snprintf(buf, size, "%.1f s", s);
        return;
    }
    if (s < 59.5) {
        snprintf(buf, size, "%.0f s", s);
        return;
    }
    const unsigned long secs = (unsigned long)(s + 0.5);
    if (secs < 3600) {
        snprintf(buf, size, "%lu min %lu s", secs / 60, secs % 60);
        return;
    }
    const unsigned long mins = (unsigned long)(s / 60 + 0.5);
    snprintf(buf, size, "%lu h %lu min", mins / 60, mins % 60);
}

void progress_line(const struct progress *p, unsigned long done,
                   double now, char *buf, size_t size)
{
    const unsigned long units = p->base + done;
    unsigned long n = units, of = p->total;
    if (p->per_item > 0) {
        n = (units > 0 ? units - 1 : 0) / p->per_item + 1;
        of = p->total / p->per_item;
    }
    if (of > 0 && n > of)
        n = of;
    const double elapsed = now - p->start_s;
    char el[32], left[32];
    format_duration(el, sizeof el, elapsed, true);
    if (p->total == 0) {
        snprintf(buf, size, "histo: %s %lu%s, %s elapsed", p->what, n,
                 p->note, el);
    } else {
        const double frac = units >= p->total
                            ? 1.0 : (double)units / (double)p->total;
        /* whole percents, rounded down, in integers: 29 of 100 is 29% */
        const unsigned long long pct = units >= p->total
            ? 100 : (unsigned long long)units * 100 / p->total;
        const int len = snprintf(buf, size,
                                 "histo: %s %lu%s%lu (%llu%%)%s, %s elapsed",
                                 p->what, n, p->tty ? "/" : " of ", of, pct,
                                 p->note, el);
        if (len > 0 && (size_t)len < size && units > 0) {
            format_duration(left, sizeof left,
                            elapsed * (1 - frac) / frac, false);
            snprintf(buf + len, size - (size_t)len, ", %s%s left",
                     p->tty ? "" : "about ", left);
        }
    }
}

/* Writes text; a failed write turns progress off for good, since stderr,
 * where it would be reported, is what failed. */
static void put(struct progress *p, const char *text)
{
    if (fputs(text, p->out) == EOF || fflush(p->out) == EOF)
        p->off = true;
}

void progress_update(struct progress *p, unsigned long done)
{
    if (p == NULL || p->off)
        return;
    const double now = timer_now();
    if (now < p->due_s)
        return;
    p->due_s = now + (p->tty ? PROGRESS_TTY_INTERVAL_S : p->interval_s);
    char line[PROGRESS_LINE_MAX];
    progress_line(p, done, now, line, sizeof line);
    char text[2 * PROGRESS_LINE_MAX + 4];
    if (!p->tty) {
        snprintf(text, sizeof text, "%s\n", line);
    } else {
        /* In place: back to the line's start, the new text, and spaces
         * over what is left of a longer line before it. */
        const size_t len = strlen(line);
        const int pad = p->shown > len ? (int)(p->shown - len) : 0;
        snprintf(text, sizeof text, "\r%s%*s", line, pad, "");
        p->shown = len;
    }
    put(p, text);
}

void progress_clear(struct progress *p)
{
    if (p == NULL || p->off || p->shown == 0)
        return;
    char text[PROGRESS_LINE_MAX + 4];
    snprintf(text, sizeof text, "\r%*s\r", (int)p->shown, "");
    p->shown = 0;
    put(p, text);
}
