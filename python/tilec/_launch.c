/* tilec._launch: the warm path of `kernel[grid](*args)` in C.
 *
 * The Python path (tilec/launch.py, tilec/runtime.py) is the definition of a launch: it binds,
 * specialises, compiles and launches, and then registers the kernel's launcher here under the
 * warm key this module computes from the same arguments (Dispatcher.remember). A later launch
 * whose arguments give the same key is done here: the key is a tuple with, per parameter, the
 * constexpr value or a small code saying what the compile key says of the runtime argument
 * (folded 1, i32/i64/u64 and divisible by 16, bool, float, array dtype and 16-byte alignment;
 * a host tensor descriptor's parts each), then the launch options. The arguments are packed on
 * this call's stack (no buffer is shared between calls or threads), laid out as
 * runtime.ArgumentBuffer lays them, and cuLaunchKernel is called with the GIL released. A TMA
 * map parameter is copied from the map its launcher keeps, encoded again (by Python) only when
 * the parameters it is made from change. A kernel that takes global scratch (the TMA maps it
 * makes) gets it at every launch from its launcher's scratch function (Python: the allocator set
 * with tilec.set_allocator, or the stream's pool), held until the kernel is queued. Anything
 * this module does not know (another argument type, a grid it cannot read, a keyword that is
 * no parameter or option, the interpreter) goes to the Python path, which raises the errors.
 *
 * The driver functions are given as addresses by Python (configure), so tests can give fakes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef void *CUfunction;
typedef void *CUcontext;
typedef void *CUstream;
typedef CUresult (*LaunchFn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*CtxGetCurrentFn)(CUcontext *);
typedef CUresult (*ErrorNameFn)(CUresult, const char **);
typedef intptr_t (*StreamPtrFn)(int); /* CuPy's C function: device -> current stream */

/* The slot kinds of runtime.SLOTS (Slot.native). */
enum { SLOT_I1 = 1, SLOT_I32 = 2, SLOT_I64 = 3, SLOT_F32 = 4, SLOT_F64 = 5, SLOT_PTR = 6,
       SLOT_TMAP = 7 };

/* Size and alignment of each slot kind in the argument buffer (runtime.SLOTS' size, align). */
static const int slot_size[] = {0, 1, 4, 8, 4, 8, 8, 128};
static const int slot_align[] = {0, 1, 4, 8, 4, 8, 8, 64};

/* Key codes of runtime arguments; arrays are ARRAY_CODE + 2 * dtype index + aligned. */
enum { CODE_FOLDED_ONE = 0, CODE_I32 = 1, CODE_I64 = 3, CODE_U64 = 5, CODE_BOOL = 7,
       CODE_FLOAT = 8, ARRAY_CODE = 16 };

enum { ARRAY_TORCH = 0, ARRAY_CUPY = 1 };

#define MAX_PARAMS 256
#define MAX_CONTEXTS 16
#define MAP_BYTES 128 /* a CUtensorMap, passed by value */
#define MAP_ALIGN 64
#define MAX_MAPS 32
#define MAX_MAP_INPUTS 16
#define KEPT_SCRATCH (-2) /* a Launcher's `kept` index of the global scratch's pointer slot */
/* Every parameter's slot, laid out as runtime.ArgumentBuffer lays them: room for MAX_PARAMS
 * slots of 8 bytes and MAX_MAPS maps, each with its alignment padding. */
#define MAX_ARG_BYTES (MAX_PARAMS * 8 + MAX_MAPS * (MAP_BYTES + MAP_ALIGN))

static LaunchFn cu_launch = NULL;
static CtxGetCurrentFn cu_ctx_get_current = NULL;
static ErrorNameFn cu_error_name = NULL;
static PyObject *cupy_current_stream = NULL; /* (device) -> Stream with .ptr */
static StreamPtrFn cupy_stream_ptr = NULL;   /* or CuPy's C function, when given its capsule */
static PyObject *torch_raw_stream = NULL;    /* (device) -> int */
static PyObject *launch_error = NULL;        /* the exception class of failed launches */
static PyObject *array_types = NULL;         /* type -> ARRAY_TORCH | ARRAY_CUPY */
static PyObject *dtype_codes = NULL;         /* dtype object -> index */
static PyObject *s_data_ptr, *s_dtype, *s_data, *s_ptr, *s_is_cuda;

typedef union {
    int64_t i;
    uint64_t u;
    double f;
} Value;

/* --- Launcher: one compiled kernel ---------------------------------------------------------- */

/* A TMA map parameter (runtime.TensorMapSource): made from other parameters' values (the base
 * of a host descriptor, its sizes and strides) by a Python function, encode(*inputs) -> 128
 * bytes. The map last encoded is kept with the inputs it was made from: a launch whose inputs
 * are the same copies it, any other calls encode. */
typedef struct {
    int slot;         /* the map's parameter */
    int ninputs;
    int at[MAX_MAP_INPUTS];   /* index among the runtime arguments' values of each input */
    int kind[MAX_MAP_INPUTS]; /* its slot kind: how it is given to encode */
    uint64_t last[MAX_MAP_INPUTS]; /* the inputs `encoded` was made from */
    PyObject *encode;
    PyObject *encoded; /* bytes (MAP_BYTES), NULL before the first launch */
} TensorMap;

typedef struct {
    PyObject_HEAD
    unsigned block, shared;
    unsigned ctas; /* CTAs per program (a cluster along x): the launch has ctas * x CTAs */
    int nslots;
    int *slots;   /* slot kind of each parameter of the compiled kernel */
    int *kept;    /* index among the JITFunction's runtime arguments of each (-1: a map) */
    int *offsets; /* byte offset of each in the argument buffer */
    int nmaps;
    TensorMap *maps;
    int ncontexts;
    CUcontext contexts[MAX_CONTEXTS];
    CUfunction functions[MAX_CONTEXTS];
    long devices[MAX_CONTEXTS];
    PyObject *loader; /* () -> (context, function, device) on the current device */
    PyObject *handle; /* what a launch returns (the CompiledKernel) */
    /* (programs, torch, device, stream) -> (holder, address) of the launch's global scratch,
     * for the slot whose kept index is KEPT_SCRATCH; NULL when the kernel takes none */
    PyObject *scratch;
} Launcher;

static void Launcher_clear_maps(Launcher *self) {
    for (int m = 0; m < self->nmaps; m++) {
        Py_CLEAR(self->maps[m].encode);
        Py_CLEAR(self->maps[m].encoded);
    }
    free(self->maps);
    self->maps = NULL;
    self->nmaps = 0;
}

static void Launcher_dealloc(Launcher *self) {
    free(self->slots);
    free(self->kept);
    free(self->offsets);
    Launcher_clear_maps(self);
    Py_XDECREF(self->loader);
    Py_XDECREF(self->handle);
    Py_XDECREF(self->scratch);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int int_list(PyObject *seq, int **out, int *n) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of ints");
    if (!fast) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    *out = (int *)calloc(len > 0 ? len : 1, sizeof(int));
    if (!*out) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        (*out)[i] = (int)v;
    }
    *n = (int)len;
    Py_DECREF(fast);
    return 0;
}

/* The maps of `seq` ((param, inputs, encode) each, in parameter order) into self->maps; slot
 * kinds and value indices (self->kept) must be set. */
