// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"syscall"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

// commitKV commits key=value pairs as transaction name (replacing old, if not "").
func commitKV(t *testing.T, c *perftune.Context, name, old string, kv ...string) *perftune.Tx {
	t.Helper()
	tx, err := c.Begin(name, perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if old != "" {
		if err := tx.Replace(old); err != nil {
			t.Fatalf("Replace(%q): %v", old, err)
		}
	}
	for i := 0; i < len(kv); i += 2 {
		if _, err := tx.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return tx
}

// Shared keys go straight to the new value, a key only the old one had goes
// back, a new one is written; a restore of the new one gives the originals.
func TestReplaceWithoutAGap(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	commitKV(t, c, "old", "", "sysctl.vm.swappiness", "10", "thp.enabled", "never").Close()
	tx := commitKV(t, c, "new", "old", "sysctl.vm.swappiness", "20", "block.fake0.read_ahead_kb", "512")
	defer tx.Close()
	if got := []string{ft.read(t, "proc/sys/vm/swappiness"), ft.read(t, "sys/block/fake0/queue/read_ahead_kb")}; got[0] != "20" || got[1] != "512" {
		t.Errorf("after the replace: %v, want [20 512]", got)
	}
	if got := ft.read(t, "sys/kernel/mm/transparent_hugepage/enabled"); got != "madvise" {
		t.Errorf("thp.enabled (only in old) = %q, want it given back: madvise", got)
	}
	ch, err := tx.Changes()
	if err != nil {
		t.Fatal(err)
	}
	given := 0
	for _, c := range ch {
		if c.Flags&perftune.ItemGivenBack != 0 {
			given++
			if c.Key != "thp.enabled" || c.Old != "never" || c.New != "madvise" {
				t.Errorf("given back: %+v", c)
			}
		}
	}
	if given != 1 {
		t.Errorf("%d changes flagged ItemGivenBack, want 1", given)
	}
	st, err := c.Status()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range st {
		if e.Name != "new" {
			t.Errorf("status lists %q after the replace", e.Name)
		}
		if e.Key == "sysctl.vm.swappiness" && e.Original != "60" {
			t.Errorf("swappiness original %q, want the machine's 60, not old's 10", e.Original)
		}
	}
	if _, err := c.Restore("new"); err != nil {
		t.Fatal(err)
	}
	if got := ft.read(t, "proc/sys/vm/swappiness"); got != "60" {
		t.Errorf("after the restore: swappiness %q, want 60", got)
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
}

func TestReplaceOfNothingChangesNothing(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx, err := c.Begin("x", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	wantErrno(t, tx.Replace("nope"), syscall.ENOENT, "nope")
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals: %v", j)
	}
}
