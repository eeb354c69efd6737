// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

/*
#include <stdlib.h>
#include <perftune.h>
*/
import "C"

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// Profile is a profile in TuneD's tuned.conf format, read and mapped onto
// this machine's keys ([Context.LoadProfile]). It holds C memory: Close it
// when done (it is an [io.Closer]; a finalizer closes a forgotten one).
// Nothing a profile names is ever executed: options without a key
// (script=, the boot loader) are items with Skipped set and a SkipReason.
type Profile struct {
	mu   sync.Mutex
	cctx *C.struct_perftune_ctx // own reference: messages of the profile's calls
	p    *C.struct_perftune_profile
	// Name is the profile's name (its directory's name), Path the tuned.conf
	// that was loaded, Summary its [main] summary= ("" if none).
	Name, Path, Summary string
}

// ItemSkipped flags a profile option not applied on this machine
// ([ProfileItem].SkipReason says why).
const ItemSkipped ItemFlags = C.PERFTUNE_PROFILE_ITEM_SKIPPED

// ProfileItem is one option of a profile and what it maps to ([Profile.Items]).
type ProfileItem struct {
	Option         string    // "[section] name" ("[disk] readahead")
	ValueAsWritten string    // the value as the profile writes it
	Key            string    // the key it maps to; "" for a skipped option without one
	Value          string    // the value as validated ("deadline" reads "mq-deadline")
	Location       string    // "file:line"
	Skipped        bool      // not applied here: SkipReason says why
	SkipReason     string    // why a skipped item is not applied
	Unchanged      bool      // a ">N"/"<N" condition the machine already meets
	Note           string    // a remark on an applied item (alias, resolution)
	Flags          ItemFlags // ItemSkipped, ItemUnchanged
}

// LoadProfile reads a profile and maps it onto the keys of the machine below
// the context's root. nameOrPath is a name, searched in
// $PERFTUNE_PROFILE_PATH or the default directories (/etc/perftune/profiles,
// the shipped profiles, /etc/tuned, /usr/lib/tuned), or a path (with a '/')
// to a tuned.conf or its directory. vars override the profile's [variables].
// Errors wrap ENOENT (no such profile or include), EINVAL (syntax error, bad
// value; the message names file, line, section and option), ELOOP (include
// cycle) or EFBIG.
func (c *Context) LoadProfile(nameOrPath string, vars map[string]string) (*Profile, error) {
	pairs, err := varPairs("load profile", nameOrPath, vars)
	if err != nil {
		return nil, err
	}
	args := append([]string{nameOrPath}, pairs...)
	var pp *C.struct_perftune_profile
	var cctx *C.struct_perftune_ctx
	err = c.do("load profile", nameOrPath, func(p *C.struct_perftune_ctx) C.int {
		spec := C.CString(nameOrPath)
		defer C.free(unsafe.Pointer(spec))
		carr, free := cStringArray(pairs)
		defer free()
		rc := C.perftune_profile_load(p, spec, carr, &pp)
		if rc >= 0 {
			cctx = C.perftune_ctx_ref(p)
		}
		return rc
	}, args...)
	if err != nil {
		return nil, err
	}
	pr := &Profile{cctx: cctx, p: pp,
		Name:    C.GoString(C.perftune_profile_name(pp)),
		Path:    C.GoString(C.perftune_profile_path(pp)),
		Summary: C.GoString(C.perftune_profile_summary(pp))}
	runtime.SetFinalizer(pr, (*Profile).Close)
	return pr, nil
}

// varPairs is a profile's vars as "NAME=VALUE" strings, sorted by name (the
// same call every time); a name empty or with a '=' is an error of op on key.
func varPairs(op, key string, vars map[string]string) ([]string, error) {
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	pairs := make([]string, 0, len(vars))
	for _, k := range names {
		if k == "" || containsByte(k, '=') {
			return nil, &Error{Op: op, Key: key, Errno: syscall.EINVAL,
				Msg: fmt.Sprintf("variable name %q: empty or contains '='", k)}
		}
		pairs = append(pairs, k+"="+vars[k])
	}
	return pairs, nil
}