static int Launcher_init_maps(Launcher *self, PyObject *seq) {
    PyObject *fast = PySequence_Fast(seq, "maps: expected a sequence of (param, inputs, encode)");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > MAX_MAPS) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "at most %d TMA map parameters", MAX_MAPS);
        return -1;
    }
    self->maps = (TensorMap *)calloc(n > 0 ? n : 1, sizeof(TensorMap));
    if (!self->maps) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t m = 0; m < n; m++) {
        TensorMap *map = &self->maps[m];
        PyObject *inputs, *encode;
        int slot;
        PyObject *item = PySequence_Fast_GET_ITEM(fast, m);
        if (!PyTuple_Check(item) || !PyArg_ParseTuple(item, "iOO", &slot, &inputs, &encode)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "maps: expected (param, inputs, encode) tuples");
            goto fail;
        }
        if (slot < 0 || slot >= self->nslots || self->slots[slot] != SLOT_TMAP) {
            PyErr_Format(PyExc_ValueError, "map %zd: parameter %d is not a tensormap slot", m,
                         slot);
            goto fail;
        }
        for (Py_ssize_t k = 0; k < m; k++) {
            if (self->maps[k].slot == slot) {
                PyErr_Format(PyExc_ValueError, "parameter %d is given two maps", slot);
                goto fail;
            }
        }
        if (!PyCallable_Check(encode)) {
            PyErr_Format(PyExc_TypeError, "map %zd: encode is not callable", m);
            goto fail;
        }
        int *params, ninputs;
        if (int_list(inputs, &params, &ninputs) < 0) goto fail;
        int ok = ninputs >= 1 && ninputs <= MAX_MAP_INPUTS;
        for (int k = 0; ok && k < ninputs; k++) {
            int p = params[k];
            int kind = p >= 0 && p < self->nslots ? self->slots[p] : 0;
            ok = (kind == SLOT_I1 || kind == SLOT_I32 || kind == SLOT_I64 || kind == SLOT_PTR)
                 && self->kept[p] >= 0; /* not the scratch */
            if (ok) {
                map->at[k] = self->kept[p];
                map->kind[k] = kind;
            }
        }
        free(params);
        if (!ok) {
            PyErr_Format(PyExc_ValueError, "map %zd: 1 to %d inputs, each an integer or pointer "
                         "parameter", m, MAX_MAP_INPUTS);
            goto fail;
        }
        map->slot = slot;
        map->ninputs = ninputs;
        map->encode = Py_NewRef(encode);
        self->nmaps = (int)m + 1;
    }
    Py_DECREF(fast);
    for (int i = 0; i < self->nslots; i++) {
        int found = self->slots[i] != SLOT_TMAP;
        for (int m = 0; !found && m < self->nmaps; m++) found = self->maps[m].slot == i;
        if (!found) {
            PyErr_Format(PyExc_ValueError, "tensormap parameter %d has no map", i);
            return -1;
        }
    }
    return 0;
fail:
    Py_DECREF(fast);
    return -1;
}

static int Launcher_init(Launcher *self, PyObject *args, PyObject *kwds) {
    unsigned block, shared, ctas = 1;
    PyObject *slots, *kept, *loader, *handle, *maps = NULL, *scratch = NULL;
    if (!PyArg_ParseTuple(args, "IIOOOO|OOI", &block, &shared, &slots, &kept, &loader, &handle,
                          &maps, &scratch, &ctas))
        return -1;
    if (ctas < 1 || ctas > 8 || (ctas & (ctas - 1))) {
        PyErr_Format(PyExc_ValueError, "ctas is a cluster's size, 1, 2, 4 or 8, not %u", ctas);
        return -1;
    }
    if (scratch == Py_None) scratch = NULL;
    if (scratch && !PyCallable_Check(scratch)) {
        PyErr_SetString(PyExc_TypeError, "scratch is not callable");
        return -1;
    }
    free(self->slots);
    free(self->kept);
    free(self->offsets);
    self->slots = self->kept = self->offsets = NULL;
    Launcher_clear_maps(self);
    int nslots, nkept, *given = NULL;
    if (int_list(slots, &self->slots, &nslots) < 0 || int_list(kept, &given, &nkept) < 0)
        return -1;
    Py_ssize_t nmaps = maps && maps != Py_None ? PySequence_Size(maps) : 0;
    if (nmaps < 0) {
        free(given);
        return -1;
    }
    if (nslots != nkept + nmaps || nslots > MAX_PARAMS) {
        free(given);
        PyErr_SetString(PyExc_ValueError, "one kept index per slot but the maps', at most 256");
        return -1;
    }
    self->kept = (int *)calloc(nslots > 0 ? nslots : 1, sizeof(int));
    self->offsets = (int *)calloc(nslots > 0 ? nslots : 1, sizeof(int));
    if (!self->kept || !self->offsets) {
        free(given);
        PyErr_NoMemory();
        return -1;
    }
    int end = 0, next = 0, scratch_slots = 0;
    for (int i = 0; i < nslots; i++) {
        int kind = self->slots[i];
        if (kind < SLOT_I1 || kind > SLOT_TMAP) {
            free(given);
            PyErr_Format(PyExc_ValueError, "unknown slot kind %d", kind);
            return -1;
        }
        if (kind == SLOT_TMAP) {
            self->kept[i] = -1;
        } else if (next < nkept) {
            self->kept[i] = given[next++];
            if (self->kept[i] == KEPT_SCRATCH && (kind != SLOT_PTR || !scratch
                                                   || scratch_slots++)) {
                free(given);
                PyErr_SetString(PyExc_ValueError, "the global scratch is one pointer slot, of "
                                "a launcher given a scratch function");
                return -1;
            }
        } else {
            free(given);
            PyErr_SetString(PyExc_ValueError, "one kept index per slot but the maps'");
            return -1;
        }
        int align = slot_align[kind];
        end = (end + align - 1) / align * align; /* as runtime.ArgumentBuffer */
        self->offsets[i] = end;
        end += slot_size[kind];
    }
    free(given);
    self->nslots = nslots;
    if (end > MAX_ARG_BYTES) {
        PyErr_Format(PyExc_ValueError, "the parameters take %d bytes, more than %d", end,
                     MAX_ARG_BYTES);
        return -1;
    }
    if (nmaps > 0 && Launcher_init_maps(self, maps) < 0) return -1;
    if (nmaps == 0) { /* no maps: no tensormap slot either */
        for (int i = 0; i < nslots; i++) {
            if (self->slots[i] == SLOT_TMAP) {
                PyErr_Format(PyExc_ValueError, "tensormap parameter %d has no map", i);
                return -1;
            }
        }
    }
    if (scratch && !scratch_slots) {
        PyErr_SetString(PyExc_ValueError, "a scratch function but no scratch slot");
        return -1;
    }
    self->block = block;
    self->shared = shared;
    self->ctas = ctas;
    self->ncontexts = 0;
    Py_XSETREF(self->loader, Py_NewRef(loader));
    Py_XSETREF(self->handle, Py_NewRef(handle));
    Py_XSETREF(self->scratch, Py_XNewRef(scratch));
    return 0;
}

/* The function loaded in the current context (loading it there first), or NULL with
 * *device set: -1 when the Python path must do it. */
static CUfunction Launcher_function(Launcher *self, long *device) {
    CUcontext ctx = NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (cu_ctx_get_current(&ctx) == 0 && ctx != NULL) {
            for (int i = 0; i < self->ncontexts; i++) {
                if (self->contexts[i] == ctx) {
                    *device = self->devices[i];
                    return self->functions[i];
                }
            }
        }
        if (attempt == 1 || self->ncontexts == MAX_CONTEXTS) break;
        PyObject *loaded = PyObject_CallNoArgs(self->loader);
        if (!loaded) return NULL;
        unsigned long long c, f;
        long d;
        if (!PyArg_ParseTuple(loaded, "KKl", &c, &f, &d)) {
            Py_DECREF(loaded);
            return NULL;
        }
        Py_DECREF(loaded);
        if (c == 0) break; /* still no context: the Python path launches */
        int known = 0;
        for (int i = 0; i < self->ncontexts; i++) known |= self->contexts[i] == (CUcontext)c;
        if (!known) {
            self->contexts[self->ncontexts] = (CUcontext)c;
            self->functions[self->ncontexts] = (CUfunction)f;
            self->devices[self->ncontexts] = d;
            self->ncontexts++;
        }
    }
    *device = -1;
    return NULL;
}

static PyObject *Launcher_contexts(Launcher *self, PyObject *unused) {
    PyObject *out = PyList_New(self->ncontexts);
    if (!out) return NULL;
    for (int i = 0; i < self->ncontexts; i++) {
        PyObject *t = Py_BuildValue("KKl", (unsigned long long)self->contexts[i],
                                    (unsigned long long)self->functions[i], self->devices[i]);
        if (!t) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, t);
    }
    return out;
}

