// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

// Host tests (root; not with -short): the real kernel, on loop devices these
// tests create and detach. They touch no other device and leave every value as
// they found it; journals go to a temporary directory.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

type loopDev struct {
	name string // "loop3"
	file string // backing file
	orig map[string]string
}

var loopAttrs = []string{"scheduler", "read_ahead_kb"}

func (l *loopDev) key(attr string) string { return "block." + l.name + "." + attr }

func (l *loopDev) sysPath(attr string) string {
	return "/sys/block/" + l.name + "/queue/" + attr
}

// sysRead reads a queue attribute straight from sysfs, bypassing the library.
func (l *loopDev) sysRead(t *testing.T, attr string) string {
	t.Helper()
	b, err := os.ReadFile(l.sysPath(attr))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// selected returns the bracketed choice of a selection such as the scheduler.
func selected(s string) string {
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

func requireRoot(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("host test: not with -short (it writes the real kernel's loop devices)")
	}
	if os.Geteuid() != 0 {
		t.Skip("host test: needs root to create loop devices and write their queue attributes")
	}
}

// newLoop attaches a loop device to a new file in dir. Cleanup puts back any
// value the test left changed (and fails the test if it had to), then
// detaches the device and checks that it is gone.
func newLoop(t *testing.T, dir string, i int) *loopDev {
	t.Helper()
	file := filepath.Join(dir, fmt.Sprintf("disk%d.img", i))
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, 8<<20); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "-f", "--show", file).CombinedOutput()
	if err != nil {
		t.Fatalf("losetup -f --show %s: %v: %s", file, err, out)
	}
	dev := strings.TrimSpace(string(out))
	l := &loopDev{name: filepath.Base(dev), file: file, orig: map[string]string{}}
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "-d", dev).CombinedOutput(); err != nil {
			t.Errorf("losetup -d %s: %v: %s", dev, err, out)
		}
		out, err := exec.Command("losetup", "-j", file).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("%s still attached after detach: %s %v", file, out, err)
		}
	})
	for _, a := range loopAttrs {
		l.orig[a] = l.sysRead(t, a)
	}
	t.Cleanup(func() {
		for _, a := range loopAttrs {
			now := l.sysRead(t, a)
			if now == l.orig[a] {
				continue
			}
			t.Errorf("%s: left at %q, was %q: putting it back", l.key(a), now, l.orig[a])
			if err := os.WriteFile(l.sysPath(a), []byte(selected(l.orig[a])), 0o644); err != nil {
				t.Errorf("%s: %v", l.sysPath(a), err)
			}
		}
	})
	return l
}

// hostSetup returns a Context on the real machine with a private journal
// directory, and two fresh loop devices.
func hostSetup(t *testing.T) (*perftune.Context, string, [2]*loopDev) {
	requireRoot(t)
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal")
	loops := [2]*loopDev{newLoop(t, dir, 0), newLoop(t, dir, 1)}
	c, err := perftune.Open(perftune.WithJournalDir(journal))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// safety net: give back anything a failed test left journaled
		if n, err := c.RestoreAll(); err != nil || n != 0 {
			t.Errorf("RestoreAll at cleanup = %d, %v: a test left a transaction", n, err)
		}
		c.Close()
	})
	return c, journal, loops
}

func journalFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.journal"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// otherScheduler picks a scheduler the device offers other than its current one.
func otherScheduler(t *testing.T, c *perftune.Context, l *loopDev) string {
	t.Helper()
	d, err := c.Describe(l.key("scheduler"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pref := range []string{"mq-deadline", "none", "kyber", "bfq"} {
		for _, ch := range d.Choices {
			if ch == pref && ch != d.Value {
				return ch
			}
		}
	}
	t.Fatalf("%s offers no second scheduler: %q", l.name, d.Choices)
	return ""
}

func otherReadAhead(cur string) string {
	if cur == "512" {
		return "1024"
	}
	return "512"
}

func TestHostTxSchedulerAndReadAhead(t *testing.T) {
	c, journal, loops := hostSetup(t)
	want := map[string]string{}
	for _, l := range loops {
		cur, err := c.Get(l.key("scheduler"))
		if err != nil {
			t.Fatal(err)
		}
		if cur != selected(l.orig["scheduler"]) {
			t.Errorf("Get(%s) = %q, sysfs says %q", l.key("scheduler"), cur, l.orig["scheduler"])
		}
		want[l.key("scheduler")] = otherScheduler(t, c, l)
		want[l.key("read_ahead_kb")] = otherReadAhead(l.orig["read_ahead_kb"])
	}

	tx, err := c.Begin("go-host", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for key, v := range want {
		if n, err := tx.Set(key, v); err != nil || n != 1 {
			t.Fatalf("Set(%s, %s) = %d, %v", key, v, n, err)
		}
	}
	n, err := tx.Commit()
	if err != nil || n != 4 {
		t.Fatalf("Commit() = %d, %v, want 4 written", n, err)
	}
	for _, l := range loops {
		if got := selected(l.sysRead(t, "scheduler")); got != want[l.key("scheduler")] {
			t.Errorf("%s: kernel scheduler %q, want %q", l.name, got, want[l.key("scheduler")])
		}
		if got := l.sysRead(t, "read_ahead_kb"); got != want[l.key("read_ahead_kb")] {
			t.Errorf("%s: kernel read_ahead_kb %q, want %q", l.name, got, want[l.key("read_ahead_kb")])
		}
	}
	st, err := c.Status()
	if err != nil || len(st) != 4 {
		t.Fatalf("Status() = %+v, %v, want 4 entries", st, err)
	}
	for _, e := range st {
		if e.Name != "go-host" || e.Written != want[e.Key] || e.Current != e.Written ||
			!e.Flags.Has(perftune.ItemCommitted|perftune.ItemWritten) || e.Flags.Has(perftune.ItemDrift) {
			t.Errorf("status entry %+v (flags %v)", e, e.Flags)
		}
	}

	if err := tx.Rollback(); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	for _, l := range loops {
		for _, a := range loopAttrs {
			if got := l.sysRead(t, a); got != l.orig[a] {
				t.Errorf("%s after Rollback = %q, want %q", l.key(a), got, l.orig[a])
			}
		}
	}
	if j := journalFiles(t, journal); len(j) != 0 {
		t.Errorf("journals after Rollback: %v", j)
	}
}

func TestHostFailingSetStagesNothing(t *testing.T) {
	c, _, loops := hostSetup(t)
	a, b := loops[0], loops[1]
	tx, err := c.Begin("go-host-bad", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	_, err = tx.Set(a.key("scheduler"), "no-such-elevator")
	wantErrno(t, err, syscall.EINVAL, a.key("scheduler"))
	_, err = tx.Set(b.key("read_ahead_kb"), "lots")
	wantErrno(t, err, syscall.EINVAL, b.key("read_ahead_kb"))
	_, err = tx.Set(a.key("no_such_attribute"), "1")
	wantErrno(t, err, syscall.ENOENT, a.key("no_such_attribute"))
	ch, err := tx.Changes()
	if err != nil || len(ch) != 0 {
		t.Fatalf("Changes() after failed Sets = %+v, %v", ch, err)
	}
	if n, err := tx.Commit(); err != nil || n != 0 {
		t.Errorf("Commit() of nothing = %d, %v", n, err)
	}
	for _, l := range loops {
		for _, at := range loopAttrs {
			if got := l.sysRead(t, at); got != l.orig[at] {
				t.Errorf("%s = %q, want untouched %q", l.key(at), got, l.orig[at])
			}
		}
	}
}

// An installer run twice on a machine already in that state, then its
// uninstall: both commits write nothing, the restore succeeds with 0.
func TestHostNoopSetThenRestore(t *testing.T) {
	c, _, loops := hostSetup(t)
	for run := 0; run < 2; run++ {
		tx, err := c.Begin("go-host-noop", perftune.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range loops {
			for _, at := range loopAttrs {
				v, err := c.Get(l.key(at))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Set(l.key(at), v); err != nil {
					t.Fatal(err)
				}
			}
		}
		if n, err := tx.Commit(); err != nil || n != 0 {
			t.Fatalf("run %d: Commit() = %d, %v, want 0 written", run, n, err)
		}
		tx.Close()
	}
	if n, err := c.Restore("go-host-noop"); err != nil || n != 0 {
		t.Fatalf("Restore(go-host-noop) = %d, %v, want 0 written back", n, err)
	}
	for _, l := range loops {
		for _, at := range loopAttrs {
			if got := l.sysRead(t, at); got != l.orig[at] {
				t.Errorf("%s = %q, want untouched %q", l.key(at), got, l.orig[at])
			}
		}
	}
	_, err := c.Restore("go-host-noop")
	wantErrno(t, err, syscall.ENOENT, "go-host-noop")
}

// All-or-nothing on the real kernel: the scheduler switch is written, then
// its iosched parameter (validated only once the scheduler exists) is
// refused, and the switch is given back.
func TestHostCommitFailureGivesBackScheduler(t *testing.T) {
	c, journal, loops := hostSetup(t)
	l := loops[0]
	// start from "none": no iosched directory, so the parameter's validation waits
	prep, err := c.Begin("go-host-prep", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Rollback()
	if _, err := prep.Set(l.key("scheduler"), "none"); err != nil {
		t.Fatal(err)
	}
	if _, err := prep.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.sysPath("iosched")); !os.IsNotExist(err) {
		t.Fatalf("%s has an iosched directory under none: %v", l.name, err)
	}
	d, err := c.Describe(l.key("scheduler"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+strings.Join(d.Choices, " ")+" ", " mq-deadline ") {
		t.Fatalf("%s does not offer mq-deadline: %q", l.name, d.Choices)
	}
	tx, err := c.Begin("go-host-half", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Set(l.key("scheduler"), "mq-deadline"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Set(l.key("iosched.read_expire"), "not-a-number"); err != nil {
		t.Fatalf("Set of a parameter of the scheduler staged in the same tx: %v", err)
	}
	_, err = tx.Commit()
	wantErrno(t, err, syscall.EINVAL, l.key("iosched.read_expire"))
	if !strings.Contains(err.Error(), "rolled back") {
		t.Errorf("commit error %q does not say rolled back", err)
	}
	if got := selected(l.sysRead(t, "scheduler")); got != "none" {
		t.Errorf("scheduler after a failed commit = %q, want none given back", got)
	}
	for _, j := range journalFiles(t, journal) {
		if filepath.Base(j) == "go-host-half.journal" {
			t.Errorf("a failed new transaction left its journal %v", j)
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Errorf("Rollback after a failed commit: %v", err)
	}
}

// A committed transaction outlives its Tx and is restored by name from
// another context, as "perftune restore NAME" from another process would.
func TestHostRestoreByNameFromAnotherContext(t *testing.T) {
	c, journal, loops := hostSetup(t)
	l := loops[1]
	target := otherReadAhead(l.orig["read_ahead_kb"])
	tx, err := c.Begin("go-host-keep", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Set(l.key("read_ahead_kb"), target); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Close(); err != nil {
		t.Fatal(err)
	}
	if got := l.sysRead(t, "read_ahead_kb"); got != target {
		t.Fatalf("read_ahead_kb after Close = %q, want %q still in force", got, target)
	}
	c2, err := perftune.Open(perftune.WithJournalDir(journal))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	n, err := c2.Restore("go-host-keep")
	if err != nil || n != 1 {
		t.Fatalf("Restore = %d, %v", n, err)
	}
	if got := l.sysRead(t, "read_ahead_kb"); got != l.orig["read_ahead_kb"] {
		t.Errorf("read_ahead_kb after Restore = %q, want %q", got, l.orig["read_ahead_kb"])
	}
	if _, err := c2.Restore("go-host-keep"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("second Restore: want ENOENT, got %v", err)
	}
}

func TestHostDryRunWritesNothing(t *testing.T) {
	c, journal, loops := hostSetup(t)
	tx, err := c.Begin("go-host-dry", perftune.TxOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, l := range loops {
		if _, err := tx.Set(l.key("scheduler"), otherScheduler(t, c, l)); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := tx.Commit(); err != nil || n != 2 {
		t.Fatalf("dry-run Commit() = %d, %v, want 2", n, err)
	}
	for _, l := range loops {
		if got := l.sysRead(t, "scheduler"); got != l.orig["scheduler"] {
			t.Errorf("dry run changed %s: %q", l.name, got)
		}
	}
	if j := journalFiles(t, journal); len(j) != 0 {
		t.Errorf("dry run left journals %v", j)
	}
}

// Issue 27 A: a re-apply under the name of a committed transaction that the
// kernel refuses leaves it as it was: its value, applied (no holder), not an
// orphan for RestoreOrphans.
func TestHostFailedReapplyLeavesTransactionApplied(t *testing.T) {
	c, _, loops := hostSetup(t)
	l, m := loops[0], loops[1]
	first := otherReadAhead(l.orig["read_ahead_kb"])
	commit := func(ra string, poll bool) error {
		tx, err := c.Begin("go-host-reapply", perftune.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Close()
		if _, err := tx.Set(l.key("read_ahead_kb"), ra); err != nil {
			t.Fatal(err)
		}
		if poll { // loop devices cannot poll: only the kernel knows, it says EINVAL
			if _, err := tx.Set(m.key("io_poll"), "1"); err != nil {
				t.Fatal(err)
			}
		}
		_, err = tx.Commit()
		return err
	}
	if err := commit(first, false); err != nil {
		t.Fatal(err)
	}
	err := commit(otherReadAhead(first), true)
	wantErrno(t, err, syscall.EINVAL, m.key("io_poll"))
	if got := l.sysRead(t, "read_ahead_kb"); got != first {
		t.Errorf("read_ahead_kb after the failed re-apply = %q, want %q kept", got, first)
	}
	st, err := c.Status()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range st {
		if e.Name != "go-host-reapply" {
			continue
		}
		seen++
		if !e.Flags.Has(perftune.ItemCommitted) || e.Flags&(perftune.ItemOrphaned|perftune.ItemHeld) != 0 ||
			e.PID != 0 {
			t.Errorf("status after a failed re-apply: %+v, want applied with no holder", e)
		}
	}
	if seen != 1 {
		t.Errorf("status lists %d keys of go-host-reapply, want 1", seen)
	}
	if n, err := c.RestoreOrphans(); err != nil || n != 0 {
		t.Errorf("RestoreOrphans = %d, %v; want 0, nil", n, err)
	}
	if got := l.sysRead(t, "read_ahead_kb"); got != first {
		t.Errorf("read_ahead_kb after RestoreOrphans = %q, want %q", got, first)
	}
	if n, err := c.Restore("go-host-reapply"); err != nil || n != 1 {
		t.Errorf("Restore = %d, %v", n, err)
	}
}
