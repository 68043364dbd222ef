/* The definition scan, compiled: the index build's hottest loop (issue 34).

   It finds exactly what sleuth.engine.definitions.defs._SCAN finds, line by line: the first of its ten
   alternatives that matches at a line's start, with the name the regex would capture, then the same
   filters as defs.definition_matches (NOT_NAMES, a leading digit, a C-like function's prototype). Every
   match of _SCAN starts at a "\n" and ends before the next one, so the regex's finditer is one match
   attempt per line, which is what runs here. Each alternative is written out as its backtracking
   resolves (the comments say why a greedy part cannot give back and where a lazy one is widened).
   The Python path stays the reference: tests/engine/symbols/test_compiled_scan.py checks both give the
   same matches over generated sources of every language the scanner knows.

   On top, the steps the build repeats per definition in Python: the C family's found tuples and the
   definition keys (defs.definition_keys), and the symbols' lines and UTF-16 columns
   (extract._ascii_symbols, extract._Lines, extract._columns). Optional: without a compiler, or with
   SLEUTH_FORCE_FALLBACKS=no-compiled-defs, the regex path runs. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef Py_ssize_t pos;

/* The kinds, in defs._KINDS order. */
enum { MACRO, FPTR, TNAME, TYPE, FUNC, CFUNC, VAR, GVAR, DMACRO, TDEF, KINDS };

typedef struct {
    pos name, end;  /* the name, relative to the line's first byte */
    pos after;      /* where the match ends (the prototype check reads from there) */
    pos line;       /* the match's start: the "\n" before the line, in the buffer */
    int kind;
    int word;       /* TYPE: which type word (index in TYPE_WORDS) */
} Site;