static PyMethodDef Launcher_methods[] = {
    {"contexts", (PyCFunction)Launcher_contexts, METH_NOARGS,
     "The (context, function, device) triples loaded so far."},
    {NULL}};

static PyTypeObject LauncherType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilec._launch.Launcher",
    .tp_basicsize = sizeof(Launcher),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Launcher(block, shared, slots, kept, loader, handle[, maps[, scratch[, ctas]]]): "
              "one compiled kernel; maps: (param, inputs, encode) of each TMA map parameter; "
              "scratch: (CTAs, torch, device, stream) -> (holder, address) of the global "
              "scratch, passed in the pointer slot whose kept index is -2; ctas: CTAs per "
              "program (a cluster along x), 1 by default",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Launcher_init,
    .tp_dealloc = (destructor)Launcher_dealloc,
    .tp_methods = Launcher_methods,
};

/* --- Dispatcher: one JITFunction ------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    int nparams, noptions, interpret;
    PyObject *names;           /* tuple of str */
    char *is_constexpr;        /* per parameter */
    char *specialize;          /* per parameter */
    PyObject *defaults;        /* tuple: a default or `empty` per parameter */
    PyObject *empty;           /* the marker of "no default" */
    PyObject *option_names;    /* tuple of str */
    PyObject *option_defaults; /* tuple */
    PyObject *slow;            /* (grid, args, kwargs) -> the Python path */
    PyObject *warm;            /* warm key -> (Launcher, stream kind) */
    PyObject *last_key;        /* the key of the last warm launch, and its entry: a launch */
    PyObject *last_entry;      /* whose codes, constexprs and options are the same (the same
                                  objects) skips building its key and the lookup */
    long *last_codes;          /* the codes of last_key, per parameter */
} Dispatcher;

static void Dispatcher_dealloc(Dispatcher *self) {
    free(self->is_constexpr);
    free(self->specialize);
    free(self->last_codes);
    Py_XDECREF(self->names);
    Py_XDECREF(self->defaults);
    Py_XDECREF(self->empty);
    Py_XDECREF(self->option_names);
    Py_XDECREF(self->option_defaults);
    Py_XDECREF(self->slow);
    Py_XDECREF(self->warm);
    Py_XDECREF(self->last_key);
    Py_XDECREF(self->last_entry);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static char *bool_list(PyObject *seq, Py_ssize_t n) {
    PyObject *fast = PySequence_Fast(seq, "expected a sequence of bools");
    if (!fast) return NULL;
    if (PySequence_Fast_GET_SIZE(fast) != n) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "one flag per parameter");
        return NULL;
    }
    char *out = (char *)calloc(n > 0 ? n : 1, 1);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        int v = PyObject_IsTrue(PySequence_Fast_GET_ITEM(fast, i));
        if (v < 0) {
            free(out);
            out = NULL;
            break;
        }
        out[i] = (char)v;
    }
    Py_DECREF(fast);
    return out;
}

static int Dispatcher_init(Dispatcher *self, PyObject *args, PyObject *kwds) {
    PyObject *names, *constexprs, *specialize, *defaults, *empty, *onames, *odefaults, *slow;
    int interpret;
    if (!PyArg_ParseTuple(args, "OOOOOOOiO", &names, &constexprs, &specialize, &defaults, &empty,
                          &onames, &odefaults, &interpret, &slow))
        return -1;
    self->names = PySequence_Tuple(names);
    self->defaults = PySequence_Tuple(defaults);
    self->option_names = PySequence_Tuple(onames);
    self->option_defaults = PySequence_Tuple(odefaults);
    if (!self->names || !self->defaults || !self->option_names || !self->option_defaults)
        return -1;
    self->nparams = (int)PyTuple_GET_SIZE(self->names);
    self->noptions = (int)PyTuple_GET_SIZE(self->option_names);
    if (self->nparams > MAX_PARAMS || PyTuple_GET_SIZE(self->defaults) != self->nparams ||
        PyTuple_GET_SIZE(self->option_defaults) != self->noptions || self->noptions > 16) {
        PyErr_SetString(PyExc_ValueError, "inconsistent parameter lists");
        return -1;
    }
    self->is_constexpr = bool_list(constexprs, self->nparams);
    self->specialize = bool_list(specialize, self->nparams);
    self->last_codes = (long *)calloc(self->nparams > 0 ? self->nparams : 1, sizeof(long));
    if (!self->is_constexpr || !self->specialize) return -1;
    if (!self->last_codes) {
        PyErr_NoMemory();
        return -1;
    }
    Py_INCREF(empty);
    self->empty = empty;
    Py_INCREF(slow);
    self->slow = slow;
    self->interpret = interpret;
    self->warm = PyDict_New();
    return self->warm ? 0 : -1;
}

/* Binds positional and keyword arguments to parameters and options (borrowed references).
 * 1: bound; 0: the Python path must bind (it raises the error); -1: error set. */
static int bind(Dispatcher *d, PyObject *const *pos, Py_ssize_t npos, PyObject *kwnames,
                PyObject *const *kwvalues, PyObject **bound, PyObject **options) {
    if (npos > d->nparams) return 0;
    for (int i = 0; i < d->nparams; i++) bound[i] = i < npos ? pos[i] : NULL;
    for (int i = 0; i < d->noptions; i++) options[i] = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        int found = 0;
        for (int pass = 0; pass < 2 && !found; pass++) { /* identity first, then equality */
            for (int i = 0; i < d->nparams && !found; i++) {
                PyObject *p = PyTuple_GET_ITEM(d->names, i);
                if (p == name || (pass && PyUnicode_Compare(p, name) == 0)) {
                    if (bound[i]) return 0; /* given twice */
                    bound[i] = kwvalues[k];
                    found = 1;
                }
            }
            for (int i = 0; i < d->noptions && !found; i++) {
                PyObject *o = PyTuple_GET_ITEM(d->option_names, i);
                if (o == name || (pass && PyUnicode_Compare(o, name) == 0)) {
                    options[i] = kwvalues[k];
                    found = 1;
                }
            }
        }
        if (PyErr_Occurred()) return -1;
        if (!found) return 0;
    }
    for (int i = 0; i < d->nparams; i++) {
        if (bound[i]) continue;
        PyObject *def = PyTuple_GET_ITEM(d->defaults, i);
        if (def == d->empty) return 0;
        bound[i] = def;
    }
    for (int i = 0; i < d->noptions; i++)
        if (!options[i]) options[i] = PyTuple_GET_ITEM(d->option_defaults, i);
    return 1;
}

/* An attribute read through its type's getset descriptor, called directly while the type is
 * the one it was found on and unchanged (its version tag), else through PyObject_GetAttr. A
 * getset is a data descriptor: no instance attribute can hide it. */
typedef struct {
    PyTypeObject *type; /* borrowed: a registered array type (held by array_types) or a type
                           met on the last read (only compared, never dereferenced again) */
    unsigned int version;
    getter get;
    void *closure;
} FastAttr;

static PyObject *fast_getattr(PyObject *obj, PyObject *name, FastAttr *cache) {
    PyTypeObject *t = Py_TYPE(obj);
    if (cache->type == t && cache->version != 0 && t->tp_version_tag == cache->version)
        return cache->get(obj, cache->closure);
    cache->type = NULL;
    if (t->tp_getattro == PyObject_GenericGetAttr) {
        PyObject *descr = _PyType_Lookup(t, name); /* borrowed; gives the type a version */
        if (descr && Py_IS_TYPE(descr, &PyGetSetDescr_Type) && t->tp_version_tag != 0) {
            PyGetSetDef *def = ((PyGetSetDescrObject *)descr)->d_getset;
            if (def->get) {
                cache->type = t;
                cache->version = t->tp_version_tag;
                cache->get = def->get;
                cache->closure = def->closure;
                return def->get(obj, def->closure);
            }
        }
    }
    return PyObject_GetAttr(obj, name);
}

