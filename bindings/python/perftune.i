// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SWIG interface for perftune.h -> the low-level module perftune._perftune.
 *
 * It mirrors the C API function by function (names unchanged) and adds only
 * what C out-parameters need in Python:
 *   - "T **out" handles and "char **value/text" come back as a tuple
 *     (rc, obj), obj None unless rc == 0; malloc'd strings are freed here;
 *   - perftune_profile_load's vars is a sequence of "NAME=VALUE" str or None;
 *   - perftune_desc_range() returns (ok, min, max);
 *   - perftune_ctx_set_log_fn() takes a Python callable (or None) instead of
 *     a C function and userdata; the caller keeps the callable alive;
 *   - perftune_experiment_run() takes a Python callable as the measure and
 *     returns (rc, exception it raised or None); the run's fields are the
 *     callable's arguments, so perftune_run_* are not wrapped;
 *     perftune_experiment_samples() returns a list, perftune_median() takes
 *     a sequence and returns (rc, median).
 * Handles are opaque pointer objects that own nothing: lifetimes (unref,
 * free) belong to the pure-Python layer in perftune/_context.py.
 *
 * Built with "swig -python -noproxy -threads": no proxy .py is written (the
 * C module is the low-level module), and the GIL is released around each call.
 */
%module(package="perftune") _perftune

%{
#define SWIG_FILE_WITH_INIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftune.h"

/* append @obj (a new reference) to a function's result, making (rc, obj, ...) */
static PyObject *pt_append(PyObject *result, PyObject *obj)
{
	PyObject *t;
	Py_ssize_t n, i;

	if (!result || !obj) {
		Py_XDECREF(result);
		Py_XDECREF(obj);
		return NULL;
	}
	n = PyTuple_Check(result) ? PyTuple_GET_SIZE(result) : 1;
	t = PyTuple_New(n + 1);
	if (!t) {
		Py_DECREF(result);
		Py_DECREF(obj);
		return NULL;
	}
	if (PyTuple_Check(result)) {
		for (i = 0; i < n; i++) {
			Py_INCREF(PyTuple_GET_ITEM(result, i));
			PyTuple_SET_ITEM(t, i, PyTuple_GET_ITEM(result, i));
		}
		Py_DECREF(result);
	} else {
		PyTuple_SET_ITEM(t, 0, result);
	}
	PyTuple_SET_ITEM(t, n, obj);
	return t;
}

/*
 * A sequence of str (items None too where @none_ok: NULL in C) as an array of
 * UTF-8 strings, NULL-terminated after the last item; the str objects stay
 * alive in *@seq until the caller releases it.  NULL with a Python error set.
 */
static const char **pt_strv_in(PyObject *in, int argnum, int none_ok, PyObject **seq)
{
	const char **arr;
	Py_ssize_t i, n;
	char msg[64];

	snprintf(msg, sizeof(msg), "argument %d must be a sequence of str or None", argnum);
	*seq = PySequence_Fast(in, msg);
	if (!*seq)
		return NULL;
	n = PySequence_Fast_GET_SIZE(*seq);
	arr = calloc((size_t)n + 1, sizeof(*arr));
	if (!arr) {
		PyErr_NoMemory();
		return NULL;
	}
	for (i = 0; i < n; i++) {
		PyObject *o = PySequence_Fast_GET_ITEM(*seq, i);
		Py_ssize_t len;

		if (none_ok && o == Py_None)
			continue; /* NULL */
		if (!PyUnicode_Check(o)) {
			PyErr_Format(PyExc_TypeError, "argument %d: items must be str, not %s", argnum,
				     Py_TYPE(o)->tp_name);
			break;
		}
		/* UTF-8 kept by the str object, which seq holds */
		arr[i] = PyUnicode_AsUTF8AndSize(o, &len);
		if (!arr[i])
			break;
		if (strlen(arr[i]) != (size_t)len) {
			PyErr_Format(PyExc_ValueError,
				     "argument %d: variable must not contain a NUL character: %R", argnum,
				     o);
			break;
		}
	}
	if (i < n) {
		free(arr);
		return NULL;
	}
	return arr;
}

/* called by the library on the caller's thread, with or without the GIL held */
static void pt_log_trampoline(struct perftune_ctx *ctx, int priority, const char *msg,
			      void *userdata)
{
	PyGILState_STATE st = PyGILState_Ensure();
	PyObject *m = PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "surrogateescape");
	PyObject *r = m ? PyObject_CallFunction((PyObject *)userdata, "iO", priority, m) : NULL;

	(void)ctx;
	if (!r)
		PyErr_WriteUnraisable((PyObject *)userdata); /* cannot propagate through C */
	Py_XDECREF(r);
	Py_XDECREF(m);
	PyGILState_Release(st);
}
%}