static inline int is_word(uint8_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
static inline int is_blank(uint8_t c) { return c == ' ' || c == '\t'; }
static inline int is_alpha_(uint8_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

static inline pos blanks(const uint8_t *s, pos n, pos i) {
    while (i < n && is_blank(s[i])) i++;
    return i;
}
static inline pos word_end(const uint8_t *s, pos n, pos i) {
    while (i < n && is_word(s[i])) i++;
    return i;
}
static inline int at(const uint8_t *s, pos n, pos i, const char *lit, pos len) {
    return i + len <= n && memcmp(s + i, lit, (size_t)len) == 0;
}
/* ``lit\b`` at i: the literal (word characters) and no word character after it */
static inline int word_at(const uint8_t *s, pos n, pos i, const char *lit, pos len) {
    return at(s, n, i, lit, len) && (i + len == n || !is_word(s[i + len]));
}
/* ``(?:\[[^\]\n]*\][ \t]*)*`` (spaced) or ``(?:\[[^\]\n]*\])*``: each ``[`` to its first ``]``; a group
   given back leaves a ``[`` or a blank where the caller wants ``;``, ``(`` or ``=``, so greedy is final */
static pos brackets(const uint8_t *s, pos n, pos i, int spaced) {
    while (i < n && s[i] == '[') {
        const uint8_t *close = memchr(s + i + 1, ']', (size_t)(n - i - 1));
        if (close == NULL) break;
        i = close - s + 1;
        if (spaced) i = blanks(s, n, i);
    }
    return i;
}

static const char *const MODIFIERS[] = {"typedef", "export", "pub", "public", "private", "protected", "internal",
    "static", "abstract", "final", "sealed", "partial", "data", "case", "async", "override", "virtual", "inline",
    "extern", "unsafe", "const", "default", "local", NULL};
static const char *const TYPE_WORDS[] = {"struct", "union", "enum", "class", "interface", "trait", "record",
    "object", "protocol", "module", "namespace", "type", NULL};
static const char *const FUNC_WORDS[] = {"def", "fn", "func", "function", "sub", "proc", "fun", "method", NULL};
#define N_TYPE_WORDS 12

static int one_of(const uint8_t *s, pos i, pos e, const char *const *words) {
    for (int k = 0; words[k]; k++)
        if ((pos)strlen(words[k]) == e - i && memcmp(s + i, words[k], (size_t)(e - i)) == 0) return k;
    return -1;
}

/* \#[ \t]*define[ \t]+(?P<macro>\w+) */
static int macro(const uint8_t *s, pos n, pos i, Site *out) {
    if (i >= n || s[i] != '#') return 0;
    i = blanks(s, n, i + 1);
    if (!at(s, n, i, "define", 6)) return 0;
    pos k = blanks(s, n, i + 6);
    if (k == i + 6) return 0;
    pos e = word_end(s, n, k);
    if (e == k) return 0;
    *out = (Site){k, e, e, 0, MACRO, -1};
    return 1;
}

/* typedef\b[^;{}\n]*?\([ \t]*\*[ \t]*(?P<fptr>\w+)[ \t]*\)[ \t]*\( : the lazy prefix widened a byte at a time */
static int fptr(const uint8_t *s, pos n, pos q, Site *out) {
    for (pos j = q; j < n; j++) {
        if (s[j] == '(') {
            pos k = blanks(s, n, j + 1);
            if (k < n && s[k] == '*') {
                pos w = blanks(s, n, k + 1), e = word_end(s, n, w);
                if (e > w) {
                    k = blanks(s, n, e);
                    if (k < n && s[k] == ')') {
                        k = blanks(s, n, k + 1);
                        if (k < n && s[k] == '(') {
                            *out = (Site){w, e, k + 1, 0, FPTR, -1};
                            return 1;
                        }
                    }
                }
            }
        }
        if (s[j] == ';' || s[j] == '{' || s[j] == '}') return 0;
    }
    return 0;
}

/* the tail of tname and tdef: \b(\w+)[ \t]*(?:\[[^\]\n]*\][ \t]*)* then one of ``ends``, at a word start j
   (a shorter word leaves a word character where a blank, ``[`` or the end is wanted) */
static pos named_end(const uint8_t *s, pos n, pos j, const char *ends, pos *e_out) {
    if (j >= n || !is_word(s[j]) || is_word(s[j - 1])) return -1;
    pos e = word_end(s, n, j);
    pos k = brackets(s, n, blanks(s, n, e), 1);
    if (k < n && s[k] != 0 && strchr(ends, s[k]) != NULL) {  /* (strchr finds the terminating NUL too) */
        *e_out = e;
        return k + 1;
    }
    return -1;
}

/* typedef\b(?![ \t]+(?:struct|union|enum)[ \t]+\w+[ \t]*\{)[^;{}()\n]*?\b(?P<tname>\w+)[ \t]*(?:\[...\][ \t]*)*[;(] */
static int tname(const uint8_t *s, pos n, pos q, Site *out) {
    pos k = blanks(s, n, q);
    if (k > q) {
        pos w = word_end(s, n, k);
        if (one_of(s, k, w, (const char *const[]){"struct", "union", "enum", NULL}) >= 0) {
            pos t = blanks(s, n, w);
            pos e = word_end(s, n, t);
            if (t > w && e > t) {
                pos b = blanks(s, n, e);
                if (b < n && s[b] == '{') return 0;
            }
        }
    }
    for (pos j = q; j < n; j++) {
        pos e, after = named_end(s, n, j, ";(", &e);
        if (after >= 0) {
            *out = (Site){j, e, after, 0, TNAME, -1};
            return 1;
        }
        uint8_t c = s[j];
        if (c == ';' || c == '{' || c == '}' || c == '(' || c == ')') return 0;
    }
    return 0;
}

/* one of the modifiers and its blanks at i (``pub`` with an optional ``(...)``): where the next word
   starts, or -1. No modifier is a type or function word, so the regex never gives one back. */
static pos modifier(const uint8_t *s, pos n, pos i) {
    pos e = word_end(s, n, i);
    int k = one_of(s, i, e, MODIFIERS);
    if (k < 0) return -1;
    if (k == 2 && e < n && s[e] == '(') {  /* pub(?:\([\w: ]*\))? */
        pos p = e + 1;
        while (p < n && (is_word(s[p]) || s[p] == ':' || s[p] == ' ')) p++;
        if (p < n && s[p] == ')') e = p + 1;
    }
    if (e >= n || !is_blank(s[e])) return -1;
    return blanks(s, n, e);
}

/* (?=[ \t]*(?:[{:(<=]|$|//|/\*|extends\b|implements\b|where\b)) at t */
static int type_follows(const uint8_t *s, pos n, pos t) {
    t = blanks(s, n, t);
    if (t == n) return 1;
    uint8_t c = s[t];
    if (c == '{' || c == ':' || c == '(' || c == '<' || c == '=') return 1;
    if (c == '/' && t + 1 < n && (s[t + 1] == '/' || s[t + 1] == '*')) return 1;
    return word_at(s, n, t, "extends", 7) || word_at(s, n, t, "implements", 10) || word_at(s, n, t, "where", 5);
}

/* (?=[a-z])(?:MODIFIER[ \t]+)*
   (?:TYPE_WORD[ \t]+(?P<type>\w+)(?=...)|FUNC_WORD[ \t]+(?:\([^)\n]*\)[ \t]*)?(?P<func>\w+)) */
static int keyword(const uint8_t *s, pos n, pos i, Site *out) {
    if (i >= n || s[i] < 'a' || s[i] > 'z') return 0;
    for (pos next; (next = modifier(s, n, i)) >= 0;) i = next;
    pos we = word_end(s, n, i);
    if (we >= n || !is_blank(s[we])) return 0;
    int word = one_of(s, i, we, TYPE_WORDS);
    pos k = blanks(s, n, we);
    if (word >= 0) {
        pos e = word_end(s, n, k);
        for (pos t = e; t > k; t--)  /* \w+ gives back a byte at a time until the lookahead holds */
            if (type_follows(s, n, t)) {
                *out = (Site){k, t, t, 0, TYPE, word};
                return 1;
            }
        return 0;
    }
    if (one_of(s, i, we, FUNC_WORDS) < 0) return 0;
    if (k < n && s[k] == '(') {  /* the optional receiver; without it \w+ would start at "(" */
        const uint8_t *close = memchr(s + k + 1, ')', (size_t)(n - k - 1));
        if (close == NULL) return 0;
        k = blanks(s, n, close - s + 1);
    }
    pos e = word_end(s, n, k);
    if (e == k) return 0;
    *out = (Site){k, e, e, 0, FUNC, -1};
    return 1;
}

/* the column-0 alternatives' lazy prefixes: [\w \t\*,:&<>] (cfunc's, wide) or [\w \t\*] (var's, gvar's);
   each is widened a byte at a time while the name after a separator fails */
static inline int in_prefix(uint8_t c, int wide) {
    return is_word(c) || is_blank(c) || c == '*' ||
           (wide && (c == ',' || c == ':' || c == '&' || c == '<' || c == '>'));
}

/* (?!extern\b)[A-Za-z_][\w \t\*,:&<>]*?[ \t\*&](?P<cfunc>\w+)[ \t]*\((?![^\n]*;[ \t]*$) */
static int cfunc(const uint8_t *s, pos n, Site *out) {
    if (word_at(s, n, 0, "extern", 6)) return 0;
    pos t = n;
    while (t > 0 && is_blank(s[t - 1])) t--;
    if (t > 0 && s[t - 1] == ';') return 0;  /* the lookahead fails after every "(" of this line */
    for (pos j = 1; j < n; j++) {
        uint8_t c = s[j];
        if (is_blank(c) || c == '*' || c == '&') {
            pos e = word_end(s, n, j + 1);
            if (e > j + 1) {
                pos k = blanks(s, n, e);
                if (k < n && s[k] == '(') {
                    *out = (Site){j + 1, e, k + 1, 0, CFUNC, -1};
                    return 1;
                }
            }
        }
        if (!in_prefix(c, 1)) return 0;
    }
    return 0;
}

/* (?!extern\b|return\b|typedef\b)[A-Za-z_][\w \t\*]*?[ \t\*](?P<var>\w+)(?:\[[^\]\n]*\])*[ \t]*=(?!=)
   and the same with ``;`` for gvar (whose lookahead also refuses ``struct NAME;``) */
static int variable(const uint8_t *s, pos n, int kind, Site *out) {
    for (pos j = 1; j < n; j++) {
        uint8_t c = s[j];
        if (is_blank(c) || c == '*') {
            pos e = word_end(s, n, j + 1);
            if (e > j + 1) {
                pos k = blanks(s, n, brackets(s, n, e, 0));
                if (k < n && (kind == VAR ? s[k] == '=' && !(k + 1 < n && s[k + 1] == '=') : s[k] == ';')) {
                    *out = (Site){j + 1, e, k + 1, 0, kind, -1};
                    return 1;
                }
            }
        }
        if (!in_prefix(c, 0)) return 0;
    }
    return 0;
}

static int declared_tag(const uint8_t *s, pos n) {  /* (?:struct|union|enum|class)[ \t]+\w+[ \t]*; */
    pos w = word_end(s, n, 0);
    if (one_of(s, 0, w, (const char *const[]){"struct", "union", "enum", "class", NULL}) < 0) return 0;
    pos k = blanks(s, n, w), e = word_end(s, n, k);
    if (k == w || e == k) return 0;
    e = blanks(s, n, e);
    return e < n && s[e] == ';';
}

/* (?:static[ \t]+)?(?:DEFINE|DECLARE)_[A-Z0-9_]+\([ \t]*(?P<dmacro>\w+) */
static int dmacro(const uint8_t *s, pos n, Site *out) {
    pos k = 0;
    if (at(s, n, 0, "static", 6) && 6 < n && is_blank(s[6])) k = blanks(s, n, 6);
    if (at(s, n, k, "DEFINE_", 7)) k += 7;
    else if (at(s, n, k, "DECLARE_", 8)) k += 8;
    else return 0;
    pos r = k;
    while (k < n && ((s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= '0' && s[k] <= '9') || s[k] == '_')) k++;
    if (k == r || k >= n || s[k] != '(') return 0;
    k = blanks(s, n, k + 1);
    pos e = word_end(s, n, k);
    if (e == k) return 0;
    *out = (Site){k, e, e, 0, DMACRO, -1};
    return 1;
}

/* \}(?![ \t]*(?:else|while)\b)[^;{}=\n]*?\b(?P<tdef>\w+)[ \t]*(?:\[[^\]\n]*\][ \t]*)*; */
static int tdef(const uint8_t *s, pos n, Site *out) {
    pos k = blanks(s, n, 1);
    if (word_at(s, n, k, "else", 4) || word_at(s, n, k, "while", 5)) return 0;
    for (pos j = 1; j < n; j++) {
        pos e, after = named_end(s, n, j, ";", &e);
        if (after >= 0) {
            *out = (Site){j, e, after, 0, TDEF, -1};
            return 1;
        }
        uint8_t c = s[j];
        if (c == ';' || c == '{' || c == '}' || c == '=') return 0;
    }
    return 0;
}

/* The first alternative of _SCAN that matches the line s[0:n], in the regex's order. */
static int match_line(const uint8_t *s, pos n, Site *out) {
    pos i = blanks(s, n, 0);  /* [ \t]*+ : possessive */
    if (i < n) {
        uint8_t c = s[i];
        if (c == '#') {
            if (macro(s, n, i, out)) return 1;
        } else if (c >= 'a' && c <= 'z') {
            if (c == 't' && word_at(s, n, i, "typedef", 7) && (fptr(s, n, i + 7, out) || tname(s, n, i + 7, out)))
                return 1;
            if (keyword(s, n, i, out)) return 1;
        }
    }
    if (n == 0) return 0;
    uint8_t c = s[0];
    if (is_alpha_(c)) {
        if (cfunc(s, n, out)) return 1;
        if (word_at(s, n, 0, "extern", 6) || word_at(s, n, 0, "return", 6) || word_at(s, n, 0, "typedef", 7)) {
            /* var and gvar refuse these; dmacro starts with "static" or "DE" */
        } else {
            if (variable(s, n, VAR, out)) return 1;
            if (!declared_tag(s, n) && variable(s, n, GVAR, out)) return 1;
        }
        return (c == 's' || c == 'D') && dmacro(s, n, out);
    }
    return c == '}' && tdef(s, n, out);
}

static const char *const NOT_NAMES[] = {"if", "for", "while", "switch", "return", "sizeof", "else", "do", "case",
    "goto", "typeof", "defined", "break", "continue", NULL};

/* defs.is_prototype over buffer[after:after + 2000] */
static int is_prototype(const uint8_t *b, pos len, pos after) {
    pos stop = after + 2000 < len ? after + 2000 : len;
    for (pos k = after; k < stop; k++) {
        if (b[k] == '{') return 0;
        if (b[k] == ';') return 1;
    }
    return 0;
}

/* The next accepted site from the line starting at *line (a "\n" of the buffer); moves *line on. */
static int next_site(const uint8_t *b, pos len, pos *line, Site *site) {
    while (*line < len) {
        pos start = *line + 1;
        const uint8_t *nl = memchr(b + start, '\n', (size_t)(len - start));
        pos n = (nl ? nl - b : len) - start;
        pos here = *line;
        *line = nl ? nl - b : len;
        if (!match_line(b + start, n, site)) continue;
        const uint8_t *name = b + start + site->name;
        pos size = site->end - site->name;
        if (name[0] >= '0' && name[0] <= '9') continue;
        if (one_of(name, 0, size, NOT_NAMES) >= 0) continue;
        site->name += start;
        site->end += start;
        site->after += start;
        if (site->kind == CFUNC && is_prototype(b, len, site->after)) continue;
        site->line = here;
        return 1;
    }
    return 0;
}

/* every match of _SCAN starts at a "\n": the first one (the caller's leading "\n", normally) */
static pos first_line(const uint8_t *b, pos len) {
    const uint8_t *nl = len > 0 ? memchr(b, '\n', (size_t)len) : NULL;
    return nl ? nl - b : len;
}

static PyObject *sites(PyObject *self, PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    const uint8_t *b = view.buf;
    pos len = view.len, line = first_line(b, len);
    PyObject *out = PyList_New(0);
    Site site;
    while (out != NULL && next_site(b, len, &line, &site)) {
        PyObject *item = Py_BuildValue("(nnni)", site.line, site.name, site.end, site.kind);
        if (item == NULL || PyList_Append(out, item) < 0) Py_CLEAR(out);
        Py_XDECREF(item);
    }
    PyBuffer_Release(&view);
    return out;
}

/* the key of an ASCII name: without "_", lowercased */
static PyObject *ascii_key(const uint8_t *name, pos size) {
    pos m = 0;
    for (pos i = 0; i < size; i++) m += name[i] != '_';
    PyObject *out = PyUnicode_New(m, 127);  /* written in place: no UTF-8 decoding of known ASCII */
    if (out == NULL) return NULL;
    Py_UCS1 *k = PyUnicode_1BYTE_DATA(out);
    for (pos i = 0; i < size; i++)
        if (name[i] != '_') *k++ = (Py_UCS1)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] + 32 : name[i]);
    return out;
}