/* A registered array type (or a subclass of one) and how its arrays are read. */
typedef struct {
    PyTypeObject *type;
    int kind;
    FastAttr dtype, data, ptr; /* .dtype; CuPy's .data and its .ptr */
} ArrayType;

#define MAX_ARRAY_TYPES 16
static ArrayType array_table[MAX_ARRAY_TYPES];
static int narray_types = 0;
static ArrayType spare_array_type; /* a type past the table: read without cached attributes */

/* How arrays of type `t` are read (its registered type or a base of it), or NULL. */
static ArrayType *array_type(PyTypeObject *t) {
    for (int i = 0; i < narray_types; i++)
        if (array_table[i].type == t) return &array_table[i];
    PyObject *kind = PyDict_GetItem(array_types, (PyObject *)t);
    PyObject *mro = t->tp_mro;
    for (Py_ssize_t i = 1; !kind && mro && i < PyTuple_GET_SIZE(mro); i++) {
        kind = PyDict_GetItem(array_types, PyTuple_GET_ITEM(mro, i));
        if (kind && PyDict_SetItem(array_types, (PyObject *)t, kind) < 0) { /* a subclass */
            PyErr_Clear();
            kind = NULL;
        }
    }
    if (!kind) return NULL;
    /* array_types holds `t` now: the table's borrowed pointer stays valid */
    ArrayType *entry = narray_types < MAX_ARRAY_TYPES ? &array_table[narray_types++]
                                                       : &spare_array_type;
    memset(entry, 0, sizeof *entry);
    entry->type = t;
    entry->kind = (int)PyLong_AsLong(kind);
    return entry;
}

/* Array dtypes by identity (in front of dtype_codes, a dict by equality: numpy hashes a dtype
 * by its fields, which costs more than the rest of reading an array). Held for good. */
#define MAX_SEEN_DTYPES 64
static PyObject *seen_dtypes[MAX_SEEN_DTYPES];
static long seen_dtype_index[MAX_SEEN_DTYPES];
static int nseen_dtypes = 0;

static long dtype_index(PyObject *dtype) {
    for (int i = 0; i < nseen_dtypes; i++)
        if (seen_dtypes[i] == dtype) return seen_dtype_index[i];
    PyObject *index = PyDict_GetItemWithError(dtype_codes, dtype);
    long n;
    if (index) {
        n = PyLong_AsLong(index);
    } else {
        if (PyErr_Occurred()) return -1;
        n = (long)PyDict_Size(dtype_codes);
        if (n >= 100) return -1; /* more dtypes than codes: the Python path */
        PyObject *fresh = PyLong_FromLong(n);
        if (!fresh || PyDict_SetItem(dtype_codes, dtype, fresh) < 0) {
            Py_XDECREF(fresh);
            return -1;
        }
        Py_DECREF(fresh);
    }
    if (nseen_dtypes < MAX_SEEN_DTYPES) {
        seen_dtypes[nseen_dtypes] = Py_NewRef(dtype);
        seen_dtype_index[nseen_dtypes++] = n;
    }
    return n;
}

/* Key codes: >= 0 for a runtime argument; constexprs have none. */
#define NO_CODE (-1L)

/* The key code of one runtime argument and its value: >= 0, or -1 when the Python path must
 * take the launch (no error set), or -2 with an error set. *torch is set for a torch tensor. */
static long runtime_code(PyObject *v, int specialize, Value *out, int *torch) {
    PyTypeObject *t = Py_TYPE(v);
    if (t == &PyBool_Type) {
        out->i = v == Py_True;
        return CODE_BOOL;
    }
    if (t == &PyLong_Type) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow == 0) {
            if (x == -1 && PyErr_Occurred()) return -2;
            out->i = x;
            if (specialize && x == 1) return CODE_FOLDED_ONE;
            int aligned = specialize && (x % 16 == 0);
            if (x >= -2147483648LL && x < 2147483648LL) return CODE_I32 + aligned;
            return CODE_I64 + aligned;
        }
        if (overflow < 0) return -1; /* below -2^63: the Python path raises */
        unsigned long long u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear(); /* at or past 2^64: the Python path raises */
            return -1;
        }
        out->u = u;
        return CODE_U64 + (specialize && (u % 16 == 0));
    }
    if (t == &PyFloat_Type) {
        out->f = PyFloat_AS_DOUBLE(v);
        return CODE_FLOAT;
    }
    ArrayType *array = array_type(t);
    if (!array) return PyErr_Occurred() ? -2 : -1;
    PyObject *ptr_obj;
    if (array->kind == ARRAY_TORCH) {
        PyObject *on_gpu = PyObject_GetAttr(v, s_is_cuda);
        if (!on_gpu) return -2;
        Py_DECREF(on_gpu);
        if (on_gpu != Py_True) return -1; /* a CPU tensor: the Python path says what is wrong */
        ptr_obj = PyObject_CallMethodNoArgs(v, s_data_ptr);
        *torch = 1;
    } else {
        PyObject *data = fast_getattr(v, s_data, &array->data);
        if (!data) return -2;
        ptr_obj = fast_getattr(data, s_ptr, &array->ptr);
        Py_DECREF(data);
    }
    if (!ptr_obj) return -2;
    unsigned long long ptr = PyLong_AsUnsignedLongLong(ptr_obj);
    Py_DECREF(ptr_obj);
    if (ptr == (unsigned long long)-1 && PyErr_Occurred()) return -2;
    PyObject *dtype = fast_getattr(v, s_dtype, &array->dtype);
    if (!dtype) return -2;
    long index = dtype_index(dtype);
    Py_DECREF(dtype);
    if (index < 0) return PyErr_Occurred() ? -2 : -1;
    out->u = ptr;
    return ARRAY_CODE + 2 * index + (specialize && (ptr % 16 == 0));
}

/* A host tensor descriptor (an object whose type has tilec_descriptor_parts(), as
 * tilec.tools.tensor_descriptor.TensorDescriptor) is passed as its parts: base, sizes, strides
 * (runtime arguments, each with its own code, in that order: runtime.leaves' order), then the
 * block shape and padding (compile-time: their places among the values are never packed). Its code stands for all of that: (leaf codes, block
 * shape, padding) interned in descriptor_codes, numbered from DESCRIPTOR_CODE. */
#define DESCRIPTOR_CODE (1L << 40)
static PyObject *descriptor_codes = NULL; /* (leaf codes..., block shape, padding) -> code */
static PyObject *s_descriptor_parts;

static int is_descriptor(PyObject *v) {
    PyObject *method = _PyType_Lookup(Py_TYPE(v), s_descriptor_parts); /* borrowed */
    return method != NULL;
}

/* The code of a descriptor, its leaves' values appended at values[*n...] (*n advanced): >= 0,
 * -1 for the Python path (no error set), -2 with an error set. */
static long descriptor_code(PyObject *v, int specialize, Value *values, int *n, int *torch) {
    PyObject *parts = PyObject_CallMethodNoArgs(v, s_descriptor_parts);
    if (!parts) return -2;
    Py_ssize_t nparts = PyTuple_Check(parts) ? PyTuple_GET_SIZE(parts) : 0;
    Py_ssize_t nleaves = nparts - 2;
    if (nleaves < 1 || *n + nparts > MAX_PARAMS) {
        Py_DECREF(parts);
        return -1;
    }
    PyObject *key = PyTuple_New(nparts);
    if (!key) {
        Py_DECREF(parts);
        return -2;
    }
    long code = 0;
    for (Py_ssize_t i = 0; i < nleaves; i++) {
        code = runtime_code(PyTuple_GET_ITEM(parts, i), specialize, &values[*n + i], torch);
        PyObject *c = code >= 0 ? PyLong_FromLong(code) : NULL;
        if (!c) {
            Py_DECREF(key);
            Py_DECREF(parts);
            return code >= 0 ? -2 : code;
        }
        PyTuple_SET_ITEM(key, i, c);
    }
    PyTuple_SET_ITEM(key, nleaves, Py_NewRef(PyTuple_GET_ITEM(parts, nleaves)));
    PyTuple_SET_ITEM(key, nleaves + 1, Py_NewRef(PyTuple_GET_ITEM(parts, nleaves + 1)));
    Py_DECREF(parts);
    PyObject *found = PyDict_GetItemWithError(descriptor_codes, key); /* borrowed */
    if (found) {
        code = PyLong_AsLong(found);
    } else if (PyErr_Occurred()) { /* an unhashable block shape or padding: the Python path */
        PyErr_Clear();
        code = -1;
    } else {
        code = DESCRIPTOR_CODE + (long)PyDict_GET_SIZE(descriptor_codes);
        PyObject *c = PyLong_FromLong(code);
        if (!c || PyDict_SetItem(descriptor_codes, key, c) < 0) code = -2;
        Py_XDECREF(c);
    }
    Py_DECREF(key);
    if (code >= 0) { /* the block shape and padding hold a place, as runtime.leaves lists them */
        values[*n + nleaves].u = values[*n + nleaves + 1].u = 0;
        *n += (int)nparts;
    }
    return code;
}

