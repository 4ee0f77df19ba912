/* outfile.c - safe output files and their cleanup (see outfile.h). */
/* realpath is XSI. */
#define _XOPEN_SOURCE 700
#include "outfile.h"

#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- cleanup on failure and on signals ---- */

/* A run writes at most a BMP, a report and the tune cache. */
#define SLOTS 8

enum slot_state {
    SLOT_FREE,
    SLOT_WRITING,   /* tmp being written: remove it on a signal       */
    SLOT_READY,     /* tmp complete, waiting for outfile_publish_all  */
    SLOT_PUBLISHED  /* renamed to final by this run: remove final     */
};

/* Read by the signal handler: each path is set before its state says it
 * may be used, and freed only after the state went back to SLOT_FREE. */
static struct {
    volatile sig_atomic_t state;
    char *tmp;
    char *final;
} slots[SLOTS];

/* Whether commits wait for outfile_publish_all (see outfile_defer). */
static bool deferring;

/* Set once outfile_publish_all has renamed every output into place: a
 * signal after that keeps them, and says so. */
static volatile sig_atomic_t committed;

static int slot_take(char *tmp, char *final)
{
    for (int i = 0; i < SLOTS; ++i)
        if (slots[i].state == SLOT_FREE) {
            slots[i].tmp = tmp;
            slots[i].final = final;
            slots[i].state = SLOT_WRITING;
            return i;
        }
    return -1;
}

static void slot_release(int i)
{
    slots[i].state = SLOT_FREE;
    free(slots[i].tmp);
    free(slots[i].final);
    slots[i].tmp = NULL;
    slots[i].final = NULL;
}

/* Async-signal-safe: unlink only. Returns how many files it removed. */
static int remove_registered(void)
{
    int removed = 0;
    for (int i = 0; i < SLOTS; ++i) {
        if (slots[i].state == SLOT_WRITING || slots[i].state == SLOT_READY)
            removed += unlink(slots[i].tmp) == 0;
        else if (slots[i].state == SLOT_PUBLISHED && !committed)
            removed += unlink(slots[i].final) == 0;
    }
    return removed;
}

/* Renames slot i's temporary file into place. Published before the
 * rename: a signal in between removes whichever of the names exists. */
static int publish(int i, const char *what)
{
    /* Something other than a regular file put there since the run
     * started is not replaced. */
    struct stat st;
    if (lstat(slots[i].final, &st) == 0 && !S_ISREG(st.st_mode)) {
        histo_error("cannot write output '%s': it became something other "
                    "than a regular file during the run", what);
        return HISTO_EXIT_OUTPUT;
    }
    slots[i].state = SLOT_PUBLISHED;
    if (rename(slots[i].tmp, slots[i].final) != 0) {
        const int err = errno;
        slots[i].state = SLOT_READY;
        histo_error("cannot rename '%s' to '%s': %s", slots[i].tmp,
                    slots[i].final, strerror(err));
        return HISTO_EXIT_OUTPUT;
    }
    return HISTO_OK;
}

void outfile_defer(void)
{
    deferring = true;
}

int outfile_publish_all(void)
{
    for (int i = 0; i < SLOTS; ++i)
        if (slots[i].state == SLOT_READY
            && publish(i, slots[i].final) != HISTO_OK) {
            outfile_discard_all();
            return HISTO_EXIT_OUTPUT;
        }
    committed = 1;
    for (int i = 0; i < SLOTS; ++i)
        if (slots[i].state == SLOT_PUBLISHED)
            slot_release(i);
    return HISTO_OK;
}

void outfile_discard_all(void)
{
    for (int i = 0; i < SLOTS; ++i) {
        if (slots[i].state == SLOT_READY)
            (void)unlink(slots[i].tmp);
        else if (slots[i].state == SLOT_PUBLISHED)
            (void)unlink(slots[i].final);
        else
            continue;
        slot_release(i);
    }
}

static void put_str(const char *s)
{
    (void)!write(STDERR_FILENO, s, strlen(s));
}

