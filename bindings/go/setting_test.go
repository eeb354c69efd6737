// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

// SplitSetting, NewMetric and OpenLog: the library's perftune_setting_split,
// perftune_metric_* and perftune_output_open_log on a fake tree.

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestSplitSettingOutsideBrackets(t *testing.T) {
	c := newFakeTree(t).open(t)
	for in, want := range map[string][2]string{
		"thp.enabled=always":               {"thp.enabled", "always"},
		"net[driver=ixgbe].txqueuelen=7=8": {"net[driver=ixgbe].txqueuelen", "7=8"},
		`net[v\=1].txqueuelen=1`:           {`net[v\=1].txqueuelen`, "1"},
		"sysctl.net.[a[b].x=1":             {"sysctl.net.[a[b].x", "1"},
	} {
		k, v, err := c.SplitSetting(in)
		if err != nil || k != want[0] || v != want[1] {
			t.Errorf("SplitSetting(%q) = %q, %q, %v; want %q, %q", in, k, v, err, want[0], want[1])
		}
	}
	for _, bad := range []string{"thp.enabled", "=1", "net[v=1.txqueuelen"} {
		_, _, err := c.SplitSetting(bad)
		if !errors.Is(err, syscall.EINVAL) || err.Error() != "'"+bad+"' is not KEY=VALUE" {
			t.Errorf("SplitSetting(%q): %v, want EINVAL \"is not KEY=VALUE\"", bad, err)
		}
	}
}

func TestMetricOfACommandOutputCopiedToItsLog(t *testing.T) {
	c := newFakeTree(t).open(t)
	m, err := c.NewMetric(`t=([0-9.]+)`)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	logPath := filepath.Join(t.TempDir(), "cmd.log")
	log, err := c.OpenLog(logPath, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	// as an io.Writer beside the log
	cmd := exec.Command("printf", `a\nt=1.5 t=2.5\nb\n`)
	cmd.Stdout = io.MultiWriter(m, log)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if v, err := m.End(); err != nil || v != 2.5 {
		t.Errorf("End = %v, %v; want 2.5", v, err)
	}
	// from a pipe's fd to its end, copied by the library
	r, w, _ := os.Pipe()
	w.WriteString("t=7\n")
	w.Close()
	if copyErr, err := m.FeedFd(int(r.Fd()), int(log.Fd())); copyErr != nil || err != nil {
		t.Errorf("FeedFd: %v, %v", copyErr, err)
	}
	r.Close()
	if v, err := m.End(); err != nil || v != 7 {
		t.Errorf("End = %v, %v; want 7", v, err)
	}
	log.Close()
	b, _ := os.ReadFile(logPath)
	if string(b) != "a\nt=1.5 t=2.5\nb\nt=7\n" {
		t.Errorf("log %q", b)
	}
	if fi, err := os.Stat(logPath); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("log mode: %v %v", fi, err)
	}
	// a copy that fails: its errno, the output still read for the metric
	r, w, _ = os.Pipe()
	w.WriteString("t=3\n")
	w.Close()
	ro, _ := os.Open(os.DevNull)
	copyErr, err := m.FeedFd(int(r.Fd()), int(ro.Fd()))
	r.Close()
	ro.Close()
	if !errors.Is(copyErr, syscall.EBADF) || err != nil {
		t.Errorf("FeedFd to a read-only fd: %v, %v; want EBADF, nil", copyErr, err)
	}
	if v, err := m.End(); err != nil || v != 3 {
		t.Errorf("End = %v, %v; want 3", v, err)
	}
	m.Write([]byte("nothing\n"))
	if _, err := m.End(); !errors.Is(err, syscall.ENOENT) || !strings.Contains(err.Error(), "matched nothing") {
		t.Errorf("End without a match: %v", err)
	}
	if _, err := c.NewMetric("(a)(b)"); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("NewMetric with two groups: %v", err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	syscall.Mkfifo(fifo, 0o644)
	if _, err := c.OpenLog(fifo, 0o644); !errors.Is(err, syscall.EPERM) {
		t.Errorf("OpenLog of a FIFO: %v", err)
	}
	m.Close()
	if _, err := m.End(); err == nil {
		t.Error("End after Close")
	}
}
