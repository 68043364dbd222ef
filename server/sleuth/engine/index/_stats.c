/* The stat of every catalogued file, compiled: the freshness proof of a store being opened (issue 34).

   A restart (and a cold CLI call) must prove each stored file unchanged: one lstat per file, 78,000 on
   the Linux tree. In Python the loop cost ~0.25 CPU-s and held the interpreter lock, so it ran in a second
   interpreter (sleuth.engine.index.stat_pass). Here it runs with the lock released, in a thread beside the
   open: the kernel's lstat is most of what is left. Same answer as stat_pass's child: the positions of the
   files no longer regular files (-(i + 1)) and of those whose size or time moved or that were never
   indexed (i + 1). POSIX only (setup.py leaves it out elsewhere; the child runs there). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef __APPLE__
#define MTIME_NS(st) ((int64_t)(st).st_mtimespec.tv_sec * 1000000000LL + (st).st_mtimespec.tv_nsec)
#else
#define MTIME_NS(st) ((int64_t)(st).st_mtim.tv_sec * 1000000000LL + (st).st_mtim.tv_nsec)
#endif

static PyObject *stat_changed(PyObject *self, PyObject *args) {
    Py_buffer paths, sizes, mtimes, firsts;
    long long slack;
    if (!PyArg_ParseTuple(args, "y*y*y*y*L", &paths, &sizes, &mtimes, &firsts, &slack)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = sizes.len / 8;
    char *names = NULL;
    int64_t *found = NULL;
    if (sizes.len % 8 || mtimes.len != sizes.len || firsts.len != sizes.len) {
        PyErr_SetString(PyExc_ValueError, "sizes, mtimes and firsts must be int64 arrays of one length");
        goto done;
    }
    names = malloc((size_t)paths.len + 1); /* the NUL-joined paths, ended by one more NUL: n C strings */
    found = malloc(((size_t)n + 1) * sizeof(int64_t));
    if (names == NULL || found == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(names, paths.buf, (size_t)paths.len);
    names[paths.len] = '\0';
    const int64_t *size = sizes.buf, *mtime = mtimes.buf, *first = firsts.buf;
    Py_ssize_t k = 0, i = 0;
    const char *at = names, *end = names + paths.len;
    Py_BEGIN_ALLOW_THREADS
    for (; i < n && at <= end; i++) {
        struct stat st;
        if (lstat(at, &st) != 0 || !S_ISREG(st.st_mode)) {
            found[k++] = -(int64_t)(i + 1);
        } else {
            int64_t moved = MTIME_NS(st) - mtime[i];
            if ((int64_t)st.st_size != size[i] || moved > slack || -moved > slack || first[i] < 0)
                found[k++] = (int64_t)(i + 1);
        }
        at += strlen(at) + 1;
    }
    Py_END_ALLOW_THREADS
    if (i != n || at != end + 1) {
        PyErr_SetString(PyExc_ValueError, "another number of paths than of sizes");
        goto done;
    }
    result = PyList_New(k);
    for (Py_ssize_t j = 0; result != NULL && j < k; j++) {
        PyObject *number = PyLong_FromLongLong(found[j]);
        if (number == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, j, number);
    }
done:
    free(names);
    free(found);
    PyBuffer_Release(&paths);
    PyBuffer_Release(&sizes);
    PyBuffer_Release(&mtimes);
    PyBuffer_Release(&firsts);
    return result;
}

static PyMethodDef methods[] = {
    {"stat_changed", stat_changed, METH_VARARGS,
     "stat_changed(paths, sizes, mtimes, firsts, slack) -> list[int]: for n NUL-joined paths and int64\n"
     "arrays of n, -(i + 1) where path i is no longer a regular file, i + 1 where its size or time\n"
     "(beyond slack ns) moved or first[i] < 0. The interpreter lock is released meanwhile."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_stats", NULL, -1, methods};

PyMODINIT_FUNC PyInit__stats(void) { return PyModule_Create(&module); }
