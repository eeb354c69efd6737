// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

// cliOutput is what the perftune program prints for args on ft (exit 0, or
// verify's 1).
func cliOutput(t *testing.T, ft *fakeTree, args ...string) string {
	t.Helper()
	cli := os.Getenv("PERFTUNE_CLI")
	if cli == "" {
		t.Skip("PERFTUNE_CLI is not set (meson test --suite go sets it): no perftune program to run")
	}
	cmd := exec.Command(cli, append([]string{"--root", ft.root, "--journal-dir", ft.journal}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("perftune %v: %v: %s", args, err, stderr.String())
	}
	return string(out)
}

// reportTree is the disk tree with a sysctl.d line and the profile "mydb".
func reportTree(t *testing.T) *fakeTree {
	profileDir(t)
	ft := newDiskTree(t)
	ft.write(t, "etc/sysctl.d/90-app.conf", "vm.swappiness = 10\n")
	return ft
}

func TestReportsAreWhatTheProgramPrints(t *testing.T) {
	if os.Getenv("PERFTUNE_CLI") == "" { // here: its subtests' skips would not say why first
		t.Skip("PERFTUNE_CLI is not set (meson test --suite go sets it): no perftune program to run")
	}
	ft := reportTree(t)
	ctx := ft.open(t)
	first := func(s string, _ int, err error) (string, error) { return s, err }
	cases := []struct {
		name   string
		report func() (string, error)
		args   []string
	}{
		{"list", func() (string, error) { return ctx.ListReport("", 0) }, []string{"list"}},
		{"list-json-writable", func() (string, error) { return ctx.ListReport("sysctl", perftune.ReportJSON|perftune.ReportWritable) },
			[]string{"list", "--json", "--writable", "sysctl"}},
		{"describe", func() (string, error) { return ctx.DescribeReport("block.fake0.scheduler", 0) },
			[]string{"describe", "block.fake0.scheduler"}},
		{"describe-json", func() (string, error) { return ctx.DescribeReport("sysctl.vm.swappiness", perftune.ReportJSON) },
			[]string{"describe", "--json", "sysctl.vm.swappiness"}},
		{"profiles", func() (string, error) { return ctx.ProfilesReport(0) }, []string{"list-profiles"}},
		{"profiles-json", func() (string, error) { return ctx.ProfilesReport(perftune.ReportJSON) },
			[]string{"list-profiles", "--json"}},
		{"why", func() (string, error) { return ctx.WhyReport("sysctl.vm.swappiness", 0) },
			[]string{"why", "sysctl.vm.swappiness"}},
		{"why-json", func() (string, error) { return ctx.WhyReport("sysctl.vm.swappiness", perftune.ReportJSON) },
			[]string{"why", "--json", "sysctl.vm.swappiness"}},
		{"verify-profile", func() (string, error) { return first(ctx.VerifyReport("mydb", nil, 0)) },
			[]string{"verify", "mydb"}},
		{"verify-vars-json", func() (string, error) {
			return first(ctx.VerifyReport("mydb", map[string]string{"ra": "256"}, perftune.ReportJSON))
		}, []string{"verify", "--json", "-v", "ra=256", "mydb"}},
		{"verify-settings", func() (string, error) {
			return first(ctx.VerifySettingsReport(0, "sysctl.vm.swappiness=10", "thp.enabled=madvise"))
		}, []string{"verify", "sysctl.vm.swappiness=10", "thp.enabled=madvise"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.report()
			if err != nil {
				t.Fatal(err)
			}
			if want := cliOutput(t, ft, tc.args...); got == "" || got != want {
				t.Errorf("report:\n%s\nperftune %v:\n%s", got, tc.args, want)
			}
		})
	}
}

func TestReportsHoldTheValues(t *testing.T) {
	ctx := reportTree(t).open(t)
	why, err := ctx.WhyReport("sysctl.vm.swappiness", 0)
	if err != nil || !strings.HasPrefix(why, "sysctl.vm.swappiness = 60\n") ||
		!strings.HasSuffix(why, "after a reboot: 10 (sysctl.d /etc/sysctl.d/90-app.conf:1)\n") {
		t.Errorf("WhyReport: %v\n%s", err, why)
	}
	list, err := ctx.ListReport("sysctl.vm.", perftune.ReportJSON)
	var rows []map[string]any
	if err != nil || json.Unmarshal([]byte(list), &rows) != nil || len(rows) != 1 ||
		rows[0]["key"] != "sysctl.vm.swappiness" || rows[0]["value"] != "60" {
		t.Errorf("ListReport: %v\n%s", err, list)
	}
	text, n, err := ctx.VerifySettingsReport(perftune.ReportJSON, "sysctl.vm.swappiness=10")
	var v struct {
		Verified string         `json:"verified"`
		InForce  bool           `json:"in_force"`
		Counts   map[string]int `json:"counts"`
	}
	if err != nil || n != 1 || json.Unmarshal([]byte(text), &v) != nil || v.Verified != "settings" ||
		v.InForce || v.Counts["differs"] != 1 {
		t.Errorf("VerifySettingsReport: %d %v\n%s", n, err, text)
	}
	p, err := ctx.LoadProfile("mydb", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ptext, pn, err := p.VerifyReport(0)
	ctext, cn, _ := ctx.VerifyReport("mydb", nil, 0)
	if err != nil || pn == 0 || pn != cn || ptext != ctext ||
		!strings.Contains(ptext, "differs      sysctl.vm.swappiness = 10 (now 60, expected 10") {
		t.Errorf("Profile.VerifyReport: %d %v\n%s", pn, err, ptext)
	}
}

func TestVerifyReportTakesATransactionFirst(t *testing.T) {
	ctx := reportTree(t).open(t)
	tx, err := ctx.Begin("mydb", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err = tx.Set("sysctl.vm.swappiness", "33"); err == nil {
		_, err = tx.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	text, n, err := ctx.VerifyReport("mydb", nil, 0)
	if err != nil || n != 0 || text != "in force     sysctl.vm.swappiness = 33\n"+
		"1 in force, 0 differ, 0 clamped, 0 not here, 0 need a reboot, 0 skipped\n" {
		t.Errorf("VerifyReport of transaction mydb: %d %v\n%s", n, err, text)
	}
}

func TestReportErrors(t *testing.T) {
	ctx := reportTree(t).open(t)
	_, err := ctx.WhyReport("sysctl.vm.swapiness", 0)
	wantErrno(t, err, syscall.EINVAL, "sysctl.vm.swappiness")
	_, _, err = ctx.VerifyReport("nosuch", nil, 0)
	wantErrno(t, err, syscall.ENOENT, "nosuch")
	_, _, err = ctx.VerifyReport("mydb", map[string]string{"a=b": "1"}, 0)
	wantErrno(t, err, syscall.EINVAL, "a=b")
	_, err = ctx.DescribeReport("sysctl.vm.nosuch", perftune.ReportJSON)
	if err == nil {
		t.Error("DescribeReport of a key that is not here: no error")
	}
}
