/* cli.c - command line parsing (see cli.h). */
#include "cli.h"

#include "env.h"
#include "error.h"
#include "strategy.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The source tree's kernels folder and the executable the build writes
 * there, both absolute (GNUmakefile). */
#ifndef HISTO_KERNEL_DIR
#define HISTO_KERNEL_DIR "kernels"
#endif
#ifndef HISTO_BUILT_EXE
#define HISTO_BUILT_EXE ""
#endif

/* Where make install puts the kernels, below the prefix whose bin/ holds
 * histo. */
#define INSTALLED_KERNELS "/share/histo/kernels"

static const struct histo_options defaults = {
    .timing = "histo.out",
};

/* The text is written in pieces: C11 promises string literals of 4095
 * characters only; --strategy's entry (strategies.c) and the knobs'
 * (knobs.c) follow piece TABLES_AFTER, the environment's (env.c) piece
 * ENVIRONMENT_AFTER.
 * Its layout is what tools/man.sh turns into the man page: a one-line
 * summary, the usage lines, untitled paragraphs (the description), then
 * titled sections whose entries start two spaces in with the term, the
 * text at column 22, and continue at column 22. */
static const char *const usage_text[] = {
"histo - the 116.histo saturating 2-D histogram, on an OpenCL device\n"
"\n"
"usage: histo -i INPUT -o OUTPUT.bmp [options] -- ITERATIONS [ignored...]\n"
"       histo -i INPUT --no-bmp --raw COUNTERS [options] -- ITERATIONS\n"
"       histo --list | --version | --help\n"
"\n"
"Computes the saturating 2-D histogram of INPUT (a 116.histo differential\n"
"image, raw or gzip-compressed) ITERATIONS times on an OpenCL device and\n"
"writes the last result to OUTPUT.bmp.\n"
"\n"
"Outputs never replace anything but regular files: devices and FIFOs\n"
"are written in place, links followed, folders refused; -i, -o, --timing,\n"
"--raw and the tune cache must be different files.\n"
"\n"
"Options:\n"
"  -i FILE             input file, raw or gzip (required; - for standard\n"
"                      input)\n"
"  -o FILE             output BMP (required; - for standard output)\n"
"  --platform P        platform by index or by (part of) its name\n"
"                      (default $HISTO_PLATFORM, else PoCL if it has a\n"
"                      device D names, else the first platform with one)\n"
"  --device D          device by index, (part of) its name, or type: CPU,\n"
"                      GPU, ACCELERATOR, CUSTOM (a device of several types\n"
"                      matches each; default $HISTO_DEVICE, else the\n"
"                      platform's first); a list (0,1 or GPU,GPU; the\n"
"                      same device twice is two queues) splits the input\n"
"                      among them; 'all' splits it among as many of the\n"
"                      platform's devices as measure fastest, down to one\n"
"  --device-budget B   bytes of device memory the input may take (K, M,\n"
"                      G, T suffixes; default 7/8 of the device's);\n"
"                      above it the input is streamed from host memory\n"
"                      in chunks, every iteration\n"
"  --chunk-values N    at most N values a chunk (default: the device's\n"
"                      largest allocation, 2^31 at most; streamed: 2^25)\n"
"  --timing FILE       configuration and timing report (default histo.out)\n"
"  --raw FILE          the 8-bit counters, row-major, no header (what is\n"
"                      validated; histo.out holds their SHA-256 digest)\n"
"  --no-bmp            no BMP and no -o: the counters only (--raw), for\n"
"                      histograms larger than a BMP can describe\n",
/* TABLES_AFTER: --strategy's entry, from strategies.c's table, and the
 * knobs' entries, from knobs.c's */
"  --tune              time candidate values of the knobs above on this\n"
"                      device and input, print the table, store the best\n"
"                      in the tune cache (see Files) and run with it\n"
"  --no-tune-cache     neither read nor write the tune cache (also\n"
"                      $HISTO_NO_TUNE_CACHE=1)\n"
"  --no-check          do not compare the result with a sequential host\n"
"                      histogram (by default counted while the input is\n"
"                      read, outside the timed iterations)\n"
"  --keep-wrong        when the check fails, still write the BMP and\n"
"                      --raw (the device's wrong counters, to debug)\n"
"  --kernels DIR       OpenCL kernel sources (default $HISTO_KERNEL_DIR,\n"
"                      else an installed histo's or the source tree's:\n"
"                      see Files)\n"
"  --list              list platforms and devices with their indexes\n"
"  --list-strategies   the strategies' names, one a line (for scripts)\n"
"  --version           the version, the git commit histo was built from,\n"
"                      the compiler and flags that built it and the\n"
"                      options every kernel is built with (a run adds\n"
"                      the histogram's width and the device's own:\n"
"                      histo.out's build.options)\n"
"  A valued option's value is the next word or follows '=' (--strategy=eye).\n"
"  --help              this text\n"
"\n",
"Exit status:\n"
"  0                   success\n"
"  1                   internal error\n"
"  2                   usage\n"
"  3                   input\n"
"  4                   OpenCL device or kernel\n"
"  5                   output not written\n"
"  6                   the device's counters differ from the sequential\n"
"                      histogram\n"
"  128+N               ended by signal N\n"
"\n",
"\n"
"Files:\n"
"  histo.out           the configuration and timing report (--timing),\n"
"                      in the current folder\n"
"  ~/.cache/histo/tune.conf\n"
"                      the tune cache, unless $HISTO_TUNE_FILE or\n"
"                      $XDG_CACHE_HOME names another (with neither and\n"
"                      no $HOME, there is none)\n"
"  PREFIX/share/histo/kernels\n"
"                      the kernel sources of a histo installed as\n"
"                      PREFIX/bin/histo (make install; PREFIX is found\n"
"                      from /proc/self/exe), when neither --kernels nor\n"
"                      $HISTO_KERNEL_DIR names a folder\n"
"  SOURCE/kernels      the kernel sources of the source tree histo was\n"
"                      built in, when neither --kernels nor\n"
"                      $HISTO_KERNEL_DIR names a folder: for the\n"
"                      executable that build wrote (SOURCE/histo), and\n"
"                      for a copy whose PREFIX has no share/histo/kernels\n"
"                      or whose path is unknown\n",
};