/* a str of ASCII bytes (a \w+ name), made without UTF-8 decoding */
static PyObject *ascii_str(const uint8_t *text, pos size) {
    PyObject *out = PyUnicode_New(size, 127);
    if (out != NULL) memcpy(PyUnicode_1BYTE_DATA(out), text, (size_t)size);
    return out;
}

/* found(buffer, keys, kinds, type_kinds) -> [(start, end, name, kind, ""), ...] in data's offsets, each
   name's key added to ``keys``; kinds None: the keys only (defs.definition_keys). */
static PyObject *found(PyObject *self, PyObject *args) {
    Py_buffer view;
    PyObject *keys, *kinds, *type_kinds;
    if (!PyArg_ParseTuple(args, "y*O!OO", &view, &PySet_Type, &keys, &kinds, &type_kinds)) return NULL;
    long kind_of[KINDS], type_kind_of[N_TYPE_WORDS];
    int want = kinds != Py_None;
    if (want) {
        if (!PyTuple_Check(kinds) || PyTuple_GET_SIZE(kinds) != KINDS || !PyTuple_Check(type_kinds) ||
            PyTuple_GET_SIZE(type_kinds) != N_TYPE_WORDS) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "kinds: 10 numbers, type_kinds: 12");
            return NULL;
        }
        for (int k = 0; k < KINDS; k++) kind_of[k] = PyLong_AsLong(PyTuple_GET_ITEM(kinds, k));
        for (int k = 0; k < N_TYPE_WORDS; k++) type_kind_of[k] = PyLong_AsLong(PyTuple_GET_ITEM(type_kinds, k));
        if (PyErr_Occurred()) {
            PyBuffer_Release(&view);
            return NULL;
        }
    }
    const uint8_t *b = view.buf;
    pos len = view.len, line = first_line(b, len);
    PyObject *out = PyList_New(0), *empty = PyUnicode_FromStringAndSize("", 0);
    if (empty == NULL) Py_CLEAR(out);
    Site site;
    while (out != NULL && next_site(b, len, &line, &site)) {
        pos size = site.end - site.name;
        PyObject *key = ascii_key(b + site.name, size);
        if (key == NULL || PySet_Add(keys, key) < 0) {
            Py_XDECREF(key);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(key);
        if (!want) continue;
        long kind = site.kind == TYPE ? type_kind_of[site.word] : kind_of[site.kind];
        PyObject *item = PyTuple_New(5);
        if (item != NULL) {  /* (a NULL member is left to PyTuple's dealloc, which skips it) */
            PyTuple_SET_ITEM(item, 0, PyLong_FromSsize_t(site.name - 1));
            PyTuple_SET_ITEM(item, 1, PyLong_FromSsize_t(site.end - 1));
            PyTuple_SET_ITEM(item, 2, ascii_str(b + site.name, size));
            PyTuple_SET_ITEM(item, 3, PyLong_FromLong(kind));
            Py_INCREF(empty);
            PyTuple_SET_ITEM(item, 4, empty);
            for (int k = 0; k < 4; k++)
                if (PyTuple_GET_ITEM(item, k) == NULL) {
                    Py_CLEAR(item);
                    break;
                }
        }
        if (item == NULL || PyList_Append(out, item) < 0) Py_CLEAR(out);
        Py_XDECREF(item);
    }
    Py_XDECREF(empty);
    PyBuffer_Release(&view);
    return out;
}

