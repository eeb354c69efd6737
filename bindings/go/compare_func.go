// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

/*
#include <stdint.h>
#include <stdlib.h>
#include <perftune.h>

extern int perftuneGoMeasure(struct perftune_run *, void *, double *);

// the experiment with the Go measure; @handle is a cgo.Handle, not a pointer
static int pt_go_experiment_run(struct perftune_experiment *exp, uintptr_t handle)
{
	return perftune_experiment_run(exp, perftuneGoMeasure, (void *)handle);
}
*/
import "C"

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"runtime/cgo"
	"sort"
	"syscall"
	"time"
	"unsafe"
)

// rusageThread is RUSAGE_THREAD (Linux), which package syscall does not name.
const rusageThread = 1

// runInfo is what the callback passes on of a struct perftune_run.
type runInfo struct {
	tuned bool
	round int // 0: a warmup run
	label string
}

// measure is the state of one CompareFunc run, reached from the C callback
// through a cgo.Handle: the func, what stopped it, each measured run's times.
type measure struct {
	fn    func() (float64, error)
	err   error       // fn's error, or a measure that is not finite
	panic interface{} // fn's panic, raised again once the change is back
	times [2]struct{ wall, user, sys []float64 }
}

// call runs fn once: its value, and 0 or -ECANCELED to stop the experiment.
// A panic is recovered here, never unwound through the library's C frames
// (which would skip giving the change back), and re-raised by CompareFunc.
func (m *measure) call(r runInfo) (v float64, rc int) {
	defer func() {
		if p := recover(); p != nil {
			m.panic, v, rc = p, 0, -int(syscall.ECANCELED)
		}
	}()
	var r0, r1 syscall.Rusage
	_ = syscall.Getrusage(rusageThread, &r0) // the callback's goroutine is on this thread
	t0 := time.Now()
	v, err := m.fn()
	wall := time.Since(t0).Seconds()
	_ = syscall.Getrusage(rusageThread, &r1)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = fmt.Errorf("the measure is %v: it must be finite", v)
	}
	if err != nil {
		m.err = fmt.Errorf("perftune compare: %s: %w", r.label, err)
		return 0, -int(syscall.ECANCELED)
	}
	if r.round > 0 {
		s := 0
		if r.tuned {
			s = 1
		}
		t := &m.times[s]
		t.wall = append(t.wall, wall)
		t.user = append(t.user, tvSeconds(r1.Utime)-tvSeconds(r0.Utime))
		t.sys = append(t.sys, tvSeconds(r1.Stime)-tvSeconds(r0.Stime))
	}
	return v, 0
}

func tvSeconds(tv syscall.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)/1e6
}

// CompareFunc measures fn in this process, through the library's experiment
// engine, as [Context.Compare] measures a command: fn is called once per
// run (2 * (Warmup + Rounds) times), on the calling goroutine, and returns
// the measure; the change (o.Settings, or o.Profile with o.Vars) is in force
// exactly during the tuned runs: the library commits it as a held
// transaction (o.Name; "": experiment-PID) just before the call and rolls it
// back right after it. The options and the change are checked before fn is
// called (an *Error, nothing changed; Metric, Plot and Log are for a
// command and refused). An error from fn, or a value that is NaN or
// infinite, stops the experiment: the change is given back and the error is
// returned, wrapped with the run it came from (errors.Is and errors.As see
// fn's error). A panic in fn also stops it and is raised again once the
// change is back. The result's Metric is fn's name, Log "" and Plot nil;
// WallS, UserS and SysS are each call's seconds (CPU seconds of the calling
// thread, not of goroutines fn starts).
func (c *Context) CompareFunc(o CompareOptions, fn func() (float64, error)) (*CompareResult, error) {
	if fn == nil {
		return nil, &Error{Op: "compare", Errno: syscall.EINVAL, Msg: "compare: fn is nil"}
	}
	if o.Metric != "" || o.Plot != "" || o.Log != "" {
		return nil, &Error{Op: "compare", Errno: syscall.EINVAL,
			Msg: "compare: Metric, Plot and Log are for a command; fn returns the measure"}
	}
	if (o.Profile == "") == (len(o.Settings) == 0) {
		return nil, &Error{Op: "compare", Errno: syscall.EINVAL,
			Msg: "compare takes either Settings or Profile, not both or neither"}
	}
	var prof *Profile
	if o.Profile != "" {
		p, err := c.LoadProfile(o.Profile, o.Vars)
		if err != nil {
			return nil, err
		}
		defer p.Close()
		prof = p
	}
	// a reference of the experiment's own, not c.mu: fn may use c meanwhile
	cctx := c.ref()
	if cctx == nil {
		return nil, ErrClosed
	}
	defer C.perftune_ctx_unref(cctx)
	// one OS thread for the experiment: the library's last error is per thread
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	exp, err := newExperiment(cctx, o, prof)
	if err != nil {
		return nil, err
	}
	defer C.perftune_experiment_free(exp)
	m := &measure{fn: fn}
	h := cgo.NewHandle(m)
	defer h.Delete()
	rc := C.pt_go_experiment_run(exp, C.uintptr_t(h))
	if m.panic != nil {
		panic(m.panic)
	}
	if m.err != nil && rc == -C.int(syscall.ECANCELED) {
		return nil, m.err
	}
	if rc < 0 {
		return nil, expError(cctx, o.Name, rc)
	}
	r := experimentResult(exp, m)
	r.HigherIsBetter = o.HigherIsBetter
	r.Metric = runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	return r, nil
}

