// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

/*
#include <stdlib.h>
#include <perftune.h>
*/
import "C"

import "unsafe"

// Verify checks every option of the profile, as mapped on this machine now
// (its [bootloader] cmdline against /proc/cmdline), as "perftune verify
// PROFILE": the checks (options without a key, such as script=, are Skipped)
// and the number not in force.
func (p *Profile) Verify() ([]Check, int, error) {
	var out []Check
	n, err := p.call("verify", func(pp *C.struct_perftune_profile) C.int {
		var it *C.struct_perftune_check_iter
		rc := C.perftune_verify_profile(pp, &it)
		if rc >= 0 {
			out = checks(it)
		}
		return rc
	})
	return out, n, err
}

// renderChecks runs render with what as a C string unless rc, the verify
// call's result, is an error; the iterator it is freed here.
func renderChecks(rc C.int, it *C.struct_perftune_check_iter, what string,
	render func(what *C.char) C.int) C.int {
	if rc < 0 {
		return rc
	}
	defer C.perftune_check_iter_free(it)
	w := C.CString(what)
	defer C.free(unsafe.Pointer(w))
	return render(w)
}

// verifyMetrics renders the checks of it (read to its end) as metrics; the
// iterator is freed here. rc is the verify call's result.
func verifyMetrics(rc C.int, it *C.struct_perftune_check_iter, what string, text **C.char) C.int {
	return renderChecks(rc, it, what, func(w *C.char) C.int {
		return C.perftune_verify_metrics(it, w, text)
	})
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
