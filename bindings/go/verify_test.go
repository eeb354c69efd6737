// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

func TestVerifySettings(t *testing.T) {
	ctx := newDiskTree(t).open(t)
	checks, n, err := ctx.Verify("sysctl.vm.swappiness=60", "block.fake0.scheduler=deadline")
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || len(checks) != 2 {
		t.Fatalf("Verify: %d not in force, %+v", n, checks)
	}
	if checks[0].Status != perftune.InForce || checks[0].Current != "60" || checks[0].Status.String() != "in force" {
		t.Errorf("swappiness: %+v", checks[0])
	}
	if checks[1].Status != perftune.Differs || checks[1].Current != "none" {
		t.Errorf("scheduler: %+v", checks[1])
	}
	_, _, err = ctx.Verify("not a setting")
	wantErrno(t, err, syscall.EINVAL, "not a setting")
}

func TestVerifyTransactionAndProfile(t *testing.T) {
	profileDir(t)
	ft := newDiskTree(t)
	ctx := ft.open(t)
	a, err := ctx.Apply("mydb", perftune.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.Tx.Close()
	defer ctx.Restore("mydb")
	checks, n, err := ctx.VerifyTransaction("mydb")
	if err != nil || n != 0 || len(checks) != 4 {
		t.Fatalf("VerifyTransaction: %d %v %+v", n, err, checks)
	}
	ft.write(t, "proc/sys/vm/swappiness", "33\n")
	if _, n, _ = ctx.VerifyTransaction("mydb"); n != 1 {
		t.Errorf("after drift: %d not in force, want 1", n)
	}
	p, err := ctx.LoadProfile("mydb", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	checks, n, err = p.Verify()
	if err != nil || n != 1 {
		t.Fatalf("Profile.Verify: %d %v %+v", n, err, checks)
	}
	skipped := false
	for _, c := range checks {
		skipped = skipped || (c.Status == perftune.Skipped && c.Reason != "")
	}
	if !skipped {
		t.Errorf("the script option is not a skipped check: %+v", checks)
	}
	_, _, err = ctx.VerifyTransaction("nosuch")
	if !errors.Is(err, syscall.ENOENT) {
		t.Errorf("VerifyTransaction(nosuch): %v", err)
	}
}

func TestWhy(t *testing.T) {
	ft := newDiskTree(t)
	ft.write(t, "etc/sysctl.d/90-test.conf", "vm.swappiness = 5\n")
	ctx := ft.open(t)
	tx, _ := ctx.Begin("w", perftune.TxOptions{})
	tx.Set("sysctl.vm.swappiness", "10")
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	defer ctx.Restore("w")
	srcs, err := ctx.Why("sysctl.vm.swappiness", "")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]perftune.Source{}
	for _, s := range srcs {
		kinds[s.Kind] = s
	}
	if s, ok := kinds["sysctl.d"]; !ok || s.Value != "5" || !s.Flags.Has(perftune.SourceDiffers) {
		t.Errorf("sysctl.d source: %+v (all: %+v)", s, srcs)
	}
	if s, ok := kinds["transaction"]; !ok || s.Location != "w" {
		t.Errorf("transaction source: %+v (all: %+v)", s, srcs)
	}
	_, err = ctx.Why("no.such.key", "")
	if err == nil {
		t.Error("Why of a bad key: no error")
	}
}

// Is a setting in force, and if not, who set the value it has now?
func ExampleContext_Verify() {
	root := exampleRoot()
	defer os.RemoveAll(root)
	ctx, err := perftune.Open(perftune.WithRoot(root), perftune.WithJournalDir(filepath.Join(root, "j")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	checks, notInForce, err := ctx.Verify("block.sda.scheduler=deadline")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range checks {
		fmt.Printf("%s: %s (now %s, expected %s)\n", c.Key, c.Status, c.Current, c.Expected)
	}
	fmt.Println("not in force:", notInForce)
	// Output:
	// block.sda.scheduler: differs (now none, expected mq-deadline)
	// not in force: 1
}

func TestVerifyMetrics(t *testing.T) {
	profileDir(t)
	ft := newDiskTree(t)
	ctx := ft.open(t)
	a, err := ctx.Apply("mydb", perftune.ApplyOptions{Name: "vm"})
	if err != nil {
		t.Fatal(err)
	}
	a.Tx.Close()
	defer ctx.Restore("vm")
	ft.write(t, "proc/sys/vm/swappiness", "33\n")
	text, err := ctx.VerifyMetrics("vm")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# TYPE perftune_verify_in_force gauge",
		`perftune_verify_in_force{verified="vm",key="sysctl.vm.swappiness",origin="transaction vm"} 0`,
		`perftune_verify_in_force{verified="vm",key="block.fake0.read_ahead_kb",origin="transaction vm"} 1`,
		`perftune_verify_not_in_force{verified="vm"} 1`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	text, err = ctx.VerifyMetrics("mine", "sysctl.vm.swappiness=33")
	if err != nil || !strings.Contains(text, `perftune_verify_checks{verified="mine",state="in_force"} 1`+"\n") {
		t.Errorf("settings: %v\n%s", err, text)
	}
	p, _ := ctx.LoadProfile("mydb", nil)
	defer p.Close()
	text, err = p.VerifyMetrics()
	if err != nil || !strings.Contains(text, `perftune_verify_checks{verified="mydb",state="skipped"} 1`+"\n") {
		t.Errorf("profile: %v\n%s", err, text)
	}
	_, err = ctx.VerifyMetrics("nosuch")
	wantErrno(t, err, syscall.ENOENT, "nosuch")
	out := filepath.Join(t.TempDir(), "v.prom")
	if err := perftune.WriteFileAtomic(out, text); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != text {
		t.Error("WriteFileAtomic wrote something else")
	}
}
