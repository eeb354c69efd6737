// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

/*
#include <stdlib.h>
#include <perftune.h>
*/
import "C"

import (
	"strings"
	"unsafe"
)

// SourceFlags are the PERFTUNE_SOURCE_* bits of a [Source].
type SourceFlags uint

const (
	SourceWins       SourceFlags = C.PERFTUNE_SOURCE_WINS       // the last of its kind: the one in effect
	SourceOverridden SourceFlags = C.PERFTUNE_SOURCE_OVERRIDDEN // a later line or file of its kind sets it again
	SourcePersistent SourceFlags = C.PERFTUNE_SOURCE_PERSISTENT // puts its value back at boot or when re-applied
	SourceDiffers    SourceFlags = C.PERFTUNE_SOURCE_DIFFERS    // its value is not the value compared with
	SourceError      SourceFlags = C.PERFTUNE_SOURCE_ERROR      // a file that cannot be read: Note says why
)

// Has reports whether every bit of f2 is set in f.
func (f SourceFlags) Has(f2 SourceFlags) bool { return f&f2 == f2 }

// Source is something on the machine that sets a key ([Context.Why]).
type Source struct {
	Kind     string // "cmdline", "sysctl.d", "udev", "tuned", "daemon" or "transaction"
	Key      string // the concrete key
	Location string // "file:line", "/proc/cmdline", "tuned (pid 812)", a transaction's name
	Value    string // the value it sets; "" for a daemon or an unreadable file
	Note     string
	Flags    SourceFlags
	PID      int // a running daemon's or a transaction holder's pid, else 0
}

// Why returns every source on the machine that sets key, in the order they
// take effect: the kernel command line, sysctl.d, udev rules, TuneD's active
// profile, daemons, perftune's transactions. A source whose value is not
// compareTo ("" for the value now) has SourceDiffers.
// Errors wrap EINVAL, ENOENT, ENODEV or EOPNOTSUPP.
func (c *Context) Why(key, compareTo string) ([]Source, error) {
	var out []Source
	err := c.do("why", key, func(p *C.struct_perftune_ctx) C.int {
		k := C.CString(key)
		defer C.free(unsafe.Pointer(k))
		var cmp *C.char
		if compareTo != "" {
			cmp = C.CString(compareTo)
			defer C.free(unsafe.Pointer(cmp))
		}
		var it *C.struct_perftune_source_iter
		if rc := C.perftune_why(p, k, cmp, &it); rc < 0 {
			return rc
		}
		out = sources(it)
		return 0
	}, key, compareTo)
	return out, err
}

// WhyKeys is [Context.Why] of many keys in one call: the sources of each of
// keys in turn (Source.Key tells whose), each compared with compareTo[key]
// (absent or "": the value now). Every configuration file is read once for
// all of them, and only the kinds of source that can name one of the keys.
// Errors wrap EINVAL, ENOENT, ENODEV or EOPNOTSUPP, naming the key.
func (c *Context) WhyKeys(keys []string, compareTo map[string]string) ([]Source, error) {
	var out []Source
	args := append([]string{}, keys...)
	for _, v := range compareTo {
		args = append(args, v)
	}
	err := c.do("why", strings.Join(keys, " "), func(p *C.struct_perftune_ctx) C.int {
		ck, freeKeys := cStringArray(keys)
		defer freeKeys()
		values := make([]string, len(keys))
		for i, k := range keys {
			values[i] = compareTo[k]
		}
		cv, freeValues := cStrings(values, true) // "": NULL, the value now
		defer freeValues()
		var it *C.struct_perftune_source_iter
		if rc := C.perftune_why_keys(p, ck, cv, &it); rc < 0 {
			return rc
		}
		out = sources(it)
		return 0
	}, args...)
	return out, err
}

// sources drains and frees it.
func sources(it *C.struct_perftune_source_iter) []Source {
	var out []Source
	defer C.perftune_source_iter_free(it)
	for s := C.perftune_source_iter_next(it); s != nil; s = C.perftune_source_iter_next(it) {
		out = append(out, Source{
			Kind:     C.GoString(C.perftune_source_kind(s)),
			Key:      C.GoString(C.perftune_source_key(s)),
			Location: C.GoString(C.perftune_source_location(s)),
			Value:    C.GoString(C.perftune_source_value(s)),
			Note:     C.GoString(C.perftune_source_note(s)),
			Flags:    SourceFlags(C.perftune_source_flags(s)),
			PID:      int(C.perftune_source_pid(s)),
		})
	}
	return out
}