#define TABLES_AFTER 0
#define ENVIRONMENT_AFTER 2
#define TEXT_COLUMN 22
#define LINE_WIDTH 74

/* An entry of the help's layout: the term two spaces in, the text from
 * TEXT_COLUMN, its words wrapped within LINE_WIDTH. */
static void write_entry(FILE *f, const char *term, const char *text)
{
    int col = fprintf(f, "  %s", term);
    for (const char *w = text; *w != '\0';) {
        while (*w == ' ')
            ++w;
        const size_t n = strcspn(w, " ");
        if (n == 0)
            break;
        if (col > TEXT_COLUMN - 2 && col + 1 + (int)n > LINE_WIDTH) {
            fputc('\n', f);
            col = 0;
        }
        if (col < TEXT_COLUMN) {
            col += fprintf(f, "%*s", TEXT_COLUMN - col, "");
        } else {
            fputc(' ', f);
            ++col;
        }
        col += (int)fwrite(w, 1, n, f);
        w += n;
    }
    fputc('\n', f);
}

int cli_usage(FILE *f)
{
    errno = 0;
    for (size_t i = 0; i < sizeof usage_text / sizeof usage_text[0]; ++i) {
        if (fputs(usage_text[i], f) == EOF)
            break;
        if (i == TABLES_AFTER)
            write_entry(f, "--strategy S", strategy_help());
        for (size_t k = 0; i == TABLES_AFTER && k < KNOB_COUNT; ++k)
            fputs(knob_table[k].help, f);
        if (i == ENVIRONMENT_AFTER)
            env_usage(f);
    }
    if (ferror(f) || fflush(f) != 0) {
        histo_error("cannot write the usage text: %s",
                    errno != 0 ? strerror(errno) : "write error");
        return HISTO_EXIT_OUTPUT;
    }
    return HISTO_OK;
}

