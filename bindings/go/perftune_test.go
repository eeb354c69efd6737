// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	perftune "github.com/libperftune/perftune-go"
)

const (
	schedKey = "block.fake0.scheduler"
	raKey    = "block.fake0.read_ahead_kb"
	schedRel = "sys/block/fake0/queue/scheduler"
	raRel    = "sys/block/fake0/queue/read_ahead_kb"
)

// wantErrno fails unless err is an *Error wrapping errno whose message names key.
func wantErrno(t *testing.T, err error, errno syscall.Errno, key string) *perftune.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want %v naming %q, got no error", errno, key)
	}
	if !errors.Is(err, errno) {
		t.Fatalf("want errors.Is(err, %v) (%d), got %v (%#v)", errno, int(errno), err, err)
	}
	var perr *perftune.Error
	if !errors.As(err, &perr) {
		t.Fatalf("want *perftune.Error, got %T", err)
	}
	if perr.Errno != errno {
		t.Errorf("Errno = %v, want %v", perr.Errno, errno)
	}
	if perr.Msg == "" || strings.Contains(perr.Msg, "\n") {
		t.Errorf("want a one-line library message, got %q", perr.Msg)
	}
	if !strings.Contains(err.Error(), key) {
		t.Errorf("message %q does not name %q", err.Error(), key)
	}
	return perr
}

func TestVersion(t *testing.T) {
	v := perftune.Version()
	if v == "" || !strings.Contains(v, ".") {
		t.Fatalf("Version() = %q", v)
	}
}

func TestProfileDefaultPath(t *testing.T) {
	p := perftune.ProfileDefaultPath()
	if !strings.HasPrefix(p, "/etc/perftune/profiles:") || !strings.HasSuffix(p, ":/etc/tuned:/usr/lib/tuned") {
		t.Fatalf("ProfileDefaultPath() = %q", p)
	}
}

func TestOpenOptions(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	if got := c.Root(); got != ft.root {
		t.Errorf("Root() = %q, want %q", got, ft.root)
	}
	if got := c.JournalDir(); got != ft.journal {
		t.Errorf("JournalDir() = %q, want %q", got, ft.journal)
	}

	missing := ft.root + "/nonexistent"
	_, err := perftune.Open(perftune.WithRoot(missing))
	wantErrno(t, err, syscall.ENOENT, missing)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(%v, fs.ErrNotExist) = false", err)
	}
	_, err = perftune.Open(perftune.WithRoot("relative/root"))
	wantErrno(t, err, syscall.EINVAL, "relative/root")
	_, err = perftune.Open(perftune.WithJournalDir("journal"))
	wantErrno(t, err, syscall.EINVAL, "journal")
}

func TestResolver(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	if got := c.Resolver(); !strings.HasPrefix(got, "openat2 (") && !strings.HasPrefix(got, "user-space (") {
		t.Errorf("Resolver() = %q", got)
	}
	t.Setenv("PERFTUNE_NO_OPENAT2", "1")
	u := ft.open(t)
	if got := u.Resolver(); !strings.HasPrefix(got, "user-space (") || !strings.Contains(got, "PERFTUNE_NO_OPENAT2") {
		t.Errorf("Resolver() with PERFTUNE_NO_OPENAT2=1 = %q", got)
	}
	if _, err := u.Get("sysctl.vm.swappiness"); err != nil {
		t.Errorf("Get through the user-space resolver: %v", err)
	}
}

func TestJournalDirFromEnvironment(t *testing.T) {
	dir := t.TempDir() + "/from-env"
	t.Setenv("PERFTUNE_JOURNAL_DIR", dir)
	c, err := perftune.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.JournalDir(); got != dir {
		t.Errorf("JournalDir() = %q, want %q", got, dir)
	}
	if got := c.Root(); got != "/" {
		t.Errorf("Root() = %q, want /", got)
	}
}

