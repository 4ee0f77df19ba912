/*
 * text.c - histo-text: a recorded value as JSON may carry it. Reads bytes
 * on standard input and writes them back followed by one '.' (so that a
 * shell's command substitution keeps trailing newlines), unchanged when
 * they are UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF): exit 0. Otherwise the escaped form that the harness's
 * records document (docs/harness.md, "Records"): each backslash doubled,
 * each byte that is not part of a valid sequence written as \xHH (two
 * uppercase hex digits), valid sequences as they are: exit 1. A read or
 * write error: exit 2 after a message.
 *
 *   printf '%s' "$value" | histo-text
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (n bytes left), 0 if none. */
static size_t sequence(const unsigned char *s, size_t n)
{
    const unsigned char c = s[0];
    size_t len;
    unsigned long cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; ++i) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    /* the shortest form, no surrogate, at most U+10FFFF */
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)
        || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return len;
}

int main(void)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    if (buf == NULL) {
        fputs("histo-text: out of memory\n", stderr);
        return 2;
    }
    for (;;) {
        if (n == cap) {
            unsigned char *more = realloc(buf, cap * 2);
            if (more == NULL) {
                fputs("histo-text: out of memory\n", stderr);
                free(buf);
                return 2;
            }
            buf = more;
            cap *= 2;
        }
        const size_t got = fread(buf + n, 1, cap - n, stdin);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(stdin)) {
        fputs("histo-text: cannot read standard input\n", stderr);
        free(buf);
        return 2;
    }
    int valid = 1;
    for (size_t i = 0; i < n;) {
        const size_t len = sequence(buf + i, n - i);
        if (len == 0) {
            valid = 0;
            break;
        }
        i += len;
    }
    if (valid) {
        fwrite(buf, 1, n, stdout);
    } else {
        for (size_t i = 0; i < n;) {
            const size_t len = sequence(buf + i, n - i);
            if (len == 0)
                printf("\\x%02X", buf[i++]);
            else if (buf[i] == '\\')
                fputs("\\\\", stdout), ++i;
            else
                fwrite(buf + i, 1, len, stdout), i += len;
        }
    }
    putchar('.');
    free(buf);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fputs("histo-text: cannot write standard output\n", stderr);
        return 2;
    }
    return valid ? 0 : 1;
}