/* UTF-16 code units of bytes decoded as UTF-8 with "replace" (extract._columns) */
static pos utf16_units(const uint8_t *p, pos size, int *error) {
    int ascii = 1;
    for (pos i = 0; i < size; i++)
        if (p[i] & 0x80) {
            ascii = 0;
            break;
        }
    if (ascii) return size;
    PyObject *text = PyUnicode_DecodeUTF8((const char *)p, size, "replace");
    if (text == NULL) {
        *error = 1;
        return 0;
    }
    pos units = PyUnicode_GET_LENGTH(text);
    if (PyUnicode_KIND(text) == PyUnicode_4BYTE_KIND) {
        const Py_UCS4 *chars = PyUnicode_4BYTE_DATA(text);
        for (pos i = 0; i < PyUnicode_GET_LENGTH(text); i++) units += chars[i] > 0xFFFF;
    }
    Py_DECREF(text);
    return units;
}

/* place(data, found, Symbol) -> [Symbol(name, kind, container, line, col, end_col)]: ``found`` sorted by
   offset (extract._c_symbols' tuples), lines counted once along the file */
static PyObject *place(PyObject *self, PyObject *args) {
    Py_buffer view;
    PyObject *items;
    PyTypeObject *symbol;
    if (!PyArg_ParseTuple(args, "y*O!O!", &view, &PyList_Type, &items, &PyType_Type, &symbol)) return NULL;
    if (!PyType_IsSubtype(symbol, &PyTuple_Type)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "Symbol must be a tuple type");
        return NULL;
    }
    const uint8_t *b = view.buf;
    pos len = view.len, count = PyList_GET_SIZE(items), line = 0, previous = 0, line_start = 0;
    int ascii = 1;  /* an ASCII file's columns are byte counts (most files: one look, as extract.py does) */
    for (pos k = 0; k < len && ascii; k++) ascii = b[k] < 0x80;
    PyObject *out = PyList_New(count);
    for (pos i = 0; out != NULL && i < count; i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 5) {
            PyErr_SetString(PyExc_TypeError, "found: (start, end, name, kind, container) tuples");
            Py_CLEAR(out);
            break;
        }
        pos start = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0)), end = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 1));
        PyObject *name = PyTuple_GET_ITEM(item, 2), *kind = PyTuple_GET_ITEM(item, 3);
        PyObject *container = PyTuple_GET_ITEM(item, 4);
        if (PyErr_Occurred()) {
            Py_CLEAR(out);
            break;
        }
        if (start < previous || end < start || end > len) {
            PyErr_SetString(PyExc_ValueError, "found: offsets out of order or outside the data");
            Py_CLEAR(out);
            break;
        }
        pos newlines = 0;
        for (pos k = previous; k < start; k++) newlines += b[k] == '\n';  /* (vectorised by the compiler) */
        if (newlines) {
            line += newlines;
            line_start = start;
            while (b[line_start - 1] != '\n') line_start--;
        }
        previous = start;
        int error = 0;
        pos col = ascii ? start - line_start : utf16_units(b + line_start, start - line_start, &error);
        pos end_col = ascii ? end - line_start : col + utf16_units(b + start, end - start, &error);
        if (error) {
            Py_CLEAR(out);
            break;
        }
        PyObject *sym = symbol->tp_alloc(symbol, 6);
        if (sym == NULL) {
            Py_CLEAR(out);
            break;
        }
        Py_INCREF(name);
        Py_INCREF(kind);
        Py_INCREF(container);
        PyTuple_SET_ITEM(sym, 0, name);
        PyTuple_SET_ITEM(sym, 1, kind);
        PyTuple_SET_ITEM(sym, 2, container);
        PyTuple_SET_ITEM(sym, 3, PyLong_FromSsize_t(line));
        PyTuple_SET_ITEM(sym, 4, PyLong_FromSsize_t(col));
        PyTuple_SET_ITEM(sym, 5, PyLong_FromSsize_t(end_col));
        if (!PyTuple_GET_ITEM(sym, 3) || !PyTuple_GET_ITEM(sym, 4) || !PyTuple_GET_ITEM(sym, 5)) {
            Py_DECREF(sym);
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, sym);
    }
    PyBuffer_Release(&view);
    return out;
}