/* The key codes of bound arguments (NO_CODE for constexprs), filling `values` for runtime
 * parameters (in order; a descriptor's leaves each) and *torch when a torch tensor is among
 * them. 1: done; 0: the Python path (no error set); -1: error. */
static int key_codes(Dispatcher *d, PyObject **bound, long *codes, Value *values, int *nvalues,
                     int *torch) {
    int n = 0;
    *torch = 0;
    for (int i = 0; i < d->nparams; i++) {
        codes[i] = NO_CODE;
        if (d->is_constexpr[i]) continue;
        if (n >= MAX_PARAMS) return 0;
        long code = runtime_code(bound[i], d->specialize[i], &values[n], torch);
        if (code >= 0)
            n++;
        else if (code == -1 && is_descriptor(bound[i]))
            code = descriptor_code(bound[i], d->specialize[i], values, &n, torch);
        if (code < 0) return code == -1 ? 0 : -1;
        codes[i] = code;
    }
    *nvalues = n;
    return 1;
}

/* The warm key: per parameter the constexpr value or the code, then the launch options. */
static PyObject *key_tuple(Dispatcher *d, PyObject **bound, PyObject **options,
                           const long *codes) {
    PyObject *key = PyTuple_New(d->nparams + d->noptions);
    if (!key) return NULL;
    for (int i = 0; i < d->nparams; i++) {
        PyObject *item = codes[i] == NO_CODE ? Py_NewRef(bound[i]) : PyLong_FromLong(codes[i]);
        if (!item) {
            Py_DECREF(key);
            return NULL;
        }
        PyTuple_SET_ITEM(key, i, item);
    }
    for (int i = 0; i < d->noptions; i++)
        PyTuple_SET_ITEM(key, d->nparams + i, Py_NewRef(options[i]));
    return key;
}

/* The warm key of bound arguments (see key_codes); NULL without an error: the Python path. */
static PyObject *warm_key(Dispatcher *d, PyObject **bound, PyObject **options, Value *values,
                          int *nvalues, int *torch) {
    long codes[MAX_PARAMS];
    if (key_codes(d, bound, codes, values, nvalues, torch) <= 0) return NULL;
    return key_tuple(d, bound, options, codes);
}

static int read_dims(PyObject *g, unsigned dims[3]) {
    static const unsigned long limits[3] = {2147483647UL, 65535UL, 65535UL};
    dims[0] = dims[1] = dims[2] = 1;
    if (PyLong_CheckExact(g)) {
        long x = PyLong_AsLong(g);
        if (x <= 0 || (unsigned long)x > limits[0]) {
            PyErr_Clear();
            return 0;
        }
        dims[0] = (unsigned)x;
        return 1;
    }
    if (!PyTuple_CheckExact(g) && !PyList_CheckExact(g)) return 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(g);
    if (n < 1 || n > 3) return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(g, i);
        if (!PyLong_CheckExact(item)) return 0;
        long x = PyLong_AsLong(item);
        if (x <= 0 || (unsigned long)x > limits[i]) {
            PyErr_Clear();
            return 0; /* 0 (no launch), negative or too large: the Python path */
        }
        dims[i] = (unsigned)x;
    }
    return 1;
}

/* 1: dims read; 0: the Python path; -1: error (raised by the grid function). */
static int grid_dims(Dispatcher *d, PyObject *grid, PyObject **bound, unsigned dims[3]) {
    if (PyLong_CheckExact(grid) || PyTuple_CheckExact(grid) || PyList_CheckExact(grid))
        return read_dims(grid, dims);
    if (!PyCallable_Check(grid)) return 0;
    PyObject *meta = PyDict_New();
    if (!meta) return -1;
    for (int i = 0; i < d->nparams; i++) {
        if (PyDict_SetItem(meta, PyTuple_GET_ITEM(d->names, i), bound[i]) < 0) {
            Py_DECREF(meta);
            return -1;
        }
    }
    PyObject *g = PyObject_CallOneArg(grid, meta);
    Py_DECREF(meta);
    if (!g) return -1;
    int ok = read_dims(g, dims);
    Py_DECREF(g);
    return ok;
}

static PyObject *slow_path(Dispatcher *d, PyObject *grid, PyObject *const *args, size_t nargsf,
                           PyObject *kwnames) {
    Py_ssize_t npos = PyVectorcall_NARGS(nargsf);
    PyObject *pos = PyTuple_New(npos);
    PyObject *kw = PyDict_New();
    if (!pos || !kw) goto fail;
    for (Py_ssize_t i = 0; i < npos; i++) {
        Py_INCREF(args[i]);
        PyTuple_SET_ITEM(pos, i, args[i]);
    }
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++)
        if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, k), args[npos + k]) < 0) goto fail;
    PyObject *result = PyObject_CallFunctionObjArgs(d->slow, grid, pos, kw, NULL);
    Py_DECREF(pos);
    Py_DECREF(kw);
    return result;
fail:
    Py_XDECREF(pos);
    Py_XDECREF(kw);
    return NULL;
}

static int interpreting(Dispatcher *d) {
    if (d->interpret >= 0) return d->interpret;
    const char *v = getenv("TILEC_INTERPRET"); /* read at every launch, as the Python path */
    return v && v[0] && strcmp(v, "0") != 0;
}

/* The caller's current stream; (void *)-1 with an error set, (void *)-2 when the getter is not
 * there (the Python path then launches). The device is given: CuPy need not ask the runtime. */
static void *stream_of(int torch, long device) {
    PyObject *s;
    if (!torch && cupy_stream_ptr) {
        intptr_t p = cupy_stream_ptr((int)device);
        if (p == -1 && PyErr_Occurred()) return (void *)-1;
        return (void *)p;
    }
    PyObject *getter = torch ? torch_raw_stream : cupy_current_stream;
    if (getter == NULL || !PyCallable_Check(getter)) return (void *)-2;
    PyObject *dev = PyLong_FromLong(device);
    if (!dev) return (void *)-1;
    s = PyObject_CallOneArg(getter, dev);
    Py_DECREF(dev);
    if (s && !torch) Py_SETREF(s, PyObject_GetAttr(s, s_ptr));
    if (!s) return (void *)-1;
    unsigned long long p = PyLong_AsUnsignedLongLong(s);
    Py_DECREF(s);
    if (p == (unsigned long long)-1 && PyErr_Occurred()) return (void *)-1;
    return (void *)p;
}

static PyObject *launch_with(Dispatcher *d, Launcher *l, int torch_stream, PyObject *grid,
                             PyObject **bound, Value *values, int nvalues);

/* The map of `map` for these values into `slot` (MAP_BYTES): the one kept when its inputs are
 * the ones it was made from, else encode(*inputs) (Python ints), kept for the next launch.
 * 0, or -1 with an error set. The GIL is held throughout; encode may release it, but `map`
 * is read and written only while it is held and between no Python calls, so a launch on
 * another thread sees the inputs and the map that go together. */
