// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

// The example agent (examples/agent), run as a process: it applies and holds
// a profile, writes the metrics, sees drift on its timer, and gives every
// value back on SIGTERM. On the fake tree, and (root) on loop devices.

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	perftune "github.com/libperftune/perftune-go"
)

var (
	agentOnce sync.Once
	agentBin  string
	agentErr  error
)

// buildAgent builds examples/agent once per test binary.
func buildAgent(t *testing.T) string {
	t.Helper()
	agentOnce.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		dir, err := os.MkdirTemp("", "perftune-agent")
		if err != nil {
			agentErr = err
			return
		}
		agentBin = filepath.Join(dir, "agent")
		out, err := exec.Command(goBin, "build", "-o", agentBin, "./examples/agent").CombinedOutput()
		if err != nil {
			agentErr = &exec.Error{Name: "go build ./examples/agent: " + string(out), Err: err}
		}
	})
	if agentErr != nil {
		t.Fatal(agentErr)
	}
	return agentBin
}

type agentRun struct {
	cmd     *exec.Cmd
	log     *syncBuffer
	metrics string
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startAgent(t *testing.T, args ...string) *agentRun {
	t.Helper()
	a := &agentRun{log: &syncBuffer{}, metrics: filepath.Join(t.TempDir(), "perftune.prom")}
	a.cmd = exec.Command(buildAgent(t), append([]string{"-interval", "100ms", "-metrics", a.metrics}, args...)...)
	a.cmd.Stdout, a.cmd.Stderr = a.log, a.log
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if a.cmd.ProcessState == nil { // a failed test: stop it, it gives back
			a.cmd.Process.Signal(syscall.SIGTERM)
			a.cmd.Wait()
		}
	})
	return a
}

// waitMetrics waits (up to 20 s: a loaded machine) until the metrics file
// has every line of want.
func (a *agentRun) waitMetrics(t *testing.T, want ...string) {
	t.Helper()
	for i := 0; i < 400; i++ {
		b, _ := os.ReadFile(a.metrics)
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(string(b), w+"\n")
		}
		if ok {
			return
		}
		if a.cmd.ProcessState != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, _ := os.ReadFile(a.metrics)
	t.Fatalf("metrics never had %q:\n%s\nagent log:\n%s", want, b, a.log.String())
}

func (a *agentRun) stop(t *testing.T) {
	t.Helper()
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Wait(); err != nil {
		t.Fatalf("agent exit: %v\n%s", err, a.log.String())
	}
	if !strings.Contains(a.log.String(), "gave back every value") {
		t.Errorf("agent log:\n%s", a.log.String())
	}
}

func TestAgentFakeTree(t *testing.T) {
	d := profileDir(t)
	ft := newDiskTree(t)
	a := startAgent(t, "-root", ft.root, "-journal-dir", ft.journal,
		"-profile", filepath.Join(d, "mydb"), "-var", "ra=1024")
	a.waitMetrics(t, "perftune_holds 1",
		`perftune_tunable_in_force{key="block.fake0.read_ahead_kb",transaction="mydb"} 1`)
	if ft.read(t, "sys/block/fake0/queue/read_ahead_kb") != "1024" ||
		ft.read(t, "proc/sys/vm/swappiness") != "10" {
		t.Fatal("the profile is not in force")
	}
	ft.write(t, "proc/sys/vm/swappiness", "33\n") // behind its back
	a.waitMetrics(t, `perftune_tunable_drift{key="sysctl.vm.swappiness",transaction="mydb"} 1`)
	a.stop(t)
	if !strings.Contains(a.log.String(), `drift: sysctl.vm.swappiness is "33"`) {
		t.Errorf("drift not logged:\n%s", a.log.String())
	}
	for rel, want := range map[string]string{
		"sys/block/fake0/queue/read_ahead_kb": "128", "proc/sys/vm/swappiness": "60",
		"sys/block/fake0/queue/scheduler": "none", "sys/kernel/mm/transparent_hugepage/enabled": "madvise",
	} {
		if got := ft.read(t, rel); got != want && !strings.Contains(got, "["+want+"]") {
			t.Errorf("%s = %q after SIGTERM, want %q", rel, got, want)
		}
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
	a.waitMetrics(t, "perftune_holds 0", `perftune_transactions{state="held"} 0`)
}

func TestAgentRefusesBadProfile(t *testing.T) {
	profileDir(t)
	ft := newDiskTree(t)
	cmd := exec.Command(buildAgent(t), "-root", ft.root, "-journal-dir", ft.journal, "-profile", "nosuch")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "nosuch") {
		t.Errorf("agent with a missing profile: %v\n%s", err, out)
	}
	if len(ft.journals(t)) != 0 {
		t.Error("a refused profile left a journal")
	}
}