/* block_lines(buffer) -> the offsets of the "\n"s whose line starts with typedef, static, const, extern,
   struct, union or enum: every place extract._BLOCK can match (it is led by "\n" and optional
   "typedef"/"static"/"const"/"extern" words before the aggregate's word), so trying it at these alone
   finds what its search over the whole buffer finds */
static PyObject *block_lines(PyObject *self, PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    static const char *const LEADS[] = {"typedef", "static", "const", "extern", "struct", "union", "enum", NULL};
    const uint8_t *b = view.buf;
    pos len = view.len;
    PyObject *out = PyList_New(0);
    for (const uint8_t *nl = len ? memchr(b, '\n', (size_t)len) : NULL; out != NULL && nl != NULL;) {
        pos start = nl - b + 1;
        const uint8_t *next = start < len ? memchr(b + start, '\n', (size_t)(len - start)) : NULL;
        pos n = (next ? next - b : len) - start;
        int lead = 0;
        uint8_t c = n ? b[start] : 0;  /* the first byte first: most lines start with none of t, s, c, e, u */
        if (c == 't' || c == 's' || c == 'c' || c == 'e' || c == 'u')
            for (int k = 0; !lead && LEADS[k]; k++) lead = at(b + start, n, 0, LEADS[k], (pos)strlen(LEADS[k]));
        if (lead) {
            PyObject *offset = PyLong_FromSsize_t(start - 1);
            if (offset == NULL || PyList_Append(out, offset) < 0) Py_CLEAR(out);
            Py_XDECREF(offset);
        }
        nl = next;
    }
    PyBuffer_Release(&view);
    return out;
}