static void on_signal(int sig)
{
    const int removed = remove_registered();
    put_str(sig == SIGINT    ? "histo: interrupted (SIGINT)"
            : sig == SIGTERM ? "histo: terminated (SIGTERM)"
                             : "histo: hung up (SIGHUP)");
    put_str(removed > 0 ? "; unfinished outputs removed\n"
            : committed ? " after its outputs were complete: they are kept\n"
                        : "; no output was written\n");
    /* End by the same signal, so the parent sees how histo ended: blocked
     * while the handler runs, it takes its default action as it returns. */
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Whether outfile_handle_signals has run: histo's handlers are the
 * process's. */
static bool asked;

void outfile_handle_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    enum { NSIGS = sizeof sigs / sizeof sigs[0] };
    /* A signal ignored at start stays ignored (nohup, background jobs of
     * a non-interactive shell): the first call decides, and a later one
     * ignores it again where a library has since put a handler in place.
     * While the runtime compiles, its LLVM may hold such a handler, which
     * deletes the compiler's temporary files and re-raises the signal
     * into the ignored disposition: the build then fails ("unable to
     * rename temporary ... kcache"). So the first call also blocks the
     * ignored signals, before any runtime thread exists (each inherits
     * the mask): they are never delivered to anyone's handler, and
     * setting SIG_IGN again discards them. */
    static bool ignored[NSIGS];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSIGS; ++i)
        sigaddset(&sa.sa_mask, sigs[i]);
    for (size_t i = 0; i < NSIGS; ++i) {
        struct sigaction old;
        if (!asked)
            ignored[i] = sigaction(sigs[i], NULL, &old) == 0
                      && old.sa_handler == SIG_IGN;
        if (!ignored[i])
            (void)sigaction(sigs[i], &sa, NULL);
        else if (asked)
            (void)signal(sigs[i], SIG_IGN);
    }
    if (!asked) {
        sigset_t block;
        sigemptyset(&block);
        for (size_t i = 0; i < NSIGS; ++i)
            if (ignored[i])
                sigaddset(&block, sigs[i]);
        (void)sigprocmask(SIG_BLOCK, &block, NULL);
    }
    asked = true;
    signal(SIGPIPE, SIG_IGN);
}

void outfile_restore_signals(void)
{
    if (asked)
        outfile_handle_signals();
}

/* ---- paths ---- */

static char *dup_str(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

/* dir + "/" + name (name alone when dir is empty). */
static char *join(const char *dir, size_t dir_len, const char *name)
{
    const size_t n = strlen(name);
    char *p = malloc(dir_len + 1 + n + 1);
    if (p == NULL)
        return NULL;
    memcpy(p, dir, dir_len);
    size_t at = dir_len;
    if (dir_len > 0 && dir[dir_len - 1] != '/')
        p[at++] = '/';
    memcpy(p + at, name, n + 1);
    return p;
}

/* Length of the folder part of path ("" for a bare name, "/" kept). */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return 0;
    return slash == path ? 1 : (size_t)(slash - path);
}

char *outfile_resolve(const char *path)
{
    char *p = dup_str(path);
    if (p == NULL)
        return NULL;
    for (int hops = 0;; ++hops) {
        struct stat st;
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
            break;
        if (hops == 40) {
            free(p);
            errno = ELOOP;
            return NULL;
        }
        char link[PATH_MAX];
        const ssize_t n = readlink(p, link, sizeof link - 1);
        if (n < 0) {
            free(p);
            return NULL;
        }
        link[n] = '\0';
        char *next = link[0] == '/' ? dup_str(link)
                                    : join(p, dir_len(p), link);
        free(p);
        if ((p = next) == NULL)
            return NULL;
    }
    /* Canonical folder: two spellings of one file compare equal. */
    const size_t dl = dir_len(p);
    char dir[PATH_MAX];
    if (dl < sizeof dir) {
        memcpy(dir, p, dl);
        dir[dl] = '\0';
        char real[PATH_MAX];
        if (realpath(dl == 0 ? "." : dir, real) != NULL) {
            char *full = join(real, strlen(real), p + dl + (dl > 0 && p[dl] == '/'));
            free(p);
            return full;
        }
    }
    return p;
}

/* ---- preparing, writing, committing ---- */

/* 1 or 2 when path is "-" or names the file standard output or standard
 * error already writes to (/dev/stdout, or the file a shell redirected it
 * to), else -1. Such a file is written in place through that stream: it
 * is the caller's, opened and positioned by them. */
static int std_stream(const char *path)
{
    if (strcmp(path, "-") == 0)
        return STDOUT_FILENO;
    struct stat p, s;
    if (stat(path, &p) != 0)
        return -1;
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; ++fd)
        if (fstat(fd, &s) == 0 && s.st_dev == p.st_dev
            && s.st_ino == p.st_ino)
            return fd;
    return -1;
}

