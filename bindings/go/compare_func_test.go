// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

// reader is a measure that reads THP through the context: 80+k while the
// change is in force, 100+k when not (k = 0..4 from its call count), and
// keeps what it saw.
type reader struct {
	c    *perftune.Context
	seen []string
}

func (r *reader) measure() (float64, error) {
	v, err := r.c.Get("thp.enabled")
	if err != nil {
		return 0, err
	}
	r.seen = append(r.seen, v)
	base := 100.0
	if v == "always" {
		base = 80
	}
	return base + float64(len(r.seen)%5), nil
}

// untouched fails the test if THP is not as found or a journal is left
func untouched(t *testing.T, ft *fakeTree, c *perftune.Context) {
	t.Helper()
	if v := ft.read(t, thpFile); v != "madvise" && v != "always [madvise] never" {
		t.Errorf("THP after the experiment: %q", v)
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
	if st, err := c.Status(); err != nil || len(st) != 0 {
		t.Errorf("status after the experiment: %v, %v", st, err)
	}
}

func TestCompareFuncChangeInForceExactlyInTunedRuns(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	rd := &reader{c: c}
	r, err := c.CompareFunc(perftune.CompareOptions{Settings: map[string]string{"thp.enabled": "always"},
		Rounds: 6, Name: "go-fn"}, rd.measure)
	if err != nil {
		t.Fatal(err)
	}
	// one call per run; ABBA after the warmup pair
	want := []string{"madvise", "always"}
	for i := 0; i < 3; i++ {
		want = append(want, "madvise", "always", "always", "madvise")
	}
	if !reflect.DeepEqual(rd.seen, want) {
		t.Errorf("fn saw %v, want %v", rd.seen, want)
	}
	for i := range r.Tuned.Samples {
		if r.Tuned.Samples[i] >= 85 || r.Baseline.Samples[i] < 100 {
			t.Errorf("sample %d: tuned %g, baseline %g", i, r.Tuned.Samples[i], r.Baseline.Samples[i])
		}
	}
	if r.Verdict != "better" || r.Baseline.N != 6 || r.Tuned.N != 6 || r.Rounds != 6 || r.Warmup != 1 ||
		r.Order != "abba" || r.Seed != 1 || r.Transaction != "go-fn" || r.Log != "" || r.Plot != nil {
		t.Errorf("got %+v", r)
	}
	if !strings.HasSuffix(r.Metric, ".measure-fm") {
		t.Errorf("Metric = %q, want the func's name", r.Metric)
	}
	if r.ChangePct == nil || r.CI95[0] == nil || r.CI95[1] == nil ||
		!(*r.CI95[0] <= *r.ChangePct && *r.ChangePct <= *r.CI95[1] && *r.CI95[1] < 0) {
		t.Errorf("change %v, CI %v .. %v: want a negative change inside its CI", r.ChangePct, r.CI95[0], r.CI95[1])
	}
	if !(r.PValue > 0 && r.PValue < 0.05) || len(r.Tuned.WallS) != 6 || len(r.Tuned.UserS) != 6 {
		t.Errorf("p = %g, wall times %v", r.PValue, r.Tuned.WallS)
	}
	untouched(t, ft, c)
}

func TestCompareFuncOptionsAndProfile(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	opts := perftune.CompareOptions{Settings: map[string]string{"thp.enabled": "always"}, Rounds: 5,
		Warmup: -1, Order: "random", Seed: 7, HigherIsBetter: true}
	rd := &reader{c: c}
	r, err := c.CompareFunc(opts, rd.measure)
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.seen) != 10 || rd.seen[0] != "madvise" || r.Verdict != "worse" || r.Warmup != 0 ||
		r.Order != "random" || r.Seed != 7 || !r.HigherIsBetter {
		t.Errorf("saw %v, got %+v", rd.seen, r)
	}
	again := &reader{c: c}
	if _, err := c.CompareFunc(opts, again.measure); err != nil || !reflect.DeepEqual(again.seen, rd.seen) {
		t.Errorf("the same seed, another order: %v, %v (%v)", again.seen, rd.seen, err)
	}

	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/thp-on", 0o755); err != nil {
		t.Fatal(err)
	}
	conf := "[vm]\ntransparent_hugepages=${t}\n[variables]\nt=never\n"
	if err := os.WriteFile(dir+"/thp-on/tuned.conf", []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PERFTUNE_PROFILE_PATH", dir)
	rd = &reader{c: c}
	_, err = c.CompareFunc(perftune.CompareOptions{Profile: "thp-on", Vars: map[string]string{"t": "always"},
		Rounds: 3, Warmup: -1}, rd.measure)
	if want := []string{"madvise", "always", "always", "madvise", "madvise", "always"}; err != nil ||
		!reflect.DeepEqual(rd.seen, want) {
		t.Errorf("profile: saw %v, want %v (%v)", rd.seen, want, err)
	}
	untouched(t, ft, c)
}

