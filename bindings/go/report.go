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

// ReportFlags choose the form of a report: what the perftune program prints,
// byte for byte, its text unless ReportJSON.
type ReportFlags uint

// Report flags (the library's PERFTUNE_REPORT_*).
const (
	// ReportJSON is the JSON of the command's --json (perftune(8)).
	ReportJSON ReportFlags = C.PERFTUNE_REPORT_JSON
	// ReportWritable leaves the read-only tunables out, as list --writable:
	// [Context.ListReport] only.
	ReportWritable ReportFlags = C.PERFTUNE_REPORT_WRITABLE
)

// report runs render, which leaves a malloc'd string in *text when it
// succeeds: the string, and what render returned (verify: the number not in
// force).
func (c *Context) report(op, key string,
	render func(p *C.struct_perftune_ctx, text **C.char) C.int, args ...string) (string, int, error) {
	var text *C.char
	n, err := c.doCount(op, key, func(p *C.struct_perftune_ctx) C.int {
		return render(p, &text)
	}, args...)
	if err != nil {
		return "", 0, err
	}
	return takeText(text), n, nil
}

// ListReport is [Context.List] of prefix ("" for all) as "perftune list
// [--json] [--writable] [PREFIX]" prints it: "KEY = VALUE" lines, read-only
// tunables marked (left out with ReportWritable), or a JSON array.
func (c *Context) ListReport(prefix string, flags ReportFlags) (string, error) {
	s, _, err := c.report("list", prefix, func(p *C.struct_perftune_ctx, text **C.char) C.int {
		cp := C.CString(prefix)
		defer C.free(unsafe.Pointer(cp))
		return C.perftune_list_report(p, cp, C.uint(flags), text)
	}, prefix)
	return s, err
}

// DescribeReport is [Context.Describe] of key as "perftune describe [--json]
// KEY" prints it.
func (c *Context) DescribeReport(key string, flags ReportFlags) (string, error) {
	s, _, err := c.report("describe", key, func(p *C.struct_perftune_ctx, text **C.char) C.int {
		k := C.CString(key)
		defer C.free(unsafe.Pointer(k))
		var d *C.struct_perftune_desc
		if rc := C.perftune_describe(p, k, &d); rc < 0 {
			return rc
		}
		defer C.perftune_desc_free(d)
		return C.perftune_desc_report(d, C.uint(flags), text)
	}, key)
	return s, err
}

// ProfilesReport is [Context.Profiles] as "perftune list-profiles [--json]"
// prints it.
func (c *Context) ProfilesReport(flags ReportFlags) (string, error) {
	s, _, err := c.report("list profiles", "", func(p *C.struct_perftune_ctx, text **C.char) C.int {
		return C.perftune_profile_list_report(p, C.uint(flags), text)
	})
	return s, err
}

// WhyReport is key's value now and [Context.Why] of it as "perftune why
// [--json] KEY" prints them: each source with its marks, and what a reboot
// brings back.
func (c *Context) WhyReport(key string, flags ReportFlags) (string, error) {
	s, _, err := c.report("why", key, func(p *C.struct_perftune_ctx, text **C.char) C.int {
		k := C.CString(key)
		defer C.free(unsafe.Pointer(k))
		return C.perftune_why_report(p, k, C.uint(flags), text)
	}, key)
	return s, err
}

// verifyReport renders the checks of it (read to its end) as verify prints
// them; the iterator is freed here. rc is the verify call's result.
func verifyReport(rc C.int, it *C.struct_perftune_check_iter, what string, flags ReportFlags,
	text **C.char) C.int {
	return renderChecks(rc, it, what, func(w *C.char) C.int {
		return C.perftune_verify_report(it, w, C.uint(flags), text)
	})
}

// VerifyReport verifies the journaled transaction name, else the profile
// name (a name or a path, loaded with vars), as "perftune verify [--json]
// NAME" looks it up, and returns what that prints and the number of settings
// not in force. Errors wrap ENOENT (neither), EINVAL.
func (c *Context) VerifyReport(name string, vars map[string]string, flags ReportFlags) (string, int, error) {
	pairs, err := varPairs("verify", name, vars)
	if err != nil {
		return "", 0, err
	}
	return c.report("verify", name, func(p *C.struct_perftune_ctx, text **C.char) C.int {
		cn := C.CString(name)
		defer C.free(unsafe.Pointer(cn))
		carr, free := cStringArray(pairs)
		defer free()
		var it *C.struct_perftune_check_iter
		rc := C.perftune_verify_named(p, cn, carr, 0, &it)
		return verifyReport(rc, it, name, flags, text)
	}, append([]string{name}, pairs...)...)
}

// VerifySettingsReport is [Context.Verify] of settings ("KEY=VALUE") as
// "perftune verify [--json] KEY=VALUE..." prints it (verified "settings"),
// and the number not in force.
func (c *Context) VerifySettingsReport(flags ReportFlags, settings ...string) (string, int, error) {
	return c.report("verify", strings.Join(settings, " "), func(p *C.struct_perftune_ctx, text **C.char) C.int {
		arr, free := cStringArray(settings)
		defer free()
		var it *C.struct_perftune_check_iter
		rc := C.perftune_verify(p, arr, &it)
		return verifyReport(rc, it, "settings", flags, text)
	}, settings...)
}

// VerifyReport is [Profile.Verify] as "perftune verify [--json] PROFILE"
// prints it, and the number not in force.
func (p *Profile) VerifyReport(flags ReportFlags) (string, int, error) {
	var text *C.char
	n, err := p.call("verify", func(pp *C.struct_perftune_profile) C.int {
		var it *C.struct_perftune_check_iter
		rc := C.perftune_verify_profile(pp, &it)
		return verifyReport(rc, it, p.Name, flags, &text)
	})
	if err != nil {
		return "", 0, err
	}
	return takeText(text), n, nil
}