func TestGet(t *testing.T) {
	c := newFakeTree(t).open(t)
	for key, want := range map[string]string{
		schedKey:                 "none", // the bracketed choice
		raKey:                    "128",
		"sysctl.vm.swappiness":   "60",
		"thp.enabled":            "madvise",
		"block.fake*.scheduler":  "none", // a glob whose values agree
		"block[fake0].scheduler": "none", // bracketed selector
	} {
		got, err := c.Get(key)
		if err != nil {
			t.Errorf("Get(%q): %v", key, err)
		} else if got != want {
			t.Errorf("Get(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestGetEachReadsWhatAGlobCan(t *testing.T) {
	ft := newFakeTree(t)
	ft.write(t, "sys/block/fake1/queue/scheduler", "none [mq-deadline]\n")
	if err := os.MkdirAll(ft.path("sys/block/fake2/queue"), 0o755); err != nil { // no scheduler: zram
		t.Fatal(err)
	}
	c := ft.open(t)
	got, err := c.GetEach("block.fake*.scheduler")
	if err != nil {
		t.Fatal(err)
	}
	want := []perftune.Reading{
		{Key: "block.fake0.scheduler", Value: "none", Readable: true},
		{Key: "block.fake1.scheduler", Value: "mq-deadline", Readable: true},
		{Key: "block.fake2.scheduler", Absent: true},
	}
	if len(got) != len(want) {
		t.Fatalf("GetEach = %+v", got)
	}
	for i := range want {
		g := got[i]
		if g.Key != want[i].Key || g.Value != want[i].Value || g.Readable != want[i].Readable ||
			g.Absent != want[i].Absent {
			t.Errorf("GetEach[%d] = %+v, want %+v", i, g, want[i])
		}
	}
	if !strings.HasPrefix(got[2].Note, "block.fake2.scheduler: ") {
		t.Errorf("Note of the absent one = %q", got[2].Note)
	}
	_, err = c.GetEach("block.nosuch.scheduler")
	wantErrno(t, err, syscall.ENODEV, "block.nosuch.scheduler")
}

func TestGetErrors(t *testing.T) {
	c := newFakeTree(t).open(t)
	_, err := c.Get("block.nosuch.scheduler")
	perr := wantErrno(t, err, syscall.ENODEV, "block.nosuch.scheduler")
	if perr.Op != "get" || perr.Key != "block.nosuch.scheduler" {
		t.Errorf("Op, Key = %q, %q", perr.Op, perr.Key)
	}
	if !strings.Contains(err.Error(), "no such block device") {
		t.Errorf("message %q does not say why", err)
	}
	for _, key := range []string{"block.fake0", "block.fake0.iosched.a.b"} {
		_, err = c.Get(key)
		wantErrno(t, err, syscall.EINVAL, key)
	}
	_, err = c.Get("block.fake0.nosuch_attr")
	wantErrno(t, err, syscall.ENOENT, "block.fake0.nosuch_attr")

	// C strings end at NUL: the binding refuses instead of reading "block.fake0".
	_, err = c.Get("block.fake0.scheduler\x00junk")
	if !errors.Is(err, syscall.EINVAL) || !strings.Contains(err.Error(), "NUL") {
		t.Errorf("key with NUL: got %v", err)
	}
}

// A key one letter off a sysctl here, or a sysctl without "sysctl.", is a
// mistake: EINVAL with the key meant in the library's message (Verify too).
func TestTypoNamesTheKeyMeant(t *testing.T) {
	c := newFakeTree(t).open(t)
	for _, key := range []string{"sysctl.vm.swapiness", "vm.swappiness"} {
		_, err := c.Get(key)
		wantErrno(t, err, syscall.EINVAL, key)
		if !strings.HasSuffix(err.Error(), "; did you mean sysctl.vm.swappiness?") {
			t.Errorf("Get(%q): %q names no key meant", key, err)
		}
		_, _, err = c.Verify(key + "=1")
		wantErrno(t, err, syscall.EINVAL, key)
	}
	_, err := c.Get("sysctl.vm.nosuch") // far from every name: perhaps another kernel's
	wantErrno(t, err, syscall.ENOENT, "sysctl.vm.nosuch")
	if strings.Contains(err.Error(), "did you mean") {
		t.Errorf("Get(sysctl.vm.nosuch): %q suggests a key", err)
	}
}

func TestList(t *testing.T) {
	c := newFakeTree(t).open(t)
	items, err := c.List("block.fake0.")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, it := range items {
		if !strings.HasPrefix(it.Key, "block.fake0.") {
			t.Errorf("List(block.fake0.) returned %q", it.Key)
		}
		if !it.Readable {
			t.Errorf("%s not readable", it.Key)
		}
		got[it.Key] = it.Value
	}
	want := map[string]string{schedKey: "none", raKey: "128"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("List(block.fake0.) = %v, want %v", got, want)
	}

	all, err := c.List("")
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, it := range all {
		keys[it.Key] = true
	}
	for _, k := range []string{schedKey, raKey, "sysctl.vm.swappiness", "thp.enabled"} {
		if !keys[k] {
			t.Errorf("List(\"\") lacks %s (got %d items)", k, len(all))
		}
	}

	none, err := c.List("hugepages.")
	if err != nil || len(none) != 0 {
		t.Errorf("List(hugepages.) on a tree without huge pages = %v, %v", none, err)
	}
}

func TestDescribeUnreadableSaysWhy(t *testing.T) {
	ft := newFakeTree(t)
	ft.write(t, "proc/sys/vm/drop_caches", "0\n")
	if err := os.Chmod(ft.path("proc/sys/vm/drop_caches"), 0o200); err != nil { // a write-only trigger
		t.Fatal(err)
	}
	d, err := ft.open(t).Describe("sysctl.vm.drop_caches")
	if err != nil {
		t.Fatal(err)
	}
	if d.Readable || d.Value != "" || d.Unreadable != "write-only trigger" {
		t.Errorf("Describe(sysctl.vm.drop_caches) = %+v, want unreadable: write-only trigger", d)
	}
}

func TestListFlagsReadOnlySysctls(t *testing.T) {
	ft := newFakeTree(t)
	ft.write(t, "proc/sys/kernel/ostype", "Linux\n")
	if err := os.Chmod(ft.path("proc/sys/kernel/ostype"), 0o444); err != nil {
		t.Fatal(err)
	}
	items, err := ft.open(t).List("sysctl.")
	if err != nil {
		t.Fatal(err)
	}
	ro := map[string]bool{}
	for _, it := range items {
		ro[it.Key] = it.ReadOnly
	}
	if v, ok := ro["sysctl.kernel.ostype"]; !ok || !v {
		t.Errorf("sysctl.kernel.ostype: listed %v, read-only %v; want both", ok, v)
	}
	if ro["sysctl.vm.swappiness"] {
		t.Errorf("sysctl.vm.swappiness listed read-only")
	}
}

func TestDescribe(t *testing.T) {
	c := newFakeTree(t).open(t)
	d, err := c.Describe(schedKey)
	if err != nil {
		t.Fatal(err)
	}
	if d.Key != schedKey || d.Value != "none" || !d.Readable || !d.Writable {
		t.Errorf("Describe(%s) = %+v", schedKey, d)
	}
	if want := []string{"none", "mq-deadline", "kyber", "bfq"}; !reflect.DeepEqual(d.Choices, want) {
		t.Errorf("Choices = %q, want %q", d.Choices, want)
	}
	if !strings.HasSuffix(d.Path, schedRel) {
		t.Errorf("Path = %q, want .../%s", d.Path, schedRel)
	}
	if d.HasRange {
		t.Errorf("a selection has no range: %+v", d)
	}

	d, err = c.Describe("thp.enabled")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"always", "madvise", "never"}; !reflect.DeepEqual(d.Choices, want) {
		t.Errorf("thp.enabled Choices = %q, want %q", d.Choices, want)
	}

	_, err = c.Describe("block.nosuch.scheduler")
	wantErrno(t, err, syscall.ENODEV, "block.nosuch.scheduler")
}

func TestTxCommitRollback(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx, err := c.Begin("t1", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if tx.Name() != "t1" {
		t.Errorf("Name() = %q", tx.Name())
	}
	if n, err := tx.Set(schedKey, "deadline"); err != nil || n != 1 {
		t.Fatalf("Set(scheduler) = %d, %v", n, err)
	}
	if n, err := tx.Set(raKey, "4096"); err != nil || n != 1 {
		t.Fatalf("Set(read_ahead_kb) = %d, %v", n, err)
	}
	if ft.read(t, raRel) != "128" {
		t.Fatal("Set wrote before Commit")
	}
	ch, err := tx.Changes()
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != 2 || ch[0].Key != schedKey || ch[0].Old != "none" ||
		ch[0].New != "mq-deadline" || !strings.Contains(ch[0].Note, "deadline") {
		t.Fatalf("Changes() before commit = %+v", ch)
	}

	n, err := tx.Commit()
	if err != nil || n != 2 {
		t.Fatalf("Commit() = %d, %v", n, err)
	}
	if got := ft.read(t, schedRel); got != "mq-deadline" {
		t.Errorf("scheduler file = %q after commit", got)
	}
	if got := ft.read(t, raRel); got != "4096" {
		t.Errorf("read_ahead_kb file = %q after commit", got)
	}
	if j := ft.journals(t); !reflect.DeepEqual(j, []string{"t1.journal"}) {
		t.Errorf("journals after commit = %v", j)
	}
	ch, _ = tx.Changes()
	for _, x := range ch {
		if !x.Flags.Has(perftune.ItemWritten) {
			t.Errorf("%s flags %v after commit, want written", x.Key, x.Flags)
		}
	}
	if _, err := tx.Set(raKey, "8"); !errors.Is(err, syscall.EALREADY) {
		t.Errorf("Set after Commit: want EALREADY, got %v", err)
	}
	if _, err := tx.Commit(); !errors.Is(err, syscall.EALREADY) {
		t.Errorf("second Commit: want EALREADY, got %v", err)
	}

	if err := tx.Rollback(); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	if got := ft.read(t, schedRel); got != "none" {
		t.Errorf("scheduler file = %q after rollback, want none", got)
	}
	if got := ft.read(t, raRel); got != "128" {
		t.Errorf("read_ahead_kb file = %q after rollback, want 128", got)
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals after rollback = %v", j)
	}
	if err := tx.Rollback(); err != nil {
		t.Errorf("second Rollback = %v, want nil", err)
	}
	if _, err := tx.Set(raKey, "8"); !errors.Is(err, perftune.ErrClosed) {
		t.Errorf("Set after Rollback: want ErrClosed, got %v", err)
	}
	if err := tx.Close(); err != nil {
		t.Errorf("Close after Rollback: %v", err)
	}
}

func TestRollbackUncommittedWritesNothing(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx, err := c.Begin("", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tx.Name() != "default" {
		t.Errorf(`Begin("") name = %q, want default`, tx.Name())
	}
	if _, err := tx.Set(raKey, "512"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := ft.read(t, raRel); got != "128" {
		t.Errorf("read_ahead_kb = %q", got)
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals = %v", j)
	}
}

func TestFailedSetStagesNothing(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx, err := c.Begin("bad", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	_, err = tx.Set(schedKey, "nosuch-scheduler")
	wantErrno(t, err, syscall.EINVAL, schedKey)
	_, err = tx.Set("thp.enabled", "sometimes")
	wantErrno(t, err, syscall.EINVAL, "thp.enabled")
	_, err = tx.Set("block.nosuch.read_ahead_kb", "64")
	wantErrno(t, err, syscall.ENODEV, "block.nosuch.read_ahead_kb")
	if _, err = tx.Set(raKey, "64\n"); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("value with a newline: got %v", err)
	}
	ch, err := tx.Changes()
	if err != nil || len(ch) != 0 {
		t.Fatalf("Changes() after failed Sets = %+v, %v", ch, err)
	}
	if n, err := tx.Commit(); err != nil || n != 0 {
		t.Errorf("Commit() of nothing = %d, %v", n, err)
	}
	for rel, content := range fakeFiles {
		if got := ft.read(t, rel); got != strings.TrimSpace(content) {
			t.Errorf("%s = %q, changed", rel, got)
		}
	}
}

func TestBeginBadName(t *testing.T) {
	c := newFakeTree(t).open(t)
	for _, name := range []string{"has space", "a/b", ".hidden", "-x", strings.Repeat("x", 65)} {
		_, err := c.Begin(name, perftune.TxOptions{})
		wantErrno(t, err, syscall.EINVAL, name)
	}
}

func TestCommitFailureRestoresWritten(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx, err := c.Begin("half", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Set(schedKey, "kyber"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Set(raKey, "256"); err != nil {
		t.Fatal(err)
	}
	// The scheduler is written first; then read_ahead_kb has vanished.
	if err := os.Remove(ft.path(raRel)); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Commit()
	if err == nil {
		t.Fatal("Commit succeeded with a vanished attribute")
	}
	if !strings.Contains(err.Error(), raKey) || !strings.Contains(err.Error(), "rolled back") {
		t.Errorf("Commit error %q should name %s and say rolled back", err, raKey)
	}
	if got := ft.read(t, schedRel); got != "none" {
		t.Errorf("scheduler = %q after a failed commit, want none restored", got)
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("a failed new transaction left journals %v", j)
	}
	if err := tx.Rollback(); err != nil {
		t.Errorf("Rollback after a failed commit = %v, want nil", err)
	}
}

func TestRestoreByName(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx, err := c.Begin("keep", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Set("sysctl.vm.swappiness", "10"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Set("thp.enabled", "never"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close() // a committed transaction stays in force
	if got := ft.read(t, "proc/sys/vm/swappiness"); got != "10" {
		t.Fatalf("swappiness = %q after Close, want 10 in force", got)
	}

	// another context, as another process would
	c2 := ft.open(t)
	st, err := c2.Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 2 {
		t.Fatalf("Status() = %+v, want 2 entries", st)
	}
	for _, e := range st {
		if e.Name != "keep" || !e.Flags.Has(perftune.ItemCommitted|perftune.ItemWritten) ||
			e.Flags.Has(perftune.ItemDrift) || e.PID != 0 || !e.Readable || e.Current != e.Written {
			t.Errorf("status entry %+v (flags %v)", e, e.Flags)
		}
	}
	byKey := map[string]perftune.StatusEntry{}
	for _, e := range st {
		byKey[e.Key] = e
	}
	if e := byKey["sysctl.vm.swappiness"]; e.Original != "60" || e.Written != "10" {
		t.Errorf("swappiness entry %+v", e)
	}
	if e := byKey["thp.enabled"]; e.Original != "madvise" || e.Written != "never" {
		t.Errorf("thp.enabled entry %+v", e)
	}

	n, err := c2.Restore("keep")
	if err != nil || n != 2 {
		t.Fatalf("Restore(keep) = %d, %v", n, err)
	}
	if got := ft.read(t, "proc/sys/vm/swappiness"); got != "60" {
		t.Errorf("swappiness = %q after restore", got)
	}
	if got, _ := c2.Get("thp.enabled"); got != "madvise" {
		t.Errorf("thp.enabled = %q after restore", got)
	}
	if st, err := c2.Status(); err != nil || len(st) != 0 {
		t.Errorf("Status() after restore = %+v, %v", st, err)
	}
	_, err = c2.Restore("keep")
	wantErrno(t, err, syscall.ENOENT, "keep")
}

// An installer run twice on a machine already in that state, then its
// uninstall: the no-op commits are recorded (empty) and the restore succeeds.
func TestNoopSetThenRestoreSucceeds(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	for run := 0; run < 2; run++ {
		tx, err := c.Begin("myapp", perftune.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Set("sysctl.vm.swappiness", "60"); err != nil {
			t.Fatal(err)
		}
		if n, err := tx.Commit(); err != nil || n != 0 {
			t.Fatalf("run %d: Commit() = %d, %v, want 0 written", run, n, err)
		}
		tx.Close()
	}
	if j := ft.journals(t); !reflect.DeepEqual(j, []string{"myapp.journal"}) {
		t.Fatalf("journals %v, want the empty transaction myapp", j)
	}
	if n, err := c.Restore("myapp"); err != nil || n != 0 {
		t.Fatalf("Restore(myapp) = %d, %v, want 0 written back", n, err)
	}
	if got := ft.read(t, "proc/sys/vm/swappiness"); got != "60" {
		t.Errorf("swappiness = %q after restore", got)
	}
	_, err := c.Restore("myapp")
	wantErrno(t, err, syscall.ENOENT, "myapp")
}

func TestRestoreAllAndOrphans(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	for i, kv := range [][2]string{{raKey, "64"}, {"sysctl.vm.swappiness", "1"}} {
		tx, err := c.Begin(fmt.Sprintf("all%d", i), perftune.TxOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		tx.Close()
	}
	// committed without a hold: not orphans, nothing to do
	if n, err := c.RestoreOrphans(); err != nil || n != 0 {
		t.Errorf("RestoreOrphans() = %d, %v", n, err)
	}
	if j := ft.journals(t); len(j) != 2 {
		t.Fatalf("journals = %v, want 2", j)
	}
	n, err := c.RestoreAll()
	if err != nil || n != 2 {
		t.Fatalf("RestoreAll() = %d, %v", n, err)
	}
	if ft.read(t, raRel) != "128" || ft.read(t, "proc/sys/vm/swappiness") != "60" {
		t.Error("RestoreAll did not restore the originals")
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals after RestoreAll = %v", j)
	}
}

// A disk that only has the name and dev_t of the one journaled (another diskseq):
// Status says it is gone, Restore writes nothing to it and drops the key.
func TestStatusAndRestoreOfAnotherDisk(t *testing.T) {
	ft := newFakeTree(t)
	ft.write(t, "sys/block/fake0/dev", "8:0\n")
	ft.write(t, "sys/block/fake0/diskseq", "5\n")
	c := ft.open(t)
	defer commitRA(t, c, "disk", "1024").Rollback()
	ft.write(t, "sys/block/fake0/diskseq", "9\n") // another disk under its name and dev_t
	ft.write(t, raRel, "256\n")
	st, err := c.Status()
	if err != nil || len(st) != 1 {
		t.Fatalf("Status() = %+v, %v", st, err)
	}
	if e := st[0]; !e.Flags.Has(perftune.ItemGone) || e.Flags.Has(perftune.ItemMoved) ||
		!strings.Contains(e.Flags.String(), "gone") ||
		!strings.Contains(e.Note, "journaled dev=8:0 diskseq=5") {
		t.Errorf("entry of another disk %+v (flags %v)", e, e.Flags)
	}
	if n, err := c.Restore("disk"); err != nil || n != 0 {
		t.Errorf("Restore() = %d, %v, want 0 written", n, err)
	}
	if got := ft.read(t, raRel); got != "256" {
		t.Errorf("read_ahead_kb = %q, want the other disk's own 256", got)
	}
}

// commitRA commits read_ahead_kb = value in a transaction called name.
func commitRA(t *testing.T, c *perftune.Context, name, value string) *perftune.Tx {
	t.Helper()
	tx, err := c.Begin(name, perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Set(raKey, value); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	return tx
}

func TestStatusDrift(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx := commitRA(t, c, "drifty", "1024")
	defer tx.Rollback()
	ft.write(t, raRel, "16\n") // behind perftune's back
	st, err := c.Status()
	if err != nil || len(st) != 1 {
		t.Fatalf("Status() = %+v, %v", st, err)
	}
	if e := st[0]; !e.Flags.Has(perftune.ItemDrift) || e.Current != "16" || e.Written != "1024" ||
		!strings.Contains(e.Note, "drift") {
		t.Errorf("drifted entry %+v (flags %v)", e, e.Flags)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := ft.read(t, raRel); got != "128" {
		t.Errorf("read_ahead_kb = %q, want the original restored despite drift", got)
	}
}

func TestDryRun(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx, err := c.Begin("dry", perftune.TxOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Set(schedKey, "bfq"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Set(raKey, "128"); err != nil { // already there
		t.Fatal(err)
	}
	n, err := tx.Commit()
	if err != nil || n != 1 {
		t.Fatalf("dry-run Commit() = %d, %v, want 1 change", n, err)
	}
	if got := ft.read(t, schedRel); got != strings.TrimSpace(fakeFiles[schedRel]) {
		t.Errorf("dry run wrote the scheduler: %q", got)
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("dry run left journals %v", j)
	}
	ch, err := tx.Changes()
	if err != nil || len(ch) != 2 {
		t.Fatalf("Changes() = %+v, %v", ch, err)
	}
	for _, x := range ch {
		unchanged := x.Key == raKey
		if x.Flags.Has(perftune.ItemUnchanged) != unchanged || x.Flags.Has(perftune.ItemWritten) {
			t.Errorf("%s flags %v", x.Key, x.Flags)
		}
	}
	if st, err := c.Status(); err != nil || len(st) != 0 {
		t.Errorf("Status() after a dry run = %+v, %v", st, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Errorf("Rollback of a dry run = %v", err)
	}
}

func TestClosedContext(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx, err := c.Begin("outlives", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.Get(schedKey); !errors.Is(err, perftune.ErrClosed) {
		t.Errorf("Get on a closed Context: %v", err)
	}
	if _, err := c.Begin("x", perftune.TxOptions{}); !errors.Is(err, perftune.ErrClosed) {
		t.Errorf("Begin on a closed Context: %v", err)
	}
	// the Tx keeps its own reference, errors included
	_, err = tx.Set("block.nosuch.scheduler", "none")
	wantErrno(t, err, syscall.ENODEV, "block.nosuch.scheduler")
	if _, err := tx.Set(raKey, "32"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := ft.read(t, raRel); got != "128" {
		t.Errorf("read_ahead_kb = %q", got)
	}
}

func TestErrorWithoutMessage(t *testing.T) {
	e := &perftune.Error{Op: "get", Key: "thp.enabled", Errno: syscall.EACCES}
	if got := e.Error(); got != "perftune: get thp.enabled: permission denied" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(e, fs.ErrPermission) {
		t.Error("EACCES should match fs.ErrPermission")
	}
	e = &perftune.Error{Op: "status", Errno: syscall.ENOMEM, Msg: "x: y"}
	if e.Error() != "x: y" {
		t.Errorf("Error() = %q, want the library message", e.Error())
	}
}

func TestItemFlagsString(t *testing.T) {
	for f, want := range map[perftune.ItemFlags]string{
		0: "0",
		perftune.ItemWritten | perftune.ItemCommitted: "written|committed",
		perftune.ItemDrift | 1<<20:                    "drift|0x100000",
	} {
		if got := f.String(); got != want {
			t.Errorf("ItemFlags(%#x).String() = %q, want %q", uint(f), got, want)
		}
	}
}

// One Context shared by goroutines: every error carries its own call's message
// (read under the same lock as the call), and concurrent transactions on
// different keys all commit and roll back.
func TestConcurrentUse(t *testing.T) {
	ft := newFakeTree(t)
	const workers, rounds = 8, 40
	for i := 0; i < workers; i++ {
		ft.write(t, fmt.Sprintf("proc/sys/vm/knob%d", i), "100\n")
	}
	c := ft.open(t)
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			bad := fmt.Sprintf("block.nosuch%d.scheduler", w)
			knob := fmt.Sprintf("sysctl.vm.knob%d", w)
			for r := 0; r < rounds; r++ {
				if v, err := c.Get(schedKey); err != nil || v != "none" {
					errs <- fmt.Errorf("Get = %q, %v", v, err)
				}
				_, err := c.Get(bad)
				if !errors.Is(err, syscall.ENODEV) || !strings.Contains(err.Error(), bad) {
					errs <- fmt.Errorf("worker %d: error %q does not name %s", w, err, bad)
				}
				if _, err := c.List("block."); err != nil {
					errs <- err
				}
				tx, err := c.Begin(fmt.Sprintf("w%d", w), perftune.TxOptions{})
				if err != nil {
					errs <- err
					continue
				}
				val := fmt.Sprint(r + 1)
				if _, err := tx.Set(knob, val); err != nil {
					errs <- err
				}
				if _, err := tx.Set(bad, "none"); err == nil || !strings.Contains(err.Error(), bad) {
					errs <- fmt.Errorf("worker %d: Set error %q does not name %s", w, err, bad)
				}
				if _, err := tx.Commit(); err != nil {
					errs <- err
				} else if v, err := c.Get(knob); err != nil || v != val {
					errs <- fmt.Errorf("%s = %q, %v after commit, want %s", knob, v, err, val)
				}
				if err := tx.Rollback(); err != nil {
					errs <- err
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 10 {
			t.Error(err)
		}
	}
	for i := 0; i < workers; i++ {
		if got := ft.read(t, fmt.Sprintf("proc/sys/vm/knob%d", i)); got != "100" {
			t.Errorf("knob%d = %q after all rollbacks", i, got)
		}
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
}

// A holding transaction is in force while its Tx lives and ends with it.
func TestHoldEndsWithTx(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx, err := c.Begin("held", perftune.TxOptions{Hold: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Set("sysctl.vm.swappiness", "33"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	st, err := c.Status()
	if err != nil || len(st) != 1 {
		t.Fatalf("Status() = %+v, %v", st, err)
	}
	if e := st[0]; !e.Flags.Has(perftune.ItemHeld) || e.PID != os.Getpid() {
		t.Errorf("held entry %+v (flags %v), want held by pid %d", e, e.Flags, os.Getpid())
	}
	if pid, err := c.Holder("held"); err != nil || pid != os.Getpid() {
		t.Errorf("Holder(held) = %d, %v; want %d", pid, err, os.Getpid())
	}
	if pid, err := c.Holder("nosuch"); err != nil || pid != 0 {
		t.Errorf("Holder(nosuch) = %d, %v; want 0", pid, err)
	}
	if _, err := c.Holder("../x"); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("Holder(../x) error %v, want EINVAL", err)
	}
	if got := ft.read(t, "proc/sys/vm/swappiness"); got != "33" {
		t.Fatalf("swappiness = %q while held", got)
	}
	if err := tx.Close(); err != nil {
		t.Fatal(err)
	}
	if got := ft.read(t, "proc/sys/vm/swappiness"); got != "60" {
		t.Errorf("swappiness = %q after Close of a holding Tx, want 60", got)
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals after the hold ended: %v", j)
	}
	if pid, err := c.Holder("held"); err != nil || pid != 0 {
		t.Errorf("Holder(held) after Close = %d, %v; want 0", pid, err)
	}
}

// Finalizers are the safety net: a forgotten holding Tx ends its hold.
func TestFinalizerEndsForgottenHold(t *testing.T) {
	ft := newFakeTree(t)
	func() {
		c, err := perftune.Open(perftune.WithRoot(ft.root), perftune.WithJournalDir(ft.journal))
		if err != nil {
			t.Fatal(err)
		}
		tx, err := c.Begin("forgotten", perftune.TxOptions{Hold: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Set("sysctl.vm.swappiness", "7"); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}()
	if got := ft.read(t, "proc/sys/vm/swappiness"); got != "7" {
		t.Fatalf("swappiness = %q after commit", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for ft.read(t, "proc/sys/vm/swappiness") != "60" {
		if time.Now().After(deadline) {
			t.Fatal("the finalizer did not end the forgotten hold within 10s")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals after the finalizer: %v", j)
	}
}

// A name in brackets is that one name, never a glob (issue 33 H5), and a value is
// written as given, blanks and tabs inside kept (H14).
func TestBracketedNameIsLiteralValueAsGiven(t *testing.T) {
	ft := newFakeTree(t)
	ft.write(t, "proc/sys/net/ipv4/conf/x*/rp_filter", "1\n")
	ft.write(t, "proc/sys/net/ipv4/conf/xa/rp_filter", "1\n")
	ft.write(t, "proc/sys/kernel/core_pattern", "core\n")
	c := ft.open(t)
	const key = "sysctl.net.ipv4.conf.[x*].rp_filter"
	list, err := c.List("sysctl.net.ipv4.conf.")
	if err != nil || len(list) != 2 || list[0].Key != key {
		t.Fatalf("List = %+v, %v", list, err)
	}
	tx, err := c.Begin("names", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for k, v := range map[string]string{key: "2", "sysctl.kernel.core_pattern": "a  b\tc"} {
		if n, err := tx.Set(k, v); err != nil || n != 1 {
			t.Fatalf("Set(%s) = %d, %v", k, n, err)
		}
	}
	if n, err := tx.Commit(); err != nil || n != 2 {
		t.Fatalf("Commit() = %d, %v", n, err)
	}
	if x, a := ft.read(t, "proc/sys/net/ipv4/conf/x*/rp_filter"),
		ft.read(t, "proc/sys/net/ipv4/conf/xa/rp_filter"); x != "2" || a != "1" {
		t.Errorf("x* = %s, xa = %s: want 2 and 1", x, a)
	}
	if got := ft.read(t, "proc/sys/kernel/core_pattern"); got != "a  b\tc" {
		t.Errorf("core_pattern = %q, want the value as given", got)
	}
	if n, err := c.Restore("names"); err != nil || n != 2 {
		t.Fatalf("Restore = %d, %v", n, err)
	}
	if x := ft.read(t, "proc/sys/net/ipv4/conf/x*/rp_filter"); x != "1" || len(ft.journals(t)) != 0 {
		t.Errorf("after restore x* = %s, journals %v", x, ft.journals(t))
	}
}
