// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

const testProfile = `[main]
summary=A database server

[variables]
ra=512

[disk]
elevator=deadline
readahead=${ra}

[vm]
transparent_hugepages=never

[sysctl]
vm.swappiness=10

[script]
script=tune.sh
`

// profileDir makes $PERFTUNE_PROFILE_PATH hold one profile, "mydb".
func profileDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "profiles")
	if err := os.MkdirAll(filepath.Join(d, "mydb"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "mydb", "tuned.conf"), []byte(testProfile), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PERFTUNE_PROFILE_PATH", d)
	return d
}

// newDiskTree is the fake tree with fake0 a fixed disk (profiles' [disk]
// takes fixed disks only).
func newDiskTree(t *testing.T) *fakeTree {
	ft := newFakeTree(t)
	ft.write(t, "sys/block/fake0/removable", "0\n")
	return ft
}

func TestProfiles(t *testing.T) {
	d := profileDir(t)
	if err := os.Mkdir(filepath.Join(d, "broken"), 0o755); err != nil { // no tuned.conf
		t.Fatal(err)
	}
	ctx := newDiskTree(t).open(t)
	ps, err := ctx.Profiles()
	if err != nil {
		t.Fatal(err)
	}
	want := perftune.ProfileInfo{Name: "mydb", Path: filepath.Join(d, "mydb", "tuned.conf"),
		Summary: "A database server", Variables: []string{"ra"}}
	if len(ps) != 1 || !reflect.DeepEqual(ps[0], want) {
		t.Fatalf("Profiles() = %+v, want [%+v]", ps, want)
	}
}