static int tensor_map_into(TensorMap *map, const Value *values, unsigned char *slot) {
    uint64_t now[MAX_MAP_INPUTS];
    for (int k = 0; k < map->ninputs; k++) now[k] = values[map->at[k]].u;
    if (map->encoded && memcmp(now, map->last, sizeof(uint64_t) * map->ninputs) == 0) {
        memcpy(slot, PyBytes_AS_STRING(map->encoded), MAP_BYTES);
        return 0;
    }
    PyObject *argv[MAX_MAP_INPUTS];
    int n = 0;
    for (; n < map->ninputs; n++) {
        Value v = values[map->at[n]];
        switch (map->kind[n]) {
        case SLOT_PTR: argv[n] = PyLong_FromUnsignedLongLong(v.u); break;
        case SLOT_I1: argv[n] = PyBool_FromLong(v.i != 0); break;
        default: argv[n] = PyLong_FromLongLong(v.i); break; /* i32, i64 (a u64: see runtime) */
        }
        if (!argv[n]) break;
    }
    PyObject *encoded = n == map->ninputs ? PyObject_Vectorcall(map->encode, argv, n, NULL)
                                          : NULL;
    for (int k = 0; k < n; k++) Py_DECREF(argv[k]);
    if (!encoded) return -1;
    if (!PyBytes_Check(encoded)) {
        PyErr_Format(PyExc_TypeError, "the TMA map of parameter %d was encoded as %.100s, not "
                     "%d bytes", map->slot, Py_TYPE(encoded)->tp_name, MAP_BYTES);
        Py_DECREF(encoded);
        return -1;
    }
    if (PyBytes_GET_SIZE(encoded) != MAP_BYTES) {
        PyErr_Format(PyExc_ValueError, "the TMA map of parameter %d was encoded as %zd bytes, "
                     "not %d", map->slot, PyBytes_GET_SIZE(encoded), MAP_BYTES);
        Py_DECREF(encoded);
        return -1;
    }
    memcpy(slot, PyBytes_AS_STRING(encoded), MAP_BYTES);
    memcpy(map->last, now, sizeof(uint64_t) * map->ninputs);
    Py_XSETREF(map->encoded, encoded); /* the old map is dropped once both are in place */
    return 0;
}

/* Whether these arguments give the last warm launch's key: the same codes, and the same
 * constexpr and option objects (then the keys are equal). */
static int same_as_last(Dispatcher *d, PyObject **bound, PyObject **options, const long *codes) {
    if (d->last_key == NULL) return 0;
    for (int i = 0; i < d->nparams; i++) {
        if (codes[i] != d->last_codes[i]) return 0;
        if (codes[i] == NO_CODE && bound[i] != PyTuple_GET_ITEM(d->last_key, i)) return 0;
    }
    for (int i = 0; i < d->noptions; i++)
        if (options[i] != PyTuple_GET_ITEM(d->last_key, d->nparams + i)) return 0;
    return 1;
}

static void forget_last(Dispatcher *d) {
    Py_CLEAR(d->last_key);
    Py_CLEAR(d->last_entry);
}

static PyObject *launch(Dispatcher *d, PyObject *grid, PyObject *const *args, size_t nargsf,
                        PyObject *kwnames) {
    PyObject *bound[MAX_PARAMS], *options[16];
    Value values[MAX_PARAMS];
    int nvalues, torch;
    if (cu_launch == NULL || interpreting(d)) goto slow;
    Py_ssize_t npos = PyVectorcall_NARGS(nargsf);
    int b = bind(d, args, npos, kwnames, args + npos, bound, options);
    if (b < 0) return NULL;
    if (b == 0) goto slow;
    long codes[MAX_PARAMS];
    int c = key_codes(d, bound, codes, values, &nvalues, &torch);
    if (c < 0) return NULL;
    if (c == 0) goto slow;
    PyObject *entry = same_as_last(d, bound, options, codes) ? d->last_entry : NULL;
    if (!entry) {
        PyObject *key = key_tuple(d, bound, options, codes);
        if (!key) return NULL;
        entry = PyDict_GetItemWithError(d->warm, key);
        if (!entry) {
            Py_DECREF(key);
            if (PyErr_Occurred()) return NULL;
            goto slow;
        }
        Py_XSETREF(d->last_entry, Py_NewRef(entry));
        Py_XSETREF(d->last_key, key);
        memcpy(d->last_codes, codes, sizeof(long) * d->nparams);
    }
    /* Held for the launch: the grid function or the loader run Python, which may drop it. */
    Launcher *l = (Launcher *)Py_NewRef(PyTuple_GET_ITEM(entry, 0));
    int torch_stream = (int)PyLong_AsLong(PyTuple_GET_ITEM(entry, 1));
    PyObject *result = launch_with(d, l, torch_stream, grid, bound, values, nvalues);
    Py_DECREF(l);
    if (result != Py_None) return result;
    Py_DECREF(result);
slow:
    return slow_path(d, grid, args, nargsf, kwnames);
}

/* The launch of a found entry: its handle, NULL on error, or None for the Python path. */
static PyObject *launch_with(Dispatcher *d, Launcher *l, int torch_stream, PyObject *grid,
                             PyObject **bound, Value *values, int nvalues) {
    unsigned dims[3];
    int g = grid_dims(d, grid, bound, dims);
    if (g < 0) return NULL;
    if (g == 0) Py_RETURN_NONE;
    /* each program a cluster of ctas CTAs along x; too many CTAs: the Python path says so */
    if ((unsigned long long)dims[0] * l->ctas > 2147483647ULL) Py_RETURN_NONE;
    dims[0] *= l->ctas;
    long device;
    CUfunction function = Launcher_function(l, &device);
    if (!function) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE;
    }
    void *stream = stream_of(torch_stream, device);
    if (stream == (void *)-1 && PyErr_Occurred()) return NULL;
    if (stream == (void *)-2) Py_RETURN_NONE;
    /* The slots, laid out as runtime.ArgumentBuffer lays them, on this call's stack. */
    unsigned char raw[MAX_ARG_BYTES + MAP_ALIGN];
    unsigned char *buffer = raw + (-(uintptr_t)raw & (MAP_ALIGN - 1));
    void *params[MAX_PARAMS];
    unsigned char *scratch_slot = NULL;
    for (int i = 0; i < l->nslots; i++) {
        unsigned char *slot = buffer + l->offsets[i];
        params[i] = slot;
        if (l->slots[i] == SLOT_TMAP) continue; /* below, once every value is known */
        int at = l->kept[i];
        if (at == KEPT_SCRATCH) {
            scratch_slot = slot; /* below, once nothing else can fail */
            continue;
        }
        if (at < 0 || at >= nvalues) Py_RETURN_NONE;
        Value v = values[at];
        switch (l->slots[i]) {
        case SLOT_I1: *slot = (uint8_t)(v.i != 0); break;
        case SLOT_I32: {
            int32_t x = (int32_t)v.i;
            memcpy(slot, &x, sizeof x);
            break;
        }
        case SLOT_I64: memcpy(slot, &v.i, 8); break; /* u64 too: the same bits */
        case SLOT_F32: {
            float x = (float)v.f;
            memcpy(slot, &x, sizeof x);
            break;
        }
        case SLOT_F64: memcpy(slot, &v.f, 8); break;
        case SLOT_PTR: memcpy(slot, &v.u, 8); break;
        }
    }
    for (int m = 0; m < l->nmaps; m++)
        if (tensor_map_into(&l->maps[m], values, buffer + l->offsets[l->maps[m].slot]) < 0)
            return NULL; /* encode raised, or gave no map: nothing is launched */
    PyObject *scratch = NULL; /* (holder, address), held until the kernel is queued */
    if (scratch_slot) {
        scratch = PyObject_CallFunction(
            l->scratch, "KOlK", (unsigned long long)dims[0] * dims[1] * dims[2],
            torch_stream ? Py_True : Py_False, device, (unsigned long long)(uintptr_t)stream);
        if (!scratch) return NULL;
        unsigned long long address;
        PyObject *holder;
        if (!PyTuple_Check(scratch) || !PyArg_ParseTuple(scratch, "OK", &holder, &address)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "scratch gave no (holder, address) tuple");
            Py_DECREF(scratch);
            return NULL;
        }
        memcpy(scratch_slot, &address, 8);
    }
    CUresult r;
    Py_BEGIN_ALLOW_THREADS
    r = cu_launch(function, dims[0], dims[1], dims[2], l->block, 1, 1, l->shared,
                  (CUstream)stream, params, NULL);
    Py_END_ALLOW_THREADS
    Py_XDECREF(scratch); /* freed after the kernel on its stream, by either pool */
    if (r != 0) {
        const char *name = "unknown error";
        if (cu_error_name) cu_error_name(r, &name);
        PyErr_Format(launch_error, "cuLaunchKernel failed with %s (%d)", name, r);
        return NULL;
    }
    return Py_NewRef(l->handle);
}

