// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"errors"
	"syscall"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

func TestWhyAndVerify(t *testing.T) {
	ft := newFakeTree(t)
	ft.write(t, "etc/sysctl.d/90-app.conf", "# app\nvm.swappiness = 10\n")
	ctx, err := perftune.Open(perftune.WithRoot(ft.root), perftune.WithJournalDir(ft.journal))
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()

	src, err := ctx.Why("sysctl.vm.swappiness", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(src) != 1 || src[0].Kind != "sysctl.d" || src[0].Location != "/etc/sysctl.d/90-app.conf:2" ||
		src[0].Value != "10" || !src[0].Flags.Has(perftune.SourceWins|perftune.SourcePersistent|perftune.SourceDiffers) {
		t.Fatalf("Why: %+v", src)
	}
	if src, _ := ctx.Why("sysctl.vm.swappiness", "10"); len(src) != 1 || src[0].Flags.Has(perftune.SourceDiffers) {
		t.Fatalf("Why compared with 10: %+v", src)
	}

	ft.write(t, "etc/udev/rules.d/60-x.rules", "KERNEL==\"fake0\", ATTR{queue/scheduler}=\"kyber\"\n")
	many, err := ctx.WhyKeys([]string{"sysctl.vm.swappiness", "block.fake0.scheduler"},
		map[string]string{"sysctl.vm.swappiness": "10"})
	if err != nil || len(many) != 2 || many[0].Key != "sysctl.vm.swappiness" ||
		many[0].Flags.Has(perftune.SourceDiffers) || many[1].Key != "block.fake0.scheduler" ||
		many[1].Location != "/etc/udev/rules.d/60-x.rules:1" || !many[1].Flags.Has(perftune.SourceDiffers) {
		t.Fatalf("WhyKeys: %v, %+v", err, many)
	}
	if _, err := ctx.WhyKeys([]string{"sysctl.vm.nosuch"}, nil); !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("WhyKeys of a missing sysctl: %v", err)
	}

	cs, n, err := ctx.Verify("block.fake0.scheduler=noop", "sysctl.vm.swappiness=5")
	if err != nil || n != 1 || len(cs) != 2 {
		t.Fatalf("Verify: %v, %d, %+v", err, n, cs)
	}
	if cs[0].Status != perftune.InForce || cs[0].Expected != "none" ||
		cs[1].Status != perftune.Differs || cs[1].Current != "60" || cs[1].Status.String() != "differs" {
		t.Fatalf("Verify: %+v", cs)
	}
	if _, _, err := ctx.Verify("block.fake0.scheduler=cfq2"); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("Verify of a bad value: %v", err)
	}

	tx, err := ctx.Begin("db", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Set("sysctl.vm.swappiness", "5"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	ft.write(t, "proc/sys/vm/swappiness", "10\n") // systemd-sysctl ran again
	cs, n, err = ctx.VerifyTransaction("db")
	if err != nil || n != 1 || cs[0].Reason != "now 10, expected 5; set by sysctl.d /etc/sysctl.d/90-app.conf:2" {
		t.Fatalf("VerifyTransaction: %v, %d, %+v", err, n, cs)
	}
	if _, _, err := ctx.VerifyTransaction("nosuch"); !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("VerifyTransaction of nothing: %v", err)
	}
}

// committedTx is a Tx of opts that set each key to its value (kv: key, value, ...), committed.
func committedTx(t *testing.T, ctx *perftune.Context, name string, opts perftune.TxOptions, kv ...string) *perftune.Tx {
	t.Helper()
	tx, err := ctx.Begin(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if _, err := tx.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return tx
}

func TestTxConflicts(t *testing.T) {
	ft := newFakeTree(t)
	ft.write(t, "etc/sysctl.d/90-app.conf", "# app\nvm.swappiness = 10\n")
	ctx := ft.open(t)

	dry := committedTx(t, ctx, "dry", perftune.TxOptions{DryRun: true},
		"sysctl.vm.swappiness", "5", "block.fake0.scheduler", "noop")
	defer dry.Close()
	got, err := dry.Conflicts()
	if err != nil || len(got) != 1 || got[0].Key != "sysctl.vm.swappiness" || got[0].Kind != "sysctl.d" ||
		got[0].Location != "/etc/sysctl.d/90-app.conf:2" || got[0].Value != "10" {
		t.Fatalf("Conflicts of a dry run: %v, %+v", err, got)
	}

	tx := committedTx(t, ctx, "real", perftune.TxOptions{}, "sysctl.vm.swappiness", "10")
	if got, err := tx.Conflicts(); err != nil || len(got) != 0 {
		t.Fatalf("Conflicts of sysctl.d's own value: %v, %+v", err, got)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Conflicts(); !errors.Is(err, perftune.ErrClosed) {
		t.Fatalf("Conflicts after Rollback: %v", err)
	}
}