// cStringArray copies ss into a NULL-terminated C array of C strings; free
// releases all of it.
func cStringArray(ss []string) (arr **C.char, free func()) {
	return cStrings(ss, false)
}

// cStrings is cStringArray, with each "" a NULL where emptyIsNull.
func cStrings(ss []string, emptyIsNull bool) (arr **C.char, free func()) {
	cs := make([]*C.char, len(ss)+1)
	for i, s := range ss {
		if s != "" || !emptyIsNull {
			cs[i] = C.CString(s)
		}
	}
	arr = (**C.char)(C.malloc(C.size_t(len(cs)) * C.size_t(unsafe.Sizeof(cs[0]))))
	copy(unsafe.Slice(arr, len(cs)), cs)
	return arr, func() {
		for _, c := range cs {
			C.free(unsafe.Pointer(c))
		}
		C.free(unsafe.Pointer(arr))
	}
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

// Close frees the profile. It is idempotent and always returns nil.
func (p *Profile) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.p != nil {
		C.perftune_profile_free(p.p)
		C.perftune_ctx_unref(p.cctx)
		p.p, p.cctx = nil, nil
		runtime.SetFinalizer(p, nil)
	}
	return nil
}

func (p *Profile) call(op string, fn func(*C.struct_perftune_profile) C.int) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.p == nil {
		return 0, ErrClosed
	}
	return callC(op, p.Name, p.cctx, func() C.int { return fn(p.p) })
}

// Items returns what the profile maps to, in TuneD's order, as of the last
// [Tx.ApplyProfile] (or the load): applied items with their key and value,
// skipped ones with the reason.
func (p *Profile) Items() ([]ProfileItem, error) {
	var out []ProfileItem
	_, err := p.call("profile items", func(pp *C.struct_perftune_profile) C.int {
		var it *C.struct_perftune_profile_item_iter
		if rc := C.perftune_profile_items(pp, &it); rc < 0 {
			return rc
		}
		defer C.perftune_profile_item_iter_free(it)
		for i := C.perftune_profile_item_iter_next(it); i != nil; i = C.perftune_profile_item_iter_next(it) {
			fl := ItemFlags(C.perftune_profile_item_flags(i))
			out = append(out, ProfileItem{
				Option:         C.GoString(C.perftune_profile_item_option(i)),
				ValueAsWritten: C.GoString(C.perftune_profile_item_value_as_written(i)),
				Key:            C.GoString(C.perftune_profile_item_key(i)),
				Value:          C.GoString(C.perftune_profile_item_value(i)),
				Location:       C.GoString(C.perftune_profile_item_location(i)),
				Skipped:        fl.Has(ItemSkipped),
				SkipReason:     C.GoString(C.perftune_profile_item_skip_reason(i)),
				Unchanged:      fl.Has(ItemUnchanged),
				Note:           C.GoString(C.perftune_profile_item_note(i)),
				Flags:          fl,
			})
		}
		return 0
	})
	return out, err
}

// Export returns the keys the profile maps to in format f (">N" conditions
// the machine already meets are left out; options skipped here become
// "# skipped here: ..." comments). Errors wrap EINVAL (bad format).
func (p *Profile) Export(f ExportFormat) (string, error) {
	var text *C.char
	_, err := p.call("export", func(pp *C.struct_perftune_profile) C.int {
		return C.perftune_export_profile(pp, C.enum_perftune_export_format(f), &text)
	})
	if err != nil {
		return "", err
	}
	defer C.free(unsafe.Pointer(text))
	return C.GoString(text), nil
}