/* The kernels folder when neither --kernels nor $HISTO_KERNEL_DIR names
 * one. A histo installed as PREFIX/bin/histo reads PREFIX/share/histo/
 * kernels, PREFIX found from the executable's path (/proc/self/exe), so
 * an installation works wherever it is moved. The executable the build
 * wrote reads its source tree's kernels/ even when that tree lies in a
 * prefix with installed kernels (a tree in ~/histo, installed to ~), so
 * that it never runs older kernels than its tree's. The tree's folder is
 * also the answer where the executable's path is unknown (no /proc) or
 * its prefix has no kernels (a copy of histo put somewhere by hand). */
static const char *default_kernel_dir(void)
{
    static char installed[4096];
    char exe[4096];
    struct stat self, built, dir;
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe);
    if (n <= 0 || (size_t)n >= sizeof exe
        || stat("/proc/self/exe", &self) != 0)
        return HISTO_KERNEL_DIR;
    exe[n] = '\0';
    /* the same file, however its path is spelled */
    if (stat(HISTO_BUILT_EXE, &built) == 0 && built.st_dev == self.st_dev
        && built.st_ino == self.st_ino)
        return HISTO_KERNEL_DIR;
    char *bin_end = strrchr(exe, '/');
    if (bin_end == NULL)
        return HISTO_KERNEL_DIR;
    *bin_end = '\0';
    char *prefix_end = strrchr(exe, '/');
    if (prefix_end == NULL)
        return HISTO_KERNEL_DIR;
    *prefix_end = '\0';
    const int len = snprintf(installed, sizeof installed, "%s%s", exe,
                             INSTALLED_KERNELS);
    if (len < 0 || (size_t)len >= sizeof installed
        || stat(installed, &dir) != 0 || !S_ISDIR(dir.st_mode))
        return HISTO_KERNEL_DIR;
    return installed;
}

/* Whole-string unsigned decimal in [min, max]; no sign, no spaces. */
static int parse_count(const char *what, const char *text, unsigned long min,
                       unsigned long max, unsigned long *out)
{
    char *end = NULL;
    if (!isdigit((unsigned char)text[0])) {
        histo_error("%s must be a whole number from %lu to %lu, not '%s'",
                    what, min, max, text);
        return HISTO_EXIT_USAGE;
    }
    errno = 0;
    const unsigned long v = strtoul(text, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < min || v > max) {
        histo_error("%s must be a whole number from %lu to %lu, not '%s'",
                    what, min, max, text);
        return HISTO_EXIT_USAGE;
    }
    *out = v;
    return HISTO_OK;
}

/* A byte count: a whole number with an optional K, M, G or T (powers of
 * 1024), from 1 byte to 2^60. */
static int parse_bytes(const char *what, const char *text, uint64_t *out)
{
    char digits[32];
    const char *given = text;
    const size_t len = strlen(text);
    unsigned shift = 0;
    const char *units = "KMGT", *u;
    if (len > 0 && len < sizeof digits
        && (u = strchr(units, text[len - 1])) != NULL) {
        shift = 10 * (unsigned)(u - units + 1);
        memcpy(digits, text, len - 1);
        digits[len - 1] = '\0';
        text = digits;
    }
    unsigned long v;
    char *end = NULL;
    errno = 0;
    if (!isdigit((unsigned char)text[0])
        || (v = strtoul(text, &end, 10), *end != '\0') || errno == ERANGE
        || v < 1 || v > (1ul << 60) >> shift) {
        histo_error("%s must be a number of bytes from 1 to 2^60, digits "
                    "with an optional K, M, G or T (powers of 1024), not "
                    "'%s'", what, given);
        return HISTO_EXIT_USAGE;
    }
    *out = (uint64_t)v << shift;
    return HISTO_OK;
}