/* ---- out-parameters --------------------------------------------------- */

%define PT_OUT_HANDLE(TYPE, NAME)
%typemap(in, numinputs=0) TYPE **NAME (TYPE *tmp = NULL) {
	$1 = &tmp;
}
%typemap(argout) TYPE **NAME {
	$result = pt_append($result, *$1 ? SWIG_NewPointerObj(*$1, $*1_descriptor, 0)
					 : (Py_INCREF(Py_None), Py_None));
	if (!$result)
		SWIG_fail;
}
%enddef

PT_OUT_HANDLE(struct perftune_ctx, ctxp)
PT_OUT_HANDLE(struct perftune_tx, txp)
PT_OUT_HANDLE(struct perftune_tunable_iter, iterp)
PT_OUT_HANDLE(struct perftune_change_iter, iterp)
PT_OUT_HANDLE(struct perftune_status_iter, iterp)
PT_OUT_HANDLE(struct perftune_profile_item_iter, iterp)
PT_OUT_HANDLE(struct perftune_profile_entry_iter, iterp)
PT_OUT_HANDLE(struct perftune_source_iter, iterp)
PT_OUT_HANDLE(struct perftune_check_iter, iterp)
PT_OUT_HANDLE(struct perftune_desc, descp)
PT_OUT_HANDLE(struct perftune_profile, pp)

%typemap(in, numinputs=0) char **value (char *tmp = NULL) {
	$1 = &tmp;
}
%typemap(argout, fragment="SWIG_FromCharPtr") char **value {
	PyObject *v = *$1 ? SWIG_FromCharPtr(*$1) : (Py_INCREF(Py_None), Py_None);

	free(*$1); /* the caller frees the string */
	*$1 = NULL;
	$result = pt_append($result, v);
	if (!$result)
		SWIG_fail;
}
%typemap(freearg) char **value {
	free(*$1); /* only non-NULL if argout did not run */
}
%apply char **value { char **text }; /* perftune_export_*: malloc'd too */
%apply char **value { char **warnings }; /* perftune_tx_report(): None if none */

/* "NAME=VALUE" strings: a sequence of str (or None) -> NULL-terminated array */
%typemap(in) const char *const *vars (PyObject *seq = NULL, const char **arr = NULL) {
	if ($input == Py_None) {
		$1 = NULL;
	} else {
		arr = pt_strv_in($input, $argnum, false, &seq);
		if (!arr)
			SWIG_fail;
		$1 = ($1_ltype)arr;
	}
}
%typemap(freearg) const char *const *vars {
	free((void *)arr$argnum);
	Py_XDECREF(seq$argnum);
}
%apply const char *const *vars { const char *const *keys }; /* perftune_why_keys */
/* perftune_why_keys: a value per key, None for the value now (NULL in C), or None for all */
%typemap(in) const char *const *compare_to (PyObject *seq = NULL, const char **arr = NULL) {
	if ($input == Py_None) {
		$1 = NULL;
	} else {
		arr = pt_strv_in($input, $argnum, true, &seq);
		if (!arr)
			SWIG_fail;
		$1 = ($1_ltype)arr;
	}
}
%typemap(freearg) const char *const *compare_to {
	free((void *)arr$argnum);
	Py_XDECREF(seq$argnum);
}
%apply const char *const *vars { const char *const *settings }; /* perftune_verify: KEY=VALUE */