/* Arguments as a tuple and a dict, in the vectorcall form. */
static int to_vector(PyObject *args, PyObject *kwargs, PyObject ***vec, PyObject **kwnames,
                     Py_ssize_t *npos) {
    *npos = PyTuple_GET_SIZE(args);
    Py_ssize_t nkw = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    *vec = (PyObject **)PyMem_Malloc(sizeof(PyObject *) * (*npos + nkw + 1));
    *kwnames = nkw ? PyTuple_New(nkw) : NULL;
    if (!*vec || (nkw && !*kwnames)) return -1;
    for (Py_ssize_t i = 0; i < *npos; i++) (*vec)[i] = PyTuple_GET_ITEM(args, i);
    Py_ssize_t pos = 0, k = 0;
    PyObject *name, *value;
    while (kwargs && PyDict_Next(kwargs, &pos, &name, &value)) {
        Py_INCREF(name);
        PyTuple_SET_ITEM(*kwnames, k, name);
        (*vec)[*npos + k] = value;
        k++;
    }
    return 0;
}

static PyObject *Dispatcher_remember(Dispatcher *d, PyObject *a) {
    PyObject *args, *kwargs, *launcher;
    int torch_stream;
    if (!PyArg_ParseTuple(a, "O!O!O!i", &PyTuple_Type, &args, &PyDict_Type, &kwargs,
                          &LauncherType, &launcher, &torch_stream))
        return NULL;
    PyObject **vec, *kwnames;
    Py_ssize_t npos;
    PyObject *result = NULL;
    if (to_vector(args, kwargs, &vec, &kwnames, &npos) < 0) goto done;
    PyObject *bound[MAX_PARAMS], *options[16];
    Value values[MAX_PARAMS];
    int nvalues, torch;
    int b = bind(d, vec, npos, kwnames, vec + npos, bound, options);
    if (b < 0) goto done;
    if (b > 0) {
        PyObject *key = warm_key(d, bound, options, values, &nvalues, &torch);
        if (!key && PyErr_Occurred()) goto done;
        if (key) {
            forget_last(d);
            PyObject *entry = Py_BuildValue("(Oi)", launcher, torch_stream);
            int err = !entry || PyDict_SetItem(d->warm, key, entry) < 0;
            Py_XDECREF(entry);
            Py_DECREF(key);
            if (err) goto done;
            result = Py_True; /* registered */
        }
    }
    if (!result) result = Py_False; /* arguments the C path does not take */
    Py_INCREF(result);
done:
    PyMem_Free(vec);
    Py_XDECREF(kwnames);
    return result;
}

static PyObject *Dispatcher_warm_key(Dispatcher *d, PyObject *a) {
    PyObject *args, *kwargs;
    if (!PyArg_ParseTuple(a, "O!O!", &PyTuple_Type, &args, &PyDict_Type, &kwargs)) return NULL;
    PyObject **vec, *kwnames, *key = NULL;
    Py_ssize_t npos;
    if (to_vector(args, kwargs, &vec, &kwnames, &npos) == 0) {
        PyObject *bound[MAX_PARAMS], *options[16];
        Value values[MAX_PARAMS];
        int nvalues, torch;
        int b = bind(d, vec, npos, kwnames, vec + npos, bound, options);
        if (b > 0) key = warm_key(d, bound, options, values, &nvalues, &torch);
    }
    PyMem_Free(vec);
    Py_XDECREF(kwnames);
    if (!key && !PyErr_Occurred()) Py_RETURN_NONE;
    return key;
}

static PyObject *Dispatcher_clear(Dispatcher *d, PyObject *unused) {
    forget_last(d);
    PyDict_Clear(d->warm);
    Py_RETURN_NONE;
}

static PyObject *Dispatcher_bind(Dispatcher *d, PyObject *grid);

static PyObject *Dispatcher_size(Dispatcher *d, void *closure) {
    return PyLong_FromSsize_t(PyDict_Size(d->warm));
}

static PyMethodDef Dispatcher_methods[] = {
    {"bind", (PyCFunction)Dispatcher_bind, METH_O, "bind(grid): what kernel[grid] returns"},
    {"remember", (PyCFunction)Dispatcher_remember, METH_VARARGS,
     "remember(args, kwargs, launcher, torch_stream): launch such arguments here"},
    {"warm_key", (PyCFunction)Dispatcher_warm_key, METH_VARARGS,
     "warm_key(args, kwargs): the key of these arguments, or None"},
    {"clear", (PyCFunction)Dispatcher_clear, METH_NOARGS, "forget every warm entry"},
    {NULL}};

static PyGetSetDef Dispatcher_getset[] = {
    {"size", (getter)Dispatcher_size, NULL, "warm entries", NULL}, {NULL}};

static PyTypeObject DispatcherType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilec._launch.Dispatcher",
    .tp_basicsize = sizeof(Dispatcher),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Dispatcher(names, constexprs, specialize, defaults, empty, option_names, "
              "option_defaults, interpret, slow): the warm launches of one kernel",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Dispatcher_init,
    .tp_dealloc = (destructor)Dispatcher_dealloc,
    .tp_methods = Dispatcher_methods,
    .tp_getset = Dispatcher_getset,
};

/* --- BoundLaunch: kernel[grid] ---------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    Dispatcher *dispatcher;
    PyObject *grid;
} BoundLaunch;

static void BoundLaunch_dealloc(BoundLaunch *self) {
    Py_XDECREF(self->dispatcher);
    Py_XDECREF(self->grid);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *BoundLaunch_vectorcall(BoundLaunch *self, PyObject *const *args, size_t nargsf,
                                        PyObject *kwnames) {
    return launch(self->dispatcher, self->grid, args, nargsf, kwnames);
}

static PyTypeObject BoundLaunchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilec._launch.BoundLaunch",
    .tp_basicsize = sizeof(BoundLaunch),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "kernel[grid]: call it with the kernel's arguments to launch",
    .tp_dealloc = (destructor)BoundLaunch_dealloc,
    .tp_vectorcall_offset = offsetof(BoundLaunch, vectorcall),
    .tp_call = PyVectorcall_Call,
};

static PyObject *Dispatcher_bind(Dispatcher *d, PyObject *grid) {
    BoundLaunch *b = PyObject_New(BoundLaunch, &BoundLaunchType);
    if (!b) return NULL;
    b->vectorcall = (vectorcallfunc)BoundLaunch_vectorcall;
    Py_INCREF(d);
    b->dispatcher = d;
    Py_INCREF(grid);
    b->grid = grid;
    return (PyObject *)b;
}

/* --- KernelBase: kernel[grid] without a Python frame -------------------------------------------- */

/* The base of tilec.kernel.JITFunction: `kernel[grid]` asks `_make_binder()` once for what binds
 * a grid (a Dispatcher, whose bind this calls directly, or any callable) and keeps it in
 * `_binder` (None: ask again). */
typedef struct {
    PyObject_HEAD
    PyObject *binder;
    PyObject *dict;
    PyObject *last_grid, *last_bound; /* kernel[grid] again with the same grid object */
} KernelBase;

static PyObject *s_make_binder;

static int KernelBase_traverse(KernelBase *self, visitproc visit, void *arg) {
    Py_VISIT(self->binder);
    Py_VISIT(self->dict);
    Py_VISIT(self->last_grid);
    Py_VISIT(self->last_bound);
    return 0;
}