/* Value of option argv[*i] (next word); advances *i. */
static const char *option_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc || argv[*i + 1][0] == '\0') {
        histo_error("option %s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

/* An option that sets one field of struct histo_options. */
struct field_option {
    const char *name;
    size_t offset;
};

/* Options without a value: the flag each sets. --help, -h and --version
 * end the parsing (cli_parse). */
static const struct field_option flags[] = {
    {"--list", offsetof(struct histo_options, list)},
    {"--tune", offsetof(struct histo_options, tune)},
    {"--no-tune-cache", offsetof(struct histo_options, no_tune_cache)},
    {"--no-check", offsetof(struct histo_options, no_check)},
    {"--no-bmp", offsetof(struct histo_options, no_bmp)},
    {"--keep-wrong", offsetof(struct histo_options, keep_wrong)},
};

/* Options whose value is kept as given: the field each sets. */
static const struct field_option paths[] = {
    {"-i", offsetof(struct histo_options, input)},
    {"-o", offsetof(struct histo_options, output)},
    {"--timing", offsetof(struct histo_options, timing)},
    {"--raw", offsetof(struct histo_options, raw)},
    {"--platform", offsetof(struct histo_options, platform)},
    {"--device", offsetof(struct histo_options, device)},
    {"--kernels", offsetof(struct histo_options, kernel_dir)},
};

#define COUNT_OF(a) (sizeof (a) / sizeof (a)[0])

/* The entry of `table` named `arg`, or NULL. */
static const struct field_option *find_option(const struct field_option *table,
                                              size_t n, const char *arg)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(arg, table[i].name) == 0)
            return &table[i];
    return NULL;
}

/* The defaults the environment gives (cli.h). */
static void from_environment(struct histo_options *opt)
{
    const char *env = env_value(ENV_HISTO_PLATFORM);
    if (env != NULL)
        opt->platform = env;
    if ((env = env_value(ENV_HISTO_DEVICE)) != NULL)
        opt->device = env;
    env = env_value(ENV_HISTO_KERNEL_DIR);
    opt->kernel_dir = env != NULL ? env : default_kernel_dir();
    env = env_value(ENV_HISTO_NO_TUNE_CACHE);
    if (env != NULL && strcmp(env, "0") != 0)
        opt->no_tune_cache = true;
}

static int parse_strategy(const char *v, struct histo_options *opt)
{
    const int status = strategy_name_check(v);
    if (status == HISTO_OK)
        opt->strategy = strcmp(v, "auto") == 0 ? NULL : v;
    return status;
}

/* "--name=value": the name into buf (NUL-terminated) and the value's
 * start; NULL for any other word, or a name too long to be an option. */
static const char *split_inline(const char *word, char *buf, size_t len)
{
    const char *eq = strncmp(word, "--", 2) == 0 ? strchr(word, '=') : NULL;
    if (eq == NULL || (size_t)(eq - word) >= len)
        return NULL;
    memcpy(buf, word, (size_t)(eq - word));
    buf[eq - word] = '\0';
    return eq + 1;
}

/* The option argv[*i] that takes a value: the next word (*i advanced),
 * or, spelt "--name=value", the rest of this one. Returns 1 when arg is
 * none of those, else 0 or HISTO_EXIT_USAGE. */
static int parse_valued(int argc, char **argv, int *i,
                        struct histo_options *opt)
{
    char name[32];
    const char *inline_value = split_inline(argv[*i], name, sizeof name);
    const char *arg = inline_value != NULL ? name : argv[*i];
    const struct knob *knob = knob_by_option(arg);
    const struct field_option *path = find_option(paths, COUNT_OF(paths),
                                                  arg);
    const bool budget = strcmp(arg, "--device-budget") == 0;
    const bool chunk = strcmp(arg, "--chunk-values") == 0;
    const bool strategy = strcmp(arg, "--strategy") == 0;
    if (knob == NULL && path == NULL && !budget && !chunk && !strategy)
        return 1;
    const char *v = inline_value;
    if (v != NULL && *v == '\0') {
        histo_error("option %s needs a value", arg);
        return HISTO_EXIT_USAGE;
    }
    if (v == NULL && (v = option_value(argc, argv, i)) == NULL)
        return HISTO_EXIT_USAGE;
    unsigned long n;
    if (knob != NULL) {
        if (parse_count(arg, v, 1, knob->max, &n) != HISTO_OK)
            return HISTO_EXIT_USAGE;
        opt->knobs.v[knob - knob_table] = (unsigned)n;
    } else if (path != NULL) {
        *(const char **)((char *)opt + path->offset) = v;
    } else if (budget) {
        return parse_bytes(arg, v, &opt->device_budget);
    } else if (chunk) {
        if (parse_count(arg, v, 1, CLI_MAX_CHUNK_VALUES, &n) != HISTO_OK)
            return HISTO_EXIT_USAGE;
        opt->chunk_values = n;
    } else {
        return parse_strategy(v, opt);
    }
    return HISTO_OK;
}

