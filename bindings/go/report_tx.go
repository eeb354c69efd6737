// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

/*
#include <stdlib.h>
#include <perftune.h>
*/
import "C"

import (
	"unsafe"
)

func reportFlags(asJSON bool) C.uint {
	if asJSON {
		return C.PERFTUNE_REPORT_JSON
	}
	return 0
}

// takeString returns the library's malloc'd s as a Go string ("" for NULL)
// and frees it.
func takeString(s *C.char) string {
	if s == nil {
		return ""
	}
	defer C.free(unsafe.Pointer(s))
	return C.GoString(s)
}

// Report returns what "perftune set" prints of the transaction after its
// Commit (with p, the profile applied to it: "perftune apply"): text has a
// line "key: old -> new" per key written (a DryRun: per key staged), with a
// profile a line per option skipped or kept; warnings a line "warning: key:
// kind location puts back value (note)" per key that a persistent source will
// put back ([Tx.Conflicts]; perftune prints them on stderr), "" if none.
// asJSON: text is the object of "perftune set --json" ("apply --json"), the
// warnings a member of it and warnings "". p may be nil. After Close or
// Rollback it returns ErrClosed.
func (t *Tx) Report(p *Profile, asJSON bool) (text, warnings string, err error) {
	var ct, cw *C.char
	report := func(pp *C.struct_perftune_profile) C.int {
		return C.perftune_tx_report(t.p, pp, reportFlags(asJSON), &ct, &cw)
	}
	if p == nil {
		_, err = t.call("report", t.name, func(*C.struct_perftune_tx) C.int { return report(nil) })
	} else {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.p == nil {
			return "", "", ErrClosed
		}
		_, err = p.call("report", report)
	}
	text, warnings = takeString(ct), takeString(cw)
	if err != nil {
		return "", "", err
	}
	return text, warnings, nil
}

// StatusReport returns [Context.Status] as "perftune status" prints it: a
// line per transaction (applied, held, ORPHANED, incomplete; its holder's
// pid), under it a line per key "key: original -> written, now current" with
// DRIFT, GONE, MOVED, HOTPLUG or REFUSED; "no transactions" if none. asJSON:
// the array of "perftune status --json".
func (c *Context) StatusReport(asJSON bool) (string, error) {
	var text *C.char
	err := c.do("status report", "", func(p *C.struct_perftune_ctx) C.int {
		return C.perftune_status_report(p, reportFlags(asJSON), &text)
	})
	s := takeString(text)
	if err != nil {
		return "", err
	}
	return s, nil
}