// CheckStatus is what verify found for one setting (PERFTUNE_CHECK_*).
type CheckStatus int

const (
	InForce     CheckStatus = C.PERFTUNE_CHECK_IN_FORCE     // reads back the expected value
	Differs     CheckStatus = C.PERFTUNE_CHECK_DIFFERS      // now another value
	Clamped     CheckStatus = C.PERFTUNE_CHECK_CLAMPED      // the kernel holds less than asked
	NotHere     CheckStatus = C.PERFTUNE_CHECK_NOT_HERE     // the machine lacks it
	NeedsReboot CheckStatus = C.PERFTUNE_CHECK_NEEDS_REBOOT // a boot parameter not on /proc/cmdline
	Skipped     CheckStatus = C.PERFTUNE_CHECK_SKIPPED      // not applied by policy
)

// String returns "in force", "differs", "clamped", "not here", "needs reboot" or "skipped".
func (s CheckStatus) String() string {
	return C.GoString(C.perftune_check_status_name(C.int(s)))
}

// Check is one setting checked by [Context.Verify] or [Context.VerifyTransaction].
type Check struct {
	Key      string // the concrete key
	Status   CheckStatus
	Expected string
	Current  string // "" when not here or skipped
	Reason   string // why not in force, not here or skipped
	Origin   string // "transaction NAME", or ""
}

func checks(it *C.struct_perftune_check_iter) []Check {
	var out []Check
	defer C.perftune_check_iter_free(it)
	for c := C.perftune_check_iter_next(it); c != nil; c = C.perftune_check_iter_next(it) {
		out = append(out, Check{
			Key:      C.GoString(C.perftune_check_key(c)),
			Status:   CheckStatus(C.perftune_check_status(c)),
			Expected: C.GoString(C.perftune_check_expected(c)),
			Current:  C.GoString(C.perftune_check_current(c)),
			Reason:   C.GoString(C.perftune_check_reason(c)),
			Origin:   C.GoString(C.perftune_check_origin(c)),
		})
	}
	return out
}

// Verify checks "KEY=VALUE" settings against the machine, values compared as
// the kernel shows them (aliases, CPU lists, blanks). It returns one Check
// per concrete key and the number of settings not in force. Errors wrap
// EINVAL (a malformed setting, a value the key never takes).
func (c *Context) Verify(settings ...string) ([]Check, int, error) {
	var out []Check
	n, err := c.doCount("verify", strings.Join(settings, " "), func(p *C.struct_perftune_ctx) C.int {
		arr := make([]*C.char, len(settings)+1)
		for i, s := range settings {
			arr[i] = C.CString(s)
			defer C.free(unsafe.Pointer(arr[i]))
		}
		cv := (**C.char)(C.malloc(C.size_t(len(arr)) * C.size_t(unsafe.Sizeof(arr[0]))))
		defer C.free(unsafe.Pointer(cv))
		copy(unsafe.Slice(cv, len(arr)), arr)
		var it *C.struct_perftune_check_iter
		rc := C.perftune_verify(p, cv, &it)
		if rc >= 0 {
			out = checks(it)
		}
		return rc
	}, settings...)
	return out, n, err
}

// VerifyTransaction checks the values journaled transaction name wrote. It
// returns the checks and the number not in force; errors wrap ENOENT (no
// such transaction).
func (c *Context) VerifyTransaction(name string) ([]Check, int, error) {
	var out []Check
	n, err := c.doCount("verify", name, func(p *C.struct_perftune_ctx) C.int {
		cn := C.CString(name)
		defer C.free(unsafe.Pointer(cn))
		var it *C.struct_perftune_check_iter
		rc := C.perftune_verify_transaction(p, cn, &it)
		if rc >= 0 {
			out = checks(it)
		}
		return rc
	}, name)
	return out, n, err
}