/* What the options say together, once all are read. */
static int check_together(const struct histo_options *opt,
                          const char *iterations, unsigned long *count)
{
    if (opt->no_bmp && opt->output != NULL) {
        histo_error("--no-bmp writes no BMP: give no -o with it");
        return HISTO_EXIT_USAGE;
    }
    if (opt->no_bmp && opt->raw == NULL)
        fprintf(stderr, "histo: note: --no-bmp without --raw writes no "
                        "counters: the check and %s alone say what was "
                        "counted\n", opt->timing);
    if (opt->input == NULL || (opt->output == NULL && !opt->no_bmp)) {
        histo_error("missing %s (usage: histo -i INPUT -o OUTPUT.bmp -- "
                    "ITERATIONS)", opt->input == NULL ? "-i INPUT"
                                                      : "-o OUTPUT.bmp");
        return HISTO_EXIT_USAGE;
    }
    for (size_t k = 0; opt->tune && k < KNOB_COUNT; ++k)
        if (opt->knobs.v[k] != 0) {
            histo_error("--tune chooses %s itself (as every knob): give "
                        "none of them", knob_table[k].option);
            return HISTO_EXIT_USAGE;
        }
    if (opt->no_check && opt->keep_wrong) {
        histo_error("--keep-wrong keeps the outputs of a failed check; with"
                    " --no-check there is none");
        return HISTO_EXIT_USAGE;
    }
    if (iterations == NULL) {
        histo_error("missing the iteration count (usage: histo -i INPUT -o "
                    "OUTPUT.bmp -- ITERATIONS)");
        return HISTO_EXIT_USAGE;
    }
    return parse_count("the iteration count", iterations, 1,
                       CLI_MAX_ITERATIONS, count);
}

int cli_parse(int argc, char **argv, struct histo_options *opt)
{
    *opt = defaults;
    from_environment(opt);
    const char *iterations = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            if (i + 1 < argc)
                iterations = argv[i + 1];
            break; /* Parboil passes further words; they are ignored */
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            opt->help = true;
            return HISTO_OK;
        }
        if (strcmp(arg, "--version") == 0) {
            opt->version = true;
            return HISTO_OK;
        }
        if (strcmp(arg, "--list-strategies") == 0) {
            opt->list_strategies = true;
            return HISTO_OK;
        }
        const struct field_option *flag = find_option(flags, COUNT_OF(flags),
                                                      arg);
        if (flag != NULL) {
            *(bool *)((char *)opt + flag->offset) = true;
            continue;
        }
        const int st = parse_valued(argc, argv, &i, opt);
        if (st == HISTO_OK)
            continue;
        if (st != 1)
            return st;
        if (arg[0] == '-' && arg[1] != '\0') {
            char name[32];
            if (split_inline(arg, name, sizeof name) != NULL
                && (find_option(flags, COUNT_OF(flags), name) != NULL
                    || strcmp(name, "--help") == 0
                    || strcmp(name, "--version") == 0
                    || strcmp(name, "--list-strategies") == 0))
                histo_error("option %s takes no value ('%s')", name, arg);
            else
                histo_error("unknown option '%s'", arg);
            return HISTO_EXIT_USAGE;
        }
        if (iterations != NULL) {
            histo_error("unexpected argument '%s' before '--'", arg);
            return HISTO_EXIT_USAGE;
        }
        iterations = arg; /* tolerated without the "--" */
    }
    if (opt->list)
        return HISTO_OK;
    return check_together(opt, iterations, &opt->iterations);
}