%typemap(in, numinputs=0) long long *min (long long tmp = 0), long long *max (long long tmp = 0) {
	$1 = &tmp;
}
%typemap(argout) long long *min, long long *max {
	$result = pt_append($result, PyLong_FromLongLong(*$1));
	if (!$result)
		SWIG_fail;
}

/* every string argument: a str with a NUL inside would be cut there by C
 * ("44\x00; 0" would write 44), so it is a ValueError naming the argument */
%typemap(in, noblock=1) const char * (int res, char *buf = 0, size_t size = 0, int alloc = 0) {
	res = SWIG_AsCharPtrAndSize($input, &buf, &size, &alloc);
	if (!SWIG_IsOK(res))
		SWIG_exception_fail(SWIG_ArgError(res), "in method '$symname', argument $argnum of type '$type'");
	if (buf && size > 0 && strlen(buf) != size - 1) {
		PyErr_Format(PyExc_ValueError, "in method '$symname', $1_name must not contain a NUL character: %R",
			     $input);
		SWIG_fail;
	}
	$1 = buf;
}
%typemap(freearg, noblock=1) const char * {
	if (alloc$argnum == SWIG_NEWOBJ)
		free(buf$argnum);
}

/* keys and values are never NULL in C: None is a TypeError, not a crash */
%typemap(check) const char *key, const char *value {
	if (!$1)
		SWIG_exception_fail(SWIG_TypeError, "in method '$symname', argument $argnum must be str, not None");
}

/* ---- log callback: a Python callable(priority: int, message: str) ------ */

%ignore perftune_ctx_set_log_fn;
%ignore perftune_log_fn;
%rename(perftune_ctx_set_log_fn) pt_ctx_set_log_callback;
%nothread pt_ctx_set_log_callback; /* touches Python objects: keep the GIL */
%inline %{
/* @callback: callable(priority, message) or None; borrowed: keep it alive while set */
static int pt_ctx_set_log_callback(struct perftune_ctx *ctx, PyObject *callback,
				   int max_priority)
{
	if (!ctx)
		return -EINVAL;
	if (callback == Py_None) {
		perftune_ctx_set_log_fn(ctx, NULL, 0, NULL);
		return 0;
	}
	if (!PyCallable_Check(callback))
		return -EINVAL;
	perftune_ctx_set_log_fn(ctx, pt_log_trampoline, max_priority, callback);
	return 0;
}
%}

/* perftune_tx_set: a value with a NUL is refused naming its key (the key is
 * checked by the typemap above, before this runs) */
%ignore perftune_tx_set;
%rename(perftune_tx_set) pt_tx_set_checked;
%nothread pt_tx_set_checked; /* reads Python objects: releases the GIL itself */
%inline %{
static PyObject *pt_tx_set_checked(struct perftune_tx *tx, const char *key, PyObject *value)
{
	const char *v;
	Py_ssize_t len;
	int r;

	if (value == Py_None || !PyUnicode_Check(value))
		return PyErr_Format(PyExc_TypeError, "in method 'perftune_tx_set', value for %s must be str, not %s",
				    key, Py_TYPE(value)->tp_name);
	v = PyUnicode_AsUTF8AndSize(value, &len);
	if (!v)
		return NULL;
	if (strlen(v) != (size_t)len)
		return PyErr_Format(PyExc_ValueError,
				    "in method 'perftune_tx_set', value for %s must not contain a NUL character: %R",
				    key, value);
	Py_BEGIN_ALLOW_THREADS
	r = perftune_tx_set(tx, key, v);
	Py_END_ALLOW_THREADS
	return PyLong_FromLong(r);
}
%}

/* perftune_export_format_from_name(name) -> (rc, format) */
%typemap(in, numinputs=0) enum perftune_export_format *formatp (enum perftune_export_format tmp = 0) {
	$1 = &tmp;
}
%typemap(argout) enum perftune_export_format *formatp {
	$result = pt_append($result, PyLong_FromLong((long)*$1));
	if (!$result)
		SWIG_fail;
}

/* ---- experiments (LIBPERFTUNE_4) -------------------------------------- */

PT_OUT_HANDLE(struct perftune_experiment, expp)