static int KernelBase_clear(KernelBase *self) {
    Py_CLEAR(self->binder);
    Py_CLEAR(self->dict);
    Py_CLEAR(self->last_grid);
    Py_CLEAR(self->last_bound);
    return 0;
}

static void KernelBase_dealloc(KernelBase *self) {
    PyObject_GC_UnTrack(self);
    KernelBase_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *KernelBase_subscript(KernelBase *self, PyObject *grid) {
    if (self->binder == NULL || self->binder == Py_None) {
        PyObject *binder = PyObject_CallMethodNoArgs((PyObject *)self, s_make_binder);
        if (!binder) return NULL;
        Py_XSETREF(self->binder, binder);
    }
    if (grid == self->last_grid) return Py_NewRef(self->last_bound);
    PyObject *bound = Py_TYPE(self->binder) == &DispatcherType
                          ? Dispatcher_bind((Dispatcher *)self->binder, grid)
                          : PyObject_CallOneArg(self->binder, grid);
    if (bound && (PyTuple_CheckExact(grid) || PyLong_CheckExact(grid))) {
        /* an immutable grid: the same bound launch serves it again */
        Py_XSETREF(self->last_grid, Py_NewRef(grid));
        Py_XSETREF(self->last_bound, Py_NewRef(bound));
    }
    return bound;
}

static PyObject *KernelBase_get_binder(KernelBase *self, void *closure) {
    return Py_NewRef(self->binder ? self->binder : Py_None);
}

static int KernelBase_set_binder(KernelBase *self, PyObject *value, void *closure) {
    Py_XSETREF(self->binder, Py_XNewRef(value));
    Py_CLEAR(self->last_grid);
    Py_CLEAR(self->last_bound);
    return 0;
}

static PyGetSetDef KernelBase_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {"_binder", (getter)KernelBase_get_binder, (setter)KernelBase_set_binder,
     "what binds a grid (None: _make_binder() is asked at the next kernel[grid])", NULL},
    {NULL}};

static PyMappingMethods KernelBase_mapping = {.mp_subscript = (binaryfunc)KernelBase_subscript};

static PyTypeObject KernelBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilec._launch.KernelBase",
    .tp_basicsize = sizeof(KernelBase),
    .tp_dictoffset = offsetof(KernelBase, dict),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The base of @tilec.jit kernels: kernel[grid] in C",
    .tp_new = PyType_GenericNew,
    .tp_traverse = (traverseproc)KernelBase_traverse,
    .tp_clear = (inquiry)KernelBase_clear,
    .tp_dealloc = (destructor)KernelBase_dealloc,
    .tp_as_mapping = &KernelBase_mapping,
    .tp_getset = KernelBase_getset,
};

/* --- module ----------------------------------------------------------------------------------- */

/* The signature Cython gives the capsule of `cdef intptr_t get_stream_ptr(int)`. */
#define CUPY_STREAM_SIGNATURE "intptr_t (int)"

static PyObject *configure(PyObject *m, PyObject *args) {
    unsigned long long launch_addr, ctx_addr, error_addr;
    PyObject *cupy_stream, *torch_stream, *error, *cupy_capsule = Py_None;
    if (!PyArg_ParseTuple(args, "KKKOOO|O", &launch_addr, &ctx_addr, &error_addr, &cupy_stream,
                          &torch_stream, &error, &cupy_capsule))
        return NULL;
    cu_launch = (LaunchFn)launch_addr;
    cu_ctx_get_current = (CtxGetCurrentFn)ctx_addr;
    cu_error_name = error_addr ? (ErrorNameFn)error_addr : NULL;
    /* another signature (another CuPy): the Python getter serves */
    cupy_stream_ptr = PyCapsule_IsValid(cupy_capsule, CUPY_STREAM_SIGNATURE)
                          ? (StreamPtrFn)PyCapsule_GetPointer(cupy_capsule, CUPY_STREAM_SIGNATURE)
                          : NULL;
    Py_XSETREF(cupy_current_stream, Py_NewRef(cupy_stream));
    Py_XSETREF(torch_raw_stream, Py_NewRef(torch_stream));
    Py_XSETREF(launch_error, Py_NewRef(error));
    Py_RETURN_NONE;
}

static PyObject *set_torch_stream(PyObject *m, PyObject *getter) {
    Py_XSETREF(torch_raw_stream, Py_NewRef(getter));
    Py_RETURN_NONE;
}

static PyObject *has_torch_stream(PyObject *m, PyObject *unused) {
    return PyBool_FromLong(torch_raw_stream != NULL && torch_raw_stream != Py_None);
}

static PyObject *configured(PyObject *m, PyObject *unused) {
    return PyBool_FromLong(cu_launch != NULL);
}

static PyObject *register_array_type(PyObject *m, PyObject *args) {
    PyObject *type;
    int kind;
    if (!PyArg_ParseTuple(args, "O!i", &PyType_Type, &type, &kind)) return NULL;
    if (kind != ARRAY_TORCH && kind != ARRAY_CUPY) {
        PyErr_SetString(PyExc_ValueError, "kind is 0 (torch) or 1 (CuPy)");
        return NULL;
    }
    PyObject *k = PyLong_FromLong(kind);
    if (!k || PyDict_SetItem(array_types, type, k) < 0) {
        Py_XDECREF(k);
        return NULL;
    }
    Py_DECREF(k);
    narray_types = 0; /* the table is filled again from array_types */
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(cuLaunchKernel, cuCtxGetCurrent, cuGetErrorName, cupy_current_stream, "
     "torch_raw_stream, launch_error[, cupy_capsule]): the driver functions (addresses) and "
     "stream getters; cupy_capsule, CuPy's C function get_stream_ptr, serves for the first "
     "where its signature is (intptr_t (int))"},
    {"configured", configured, METH_NOARGS, "whether configure gave the driver's functions"},
    {"set_torch_stream", set_torch_stream, METH_O,
     "set_torch_stream(getter): torch's (device) -> current raw stream"},
    {"has_torch_stream", has_torch_stream, METH_NOARGS, "whether torch's stream getter is set"},
    {"register_array_type", register_array_type, METH_VARARGS,
     "register_array_type(type, kind): arrays of `type` are torch's (0) or CuPy's (1)"},
    {NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "tilec._launch",
                                        "The warm launch path of tilec kernels, in C.", -1,
                                        module_methods};

PyMODINIT_FUNC PyInit__launch(void) {
    if (PyType_Ready(&LauncherType) < 0 || PyType_Ready(&DispatcherType) < 0 ||
        PyType_Ready(&BoundLaunchType) < 0 || PyType_Ready(&KernelBaseType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    array_types = PyDict_New();
    dtype_codes = PyDict_New();
    s_data_ptr = PyUnicode_InternFromString("data_ptr");
    s_is_cuda = PyUnicode_InternFromString("is_cuda");
    s_dtype = PyUnicode_InternFromString("dtype");
    s_data = PyUnicode_InternFromString("data");
    s_ptr = PyUnicode_InternFromString("ptr");
    s_make_binder = PyUnicode_InternFromString("_make_binder");
    s_descriptor_parts = PyUnicode_InternFromString("tilec_descriptor_parts");
    descriptor_codes = PyDict_New();
    if (!s_descriptor_parts || !descriptor_codes) return NULL;
    if (!s_make_binder) return NULL;
    if (!array_types || !dtype_codes || !s_data_ptr || !s_dtype || !s_data || !s_ptr) return NULL;
    Py_INCREF(&LauncherType);
    Py_INCREF(&DispatcherType);
    Py_INCREF(&BoundLaunchType);
    Py_INCREF(&KernelBaseType);
    if (PyModule_AddObject(m, "Launcher", (PyObject *)&LauncherType) < 0 ||
        PyModule_AddObject(m, "Dispatcher", (PyObject *)&DispatcherType) < 0 ||
        PyModule_AddObject(m, "BoundLaunch", (PyObject *)&BoundLaunchType) < 0 ||
        PyModule_AddObject(m, "KernelBase", (PyObject *)&KernelBaseType) < 0)
        return NULL;
    return m;
}
