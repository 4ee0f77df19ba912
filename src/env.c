/*
 * env.c - the environment table (env.h), --help's sections and
 * histo.out's lines from it.
 */
#include "env.h"

#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

const struct env_entry env_table[ENV_COUNT] = {
#define ENV_ROW(id, u, bounds, text) [ENV_##id] = {#id, u, bounds, text},
    HISTO_ENV_VARS(ENV_ROW)
#undef ENV_ROW
};

const char *env_value(enum env_var v)
{
    const char *s = getenv(env_table[v].name);
    return s != NULL && s[0] != '\0' ? s : NULL;
}

int env_number(enum env_var v, double *value)
{
    const struct env_entry *e = &env_table[v];
    const char *s = env_value(v);
    if (s == NULL)
        return HISTO_OK;
    const bool whole = e->bounds.kind == ENV_WHOLE;
    /* One grammar for every number histo reads from its environment:
     * whole numbers are digits alone; seconds are digits with an
     * optional '.' and fraction, either side of the point may be empty
     * but not both ("5", "5.", ".5", "0.25"); no sign, exponent, hex,
     * inf or nan. */
    const size_t ints = strspn(s, "0123456789");
    size_t len = ints, fraction = 0;
    if (!whole && s[len] == '.') {
        fraction = strspn(s + len + 1, "0123456789");
        len += 1 + fraction;
    }
    char *end = NULL;
    errno = 0;
    const double n = strtod(s, &end);
    if (s[len] != '\0' || ints + fraction == 0 || end != s + len
        || errno != 0 || !(n >= e->bounds.lo && n <= e->bounds.hi)
        || (whole && n != floor(n))) {
        histo_error("%s must be %s from %.0f to %.0f, not '%s'", e->name,
                    whole ? "a whole number" : "a number of seconds",
                    e->bounds.lo, e->bounds.hi, s);
        return HISTO_EXIT_USAGE;
    }
    *value = n;
    return HISTO_OK;
}

int env_check(void)
{
    for (int i = 0; i < ENV_COUNT; ++i) {
        double ignored;
        if (env_table[i].bounds.kind != ENV_TEXT
            && env_number(i, &ignored) != HISTO_OK)
            return HISTO_EXIT_USAGE;
    }
    return HISTO_OK;
}

int env_whole(enum env_var v, unsigned long *value)
{
    double n = 0;
    const int status = env_number(v, &n);
    *value = status == HISTO_OK ? (unsigned long)n : 0;
    return status;
}

/* The help text, words wrapped at 72 columns from column 22 (after the
 * name, or on the next line where the name is too long). */
static void help_entry(FILE *f, const struct env_entry *e)
{
    const int col = 22, width = 72;
    int at = fprintf(f, "  %s", e->name);
    if (at >= col - 1) {
        fputc('\n', f);
        at = 0;
    }
    fprintf(f, "%*s", col - at, "");
    at = col;
    /* the help, then the bounds of a number */
    char text[512];
    if (e->bounds.kind == ENV_TEXT)
        snprintf(text, sizeof text, "%s", e->help);
    else
        snprintf(text, sizeof text, "%s [%s, %.0f to %.0f]", e->help,
                 e->bounds.kind == ENV_WHOLE ? "whole number" : "seconds",
                 e->bounds.lo, e->bounds.hi);
    for (const char *w = text; *w != '\0';) {
        size_t len = strcspn(w, " ");
        if (at > col && at + 1 + (int)len > width) {
            fprintf(f, "\n%*s", col, "");
            at = col;
        } else if (at > col) {
            fputc(' ', f);
            ++at;
        }
        fprintf(f, "%.*s", (int)len, w);
        at += (int)len;
        w += len;
        while (*w == ' ')
            ++w;
    }
    fputc('\n', f);
}

void env_usage(FILE *f)
{
    fputs("Environment:\n"
          "  (a whole number is digits alone; seconds are digits with an "
          "optional\n  decimal point and fraction: 5, 5., .5, 0.25; no sign "
          "or exponent)\n", f);
    for (int i = 0; i < ENV_COUNT; ++i)
        if (env_table[i].use == ENV_USER || env_table[i].use == ENV_PEAK)
            help_entry(f, &env_table[i]);
    fputs("\nFor measuring and tests only (a run with any of these set is "
          "peak and not\nreportable; histo.out names them):\n", f);
    for (int i = 0; i < ENV_COUNT; ++i)
        if (env_table[i].use == ENV_MEASURE || env_table[i].use == ENV_TEST)
            help_entry(f, &env_table[i]);
}

/* The set variables whose use is at least `least`, space-separated, or
 * "none". */
static void names_from(FILE *f, enum env_use least)
{
    bool any = false;
    for (int i = 0; i < ENV_COUNT; ++i)
        if (env_table[i].use >= least && env_value(i) != NULL) {
            fprintf(f, " %s", env_table[i].name);
            any = true;
        }
    fputs(any ? "\n" : " none\n", f);
}

void env_report(FILE *f)
{
    for (int i = 0; i < ENV_COUNT; ++i) {
        const char *v = env_value(i);
        if (v == NULL)
            continue;
        /* one line a key: a value's line breaks would start another */
        fprintf(f, "environment.%s = ", env_table[i].name);
        for (; *v != '\0'; ++v)
            fputc(*v == '\n' || *v == '\r' ? ' ' : *v, f);
        fputc('\n', f);
    }
    fputs("environment.peak =", f);
    names_from(f, ENV_PEAK);
    fputs("environment.not_reportable =", f);
    names_from(f, ENV_MEASURE);
}
