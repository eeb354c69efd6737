// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

import (
	"errors"
	"testing"
)

func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"0.1.0", "0.1.0", 0},
		{"0.1", "0.1.0", 0},
		{"0.1.1", "0.1.0", 1},
		{"0.0.9", "0.1.0", -1},
		{"0.10.0", "0.9.0", 1},
		{"1.0.0", "0.99.99", 1},
		{"0.2.0-rc1", "0.2.0", 0},
	} {
		if got := compareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestVersionGuard(t *testing.T) {
	if err := checkVersion(Version()); err != nil {
		t.Fatalf("the library under test fails the guard: %v", err)
	}
	if err := checkVersion("0.0.1"); !errors.Is(err, ErrVersion) {
		t.Errorf("checkVersion(0.0.1) = %v, want ErrVersion", err)
	}
	if err := checkVersion(MinLibraryVersion); err != nil {
		t.Errorf("checkVersion(MinLibraryVersion) = %v", err)
	}
}

func TestTxOptionsFlags(t *testing.T) {
	// values of PERFTUNE_TX_* in perftune.h
	for o, want := range map[TxOptions]uint{
		{}:                   0,
		{DryRun: true}:       1,
		{Hold: true}:         2,
		{AllowPartial: true}: 4,
		{Hold: true, DryRun: true, AllowPartial: true}: 7,
	} {
		if got := uint(o.flags()); got != want {
			t.Errorf("%+v.flags() = %d, want %d", o, got, want)
		}
	}
}