var errBoom = errors.New("boom")

func TestCompareFuncErrorGivesTheChangeBack(t *testing.T) {
	for _, failAt := range []int{2, 3, 6} { // warmup tuned run, round 1 baseline, round 2
		t.Run(fmt.Sprint(failAt), func(t *testing.T) {
			ft := newFakeTree(t)
			c := ft.open(t)
			var seen []string
			_, err := c.CompareFunc(perftune.CompareOptions{Settings: map[string]string{"thp.enabled": "always"},
				Rounds: 4}, func() (float64, error) {
				v, _ := c.Get("thp.enabled")
				if seen = append(seen, v); len(seen) == failAt {
					return 0, errBoom
				}
				return 1, nil
			})
			if !errors.Is(err, errBoom) || !strings.Contains(err.Error(), "(tuned run)") &&
				!strings.Contains(err.Error(), "(baseline run)") {
				t.Fatalf("want errBoom naming the run, got %v", err)
			}
			if len(seen) != failAt {
				t.Errorf("fn called %d times after failing at %d", len(seen), failAt)
			}
			untouched(t, ft, c)
		})
	}
}

func TestCompareFuncPanicGivesTheChangeBack(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	n := 0
	func() {
		defer func() {
			if p := recover(); p != "in the tuned run" {
				t.Errorf("recovered %v, want fn's panic", p)
			}
		}()
		_, _ = c.CompareFunc(perftune.CompareOptions{Settings: map[string]string{"thp.enabled": "always"}},
			func() (float64, error) {
				if n++; n == 2 {
					panic("in the tuned run")
				}
				return 1, nil
			})
		t.Error("CompareFunc returned after fn panicked")
	}()
	untouched(t, ft, c)
}

func TestCompareFuncBadMeasureStops(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	for _, v := range []float64{math.NaN(), math.Inf(1)} {
		_, err := c.CompareFunc(perftune.CompareOptions{Settings: map[string]string{"thp.enabled": "always"}},
			func() (float64, error) { return v, nil })
		if err == nil || !strings.Contains(err.Error(), "warmup 1 (baseline run): the measure is") {
			t.Errorf("%v: want an error naming the run, got %v", v, err)
		}
	}
	untouched(t, ft, c)
}

func TestCompareFuncRefusesBadInputBeforeAnyCall(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	thp := map[string]string{"thp.enabled": "always"}
	calls := 0
	fn := func() (float64, error) { calls++; return 1, nil }
	for _, tc := range []struct {
		o   perftune.CompareOptions
		key string
	}{
		{perftune.CompareOptions{Settings: map[string]string{"no.such.key": "1"}}, "no.such"},
		{perftune.CompareOptions{Settings: map[string]string{"thp.enabled": "bogus"}}, "thp.enabled"},
		{perftune.CompareOptions{Settings: thp, Rounds: 2}, "rounds 2"},
		{perftune.CompareOptions{Settings: thp, Warmup: 100001}, "warmup 100001"},
		{perftune.CompareOptions{Settings: thp, Order: "abab"}, "order"},
		{perftune.CompareOptions{Settings: thp, Metric: "x: (\\d+)"}, "for a command"},
		{perftune.CompareOptions{}, "Settings or Profile"},
		{perftune.CompareOptions{Profile: "no-such-profile"}, "no-such-profile"},
	} {
		_, err := c.CompareFunc(tc.o, fn)
		var perr *perftune.Error
		if !errors.As(err, &perr) || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%+v: want an *Error naming %q, got %v", tc.o, tc.key, err)
		}
	}
	_, err := c.CompareFunc(perftune.CompareOptions{Settings: thp}, nil)
	wantErrno(t, err, syscall.EINVAL, "")
	if calls != 0 {
		t.Errorf("fn ran %d times", calls)
	}
	untouched(t, ft, c)
}