static int refuse_kind(const char *path, mode_t mode)
{
    histo_error("cannot write output '%s': %s", path,
                S_ISDIR(mode) ? "is a directory"
                : S_ISBLK(mode) ? "is a block device (histo writes regular "
                                  "files, character devices, FIFOs and "
                                  "sockets only)"
                                : "is not a file histo can write");
    return HISTO_EXIT_OUTPUT;
}

/* What is written in place: devices, FIFOs, sockets. */
static bool in_place(mode_t mode)
{
    return S_ISCHR(mode) || S_ISFIFO(mode) || S_ISSOCK(mode);
}

/* Proves now that path's temporary file can be made (the folder exists
 * and is writable): the run's work is not spent on an output it cannot
 * write. The probe's file is removed at once. */
static int prove_creatable(const char *path)
{
    struct outfile probe;
    const int status = outfile_open(&probe, path);
    if (status == HISTO_OK)
        outfile_abort(&probe);
    return status;
}

int outfile_prepare(const char *path)
{
    struct stat st;
    if (std_stream(path) >= 0)
        return HISTO_OK;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return prove_creatable(path);
        histo_error("cannot write output '%s': %s", path, strerror(errno));
        return HISTO_EXIT_OUTPUT;
    }
    if (in_place(st.st_mode))
        return HISTO_OK;
    if (!S_ISREG(st.st_mode))
        return refuse_kind(path, st.st_mode);
    char *target = outfile_resolve(path);
    if (target == NULL || (unlink(target) != 0 && errno != ENOENT)) {
        histo_error("cannot remove the previous output '%s': %s", path,
                    strerror(errno));
        free(target);
        return HISTO_EXIT_OUTPUT;
    }
    free(target);
    return prove_creatable(path);
}

/* out->f on the open descriptor fd (closed on failure). */
static int stream_on(struct outfile *out, int fd)
{
    if ((out->f = fdopen(fd, "wb")) == NULL) {
        histo_error("cannot write output '%s': %s", out->path,
                    strerror(errno));
        close(fd);
        return HISTO_EXIT_OUTPUT;
    }
    return HISTO_OK;
}

/* Opens the device, FIFO or socket at path (or standard output). */
static int open_in_place(struct outfile *out)
{
    int fd = std_stream(out->path);
    if (fd >= 0) {
        fflush(fd == STDOUT_FILENO ? stdout : stderr);
        fd = dup(fd);
    } else {
        fd = open(out->path, O_WRONLY | O_NOCTTY);
    }
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        histo_error("cannot open output '%s': %s", out->path,
                    errno == ENXIO ? "a socket or a FIFO nothing reads"
                                   : strerror(errno));
        if (fd >= 0)
            close(fd);
        return HISTO_EXIT_OUTPUT;
    }
    if (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)) {
        close(fd);
        return refuse_kind(out->path, st.st_mode);
    }
    return stream_on(out, fd);
}

/* Creates the temporary file ".NAME.tmp.XXXXXX" beside out->target. */
static int open_temporary(struct outfile *out)
{
    static const char prefix[] = ".", suffix[] = ".tmp.XXXXXX";
    const char *t = out->target;
    const size_t dl = dir_len(t);
    const char *name = t + dl + (dl > 0 && t[dl] == '/');
    const size_t nl = strlen(name);
    char *tmp = malloc(dl + 1 + sizeof prefix + nl + sizeof suffix);
    if (tmp == NULL) {
        histo_error("out of host memory opening '%s'", out->path);
        return HISTO_EXIT_OUTPUT;
    }
    size_t at = dl;
    memcpy(tmp, t, dl);
    if (dl > 0 && t[dl - 1] != '/')
        tmp[at++] = '/';
    memcpy(tmp + at, prefix, sizeof prefix - 1);
    at += sizeof prefix - 1;
    memcpy(tmp + at, name, nl);
    memcpy(tmp + at + nl, suffix, sizeof suffix);

    char *final = dup_str(t);
    const int fd = final == NULL ? -1 : mkstemp(tmp);
    if (fd < 0) {
        histo_error("cannot create output '%s': %s", out->path,
                    final == NULL ? "out of host memory" : strerror(errno));
        free(tmp);
        free(final);
        return HISTO_EXIT_OUTPUT;
    }
    /* From here on a failure or a signal removes it. */
    if ((out->slot = slot_take(tmp, final)) < 0) {
        histo_error("cannot create output '%s': too many outputs",
                    out->path);
        (void)unlink(tmp);
        close(fd);
        free(tmp);
        free(final);
        return HISTO_EXIT_OUTPUT;
    }
    out->tmp_path = tmp;
    /* mkstemp creates 0600; outputs are ordinary files. */
    const mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    return stream_on(out, fd);
}

