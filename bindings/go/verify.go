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

// SourceFlags are the facts [Context.Why] reports per source.
type SourceFlags uint

// Source flags; see [SourceFlags].
const (
	SourceWins       SourceFlags = C.PERFTUNE_SOURCE_WINS       // the last of its kind: the one in effect
	SourceOverridden SourceFlags = C.PERFTUNE_SOURCE_OVERRIDDEN // a later line or file of its kind sets it again
	SourcePersistent SourceFlags = C.PERFTUNE_SOURCE_PERSISTENT // puts its value back at boot or when re-applied
	SourceDiffers    SourceFlags = C.PERFTUNE_SOURCE_DIFFERS    // its value is not the value compared with
	SourceError      SourceFlags = C.PERFTUNE_SOURCE_ERROR      // a file that cannot be read: Note says why
)

// Has reports whether all of the flags in f2 are set in f.
func (f SourceFlags) Has(f2 SourceFlags) bool { return f&f2 == f2 }

// Source is one place on the machine that claims a key ([Context.Why]).
type Source struct {
	Kind     string      // "cmdline", "sysctl.d", "udev", "tuned", "daemon" or "transaction"
	Key      string      // the concrete key it claims
	Location string      // "file:line", "/proc/cmdline", "tuned (pid 812)", a transaction's name
	Value    string      // the value it sets as it writes it; "" for a daemon or an error
	HasValue bool        // whether Value is set
	Note     string      // what it is and when it acts, or why its file cannot be read
	Flags    SourceFlags // SourceWins, SourceOverridden, SourcePersistent, SourceDiffers, SourceError
	PID      int         // a running daemon's or a transaction's holder pid, else 0
}

// Why returns every source that claims key (each tunable it names), in the
// order they take effect, as "perftune why KEY": the kernel command line,
// sysctl.d, udev rules, TuneD's active profile, daemons that set it while
// they run, perftune's own transactions. A source whose value is not value
// ("" : the value now) has SourceDiffers. A configuration file that cannot
// be read is a Source with SourceError, never an error. Errors wrap EINVAL,
// ENOENT, ENODEV or EOPNOTSUPP.
func (c *Context) Why(key, value string) ([]Source, error) {
	var out []Source
	err := c.do("why", key, func(p *C.struct_perftune_ctx) C.int {
		k := C.CString(key)
		defer C.free(unsafe.Pointer(k))
		var v *C.char
		if value != "" {
			v = C.CString(value)
			defer C.free(unsafe.Pointer(v))
		}
		var it *C.struct_perftune_source_iter
		if rc := C.perftune_why(p, k, v, &it); rc < 0 {
			return rc
		}
		defer C.perftune_source_iter_free(it)
		for s := C.perftune_source_iter_next(it); s != nil; s = C.perftune_source_iter_next(it) {
			val := C.perftune_source_value(s)
			out = append(out, Source{
				Kind:     C.GoString(C.perftune_source_kind(s)),
				Key:      C.GoString(C.perftune_source_key(s)),
				Location: C.GoString(C.perftune_source_location(s)),
				Value:    C.GoString(val),
				HasValue: val != nil,
				Note:     C.GoString(C.perftune_source_note(s)),
				Flags:    SourceFlags(C.perftune_source_flags(s)),
				PID:      int(C.perftune_source_pid(s)),
			})
		}
		return 0
	}, key, value)
	return out, err
}

// CheckStatus is what [Context.Verify] found for one setting.
type CheckStatus int

// Check statuses; see [CheckStatus].
const (
	CheckInForce     CheckStatus = C.PERFTUNE_CHECK_IN_FORCE     // reads back the expected value
	CheckDiffers     CheckStatus = C.PERFTUNE_CHECK_DIFFERS      // now another value
	CheckClamped     CheckStatus = C.PERFTUNE_CHECK_CLAMPED      // the kernel holds less than asked (huge pages)
	CheckNotHere     CheckStatus = C.PERFTUNE_CHECK_NOT_HERE     // the machine lacks it: Reason says why
	CheckNeedsReboot CheckStatus = C.PERFTUNE_CHECK_NEEDS_REBOOT // a boot parameter not on /proc/cmdline
	CheckSkipped     CheckStatus = C.PERFTUNE_CHECK_SKIPPED      // not applied by policy (scripts, programs)
)

// String returns "in force", "differs", "clamped", "not here", "needs
// reboot" or "skipped", as "perftune verify" prints it.
func (s CheckStatus) String() string {
	return C.GoString(C.perftune_check_status_name(C.int(s)))
}

// Check is one setting checked by [Context.Verify], [Context.VerifyTransaction]
// or [Profile.Verify].
type Check struct {
	Key        string      // the concrete key, or the profile's option when it maps to none
	Expected   string      // the value expected
	Current    string      // the value now; "" when not here or skipped
	HasCurrent bool        // whether Current is set
	Reason     string      // why not in force, not here or skipped; or ""
	Origin     string      // where the expectation comes from: "file:line", a transaction
	Status     CheckStatus // CheckInForce, CheckDiffers, ...
}

// InForce reports whether the setting reads back its expected value.
func (c Check) InForce() bool { return c.Status == CheckInForce }