// ref returns a new reference on the C context, nil if it is closed
func (c *Context) ref() *C.struct_perftune_ctx {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.p == nil {
		return nil
	}
	return C.perftune_ctx_ref(c.p)
}

// expError is the *Error of a failed experiment call, with the library's message
func expError(cctx *C.struct_perftune_ctx, key string, rc C.int) *Error {
	return newError("compare", key, rc, C.GoString(C.perftune_ctx_last_error(cctx)))
}

// newExperiment makes the experiment of o (change and options) and checks
// it in a dry run; the caller holds a reference on cctx and its OS thread.
func newExperiment(cctx *C.struct_perftune_ctx, o CompareOptions, prof *Profile) (*C.struct_perftune_experiment, error) {
	var order C.enum_perftune_order = C.PERFTUNE_ORDER_ABBA
	switch o.Order {
	case "", "abba":
	case "random":
		order = C.PERFTUNE_ORDER_RANDOM
	default:
		return nil, &Error{Op: "compare", Key: o.Order, Errno: syscall.EINVAL,
			Msg: fmt.Sprintf("order %q: abba or random", o.Order)}
	}
	if err := checkNUL("compare", o.Name, o.Name); err != nil {
		return nil, err
	}
	var exp *C.struct_perftune_experiment
	var name *C.char
	if o.Name != "" {
		name = C.CString(o.Name)
		defer C.free(unsafe.Pointer(name))
	}
	if rc := C.perftune_experiment_new(cctx, name, &exp); rc < 0 {
		return nil, expError(cctx, o.Name, rc)
	}
	err := configure(cctx, exp, o, prof, order)
	if err != nil {
		C.perftune_experiment_free(exp)
		return nil, err
	}
	return exp, nil
}

// configure sets the change and the options of exp and checks them
func configure(cctx *C.struct_perftune_ctx, exp *C.struct_perftune_experiment, o CompareOptions,
	prof *Profile, order C.enum_perftune_order) error {
	if err := setChange(cctx, exp, o, prof); err != nil {
		return err
	}
	rounds, warmup, seed := o.Rounds, o.Warmup, o.Seed
	if rounds == 0 {
		rounds = 10
	}
	if warmup == 0 {
		warmup = 1
	} else if warmup < 0 {
		warmup = 0
	}
	if seed == 0 {
		seed = 1
	}
	if rounds < 0 || uint64(rounds) > math.MaxUint32 || uint64(warmup) > math.MaxUint32 {
		return &Error{Op: "compare", Errno: syscall.EINVAL,
			Msg: fmt.Sprintf("rounds %d, warmup %d: out of range", o.Rounds, o.Warmup)}
	}
	var tx *C.struct_perftune_tx
	for _, e := range []struct {
		key string
		rc  func() C.int
	}{
		{"rounds", func() C.int { return C.perftune_experiment_set_rounds(exp, C.uint(rounds)) }},
		{"warmup", func() C.int { return C.perftune_experiment_set_warmup(exp, C.uint(warmup)) }},
		{"order", func() C.int { return C.perftune_experiment_set_order(exp, order) }},
		{"seed", func() C.int { return C.perftune_experiment_set_seed(exp, C.uint64_t(seed)) }},
		{"higher is better", func() C.int {
			return C.perftune_experiment_set_higher_is_better(exp, C.bool(o.HigherIsBetter))
		}},
		{o.Name, func() C.int { return C.perftune_experiment_check(exp, &tx) }}, // a dry run
	} {
		if rc := e.rc(); rc < 0 {
			return expError(cctx, e.key, rc)
		}
	}
	C.perftune_tx_unref(tx)
	return nil
}