// On the real kernel: a profile for two loop devices, held by the agent,
// drift made through sysfs, everything back after SIGTERM.
func TestHostAgentLoopDevices(t *testing.T) {
	_, journal, loops := hostSetup(t)
	d := filepath.Join(t.TempDir(), "loopdb")
	os.MkdirAll(d, 0o755)
	conf := "[disk]\ndevices=" + loops[0].name + "," + loops[1].name +
		"\nelevator=none\nreadahead=>4096\n"
	if err := os.WriteFile(filepath.Join(d, "tuned.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, "-journal-dir", journal+"-agent", "-profile", d, "-name", "go-host-agent")
	a.waitMetrics(t, "perftune_holds 1",
		`perftune_tunable_in_force{key="block.`+loops[1].name+`.read_ahead_kb",transaction="go-host-agent"} 1`)
	for _, l := range loops {
		if got := l.sysRead(t, "read_ahead_kb"); got != "4096" {
			t.Errorf("%s read_ahead_kb = %s under the agent", l.name, got)
		}
	}
	if err := os.WriteFile(loops[0].sysPath("read_ahead_kb"), []byte("256"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.waitMetrics(t, `perftune_tunable_drift{key="block.`+loops[0].name+`.read_ahead_kb",transaction="go-host-agent"} 1`)
	a.stop(t)
	for _, l := range loops {
		for _, attr := range loopAttrs {
			if got := l.sysRead(t, attr); got != l.orig[attr] {
				t.Errorf("%s %s = %q after SIGTERM, was %q", l.name, attr, got, l.orig[attr])
			}
		}
	}
}

// Profiles and export on the real kernel: a profile for one loop device,
// dry-run (old -> new), applied, exported in every format, restored.
func TestHostProfileApplyExport(t *testing.T) {
	c, _, loops := hostSetup(t)
	l := loops[0]
	d := filepath.Join(t.TempDir(), "loopexp")
	os.MkdirAll(d, 0o755)
	conf := "[disk]\ndevices=" + l.name + "\nelevator=${sched}\nreadahead=2048\n[script]\nscript=x.sh\n"
	if err := os.WriteFile(filepath.Join(d, "tuned.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"sched": "mq-deadline|none"}
	dry, err := c.Apply(d, perftune.ApplyOptions{Name: "go-host-exp", Vars: vars, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	dry.Tx.Close()
	if len(dry.Skipped) != 1 || len(dry.Changes) != 2 || l.sysRead(t, "read_ahead_kb") != l.orig["read_ahead_kb"] {
		t.Fatalf("dry run: %+v", dry)
	}
	a, err := c.Apply(d, perftune.ApplyOptions{Name: "go-host-exp", Vars: vars})
	if err != nil {
		t.Fatal(err)
	}
	a.Tx.Close()
	if l.sysRead(t, "read_ahead_kb") != "2048" {
		t.Fatalf("read_ahead_kb = %s after apply", l.sysRead(t, "read_ahead_kb"))
	}
	for _, f := range perftune.ExportFormats {
		text, err := c.Export("go-host-exp", f)
		if err != nil {
			t.Errorf("export %v: %v", f, err)
		}
		if f == perftune.ExportUdev && !strings.Contains(text, l.name) {
			t.Errorf("udev export names no %s:\n%s", l.name, text)
		}
	}
	if n, err := c.Restore("go-host-exp"); err != nil || n < 1 {
		t.Fatalf("restore: %d %v", n, err)
	}
}