int outfile_open(struct outfile *out, const char *path)
{
    memset(out, 0, sizeof *out);
    out->slot = -1;
    if ((out->path = dup_str(path)) == NULL) {
        histo_error("out of host memory opening '%s'", path);
        return HISTO_EXIT_OUTPUT;
    }
    struct stat st;
    int status;
    const bool exists = stat(path, &st) == 0;
    if (std_stream(path) >= 0 || (exists && in_place(st.st_mode))) {
        status = open_in_place(out);
    } else if (exists && !S_ISREG(st.st_mode)) {
        status = refuse_kind(path, st.st_mode);
    } else if ((out->target = outfile_resolve(path)) == NULL) {
        histo_error("cannot create output '%s': %s", path, strerror(errno));
        status = HISTO_EXIT_OUTPUT;
    } else {
        status = open_temporary(out);
    }
    if (status != HISTO_OK)
        outfile_abort(out);
    return status;
}

int outfile_open_text(struct outfile *out, const char *path)
{
    const int status = outfile_open(out, path);
    if (status != HISTO_OK)
        return status;
    out->sink = out->f;
    if ((out->f = open_memstream(&out->text, &out->text_len)) == NULL) {
        histo_error("out of host memory writing '%s'", path);
        outfile_abort(out);
        return HISTO_EXIT_OUTPUT;
    }
    return HISTO_OK;
}

/* outfile_open_text's commit: the gathered text goes to the sink in one
 * write, whose errno is kept. Returns false when out of memory. */
static bool flush_text(struct outfile *out)
{
    const bool gathered = fclose(out->f) == 0;
    out->f = out->sink;
    out->sink = NULL;
    if (gathered && out->text_len > 0
        && fwrite(out->text, 1, out->text_len, out->f) != out->text_len)
        out->err = errno;
    free(out->text);
    out->text = NULL;
    return gathered;
}

int outfile_commit(struct outfile *out)
{
    if (out->sink != NULL && !flush_text(out)) {
        histo_error("out of host memory writing '%s'", out->path);
        outfile_abort(out);
        return HISTO_EXIT_OUTPUT;
    }
    const int write_failed = ferror(out->f);
    int err = out->err;
    if (fflush(out->f) != 0)
        err = errno;
    if (fclose(out->f) != 0 && err == 0)
        err = errno;
    out->f = NULL;
    if (write_failed || err != 0) {
        histo_error("cannot write output '%s': %s", out->path,
                    err != 0 ? strerror(err) : "write error");
        outfile_abort(out);
        return HISTO_EXIT_OUTPUT;
    }
    if (out->tmp_path != NULL) {
        const int i = out->slot;
        if (deferring && !out->shared) {
            slots[i].state = SLOT_READY; /* the slot lives on */
        } else if (publish(i, out->path) != HISTO_OK) {
            outfile_abort(out);
            return HISTO_EXIT_OUTPUT;
        } else {
            slot_release(i);
        }
        out->tmp_path = NULL;
        out->slot = -1;
    }
    outfile_abort(out);
    return HISTO_OK;
}

void outfile_abort(struct outfile *out)
{
    if (out->f != NULL)
        fclose(out->f);
    if (out->sink != NULL)
        fclose(out->sink);
    free(out->text);
    if (out->slot >= 0) {
        (void)unlink(slots[out->slot].tmp);
        slot_release(out->slot);
    }
    free(out->target);
    free(out->path);
    memset(out, 0, sizeof *out);
    out->slot = -1;
}

int outfile_lock(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return -1;
    char *target = outfile_resolve(path);
    if (target == NULL)
        return -1;
    const size_t n = strlen(target);
    char *name = realloc(target, n + sizeof ".lock");
    if (name == NULL) {
        free(target);
        return -1;
    }
    memcpy(name + n, ".lock", sizeof ".lock");
    const int fd = open(name, O_RDWR | O_CREAT, 0666);
    free(name);
    if (fd < 0)
        return -1;
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    while (fcntl(fd, F_SETLKW, &fl) != 0) {
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

void outfile_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing releases the lock */
}

bool outfile_is_stdout(const char *path)
{
    return path != NULL && std_stream(path) == STDOUT_FILENO;
}
