/* The stat of every catalogued file, compiled: the freshness proof of a store being opened (issue 34).

   A restart (and a cold CLI call) must prove each stored file unchanged: one lstat per file, 78,000 on
   the Linux tree. In Python the loop cost ~0.25 CPU-s and held the interpreter lock, so it ran in a second
   interpreter (sleuth.engine.index.stat_pass). Here it runs with the lock released, in a thread beside the
   open: the kernel's lstat is most of what is left, so each file is stated from its folder (fstatat) and
   the files are split over two threads. Same answer as stat_pass's child: the positions of the
   files no longer regular files (-(i + 1)) and of those whose size or time moved or that were never
   indexed (i + 1). POSIX only (setup.py leaves it out elsewhere; the child runs there). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __APPLE__
#define MTIME_NS(st) ((int64_t)(st).st_mtimespec.tv_sec * 1000000000LL + (st).st_mtimespec.tv_nsec)
#define CTIME_NS(st) ((int64_t)(st).st_ctimespec.tv_sec * 1000000000LL + (st).st_ctimespec.tv_nsec)
#else
#define MTIME_NS(st) ((int64_t)(st).st_mtim.tv_sec * 1000000000LL + (st).st_mtim.tv_nsec)
#define CTIME_NS(st) ((int64_t)(st).st_ctim.tv_sec * 1000000000LL + (st).st_ctim.tv_nsec)
#endif
#ifndef O_PATH
#define O_PATH O_RDONLY
#endif

#define PARTS 2 /* threads: the machines this is measured on have two cores, and a third gained nothing */

/* One thread's share: paths [lo, hi) of the NUL-joined names, each starting at starts[i]. */
typedef struct {
    const char *names;
    const Py_ssize_t *starts;
    const int64_t *size, *mtime, *first;
    int64_t slack;
    Py_ssize_t lo, hi, k;
    int64_t *found;
} Part;

/* Each file is stated relative to its folder, opened once for the files that follow in it (the
   catalogue lists a folder's files together): an lstat of an absolute path walks every component
   again (the Linux tree's paths are ~9 deep here), an fstatat walks one. Same answer as lstat: the
   folder is opened following links, as lstat follows links in the path's folders. */
static void *stat_part(void *arg) {
    Part *p = arg;
    char folder[4096];
    size_t folder_len = (size_t)-1;
    int dirfd = -1;
    for (Py_ssize_t i = p->lo; i < p->hi; i++) {
        const char *path = p->names + p->starts[i];
        const char *slash = strrchr(path, '/');
        struct stat st;
        int failed;
        if (slash == NULL || slash == path || (size_t)(slash - path) >= sizeof(folder)) {
            failed = lstat(path, &st) != 0;
        } else {
            size_t len = (size_t)(slash - path);
            if (len != folder_len || memcmp(folder, path, len) != 0) {
                if (dirfd >= 0) close(dirfd);
                memcpy(folder, path, len);
                folder[len] = '\0';
                folder_len = len;
                dirfd = open(folder, O_PATH | O_DIRECTORY | O_CLOEXEC);
            }
            failed = dirfd >= 0 ? fstatat(dirfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) != 0 : lstat(path, &st) != 0;
        }
        if (failed || !S_ISREG(st.st_mode)) {
            p->found[p->k++] = -(int64_t)(i + 1);
        } else {
            int64_t moved = MTIME_NS(st) - p->mtime[i];
            if ((int64_t)st.st_size != p->size[i] || moved > p->slack || -moved > p->slack || p->first[i] < 0)
                p->found[p->k++] = (int64_t)(i + 1);
        }
    }
    if (dirfd >= 0) close(dirfd);
    return NULL;
}

/* The folder of NUL-joined path i as rpartition('/')[0] or "/" gives it: its length (0 stands for "/"). */
/* values[0..n) as Python ints into list slots [at, at + n); -1 (an exception set) when one cannot be made. */
static int set_numbers(PyObject *list, Py_ssize_t at, const int64_t *values, Py_ssize_t n) {
    for (Py_ssize_t m = 0; m < n; m++) {
        PyObject *number = PyLong_FromLongLong(values[m]);
        if (number == NULL) return -1;
        PyList_SET_ITEM(list, at + m, number);
    }
    return 0;
}