/* name_keys(symbols, fast_key) -> {name: key} for each distinct name (pack.fast_key): an ASCII name's key
   is the name without "_", lowercased, when that leaves letters and digits; any other name asks fast_key */
static PyObject *name_keys(PyObject *self, PyObject *args) {
    PyObject *symbols, *fallback;
    if (!PyArg_ParseTuple(args, "O!O", &PyList_Type, &symbols, &fallback)) return NULL;
    PyObject *out = PyDict_New();
    for (pos i = 0; out != NULL && i < PyList_GET_SIZE(symbols); i++) {
        PyObject *sym = PyList_GET_ITEM(symbols, i);
        if (!PyTuple_Check(sym) || PyTuple_GET_SIZE(sym) < 1 || !PyUnicode_Check(PyTuple_GET_ITEM(sym, 0))) {
            PyErr_SetString(PyExc_TypeError, "symbols: tuples led by a name");
            Py_CLEAR(out);
            break;
        }
        PyObject *name = PyTuple_GET_ITEM(sym, 0), *key = NULL;
        int known = PyDict_Contains(out, name);
        if (known) {
            if (known < 0) Py_CLEAR(out);
            continue;
        }
        if (PyUnicode_IS_ASCII(name)) {
            const uint8_t *text = PyUnicode_1BYTE_DATA(name);
            pos size = PyUnicode_GET_LENGTH(name), kept = 0, alnum = 1;
            for (pos k = 0; k < size; k++)
                if (text[k] != '_') {
                    kept++;
                    alnum &= is_word(text[k]);
                }
            if (kept > 0 && alnum) key = ascii_key(text, size);
        }
        if (key == NULL && !PyErr_Occurred()) key = PyObject_CallOneArg(fallback, name);
        if (key == NULL || PyDict_SetItem(out, name, key) < 0) Py_CLEAR(out);
        Py_XDECREF(key);
    }
    return out;
}