// setChange gives exp its change: the profile, or the settings in key order
func setChange(cctx *C.struct_perftune_ctx, exp *C.struct_perftune_experiment, o CompareOptions,
	prof *Profile) error {
	if prof != nil {
		prof.mu.Lock()
		defer prof.mu.Unlock()
		if rc := C.perftune_experiment_set_profile(exp, prof.p); rc < 0 {
			return expError(cctx, o.Profile, rc)
		}
		return nil
	}
	keys := make([]string, 0, len(o.Settings))
	for k := range o.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := o.Settings[k]
		if err := checkNUL("compare", k, k, v); err != nil {
			return err
		}
		ck, cv := C.CString(k), C.CString(v)
		rc := C.perftune_experiment_set(exp, ck, cv)
		C.free(unsafe.Pointer(ck))
		C.free(unsafe.Pointer(cv))
		if rc < 0 {
			return expError(cctx, k, rc)
		}
	}
	return nil
}

// experimentResult reads the statistics of a finished experiment
func experimentResult(exp *C.struct_perftune_experiment, m *measure) *CompareResult {
	state := func(s C.enum_perftune_state) CompareState {
		var vals *C.double
		n := C.perftune_experiment_samples(exp, s, &vals)
		samples := make([]float64, int(n))
		for i, v := range unsafe.Slice(vals, int(n)) {
			samples[i] = float64(v)
		}
		t := m.times[int(s)]
		return CompareState{N: int(n), Samples: samples,
			Median: float64(C.perftune_experiment_median(exp, s)),
			Q1:     float64(C.perftune_experiment_q1(exp, s)),
			Q3:     float64(C.perftune_experiment_q3(exp, s)),
			IQR:    float64(C.perftune_experiment_iqr(exp, s)),
			Mean:   float64(C.perftune_experiment_mean(exp, s)),
			CV:     float64(C.perftune_experiment_cv(exp, s)),
			WallS:  t.wall, UserS: t.user, SysS: t.sys}
	}
	number := func(x C.double) *float64 {
		if math.IsNaN(float64(x)) {
			return nil
		}
		f := float64(x)
		return &f
	}
	r := &CompareResult{
		Baseline:    state(C.PERFTUNE_BASELINE),
		Tuned:       state(C.PERFTUNE_TUNED),
		ChangePct:   number(C.perftune_experiment_change_pct(exp)),
		CI95:        [2]*float64{number(C.perftune_experiment_ci95_low(exp)), number(C.perftune_experiment_ci95_high(exp))},
		PValue:      float64(C.perftune_experiment_p_value(exp)),
		U:           float64(C.perftune_experiment_u(exp)),
		PMethod:     "asymptotic",
		Alpha:       C.PERFTUNE_EXPERIMENT_ALPHA,
		Verdict:     C.GoString(C.perftune_verdict_name(C.perftune_experiment_verdict(exp))),
		Rounds:      int(C.perftune_experiment_rounds(exp)),
		Warmup:      int(C.perftune_experiment_warmup(exp)),
		Order:       "abba",
		Seed:        uint64(C.perftune_experiment_seed(exp)),
		Transaction: C.GoString(C.perftune_experiment_name(exp)),
	}
	if C.perftune_experiment_p_exact(exp) {
		r.PMethod = "exact"
	}
	if C.perftune_experiment_order(exp) == C.PERFTUNE_ORDER_RANDOM {
		r.Order = "random"
	}
	return r
}
