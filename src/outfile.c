/* outfile.c - temporary file + rename (see outfile.h). */
#include "outfile.h"

#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int outfile_open(struct outfile *out, const char *path)
{
    memset(out, 0, sizeof *out);
    const size_t len = strlen(path);
    static const char suffix[] = ".tmpXXXXXX";
    out->path = malloc(len + 1);
    out->tmp_path = malloc(len + sizeof suffix);
    if (out->path == NULL || out->tmp_path == NULL) {
        histo_error("out of host memory opening '%s'", path);
        outfile_abort(out);
        return HISTO_EXIT_OUTPUT;
    }
    memcpy(out->path, path, len + 1);
    memcpy(out->tmp_path, path, len);
    memcpy(out->tmp_path + len, suffix, sizeof suffix);

    const int fd = mkstemp(out->tmp_path);
    if (fd < 0) {
        histo_error("cannot create output '%s': %s", path, strerror(errno));
        free(out->tmp_path);
        out->tmp_path = NULL;
        outfile_abort(out);
        return HISTO_EXIT_OUTPUT;
    }
    /* mkstemp creates 0600; outputs are ordinary files. */
    const mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    out->f = fdopen(fd, "wb");
    if (out->f == NULL) {
        histo_error("cannot write output '%s': %s", path, strerror(errno));
        close(fd);
        outfile_abort(out);
        return HISTO_EXIT_OUTPUT;
    }
    return HISTO_OK;
}

int outfile_commit(struct outfile *out)
{
    const int write_failed = ferror(out->f);
    const int close_failed = fclose(out->f);
    out->f = NULL;
    if (write_failed || close_failed) {
        histo_error("cannot write output '%s': %s", out->path,
                    close_failed ? strerror(errno) : "write error");
        outfile_abort(out);
        return HISTO_EXIT_OUTPUT;
    }
    if (rename(out->tmp_path, out->path) != 0) {
        histo_error("cannot rename '%s' to '%s': %s", out->tmp_path,
                    out->path, strerror(errno));
        outfile_abort(out);
        return HISTO_EXIT_OUTPUT;
    }
    free(out->tmp_path);
    out->tmp_path = NULL;
    outfile_abort(out);
    return HISTO_OK;
}

void outfile_abort(struct outfile *out)
{
    if (out->f != NULL)
        fclose(out->f);
    if (out->tmp_path != NULL)
        remove(out->tmp_path);
    free(out->tmp_path);
    free(out->path);
    memset(out, 0, sizeof *out);
}

int outfile_remove_stale(const char *path)
{
    if (remove(path) == 0 || errno == ENOENT)
        return HISTO_OK;
    histo_error("cannot remove the previous output '%s': %s", path,
                strerror(errno));
    return HISTO_EXIT_OUTPUT;
}