static Py_ssize_t folder_len(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash == NULL ? 0 : (Py_ssize_t)(slash - path);
}

/* Splits a NUL-joined blob of n paths into C strings (a copy ended by one more NUL); NULL and an
   exception when there are not n of them. */
static char *split_paths(const Py_buffer *paths, Py_ssize_t n, Py_ssize_t **starts_out) {
    char *names = malloc((size_t)paths->len + 1);
    Py_ssize_t *starts = malloc(((size_t)n + 1) * sizeof(Py_ssize_t));
    if (names == NULL || starts == NULL) {
        free(names);
        free(starts);
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(names, paths->buf, (size_t)paths->len);
    names[paths->len] = '\0';
    Py_ssize_t i = 0;
    const char *at = names, *end = names + paths->len;
    for (; i < n && at <= end; i++) {
        starts[i] = at - names;
        at += strlen(at) + 1;
    }
    if (i != n || (n > 0 && at != end + 1)) {
        free(names);
        free(starts);
        PyErr_SetString(PyExc_ValueError, "another number of paths than expected");
        return NULL;
    }
    *starts_out = starts;
    return names;
}

static PyObject *stat_changed(PyObject *self, PyObject *args) {
    Py_buffer paths, sizes, mtimes, firsts;
    long long slack;
    if (!PyArg_ParseTuple(args, "y*y*y*y*L", &paths, &sizes, &mtimes, &firsts, &slack)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = sizes.len / 8;
    char *names = NULL;
    int64_t *found = NULL;
    Py_ssize_t *starts = NULL;
    if (sizes.len % 8 || mtimes.len != sizes.len || firsts.len != sizes.len) {
        PyErr_SetString(PyExc_ValueError, "sizes, mtimes and firsts must be int64 arrays of one length");
        goto done;
    }
    names = split_paths(&paths, n, &starts);
    if (names == NULL) goto done;
    found = malloc(((size_t)n + 1) * sizeof(int64_t));
    if (found == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Part parts[PARTS];
    pthread_t threads[PARTS];
    int started[PARTS] = {0};
    for (int t = 0; t < PARTS; t++) {
        parts[t] = (Part){names, starts, sizes.buf, mtimes.buf, firsts.buf, slack, n * t / PARTS, n * (t + 1) / PARTS,
                          0, found + n * t / PARTS};
    }
    Py_BEGIN_ALLOW_THREADS
    for (int t = 1; t < PARTS; t++) started[t] = pthread_create(&threads[t], NULL, stat_part, &parts[t]) == 0;
    stat_part(&parts[0]);
    for (int t = 1; t < PARTS; t++) {
        if (started[t]) pthread_join(threads[t], NULL);
        else stat_part(&parts[t]); /* no thread: this one does the share too */
    }
    Py_END_ALLOW_THREADS
    Py_ssize_t k = 0;
    for (int t = 0; t < PARTS; t++) k += parts[t].k;
    result = PyList_New(k);
    for (int t = 0, j = 0; result != NULL && t < PARTS; j += parts[t].k, t++)
        if (set_numbers(result, j, parts[t].found, parts[t].k) < 0) Py_CLEAR(result);
done:
    free(names);
    free(found);
    free(starts);
    PyBuffer_Release(&paths);
    PyBuffer_Release(&sizes);
    PyBuffer_Release(&mtimes);
    PyBuffer_Release(&firsts);
    return result;
}


/* folder_runs(paths, n): the runs of consecutive paths that share a folder, as (folder, first position):
   what a check of "is each file's folder stamped" needs once a run, not once a file (the catalogue lists a
   folder's files together: ~5,000 runs for the Linux tree's 78,000 files). */
static PyObject *folder_runs(PyObject *self, PyObject *args) {
    Py_buffer paths;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*n", &paths, &n)) return NULL;
    Py_ssize_t *starts = NULL;
    char *names = split_paths(&paths, n, &starts);
    PyObject *result = names == NULL ? NULL : PyList_New(0);
    const char *last = NULL;
    Py_ssize_t last_len = -1;
    for (Py_ssize_t i = 0; result != NULL && i < n; i++) {
        const char *folder = names + starts[i];
        Py_ssize_t len = folder_len(folder);
        if (len == 0) { /* no folder part, or only the root's: "/" */
            folder = "/";
            len = 1;
        }
        if (last != NULL && len == last_len && memcmp(last, folder, (size_t)len) == 0) continue;
        last = folder;
        last_len = len;
        PyObject *run = Py_BuildValue("(y#n)", folder, len, i);
        if (run == NULL || PyList_Append(result, run) != 0) Py_CLEAR(result);
        Py_XDECREF(run);
    }
    free(names);
    free(starts);
    PyBuffer_Release(&paths);
    return result;
}

/* stat_folders(paths, mtimes, ctimes): for n NUL-joined folder paths and their int64 stamped times,
   -(i + 1) where folder i is no longer a folder (lstat: a link is not one), i + 1 where its modification or
   change time moved. The interpreter lock is released meanwhile (~5,000 folders on the Linux tree). */
static PyObject *stat_folders(PyObject *self, PyObject *args) {
    Py_buffer paths, mtimes, ctimes;
    if (!PyArg_ParseTuple(args, "y*y*y*", &paths, &mtimes, &ctimes)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = mtimes.len / 8, k = 0, *starts = NULL;
    char *names = NULL;
    int64_t *found = NULL;
    if (mtimes.len % 8 || ctimes.len != mtimes.len) {
        PyErr_SetString(PyExc_ValueError, "mtimes and ctimes must be int64 arrays of one length");
        goto done;
    }
    names = split_paths(&paths, n, &starts);
    if (names == NULL) goto done;
    found = malloc(((size_t)n + 1) * sizeof(int64_t));
    if (found == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *mtime = mtimes.buf, *ctime = ctimes.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        struct stat st;
        if (lstat(names + starts[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            found[k++] = -(int64_t)(i + 1);
        } else if (MTIME_NS(st) != mtime[i] || CTIME_NS(st) != ctime[i]) {
            found[k++] = (int64_t)(i + 1);
        }
    }
    Py_END_ALLOW_THREADS
    result = PyList_New(k);
    if (result != NULL && set_numbers(result, 0, found, k) < 0) Py_CLEAR(result);
done:
    free(names);
    free(starts);
    free(found);
    PyBuffer_Release(&paths);
    PyBuffer_Release(&mtimes);
    PyBuffer_Release(&ctimes);
    return result;
}

static PyMethodDef methods[] = {
    {"stat_changed", stat_changed, METH_VARARGS,
     "stat_changed(paths, sizes, mtimes, firsts, slack) -> list[int]: for n NUL-joined paths and int64\n"
     "arrays of n, -(i + 1) where path i is no longer a regular file, i + 1 where its size or time\n"
     "(beyond slack ns) moved or first[i] < 0. The interpreter lock is released meanwhile."},
    {"folder_runs", folder_runs, METH_VARARGS,
     "folder_runs(paths, n) -> list[tuple[bytes, int]]: for n NUL-joined paths, each run of consecutive paths\n"
     "with one folder (rpartition('/')[0] or '/') as (folder, position of the run's first path)."},
    {"stat_folders", stat_folders, METH_VARARGS,
     "stat_folders(paths, mtimes, ctimes) -> list[int]: for n NUL-joined folders and int64 arrays of n,\n"
     "-(i + 1) where folder i is no longer a folder, i + 1 where its mtime or ctime (ns) moved. The\n"
     "interpreter lock is released meanwhile."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_stats", NULL, -1, methods};

PyMODINIT_FUNC PyInit__stats(void) { return PyModule_Create(&module); }
