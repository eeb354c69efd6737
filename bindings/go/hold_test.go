// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune_test

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	perftune "github.com/libperftune/perftune-go"
)

// pmqosTree is the fake tree with a PM QoS file holding "no constraint"
func pmqosTree(t *testing.T) *fakeTree {
	ft := newDiskTree(t)
	ft.write(t, "dev/cpu_dma_latency", string(binary.LittleEndian.AppendUint32(nil, 2000000000)))
	return ft
}

// the request last written to the fake PM QoS file
func pmqos(t *testing.T, ft *fakeTree) int32 {
	b, err := os.ReadFile(ft.path("dev/cpu_dma_latency"))
	if err != nil || len(b) != 4 {
		t.Fatalf("dev/cpu_dma_latency: %q %v", b, err)
	}
	return int32(binary.LittleEndian.Uint32(b))
}

// Holds nest: the inner one's originals are the outer one's values, each
// Close gives back its own, PM QoS included.
func TestHoldNestsAndCloseGivesBack(t *testing.T) {
	ft := pmqosTree(t)
	c := ft.open(t)
	outer, err := c.Hold(perftune.HoldOptions{Settings: map[string]string{"sysctl.vm.swappiness": "20"}})
	if err != nil {
		t.Fatal(err)
	}
	defer outer.Close()
	inner, err := c.Hold(perftune.HoldOptions{Settings: map[string]string{
		"sysctl.vm.swappiness": "30", "pmqos.cpu_dma_latency_us": "5"}})
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	if !strings.HasPrefix(inner.Name(), "hold-") || inner.Name() == outer.Name() {
		t.Errorf("names %q and %q: want two hold-PID-N", outer.Name(), inner.Name())
	}
	if got := ft.read(t, "proc/sys/vm/swappiness"); got != "30" || pmqos(t, ft) != 5 {
		t.Fatalf("inside both holds: swappiness %q, PM QoS %d; want 30, 5", got, pmqos(t, ft))
	}
	st, err := c.Status()
	if err != nil || len(st) != 3 {
		t.Fatalf("Status() = %+v, %v; want 3 held keys", st, err)
	}
	for _, e := range st {
		if !e.Flags.Has(perftune.ItemHeld) || e.PID != os.Getpid() {
			t.Errorf("entry %+v: want held by pid %d", e, os.Getpid())
		}
	}
	if err := inner.Close(); err != nil {
		t.Fatal(err)
	}
	if got := ft.read(t, "proc/sys/vm/swappiness"); got != "20" {
		t.Errorf("after the inner hold: swappiness %q, want the outer's 20", got)
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if got := ft.read(t, "proc/sys/vm/swappiness"); got != "60" || len(ft.journals(t)) != 0 {
		t.Errorf("after both: swappiness %q, journals %v; want 60, none", got, ft.journals(t))
	}
}

// A profile with variables, held under a given name.
func TestHoldProfile(t *testing.T) {
	profileDir(t)
	ft := pmqosTree(t)
	c := ft.open(t)
	held, err := c.Hold(perftune.HoldOptions{Name: "bench", Profile: "mydb", Vars: map[string]string{"ra": "256"}})
	if err != nil {
		t.Fatal(err)
	}
	if held.Name() != "bench" || ft.read(t, "sys/block/fake0/queue/read_ahead_kb") != "256" ||
		ft.read(t, "proc/sys/vm/swappiness") != "10" {
		t.Fatalf("held %q: read_ahead_kb %s, swappiness %s", held.Name(),
			ft.read(t, "sys/block/fake0/queue/read_ahead_kb"), ft.read(t, "proc/sys/vm/swappiness"))
	}
	if err := held.Close(); err != nil {
		t.Fatal(err)
	}
	if ft.read(t, "sys/block/fake0/queue/read_ahead_kb") != "128" || len(ft.journals(t)) != 0 {
		t.Fatal("Close did not give the profile's values back")
	}
}

// Bad input is refused before anything changes.
func TestHoldRefusesBadInput(t *testing.T) {
	profileDir(t)
	ft := pmqosTree(t)
	c := ft.open(t)
	for _, tc := range []struct {
		name string
		o    perftune.HoldOptions
		want error
	}{
		{"neither", perftune.HoldOptions{}, syscall.EINVAL},
		{"both", perftune.HoldOptions{Profile: "mydb", Settings: map[string]string{"thp.enabled": "never"}}, syscall.EINVAL},
		{"vars without a profile", perftune.HoldOptions{Settings: map[string]string{"thp.enabled": "never"},
			Vars: map[string]string{"ra": "1"}}, syscall.EINVAL},
		{"bad value", perftune.HoldOptions{Settings: map[string]string{"sysctl.vm.swappiness": "10",
			"thp.enabled": "sometimes"}}, syscall.EINVAL},
		{"no such profile", perftune.HoldOptions{Profile: "nosuch"}, syscall.ENOENT},
	} {
		held, err := c.Hold(tc.o)
		if held != nil || !errors.Is(err, tc.want) {
			t.Errorf("%s: Hold = %v, %v; want %v", tc.name, held, err, tc.want)
		}
	}
	if ft.read(t, "proc/sys/vm/swappiness") != "60" || len(ft.journals(t)) != 0 {
		t.Fatal("a refused Hold changed something")
	}
}
