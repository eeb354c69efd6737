// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	perftune "github.com/libperftune/perftune-go"
)

// A holding Tx follows disks added while it holds (Watch, Dispatch through
// Follow in a goroutine): the one the glob matches is tuned and given back,
// the one that refuses is listed.
func TestHeldTxFollowsDisksAdded(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx, err := c.Begin("hotplug", perftune.TxOptions{Hold: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Set("block.fake*.scheduler", "kyber"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	fd, err := tx.Watch()
	if err != nil || fd < 0 {
		t.Fatalf("Watch: %d, %v", fd, err)
	}
	ft.write(t, "sys/block/fake1/queue/scheduler", "[none] mq-deadline kyber bfq\n")
	ft.write(t, "sys/block/fake2/queue/scheduler", "[none] mq-deadline\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tx.Follow(ctx) }()
	fifo, err := os.OpenFile(ft.path("run/perftune-uevents"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fifo.WriteString("add block fake1\nadd block fake2\n"); err != nil {
		t.Fatal(err)
	}
	fifo.Close()
	// both devices handled: one tuned, one listed as refused (a bound, not a measurement)
	var st []perftune.StatusEntry
	for i := 0; i < 200; i++ {
		if st, err = c.Status(); err != nil {
			t.Fatal(err)
		}
		if len(st) == 3 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Follow: %v", err)
	}
	got := map[string]perftune.StatusEntry{}
	for _, e := range st {
		got[e.Key] = e
	}
	if e := got["block.fake1.scheduler"]; !e.Flags.Has(perftune.ItemHotplug) || e.Current != "kyber" {
		t.Errorf("fake1: %+v", e)
	}
	if e := got["block.fake2"]; !e.Flags.Has(perftune.ItemRefused) || !strings.Contains(e.Note, "not offered") {
		t.Errorf("fake2: %+v", e)
	}
	if got["block.fake0.scheduler"].Flags.Has(perftune.ItemHotplug) {
		t.Errorf("fake0 was the commit's")
	}
	if err := tx.Close(); err != nil {
		t.Fatal(err)
	}
	if v := ft.read(t, "sys/block/fake1/queue/scheduler"); v != "none" {
		t.Errorf("fake1 after the hold: %q", v)
	}
	if j := ft.journals(t); len(j) != 0 {
		t.Errorf("journals left: %v", j)
	}
}

func TestWatchNeedsAHoldingTx(t *testing.T) {
	ft := newFakeTree(t)
	c := ft.open(t)
	tx, err := c.Begin("nohold", perftune.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Set("sysctl.vm.swappiness", "5"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Watch(); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("Watch of a Tx that does not hold: %v", err)
	}
}