static int put(char **buf, pos *used, pos *room, const char *text, pos size) {
    if (*used + size > *room) {
        pos want = (*used + size) * 2;
        char *grown = PyMem_Realloc(*buf, (size_t)want);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        *buf = grown;
        *room = want;
    }
    memcpy(*buf + *used, text, (size_t)size);
    *used += size;
    return 0;
}

/* a str as UTF-8 with surrogateescape, onto the buffer */
static int put_text(char **buf, pos *used, pos *room, PyObject *text) {
    if (PyUnicode_IS_ASCII(text))
        return put(buf, used, room, (const char *)PyUnicode_1BYTE_DATA(text), PyUnicode_GET_LENGTH(text));
    PyObject *bytes = PyUnicode_AsEncodedString(text, "utf-8", "surrogateescape");
    if (bytes == NULL) return -1;
    int done = put(buf, used, room, PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
    Py_DECREF(bytes);
    return done;
}

static int put_number(char **buf, pos *used, pos *room, PyObject *number) {
    long long value = PyLong_AsLongLong(number);
    if (value == -1 && PyErr_Occurred()) return -1;
    char digits[32];
    int size = snprintf(digits, sizeof digits, "%lld", value);
    return put(buf, used, room, digits, size);
}

/* pack_text(symbols, keys) -> the bytes pack.pack compresses: "\n", then per symbol whose name has no tab
   or newline "key\tname\tkind\tline\tcol\tend\tcontainer\n" (end empty when it is col + len(name)) */
static PyObject *pack_text(PyObject *self, PyObject *args) {
    PyObject *symbols, *keys;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &symbols, &PyDict_Type, &keys)) return NULL;
    pos used = 0, room = 4096;
    char *buf = PyMem_Malloc((size_t)room);
    if (buf == NULL) return PyErr_NoMemory();
    int failed = put(&buf, &used, &room, "\n", 1);
    for (pos i = 0; !failed && i < PyList_GET_SIZE(symbols); i++) {
        PyObject *sym = PyList_GET_ITEM(symbols, i);
        if (!PyTuple_Check(sym) || PyTuple_GET_SIZE(sym) != 6 || !PyUnicode_Check(PyTuple_GET_ITEM(sym, 0)) ||
            !PyUnicode_Check(PyTuple_GET_ITEM(sym, 2)) || !PyLong_Check(PyTuple_GET_ITEM(sym, 1)) ||
            !PyLong_Check(PyTuple_GET_ITEM(sym, 3)) || !PyLong_Check(PyTuple_GET_ITEM(sym, 4)) ||
            !PyLong_Check(PyTuple_GET_ITEM(sym, 5))) {
            PyErr_SetString(PyExc_TypeError, "symbols: (name, kind, container, line, col, end_col) tuples");
            failed = 1;
            break;
        }
        PyObject *name = PyTuple_GET_ITEM(sym, 0);
        if (PyUnicode_FindChar(name, '\t', 0, PyUnicode_GET_LENGTH(name), 1) != -1 ||
            PyUnicode_FindChar(name, '\n', 0, PyUnicode_GET_LENGTH(name), 1) != -1)
            continue;
        PyObject *key = PyDict_GetItemWithError(keys, name);
        if (key == NULL) {
            if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, name);
            failed = 1;
            break;
        }
        long long col = PyLong_AsLongLong(PyTuple_GET_ITEM(sym, 4));
        long long end = PyLong_AsLongLong(PyTuple_GET_ITEM(sym, 5));
        if (PyErr_Occurred() || !PyUnicode_Check(key)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "keys: str values");
            failed = 1;
            break;
        }
        failed = put_text(&buf, &used, &room, key) || put(&buf, &used, &room, "\t", 1) ||
                 put_text(&buf, &used, &room, name) || put(&buf, &used, &room, "\t", 1) ||
                 put_number(&buf, &used, &room, PyTuple_GET_ITEM(sym, 1)) || put(&buf, &used, &room, "\t", 1) ||
                 put_number(&buf, &used, &room, PyTuple_GET_ITEM(sym, 3)) || put(&buf, &used, &room, "\t", 1) ||
                 put_number(&buf, &used, &room, PyTuple_GET_ITEM(sym, 4)) || put(&buf, &used, &room, "\t", 1) ||
                 (end != col + PyUnicode_GET_LENGTH(name) &&
                  put_number(&buf, &used, &room, PyTuple_GET_ITEM(sym, 5))) ||
                 put(&buf, &used, &room, "\t", 1) || put_text(&buf, &used, &room, PyTuple_GET_ITEM(sym, 2)) ||
                 put(&buf, &used, &room, "\n", 1);
    }
    PyObject *out = failed ? NULL : PyBytes_FromStringAndSize(buf, used);
    PyMem_Free(buf);
    return out;
}

static PyMethodDef methods[] = {
    {"sites", sites, METH_VARARGS,
     "sites(buffer) -> [(line start, name start, name end, kind index)] of b'\\n' + data, as defs' regex finds them."},
    {"found", found, METH_VARARGS,
     "found(buffer, keys, kinds, type_kinds) -> the C family's (start, end, name, kind, '') tuples; keys filled."},
    {"place", place, METH_VARARGS, "place(data, found, Symbol) -> the symbols with lines and UTF-16 columns."},
    {"block_lines", block_lines, METH_VARARGS, "block_lines(buffer) -> where a top-level aggregate can start."},
    {"name_keys", name_keys, METH_VARARGS, "name_keys(symbols, fast_key) -> {name: key} of each distinct name."},
    {"pack_text", pack_text, METH_VARARGS, "pack_text(symbols, keys) -> the packed symbols' text, uncompressed."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_scan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__scan(void) { return PyModule_Create(&module); }
