// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

// This test binary is also the workload of the experiments below: started
// with PERFTUNE_GO_COMPARE_WORKLOAD=THP-FILE:COUNTER-FILE, it prints
// "result: 80+k" when the THP file shows "always", else "result: 100+k"
// (k = 0..4 from a call counter), and exits without running any test.
func init() {
	spec := os.Getenv("PERFTUNE_GO_COMPARE_WORKLOAD")
	if spec == "" {
		return
	}
	file, counter, _ := strings.Cut(spec, ":")
	b, _ := os.ReadFile(counter)
	n, _ := strconv.Atoi(string(b))
	if err := os.WriteFile(counter, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
		os.Exit(4)
	}
	v, err := os.ReadFile(file)
	if err != nil {
		os.Exit(4)
	}
	s := strings.TrimSpace(string(v))
	base := 100
	if s == "always" || strings.Contains(s, "[always]") {
		base = 80
	}
	fmt.Fprintln(os.Stderr, "state", s)
	fmt.Printf("result: %d\n", base+n%5)
	os.Exit(0)
}

const thpFile = "sys/kernel/mm/transparent_hugepage/enabled"

func compareTree(t *testing.T) (*fakeTree, *perftune.Context, string) {
	t.Helper()
	if os.Getenv("PERFTUNE_CLI") == "" {
		t.Skip("PERFTUNE_CLI is not set (meson test --suite go sets it): no perftune program to run")
	}
	ft := newFakeTree(t)
	counter := ft.root + "/../counter"
	t.Setenv("PERFTUNE_GO_COMPARE_WORKLOAD", ft.path(thpFile)+":"+counter)
	return ft, ft.open(t), counter
}

func TestCompareFindsAKnownEffect(t *testing.T) {
	ft, c, _ := compareTree(t)
	r, err := c.Compare(perftune.CompareOptions{
		Settings: map[string]string{"thp.enabled": "always"},
		Rounds:   5, Metric: `result: ([0-9]+)`, Log: t.TempDir() + "/log",
	}, os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "better" || r.Baseline.N != 5 || r.Tuned.N != 5 || len(r.Tuned.Samples) != 5 {
		t.Fatalf("want better with 5 samples each, got %+v", r)
	}
	if r.Baseline.Median < 100 || r.Tuned.Median >= 85 || r.Rounds != 5 || r.Metric != `result: ([0-9]+)` {
		t.Errorf("medians %g / %g, rounds %d, metric %q", r.Baseline.Median, r.Tuned.Median, r.Rounds, r.Metric)
	}
	if r.ChangePct == nil || r.CI95[0] == nil || r.CI95[1] == nil ||
		!(*r.CI95[0] <= *r.ChangePct && *r.ChangePct <= *r.CI95[1] && *r.CI95[1] < 0) {
		t.Errorf("change %v, CI %v .. %v: want a negative change inside its CI", r.ChangePct, r.CI95[0], r.CI95[1])
	}
	if !(r.PValue > 0 && r.PValue < 0.05) || len(r.Baseline.WallS) != 5 {
		t.Errorf("p = %g, wall times %v", r.PValue, r.Baseline.WallS)
	}
	if v := ft.read(t, thpFile); v != "madvise" && v != "always [madvise] never" {
		t.Errorf("THP after the experiment: %q", v)
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
}

func TestCompareProfileAndAA(t *testing.T) {
	_, c, _ := compareTree(t)
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/thp-on", 0o755); err != nil {
		t.Fatal(err)
	}
	conf := "[vm]\ntransparent_hugepages=${t}\n[variables]\nt=always\n"
	if err := os.WriteFile(dir+"/thp-on/tuned.conf", []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PERFTUNE_PROFILE_PATH", dir)
	// the profile's variable set to the machine's value: an A/A comparison
	r, err := c.Compare(perftune.CompareOptions{Profile: "thp-on", Vars: map[string]string{"t": "madvise"},
		Rounds: 4, Warmup: -1, Metric: `result: ([0-9]+)`, HigherIsBetter: true, Seed: 3,
		Order: "random", Log: dir + "/log"}, os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "no difference" || !r.HigherIsBetter || r.Warmup != 0 || r.Seed != 3 || r.Order != "random" {
		t.Errorf("got %+v", r)
	}
}

func TestCompareRefusesBadInputBeforeAnyChange(t *testing.T) {
	_, c, counter := compareTree(t)
	thp := map[string]string{"thp.enabled": "always"}
	_, err := c.Compare(perftune.CompareOptions{Settings: map[string]string{"thp.enabled": "bogus"}}, os.Args[0])
	wantErrno(t, err, syscall.EINVAL, "thp.enabled")
	_, err = c.Compare(perftune.CompareOptions{Settings: thp, Rounds: 2}, os.Args[0])
	wantErrno(t, err, syscall.EINVAL, "--rounds")
	_, err = c.Compare(perftune.CompareOptions{Settings: thp, Metric: "no group"}, os.Args[0])
	wantErrno(t, err, syscall.EINVAL, "capture group")
	_, err = c.Compare(perftune.CompareOptions{}, os.Args[0])
	wantErrno(t, err, syscall.EINVAL, "Settings or Profile")
	if _, err := os.Stat(counter); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the workload ran: %v", err)
	}
}

func TestCompareCommandFailingStops(t *testing.T) {
	ft, c, _ := compareTree(t)
	_, err := c.Compare(perftune.CompareOptions{Settings: map[string]string{"thp.enabled": "always"},
		Rounds: 3, Log: t.TempDir() + "/log"}, "/bin/false")
	if !errors.Is(err, perftune.ErrCompareStopped) || !strings.Contains(err.Error(), "CMD failed in warmup 1") {
		t.Fatalf("want ErrCompareStopped naming the run, got %v", err)
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
}