func readChecks(it *C.struct_perftune_check_iter) []Check {
	var out []Check
	for c := C.perftune_check_iter_next(it); c != nil; c = C.perftune_check_iter_next(it) {
		cur := C.perftune_check_current(c)
		out = append(out, Check{
			Key:        C.GoString(C.perftune_check_key(c)),
			Expected:   C.GoString(C.perftune_check_expected(c)),
			Current:    C.GoString(cur),
			HasCurrent: cur != nil,
			Reason:     C.GoString(C.perftune_check_reason(c)),
			Origin:     C.GoString(C.perftune_check_origin(c)),
			Status:     CheckStatus(C.perftune_check_status(c)),
		})
	}
	return out
}

// Verify checks settings ("KEY=VALUE") against the machine, as "perftune
// verify KEY=VALUE...". Values compare as the kernel shows them (the
// bracketed choice, aliases, CPU lists, blanks in vectors). It returns every
// check and the number not in force (differs, clamped, needs reboot).
// Errors wrap EINVAL (a malformed setting, a value the key never takes).
func (c *Context) Verify(settings ...string) ([]Check, int, error) {
	var out []Check
	n, err := c.doCount("verify", strings.Join(settings, " "), func(p *C.struct_perftune_ctx) C.int {
		arr, free := cStringArray(settings)
		defer free()
		var it *C.struct_perftune_check_iter
		rc := C.perftune_verify(p, arr, &it)
		if rc >= 0 {
			defer C.perftune_check_iter_free(it)
			out = readChecks(it)
		}
		return rc
	}, settings...)
	return out, n, err
}

// VerifyTransaction checks the values journaled transaction name wrote, as
// "perftune verify NAME". Errors wrap ENOENT (no such transaction).
func (c *Context) VerifyTransaction(name string) ([]Check, int, error) {
	var out []Check
	n, err := c.doCount("verify", name, func(p *C.struct_perftune_ctx) C.int {
		cn := C.CString(name)
		defer C.free(unsafe.Pointer(cn))
		var it *C.struct_perftune_check_iter
		rc := C.perftune_verify_transaction(p, cn, &it)
		if rc >= 0 {
			defer C.perftune_check_iter_free(it)
			out = readChecks(it)
		}
		return rc
	}, name)
	return out, n, err
}

// Verify checks every option of the profile, as mapped on this machine now
// (its [bootloader] cmdline against /proc/cmdline), as "perftune verify
// PROFILE".
func (p *Profile) Verify() ([]Check, int, error) {
	var out []Check
	n, err := p.call("verify", func(pp *C.struct_perftune_profile) C.int {
		var it *C.struct_perftune_check_iter
		rc := C.perftune_verify_profile(pp, &it)
		if rc >= 0 {
			defer C.perftune_check_iter_free(it)
			out = readChecks(it)
		}
		return rc
	})
	return out, n, err
}

// verifyMetrics renders the checks of it (read to its end) as metrics; the
// iterator is freed here. rc is the verify call's result.
func verifyMetrics(rc C.int, it *C.struct_perftune_check_iter, what string, text **C.char) C.int {
	if rc < 0 {
		return rc
	}
	defer C.perftune_check_iter_free(it)
	w := C.CString(what)
	defer C.free(unsafe.Pointer(w))
	return C.perftune_verify_metrics(it, w, text)
}

func takeText(text *C.char) string {
	defer C.free(unsafe.Pointer(text))
	return C.GoString(text)
}

// VerifyMetrics is [Context.VerifyTransaction] of name, or with settings
// ("KEY=VALUE") [Context.Verify] of them, as Prometheus metrics for
// node_exporter's textfile collector, as "perftune verify --format
// prometheus": perftune_verify_in_force{verified, key, origin},
// perftune_verify_checks{verified, state}, perftune_verify_not_in_force
// {verified}, where verified is name. Write it with [WriteFileAtomic].
func (c *Context) VerifyMetrics(name string, settings ...string) (string, error) {
	var text *C.char
	err := c.do("verify", name, func(p *C.struct_perftune_ctx) C.int {
		var it *C.struct_perftune_check_iter
		var rc C.int
		if len(settings) == 0 {
			cn := C.CString(name)
			defer C.free(unsafe.Pointer(cn))
			rc = C.perftune_verify_transaction(p, cn, &it)
		} else {
			arr, free := cStringArray(settings)
			defer free()
			rc = C.perftune_verify(p, arr, &it)
		}
		return verifyMetrics(rc, it, name, &text)
	}, append([]string{name}, settings...)...)
	if err != nil {
		return "", err
	}
	return takeText(text), nil
}

// VerifyMetrics is [Profile.Verify] as Prometheus metrics, labelled
// verified="<profile name>", as "perftune verify --format prometheus PROFILE".
func (p *Profile) VerifyMetrics() (string, error) {
	var text *C.char
	_, err := p.call("verify", func(pp *C.struct_perftune_profile) C.int {
		var it *C.struct_perftune_check_iter
		rc := C.perftune_verify_profile(pp, &it)
		return verifyMetrics(rc, it, p.Name, &text)
	})
	if err != nil {
		return "", err
	}
	return takeText(text), nil
}