/* the measure callback and the run it is handed: a Python callable gets the
 * run's fields as arguments instead (a struct perftune_run lives only during
 * its callback, a pointer object to it could outlive it) */
%ignore perftune_measure_fn;
%ignore perftune_run_round;
%ignore perftune_run_warmup;
%ignore perftune_run_state;
%ignore perftune_run_index;
%ignore perftune_run_total;
%ignore perftune_run_label;
%ignore perftune_run_experiment;
%ignore perftune_run_set_times; /* the callable's times are the binding's own (_compare.py) */

%{
/* what the trampoline needs: the callable, and the exception it raised */
struct pt_measure {
	PyObject *fn;
	PyObject *exc; /* a new reference, or NULL */
};

/* keep the exception being raised in @m (the first one only) */
static void pt_measure_keep_exception(struct pt_measure *m)
{
#if PY_VERSION_HEX >= 0x030C0000
	PyObject *value = PyErr_GetRaisedException(); /* PyErr_Fetch is deprecated */
#else
	PyObject *type, *value, *tb;

	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	if (value && tb)
		PyException_SetTraceback(value, tb);
	Py_XDECREF(type);
	Py_XDECREF(tb);
#endif
	if (m->exc)
		Py_XDECREF(value);
	else
		m->exc = value;
}

/*
 * perftune_measure_fn calling fn(state, round, warmup, index, total, label)
 * -> float.  The library calls it on the thread that called
 * perftune_experiment_run(), whose wrapper has released the GIL: take it
 * back for the call.  An exception (or a result that is not a float) is
 * kept for the wrapper to give back, and -ECANCELED stops the experiment:
 * the library gives the change back before it returns.
 */
static int pt_measure_trampoline(struct perftune_run *run, void *userdata, double *value)
{
	struct pt_measure *m = userdata;
	PyGILState_STATE st = PyGILState_Ensure();
	const char *label = perftune_run_label(run);
	PyObject *r;
	int rc = 0;

	r = PyObject_CallFunction(m->fn, "iIIIIs", (int)perftune_run_state(run),
				  perftune_run_round(run), perftune_run_warmup(run),
				  perftune_run_index(run), perftune_run_total(run), label);
	if (r) {
		*value = PyFloat_AsDouble(r);
		Py_DECREF(r);
	}
	if (!r || PyErr_Occurred()) {
		pt_measure_keep_exception(m);
		rc = -ECANCELED;
	}
	PyGILState_Release(st);
	return rc;
}
%}

%ignore perftune_experiment_run;
%rename(perftune_experiment_run) pt_experiment_run_callable;
%nothread pt_experiment_run_callable; /* releases the GIL itself, around the run only */
%inline %{
/*
 * perftune_experiment_run(exp, measure) -> (rc, exception): @measure is
 * callable(state, round, warmup, index, total, label) -> float; the
 * exception it raised (which stopped the run: rc is then -ECANCELED, or the
 * error of giving the change back) or None.
 */
static PyObject *pt_experiment_run_callable(struct perftune_experiment *exp, PyObject *measure)
{
	struct pt_measure m = { .fn = measure, .exc = NULL };
	int r;

	if (!PyCallable_Check(measure))
		return PyErr_Format(PyExc_TypeError, "perftune_experiment_run: measure must be callable, not %s",
				    Py_TYPE(measure)->tp_name);
	Py_INCREF(measure); /* alive for the whole run, whatever the callable does */
	Py_BEGIN_ALLOW_THREADS
	r = perftune_experiment_run(exp, pt_measure_trampoline, &m);
	Py_END_ALLOW_THREADS
	Py_DECREF(measure);
	if (!m.exc) {
		Py_INCREF(Py_None);
		m.exc = Py_None;
	}
	return Py_BuildValue("(iN)", r, m.exc);
}
%}

