/* The searcher's two whole-buffer loops over a candidate's bytes, compiled (sleuth.engine.line_table):
 * the lines that hold a required literal (ripgrep's candidate lines: memmem, then the line around it), and
 * the newlines before a match (its line number). In Python they were bytes.find (a 7-byte needle at
 * ~2.5 GB/s) and bytes.count(b"\n") (a byte a cycle): 9 of the 26 ms one thread spent verifying an
 * indexed [A-Z]+_RESUME's 1,067 candidates (11.6 MB) on the Linux tree. Optional: without it (no
 * compiler, or SLEUTH_FORCE_FALLBACKS=no-compiled-lines) the Python loops give the same numbers. */
#define PY_SSIZE_T_CLEAN
#define _GNU_SOURCE
#include <Python.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static Py_ssize_t count_newlines(const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t count = 0, i = 0;
#if defined(__SSE2__)
    const __m128i newline = _mm_set1_epi8('\n');
    while (n - i >= 16) {
        /* at most 255 blocks into 8-bit lanes (each compare adds -1 where a byte is '\n'), then summed */
        Py_ssize_t blocks = (n - i) / 16;
        if (blocks > 255) blocks = 255;
        __m128i acc = _mm_setzero_si128();
        for (Py_ssize_t b = 0; b < blocks; b++, i += 16) {
            __m128i chunk = _mm_loadu_si128((const __m128i *)(p + i));
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(chunk, newline));
        }
        __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
        count += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_unpackhi_epi64(sums, sums));
    }
#endif
    for (; i < n; i++) count += p[i] == '\n';
    return count;
}

static const unsigned char *find_literal(const unsigned char *hay, Py_ssize_t n, const unsigned char *lit,
                                         Py_ssize_t m) {
#if defined(_WIN32)
    for (Py_ssize_t i = 0; i + m <= n; i++) {
        const unsigned char *at = memchr(hay + i, lit[0], (size_t)(n - m + 1 - i));
        if (at == NULL) return NULL;
        if (memcmp(at, lit, (size_t)m) == 0) return at;
        i = at - hay;
    }
    return NULL;
#else
    return memmem(hay, (size_t)n, lit, (size_t)m);
#endif
}

static int check_range(Py_ssize_t size, Py_ssize_t *start, Py_ssize_t *end) {
    /* bytes.count's slice rules for non-negative bounds, clipped to the buffer */
    if (*start < 0 || *end < 0) {
        PyErr_SetString(PyExc_ValueError, "negative bound");
        return -1;
    }
    if (*end > size) *end = size;
    if (*start > *end) *start = *end;
    return 0;
}

static PyObject *newlines(PyObject *self, PyObject *args) {
    Py_buffer data;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "y*nn", &data, &start, &end)) return NULL;
    if (check_range(data.len, &start, &end) < 0) {
        PyBuffer_Release(&data);
        return NULL;
    }
    Py_ssize_t count = count_newlines((const unsigned char *)data.buf + start, end - start);
    PyBuffer_Release(&data);
    return PyLong_FromSsize_t(count);
}

static int append_int(PyObject *list, Py_ssize_t value) {
    PyObject *number = PyLong_FromSsize_t(value);
    if (number == NULL) return -1;
    int failed = PyList_Append(list, number);
    Py_DECREF(number);
    return failed;
}

static PyObject *literal_lines(PyObject *self, PyObject *args) {
    Py_buffer data, literal;
    if (!PyArg_ParseTuple(args, "y*y*", &data, &literal)) return NULL;
    PyObject *out = NULL;
    if (literal.len == 0 || memchr(literal.buf, '\n', (size_t)literal.len) != NULL) {
        PyErr_SetString(PyExc_ValueError, "the literal must be non-empty and hold no newline");
        goto done;
    }
    out = PyList_New(0);
    if (out == NULL) goto done;
    const unsigned char *p = data.buf, *lit = literal.buf;
    Py_ssize_t n = data.len, m = literal.len, pos = 0; /* pos: always a line's start */
    while (pos < n) {
        const unsigned char *found = find_literal(p + pos, n - pos, lit, m);
        if (found == NULL) break;
        Py_ssize_t at = found - p, line_start = at, line_end;
        while (line_start > pos && p[line_start - 1] != '\n') line_start--;
        const unsigned char *newline = memchr(found + m, '\n', (size_t)(n - at - m));
        line_end = newline == NULL ? n : newline - p;
        if (append_int(out, line_start) < 0 || append_int(out, line_end) < 0) {
            Py_CLEAR(out);
            goto done;
        }
        pos = line_end + 1;
    }
done:
    PyBuffer_Release(&data);
    PyBuffer_Release(&literal);
    return out;
}

static PyMethodDef methods[] = {
    {"newlines", newlines, METH_VARARGS,
     "newlines(data, start, end) -> int: data.count(b'\\n', start, end) for bounds >= 0."},
    {"literal_lines", literal_lines, METH_VARARGS,
     "literal_lines(data, literal) -> list[int]: start, end (its newline, or len(data)) of each line of data\n"
     "holding literal (non-empty, no newline), flat, in order, each line once."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_lines", NULL, -1, methods};

PyMODINIT_FUNC PyInit__lines(void) { return PyModule_Create(&module); }