// ApplyProfile maps p again against the machine as it is now and stages
// every mapped option into t (nothing is written before [Tx.Commit]). All
// options are validated before any is staged. strict makes a skipped option
// an error wrapping EOPNOTSUPP. In a holding Tx, force_latency maps to the
// PM QoS request (held as long as the Tx). It returns the number of
// tunables staged; errors are those of [Tx.Set], naming the option.
func (t *Tx) ApplyProfile(p *Profile, strict bool) (int, error) {
	var flags C.uint
	if strict {
		flags |= C.PERFTUNE_PROFILE_STRICT
	}
	if t.hold {
		flags |= C.PERFTUNE_PROFILE_HOLD
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.p == nil {
		return 0, ErrClosed
	}
	// the message is left in the thread's last error by the profile's context
	return p.call("apply profile", func(pp *C.struct_perftune_profile) C.int {
		return C.perftune_profile_stage(pp, t.p, flags)
	})
}

// ApplyOptions are the options of [Context.Apply], those of "perftune apply".
type ApplyOptions struct {
	Name         string            // transaction name; "" is the profile's name
	Vars         map[string]string // override the profile's [variables]
	Hold         bool              // see TxOptions.Hold: the returned Tx holds
	DryRun       bool              // validate and report, write nothing
	AllowPartial bool              // see TxOptions.AllowPartial
	Strict       bool              // a skipped option is an error (EOPNOTSUPP)
	Replace      string            // take the place of this transaction without a gap (Tx.Replace); Name defaults to it
}

// Applied is the result of [Context.Apply].
type Applied struct {
	// Tx is the committed transaction. Close it when done: a holding one
	// ends (rolls back) with it, any other stays in force until
	// [Context.Restore] of its name; Tx.Rollback gives everything back.
	Tx      *Tx
	Profile string        // the profile's name
	Path    string        // the tuned.conf that was loaded
	Written int           // tunables written (with DryRun: that would be)
	Changes []Change      // every staged key, old -> new (ItemUnchanged: no write)
	Skipped []ProfileItem // the options not applied here, with the reason
}

// Apply does what "perftune apply" does: load a profile (by name or path,
// with variables), stage it into a transaction and commit it all-or-nothing.
// With DryRun nothing is written and Changes tells what would be. On error
// nothing stays changed and no Tx is returned.
func (c *Context) Apply(nameOrPath string, o ApplyOptions) (*Applied, error) {
	p, err := c.LoadProfile(nameOrPath, o.Vars)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	name := o.Name
	if name == "" {
		name = o.Replace
	}
	if name == "" {
		name = p.Name
	}
	tx, err := c.Begin(name, TxOptions{Hold: o.Hold, DryRun: o.DryRun, AllowPartial: o.AllowPartial})
	if err != nil {
		return nil, err
	}
	a := &Applied{Tx: tx, Profile: p.Name, Path: p.Path}
	if o.Replace != "" {
		err = tx.Replace(o.Replace)
	}
	if err != nil {
		tx.Close()
		return nil, err
	}
	if _, err = tx.ApplyProfile(p, o.Strict); err == nil {
		a.Written, err = tx.Commit()
	}
	if err == nil {
		a.Changes, err = tx.Changes()
	}
	var items []ProfileItem
	if err == nil {
		items, err = p.Items()
	}
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	for _, it := range items {
		if it.Skipped {
			a.Skipped = append(a.Skipped, it)
		}
	}
	return a, nil
}

// ProfileInfo is one profile on the search path ([Context.Profiles]).
type ProfileInfo struct {
	Name    string // the profile's name
	Path    string // its tuned.conf
	Summary string // its [main] summary=, or ""
	Error   string // why it cannot be read, or "" if it can
	// Variables are the ${name} variables it uses (its includes' too).
	Variables []string
	// UnsetVariables are those neither the profile nor its variables
	// file defines: the options using them are skipped unless vars set them.
	UnsetVariables []string
}

// names splits the library's space-separated names; nil for none.
func names(s *C.char) []string {
	if s == nil {
		return nil
	}
	return strings.Fields(C.GoString(s))
}

// Profiles lists the profiles on the search path, sorted by name (a name
// found in several directories: the first one), as "perftune list-profiles".
func (c *Context) Profiles() ([]ProfileInfo, error) {
	var out []ProfileInfo
	err := c.do("list profiles", "", func(p *C.struct_perftune_ctx) C.int {
		var it *C.struct_perftune_profile_entry_iter
		if rc := C.perftune_profile_list(p, &it); rc < 0 {
			return rc
		}
		defer C.perftune_profile_entry_iter_free(it)
		for e := C.perftune_profile_entry_iter_next(it); e != nil; e = C.perftune_profile_entry_iter_next(it) {
			out = append(out, ProfileInfo{
				Name:           C.GoString(C.perftune_profile_entry_name(e)),
				Path:           C.GoString(C.perftune_profile_entry_path(e)),
				Summary:        C.GoString(C.perftune_profile_entry_summary(e)),
				Error:          C.GoString(C.perftune_profile_entry_error(e)),
				Variables:      names(C.perftune_profile_entry_variables(e)),
				UnsetVariables: names(C.perftune_profile_entry_unset_variables(e)),
			})
		}
		return 0
	})
	return out, err
}

// ExportFormat is a format of [Context.Export] and [Profile.Export].
type ExportFormat int

// Export formats: the system's own ways to persist values.
const (
	ExportSysctl  ExportFormat = C.PERFTUNE_EXPORT_SYSCTL  // a sysctl.d(5) file
	ExportUdev    ExportFormat = C.PERFTUNE_EXPORT_UDEV    // udev rules for block queue attributes
	ExportCmdline ExportFormat = C.PERFTUNE_EXPORT_CMDLINE // a kernel command line fragment
	ExportTuned   ExportFormat = C.PERFTUNE_EXPORT_TUNED   // a TuneD profile (tuned.conf)
)

// ExportFormats lists every export format.
var ExportFormats = []ExportFormat{ExportSysctl, ExportUdev, ExportCmdline, ExportTuned}

var exportNames = map[ExportFormat]string{
	ExportSysctl: "sysctl", ExportUdev: "udev", ExportCmdline: "cmdline", ExportTuned: "tuned",
}

// String returns the format's name, as "perftune export --format" takes it.
func (f ExportFormat) String() string {
	if n, ok := exportNames[f]; ok {
		return n
	}
	return fmt.Sprintf("ExportFormat(%d)", int(f))
}

// ParseExportFormat returns the format named "sysctl", "udev", "cmdline" or
// "tuned"; other names are an error wrapping EINVAL.
func ParseExportFormat(name string) (ExportFormat, error) {
	if err := checkNUL("export format", name, name); err != nil {
		return 0, err
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var f C.enum_perftune_export_format
	if rc := C.perftune_export_format_from_name(cs, &f); rc < 0 {
		return 0, &Error{Op: "export format", Key: name, Errno: syscall.Errno(-rc),
			Msg: fmt.Sprintf("export format %q: not one of sysctl, udev, cmdline, tuned", name)}
	}
	return ExportFormat(f), nil
}

// Export returns the values journaled transaction name wrote, in format f
// (keys the format cannot express are listed in comments), as
// "perftune export NAME". Errors wrap ENOENT (no such transaction) or EINVAL.
func (c *Context) Export(name string, f ExportFormat) (string, error) {
	var text *C.char
	err := c.do("export", name, func(p *C.struct_perftune_ctx) C.int {
		cn := C.CString(name)
		defer C.free(unsafe.Pointer(cn))
		return C.perftune_export_transaction(p, cn, C.enum_perftune_export_format(f), &text)
	}, name)
	if err != nil {
		return "", err
	}
	defer C.free(unsafe.Pointer(text))
	return C.GoString(text), nil
}
