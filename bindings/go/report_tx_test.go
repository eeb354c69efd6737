// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

const reportWarning = "warning: sysctl.vm.swappiness: sysctl.d /etc/sysctl.d/90-app.conf:2 puts back 10 " +
	"(systemd-sysctl sets vm.swappiness at boot)\n"

// cliOut runs the perftune program ($PERFTUNE_CLI) on ft: its stdout and stderr
func cliOut(t *testing.T, ft *fakeTree, args ...string) (string, string) {
	t.Helper()
	cli := os.Getenv("PERFTUNE_CLI")
	if cli == "" {
		t.Skip("PERFTUNE_CLI is not set (meson test --suite go sets it): no perftune program to run")
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(cli, append([]string{"--root", ft.root, "--journal-dir", ft.journal}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("perftune %v: %v: %s", args, err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

func TestTxReport(t *testing.T) {
	ft := newFakeTree(t)
	ft.write(t, "etc/sysctl.d/90-app.conf", "# app\nvm.swappiness = 10\n")
	ctx := ft.open(t)

	dry := committedTx(t, ctx, "dry", perftune.TxOptions{DryRun: true}, "sysctl.vm.swappiness", "5")
	defer dry.Close()
	text, warnings, err := dry.Report(nil, false)
	if err != nil || text != "sysctl.vm.swappiness: 60 -> 5\n" || warnings != reportWarning {
		t.Fatalf("Report of a dry run: %v, %q, %q", err, text, warnings)
	}
	text, warnings, err = dry.Report(nil, true)
	var obj struct {
		Transaction string `json:"transaction"`
		DryRun      bool   `json:"dry_run"`
		Changes     []struct{ Key, Old, New string }
		Warnings    []struct{ Key, Location string }
	}
	if err != nil || warnings != "" || json.Unmarshal([]byte(text), &obj) != nil {
		t.Fatalf("Report JSON: %v, %q, %q", err, text, warnings)
	}
	if obj.Transaction != "dry" || !obj.DryRun || len(obj.Changes) != 1 || obj.Changes[0].Old != "60" ||
		len(obj.Warnings) != 1 || obj.Warnings[0].Location != "/etc/sysctl.d/90-app.conf:2" {
		t.Fatalf("Report JSON: %+v", obj)
	}

	tx, err := ctx.Begin("real", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Set("thp.enabled", "never"); err != nil {
		t.Fatal(err)
	}
	if text, warnings, err := tx.Report(nil, false); err != nil || text != "" || warnings != "" {
		t.Fatalf("Report before Commit: %v, %q, %q", err, text, warnings)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if text, _, err := tx.Report(nil, false); err != nil || text != "thp.enabled: madvise -> never\n" {
		t.Fatalf("Report of a commit: %v, %q", err, text)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tx.Report(nil, false); !errors.Is(err, perftune.ErrClosed) {
		t.Fatalf("Report after Rollback: %v", err)
	}
}

// The reports are the program's bytes: set, apply and status on the same tree.
func TestReportsAreWhatPerftunePrints(t *testing.T) {
	ft := newFakeTree(t)
	ft.write(t, "etc/sysctl.d/90-app.conf", "# app\nvm.swappiness = 10\n")
	conf := ft.path("../kept/tuned.conf")
	ft.write(t, "../kept/tuned.conf", "[vm]\ntransparent_hugepages=never\n[sysctl]\nvm.swappiness=>50\n"+
		"[script]\nscript=tune.sh\n")
	ctx := ft.open(t)

	dry := committedTx(t, ctx, "default", perftune.TxOptions{DryRun: true},
		"sysctl.vm.swappiness", "5", "thp.enabled", "never")
	defer dry.Close()
	text, warnings, err := dry.Report(nil, false)
	stdout, stderr := cliOut(t, ft, "set", "--dry-run", "sysctl.vm.swappiness=5", "thp.enabled=never")
	if err != nil || stdout != text || warnings != reportWarning || stderr != "perftune: "+warnings {
		t.Fatalf("set --dry-run: %v\n%q\n%q\nperftune: %q %q", err, text, warnings, stdout, stderr)
	}
	text, _, _ = dry.Report(nil, true)
	if stdout, _ = cliOut(t, ft, "set", "--dry-run", "--json", "sysctl.vm.swappiness=5",
		"thp.enabled=never"); stdout != text {
		t.Fatalf("set --dry-run --json: %q, perftune: %q", text, stdout)
	}

	p, err := ctx.LoadProfile(conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	kept, err := ctx.Begin("kept", perftune.TxOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	if _, err := kept.ApplyProfile(p, false); err != nil {
		t.Fatal(err)
	}
	if _, err := kept.Commit(); err != nil {
		t.Fatal(err)
	}
	text, warnings, err = kept.Report(p, false)
	want := "thp.enabled: madvise -> never\n" +
		"kept: sysctl.vm.swappiness = 60 ([sysctl] vm.swappiness: the current value 60 is already >= 50)\n" +
		"skipped: [script] script: runs a program: a profile never executes anything\n"
	if err != nil || text != want || warnings != "" {
		t.Fatalf("Report of a profile: %v, %q, %q", err, text, warnings)
	}
	if stdout, _ = cliOut(t, ft, "apply", "--dry-run", conf); stdout != text {
		t.Fatalf("apply --dry-run: %q, perftune: %q", text, stdout)
	}
	text, _, _ = kept.Report(p, true)
	if stdout, _ = cliOut(t, ft, "apply", "--dry-run", "--json", conf); stdout != text {
		t.Fatalf("apply --dry-run --json: %q, perftune: %q", text, stdout)
	}

	if text, err := ctx.StatusReport(false); err != nil || text != "no transactions\n" {
		t.Fatalf("StatusReport of none: %v, %q", err, text)
	}
	held := committedTx(t, ctx, "h", perftune.TxOptions{Hold: true}, "thp.enabled", "never")
	defer held.Close()
	committedTx(t, ctx, "t", perftune.TxOptions{}, "sysctl.vm.swappiness", "7").Close()
	text, err = ctx.StatusReport(false)
	want = fmt.Sprintf("h: held pid %d\n  thp.enabled: madvise -> never, now never\n"+
		"t: applied\n  sysctl.vm.swappiness: 60 -> 7, now 7\n", os.Getpid())
	if err != nil || text != want {
		t.Fatalf("StatusReport: %v, %q", err, text)
	}
	if stdout, _ = cliOut(t, ft, "status"); stdout != text {
		t.Fatalf("status: %q, perftune: %q", text, stdout)
	}
	text, err = ctx.StatusReport(true)
	if stdout, _ = cliOut(t, ft, "status", "--json"); err != nil || stdout != text {
		t.Fatalf("status --json: %v, %q, perftune: %q", err, text, stdout)
	}
}
