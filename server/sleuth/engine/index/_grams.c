/* The distinct n-gram numbers of a chunk, compiled: the build's hot loop (issue 34).

   The numbers are exactly those of sleuth.engine.index.postings: trigram_codes (three bytes as one
   24-bit number) and gram_codes (the ASCII-folded four bytes around each "_" with two bytes each side,
   Fibonacci-hashed to GRAM_BITS bits above every trigram number), each once. numpy sorts every chunk's
   codes to drop repeats (a few thousand per chunk, ~0.1 ms); here one bit per possible number (2.1 MB,
   allocated once) is set as a number is first seen and cleared again for the numbers returned, so a
   position costs a few nanoseconds. The numbers come back in first-seen order, not sorted: the
   segment writer sorts every pair anyway. Optional: without a compiler the numpy path runs
   (sleuth.engine.index.grams), and the tests check that both give the same sets. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define GRAM_BASE (1u << 24)
#define GRAM_BITS 14
#define GRAM_MULTIPLIER 0x9E3779B1u
#define CODES (GRAM_BASE + (1u << GRAM_BITS))

static uint64_t *seen = NULL; /* one bit per number; all clear between calls (the GIL is held throughout) */

static inline uint8_t fold(uint8_t c) { return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c; }

static inline int first_time(uint32_t code) {
    uint64_t bit = (uint64_t)1 << (code & 63);
    uint64_t *word = &seen[code >> 6];
    if (*word & bit) return 0;
    *word |= bit;
    return 1;
}

static PyObject *chunk_codes(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "y*nn", &view, &start, &end)) return NULL;
    if (start < 0 || end > view.len || start > end) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "chunk range outside the buffer");
        return NULL;
    }
    if (seen == NULL) {
        seen = (uint64_t *)PyMem_RawCalloc(CODES / 64, sizeof(uint64_t));
        if (seen == NULL) {
            PyBuffer_Release(&view);
            return PyErr_NoMemory();
        }
    }
    const uint8_t *b = (const uint8_t *)view.buf + start;
    Py_ssize_t n = end - start;
    /* At most one number per trigram position and one per underscore, never more than CODES. */
    Py_ssize_t room = n >= 3 ? 2 * n : 0;
    if (room > (Py_ssize_t)CODES) room = CODES;
    PyObject *out = PyBytes_FromStringAndSize(NULL, room * (Py_ssize_t)sizeof(uint32_t));
    if (out == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    uint32_t *codes = (uint32_t *)PyBytes_AS_STRING(out);
    Py_ssize_t count = 0;
    if (n >= 3) {
        uint32_t code = ((uint32_t)b[0] << 8) | b[1];
        for (Py_ssize_t i = 2; i < n; i++) {
            code = ((code << 8) | b[i]) & 0xFFFFFFu;
            if (first_time(code)) codes[count++] = code;
        }
    }
    if (n >= 5) {
        const uint8_t *p = b + 2, *stop = b + n - 2;
        while (p < stop && (p = memchr(p, '_', (size_t)(stop - p))) != NULL) {
            uint32_t value = ((uint32_t)fold(p[-2]) << 24) | ((uint32_t)fold(p[-1]) << 16) |
                             ((uint32_t)fold(p[1]) << 8) | fold(p[2]);
            uint32_t code = GRAM_BASE + ((uint32_t)(value * GRAM_MULTIPLIER) >> (32 - GRAM_BITS));
            if (first_time(code)) codes[count++] = code;
            p++;
        }
    }
    for (Py_ssize_t i = 0; i < count; i++) seen[codes[i] >> 6] = 0;  /* whole words: only these bits were set */
    PyBuffer_Release(&view);
    if (_PyBytes_Resize(&out, count * (Py_ssize_t)sizeof(uint32_t)) < 0) return NULL;
    return out;
}

/* Sorts a segment's (trigram << 32 | row) keys in place, as numpy's sort would, when their rows
   ascend in the given order (the writer adds rows in increasing order): two stable counting passes
   over the number's low 13 and high 12 bits leave each number's rows in their order. numpy's
   64-bit sort took ~1.1 s per 16M keys here, a sixth of a build; this ~0.3 s. Returns False,
   leaving the keys as they were, when the rows do not ascend (the caller sorts). */
#define LOW_BITS 13
#define HIGH_BITS 12