/* perftune_experiment_samples(exp, state) -> list of float, round by round */
%ignore perftune_experiment_samples;
%rename(perftune_experiment_samples) pt_experiment_samples;
%nothread pt_experiment_samples;
%inline %{
static PyObject *pt_experiment_samples(struct perftune_experiment *exp, int state)
{
	const double *v = NULL;
	size_t n = perftune_experiment_samples(exp, (enum perftune_state)state, &v);
	PyObject *l = PyList_New((Py_ssize_t)n);

	for (size_t i = 0; l && i < n; i++) {
		PyObject *f = PyFloat_FromDouble(v[i]);

		if (!f) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, f);
	}
	return l;
}
%}

/* perftune_median(values) -> (rc, median): a sequence of float */
%ignore perftune_median;
%rename(perftune_median) pt_median;
%nothread pt_median;
%inline %{
static PyObject *pt_median(PyObject *values)
{
	PyObject *seq = PySequence_Fast(values, "perftune_median: values must be a sequence of float");
	double *v, med = 0;
	Py_ssize_t n, i;
	int r;

	if (!seq)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	v = calloc(n ? (size_t)n : 1, sizeof(*v));
	if (!v) {
		Py_DECREF(seq);
		return PyErr_NoMemory();
	}
	for (i = 0; i < n; i++) {
		v[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
		if (v[i] == -1 && PyErr_Occurred())
			break;
	}
	Py_DECREF(seq);
	if (i < n) {
		free(v);
		return NULL;
	}
	r = perftune_median(v, (size_t)n, &med);
	free(v);
	return Py_BuildValue("(id)", r, med);
}
%}

/* ---- from the perftune program (LIBPERFTUNE_5) -------------------------- */

/* perftune_setting_split(ctx, setting) -> (rc, key, value); key malloc'd, value
 * a pointer into the setting's UTF-8 (alive until freearg) */
%typemap(in, numinputs=0) char **key (char *tmp = NULL) {
	$1 = &tmp;
}
%typemap(argout, fragment="SWIG_FromCharPtr") char **key {
	PyObject *k = *$1 ? SWIG_FromCharPtr(*$1) : (Py_INCREF(Py_None), Py_None);

	free(*$1);
	*$1 = NULL;
	$result = pt_append($result, k);
	if (!$result)
		SWIG_fail;
}
%typemap(freearg) char **key {
	free(*$1);
}
%typemap(in, numinputs=0) const char **value (const char *tmp = NULL) {
	$1 = ($1_ltype)&tmp;
}
%typemap(argout, fragment="SWIG_FromCharPtr") const char **value {
	$result = pt_append($result, *$1 ? SWIG_FromCharPtr((const char *)*$1) : (Py_INCREF(Py_None), Py_None));
	if (!$result)
		SWIG_fail;
}
%typemap(freearg) const char **value ""; /* not char **value's free(): it points into setting */

/* the metric of a command's output: perftune_metric_end(m) -> (rc, value) */
PT_OUT_HANDLE(struct perftune_metric, metricp)
%typemap(in, numinputs=0) double *value (double tmp = 0) {
	$1 = &tmp;
}
%typemap(argout) double *value {
	$result = pt_append($result, PyFloat_FromDouble(*$1));
	if (!$result)
		SWIG_fail;
}
/* perftune_metric_feed(m, data): any bytes-like object */
%ignore perftune_metric_feed;
%rename(perftune_metric_feed) pt_metric_feed_buffer;
%nothread pt_metric_feed_buffer; /* holds a Python buffer: releases the GIL itself */
%inline %{
static PyObject *pt_metric_feed_buffer(struct perftune_metric *metric, PyObject *data)
{
	Py_buffer b;

	if (PyObject_GetBuffer(data, &b, PyBUF_SIMPLE) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	perftune_metric_feed(metric, b.buf, (size_t)b.len);
	Py_END_ALLOW_THREADS
	PyBuffer_Release(&b);
	Py_RETURN_NONE;
}
%}
%ignore perftune_run_eta; /* the measure callable gets the run's fields, not the run */

/* the whole public API, unchanged (uint64_t: the experiment's seed) */
/* a Python file object is the handle of an output file: only the checks and
 * perftune_output_write_file() are wrapped (Context.write_file) */
%ignore perftune_output_open;
%ignore perftune_output_fd;
%ignore perftune_output_commit;
%ignore perftune_output_free;

%include <stdint.i>
%include "perftune.h"