func TestProfileVariablesFile(t *testing.T) {
	d := profileDir(t)
	inst := filepath.Join(d, "inst")
	if err := os.Mkdir(inst, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"tuned.conf":     "[sysctl]\nvm.swappiness=${swap}\nvm.dirty_ratio=${ratio}\n",
		"variables.conf": "swap=7\n",
	} {
		if err := os.WriteFile(filepath.Join(inst, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := newDiskTree(t).open(t)
	ps, err := ctx.Profiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Name != "inst" ||
		!reflect.DeepEqual(ps[0].Variables, []string{"swap", "ratio"}) ||
		!reflect.DeepEqual(ps[0].UnsetVariables, []string{"ratio"}) {
		t.Fatalf("Profiles() = %+v, want inst with swap, ratio; ratio unset", ps)
	}
	for _, c := range []struct {
		vars map[string]string
		want string
	}{{nil, "7"}, {map[string]string{"swap": "9"}, "9"}} { // vars win over the file
		p, err := ctx.LoadProfile("inst", c.vars)
		if err != nil {
			t.Fatal(err)
		}
		items, err := p.Items()
		p.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, it := range items {
			if it.Option == "[sysctl] vm.swappiness" {
				got = it.Value
			}
		}
		if got != c.want {
			t.Errorf("vars %v: vm.swappiness %q, want %q", c.vars, got, c.want)
		}
	}
}

func TestLoadProfileItems(t *testing.T) {
	d := profileDir(t)
	ctx := newDiskTree(t).open(t)
	p, err := ctx.LoadProfile("mydb", nil)
	if err != nil {
		t.Fatal(err)
	}
	var _ io.Closer = p
	defer p.Close()
	conf := filepath.Join(d, "mydb", "tuned.conf")
	if p.Name != "mydb" || p.Path != conf || p.Summary != "A database server" {
		t.Fatalf("profile %q %q %q", p.Name, p.Path, p.Summary)
	}
	items, err := p.Items()
	if err != nil {
		t.Fatal(err)
	}
	byOpt := map[string]perftune.ProfileItem{}
	for _, it := range items {
		byOpt[it.Option] = it
	}
	e := byOpt["[disk] elevator"]
	if e.Key != "block.fake0.scheduler" || e.Value != "mq-deadline" || e.ValueAsWritten != "deadline" ||
		e.Location != conf+":8" || e.Skipped {
		t.Errorf("elevator item %+v", e)
	}
	if ra := byOpt["[disk] readahead"]; ra.Key != "block.fake0.read_ahead_kb" || ra.Value != "512" {
		t.Errorf("readahead item %+v", ra)
	}
	s := byOpt["[script] script"]
	if !s.Skipped || !s.Flags.Has(perftune.ItemSkipped) || !strings.Contains(s.SkipReason, "never executes") {
		t.Errorf("script item %+v", s)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Items(); !errors.Is(err, perftune.ErrClosed) {
		t.Errorf("Items after Close: %v", err)
	}
}

func TestLoadProfileVariablesAndPath(t *testing.T) {
	d := profileDir(t)
	ctx := newDiskTree(t).open(t)
	p, err := ctx.LoadProfile(filepath.Join(d, "mydb"), map[string]string{"ra": "2048"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	items, _ := p.Items()
	found := false
	for _, it := range items {
		if it.Option == "[disk] readahead" {
			found = it.Value == "2048"
		}
	}
	if !found || p.Name != "mydb" {
		t.Errorf("by path with ra=2048: %q %+v", p.Name, items)
	}
}

func TestLoadProfileErrors(t *testing.T) {
	profileDir(t)
	ctx := newDiskTree(t).open(t)
	_, err := ctx.LoadProfile("nosuch", nil)
	wantErrno(t, err, syscall.ENOENT, "nosuch")
	_, err = ctx.LoadProfile("mydb", map[string]string{"a=b": "c"})
	wantErrno(t, err, syscall.EINVAL, "")
	bad := filepath.Join(t.TempDir(), "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "tuned.conf"), []byte("[main]\ninclude=bad\n"), 0o644)
	_, err = ctx.LoadProfile(bad, nil)
	if !errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.ENOENT) {
		t.Errorf("include of itself: %v", err)
	}
}

func TestApplyDryRunThenCommitAndRestore(t *testing.T) {
	profileDir(t)
	ft := newDiskTree(t)
	ctx := ft.open(t)

	a, err := ctx.Apply("mydb", perftune.ApplyOptions{DryRun: true, Vars: map[string]string{"ra": "1024"}})
	if err != nil {
		t.Fatal(err)
	}
	a.Tx.Close()
	if a.Written != 4 || len(a.Changes) != 4 || len(a.Skipped) != 1 || a.Skipped[0].SkipReason == "" {
		t.Fatalf("dry run: %+v", a)
	}
	old := map[string][2]string{}
	for _, c := range a.Changes {
		old[c.Key] = [2]string{c.Old, c.New}
	}
	if old["block.fake0.read_ahead_kb"] != [2]string{"128", "1024"} ||
		old["sysctl.vm.swappiness"] != [2]string{"60", "10"} {
		t.Errorf("dry run changes: %v", old)
	}
	if ft.read(t, "proc/sys/vm/swappiness") != "60" || len(ft.journals(t)) != 0 {
		t.Fatal("a dry run wrote")
	}

	a, err = ctx.Apply("mydb", perftune.ApplyOptions{Name: "db"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Tx.Name() != "db" || a.Written != 4 {
		t.Errorf("apply: %+v", a)
	}
	a.Tx.Close() // not holding: stays in force
	if ft.read(t, "sys/block/fake0/queue/scheduler") != "mq-deadline" ||
		ft.read(t, "proc/sys/vm/swappiness") != "10" {
		t.Fatal("apply did not write")
	}
	for _, f := range perftune.ExportFormats {
		text, err := ctx.Export("db", f)
		if err != nil {
			t.Fatalf("export %v: %v", f, err)
		}
		if f == perftune.ExportSysctl && !strings.Contains(text, "vm.swappiness = 10") {
			t.Errorf("sysctl export:\n%s", text)
		}
	}
	if n, err := ctx.Restore("db"); err != nil || n != 4 {
		t.Fatalf("restore: %d %v", n, err)
	}
	if ft.read(t, "proc/sys/vm/swappiness") != "60" {
		t.Fatal("not restored")
	}
	_, err = ctx.Export("db", perftune.ExportSysctl)
	wantErrno(t, err, syscall.ENOENT, "db")
}

func TestApplyStrictRefusesSkipped(t *testing.T) {
	profileDir(t)
	ft := newDiskTree(t)
	ctx := ft.open(t)
	_, err := ctx.Apply("mydb", perftune.ApplyOptions{Strict: true})
	if !errors.Is(err, syscall.EOPNOTSUPP) {
		t.Fatalf("strict: %v", err)
	}
	if ft.read(t, "proc/sys/vm/swappiness") != "60" || len(ft.journals(t)) != 0 {
		t.Fatal("a refused apply wrote")
	}
}

func TestApplyHoldEndsWithTx(t *testing.T) {
	profileDir(t)
	ft := newDiskTree(t)
	ctx := ft.open(t)
	a, err := ctx.Apply("mydb", perftune.ApplyOptions{Hold: true})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := ctx.Status()
	if len(st) != 4 || !st[0].Flags.Has(perftune.ItemHeld) {
		t.Fatalf("held status: %+v", st)
	}
	if err := a.Tx.Close(); err != nil {
		t.Fatal(err)
	}
	if ft.read(t, "proc/sys/vm/swappiness") != "60" || len(ft.journals(t)) != 0 {
		t.Fatal("closing the holding Tx did not give the values back")
	}
}

func TestTxApplyProfile(t *testing.T) {
	profileDir(t)
	ft := newDiskTree(t)
	ctx := ft.open(t)
	p, err := ctx.LoadProfile("mydb", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tx, err := ctx.Begin("mydb", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if n, err := tx.ApplyProfile(p, false); err != nil || n != 4 {
		t.Fatalf("ApplyProfile: %d %v", n, err)
	}
	if ft.read(t, "proc/sys/vm/swappiness") != "60" {
		t.Fatal("staging wrote")
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	text, err := p.Export(perftune.ExportUdev)
	if err != nil || !strings.Contains(text, "fake0") {
		t.Errorf("profile udev export: %v\n%s", err, text)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if ft.read(t, "sys/block/fake0/queue/scheduler") != "none" {
		t.Error("rollback did not restore the scheduler")
	}
}

func TestExportFormats(t *testing.T) {
	for _, f := range perftune.ExportFormats {
		g, err := perftune.ParseExportFormat(f.String())
		if err != nil || g != f {
			t.Errorf("ParseExportFormat(%q) = %v, %v", f.String(), g, err)
		}
	}
	_, err := perftune.ParseExportFormat("yaml")
	wantErrno(t, err, syscall.EINVAL, "yaml")
}

func TestCommandErrors(t *testing.T) {
	ctx := newDiskTree(t).open(t)
	_, err := ctx.Command("x", perftune.MemLocal, "true")
	wantErrno(t, err, syscall.EINVAL, "x")
	_, err = ctx.Command("0", perftune.MemPolicy(9), "true")
	wantErrno(t, err, syscall.EINVAL, "memory policy 9")
	_, err = ctx.Command("999", perftune.MemBind, "true")
	if !errors.Is(err, syscall.ENODEV) && !errors.Is(err, syscall.EINVAL) {
		t.Errorf("node 999: %v", err)
	}
}

// The started command runs on the CPUs of node 0, with the memory policy
// asked for, and its exit status is the caller's to wait on.
func TestCommandPlacesOnNode(t *testing.T) {
	nodeCPUs, err := os.ReadFile("/sys/devices/system/node/node0/cpulist")
	if err != nil {
		t.Skipf("no NUMA node 0 on this machine: %v", err)
	}
	ctx := newDiskTree(t).open(t)
	cmd, err := ctx.Command("0", perftune.MemBind, "sh", "-c",
		"grep -E '^(Cpus_allowed_list|Mems_allowed_list)' /proc/self/status; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v (output %q)", err, out)
	}
	if !strings.Contains(string(out), "Cpus_allowed_list:\t"+strings.TrimSpace(string(nodeCPUs))) {
		t.Errorf("not on node 0's CPUs (%s): %s", nodeCPUs, out)
	}
	cmd, _ = ctx.Command("0", perftune.MemLocal, "/nonexistent/cmd")
	out, err = cmd.CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 127 || !strings.Contains(string(out), "/nonexistent/cmd") {
		t.Errorf("missing command: %v %q", err, out)
	}
}

// Every error the library returns wraps one errno of the documented set,
// and errors.Is finds it through the *Error.
func TestErrorsWrapDocumentedErrnos(t *testing.T) {
	profileDir(t)
	ft := newDiskTree(t)
	ctx := ft.open(t)
	in := map[syscall.Errno]bool{}
	for _, e := range perftune.Errnos {
		in[e] = true
	}
	_, e1 := ctx.Get("block.nosuch.scheduler")
	_, e2 := ctx.Get("not a key")
	_, e3 := ctx.Restore("nosuch")
	_, e4 := ctx.LoadProfile("nosuch", nil)
	_, e5 := ctx.Apply("mydb", perftune.ApplyOptions{Strict: true})
	_, e6 := perftune.Open(perftune.WithRoot(ft.path("proc/sys/vm/swappiness")))
	_, e7 := ctx.Export("nosuch", perftune.ExportFormat(42))
	for i, err := range []error{e1, e2, e3, e4, e5, e6, e7} {
		var perr *perftune.Error
		if !errors.As(err, &perr) {
			t.Errorf("error %d: %v is not an *Error", i+1, err)
			continue
		}
		if !in[perr.Errno] || !errors.Is(err, perr.Errno) {
			t.Errorf("error %d: %v wraps %v, not in perftune.Errnos", i+1, err, perr.Errno)
		}
	}
}

func TestStatusMetrics(t *testing.T) {
	ft := newDiskTree(t)
	ctx := ft.open(t)
	tx, err := ctx.Begin("m", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tx.Set("sysctl.vm.swappiness", "10")
	tx.Set("block.fake0.read_ahead_kb", "256")
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	defer ctx.Restore("m")
	ft.write(t, "proc/sys/vm/swappiness", "33\n") // drift
	out := filepath.Join(t.TempDir(), "perftune.prom")
	if err := ctx.WriteStatusMetrics(out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	for _, want := range []string{
		"# TYPE perftune_tunable_in_force gauge",
		`perftune_tunable_in_force{key="block.fake0.read_ahead_kb",transaction="m"} 1`,
		`perftune_tunable_drift{key="sysctl.vm.swappiness",transaction="m"} 1`,
		`perftune_keys{state="drift"} 1`,
		"perftune_holds 0",
	} {
		if !strings.Contains(string(b), want+"\n") {
			t.Errorf("no %q in:\n%s", want, b)
		}
	}
	if m, _ := filepath.Glob(out + ".perftune-*"); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
	if err := ctx.WriteStatusMetrics(filepath.Join(t.TempDir(), "no", "such", "x.prom")); err == nil {
		t.Error("wrote into a missing directory")
	}
}

// A caller that replaces Cmd.Env loses the placement: the child says so and
// exits 127; it never runs this program's own main.
func TestCommandEnvReplaced(t *testing.T) {
	if _, err := os.Stat("/sys/devices/system/node/node0"); err != nil {
		t.Skipf("no NUMA node 0 on this machine: %v", err)
	}
	ctx := newDiskTree(t).open(t)
	cmd, err := ctx.Command("0", perftune.MemLocal, "true")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 127 || !strings.Contains(string(out), "Cmd.Env") {
		t.Errorf("Env replaced: %v %q", err, out)
	}
}

// Everything that holds C memory or a hold is an io.Closer.
var (
	_ io.Closer = (*perftune.Context)(nil)
	_ io.Closer = (*perftune.Tx)(nil)
	_ io.Closer = (*perftune.Profile)(nil)
)