static PyObject *sort_pairs(PyObject *self, PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "w*", &view)) return NULL;
    uint64_t *keys = (uint64_t *)view.buf;
    Py_ssize_t n = view.len / (Py_ssize_t)sizeof(uint64_t);
    for (Py_ssize_t i = 1; i < n; i++) {
        if ((uint32_t)keys[i] < (uint32_t)keys[i - 1]) {
            PyBuffer_Release(&view);
            Py_RETURN_FALSE;
        }
    }
    if ((uint64_t)CODES > ((uint64_t)1 << (LOW_BITS + HIGH_BITS))) {
        PyBuffer_Release(&view);
        Py_RETURN_FALSE;
    }
    uint64_t *spare = (uint64_t *)PyMem_RawMalloc((size_t)(n > 0 ? n : 1) * sizeof(uint64_t));
    Py_ssize_t *counts = (Py_ssize_t *)PyMem_RawCalloc((size_t)1 << LOW_BITS, sizeof(Py_ssize_t));
    if (spare == NULL || counts == NULL) {
        PyMem_RawFree(spare);
        PyMem_RawFree(counts);
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    uint64_t *from = keys, *to = spare;
    for (int pass = 0; pass < 2; pass++) {
        int shift = 32 + (pass ? LOW_BITS : 0);
        uint64_t mask = ((uint64_t)1 << (pass ? HIGH_BITS : LOW_BITS)) - 1;
        Py_ssize_t buckets = (Py_ssize_t)mask + 1;
        memset(counts, 0, (size_t)buckets * sizeof(Py_ssize_t));
        for (Py_ssize_t i = 0; i < n; i++) counts[(from[i] >> shift) & mask]++;
        Py_ssize_t at = 0;
        for (Py_ssize_t b = 0; b < buckets; b++) {
            Py_ssize_t c = counts[b];
            counts[b] = at;
            at += c;
        }
        for (Py_ssize_t i = 0; i < n; i++) to[counts[(from[i] >> shift) & mask]++] = from[i];
        uint64_t *t = from;
        from = to;
        to = t;
    }
    /* two passes: the sorted keys are back in ``keys`` */
    Py_END_ALLOW_THREADS
    PyMem_RawFree(spare);
    PyMem_RawFree(counts);
    PyBuffer_Release(&view);
    Py_RETURN_TRUE;
}

/* The bytes of runs of a buffer, one after another: the merge of a build's segments (merge.py) lays
   every number's lists end to end, a million runs of a few bytes each per shard; numpy's gather by
   an index per byte took ~1 s per 60 MB, a copy per run a few milliseconds. */
static PyObject *gather_runs(PyObject *self, PyObject *args) {
    Py_buffer src, starts, lengths;
    if (!PyArg_ParseTuple(args, "y*y*y*", &src, &starts, &lengths)) return NULL;
    PyObject *out = NULL;
    Py_ssize_t runs = starts.len / (Py_ssize_t)sizeof(int64_t);
    const int64_t *at = (const int64_t *)starts.buf, *len = (const int64_t *)lengths.buf;
    Py_ssize_t total = 0;
    if (lengths.len != starts.len) {
        PyErr_SetString(PyExc_ValueError, "starts and lengths differ in length");
        goto done;
    }
    for (Py_ssize_t i = 0; i < runs; i++) {
        if (at[i] < 0 || len[i] < 0 || at[i] + len[i] > src.len) {
            PyErr_SetString(PyExc_ValueError, "a run outside the buffer");
            goto done;
        }
        total += len[i];
    }
    out = PyByteArray_FromStringAndSize(NULL, total);  /* writable: the caller sets the first bytes */
    if (out == NULL) goto done;
    char *to = PyByteArray_AS_STRING(out);
    const char *from = (const char *)src.buf;
    for (Py_ssize_t i = 0; i < runs; i++) {
        memcpy(to, from + at[i], (size_t)len[i]);
        to += len[i];
    }
done:
    PyBuffer_Release(&src);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&lengths);
    return out;
}

static PyMethodDef methods[] = {
    {"gather_runs", gather_runs, METH_VARARGS,
     "gather_runs(data, starts, lengths) -> bytearray: data[starts[i]:starts[i]+lengths[i]] for each i (int64 arrays), joined."},
    {"sort_pairs", sort_pairs, METH_VARARGS,
     "sort_pairs(keys) -> bool: sort uint64 (code << 32 | row) keys in place when their rows ascend."},
    {"chunk_codes", chunk_codes, METH_VARARGS,
     "chunk_codes(data, start, end) -> bytes: the distinct trigram and underscore-gram numbers of\n"
     "data[start:end] as native uint32, in first-seen order."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_grams", NULL, -1, methods};

PyMODINIT_FUNC PyInit__grams(void) { return PyModule_Create(&module); }
