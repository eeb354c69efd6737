// SPDX-License-Identifier: LGPL-2.1-or-later

// Package perftune gets, sets and restores Linux kernel tunables safely.
//
// It is a thin cgo layer over libperftune (found with pkg-config). One string
// names one tunable ("block.sda.scheduler", "thp.enabled",
// "sysctl.vm.dirty_ratio"); see perftune(8) for the namespace.
//
// A [Context] reads tunables ([Context.Get], [Context.List],
// [Context.Describe]) and starts transactions ([Context.Begin]). A [Tx]
// stages values with [Tx.Set] and writes them all-or-nothing with
// [Tx.Commit]: the originals are journaled before each write, every write is
// read back, and a failure gives back everything already written.
// [Tx.Rollback] returns the machine to where it was; a committed transaction
// that is not rolled back stays in force until [Context.Restore] of its name,
// even after the process exits.
//
// Errors from the library are [*Error] values: they carry the library's
// one-line message and wrap a [syscall.Errno], so that
// errors.Is(err, syscall.ENODEV) works.
//
// A Context may be used from several goroutines at once.
package perftune

/*
#cgo pkg-config: libperftune
#include <stdlib.h>
#include <perftune.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// MinLibraryVersion is the oldest libperftune this package works with.
// [Open] fails with [ErrVersion] if the library loaded at run time is older.
const MinLibraryVersion = "0.1.0"

// KeyMax and ValueMax are the library's limits on the length of a key and of
// a value, in bytes.
const (
	KeyMax   = C.PERFTUNE_KEY_MAX - 1
	ValueMax = C.PERFTUNE_VALUE_MAX - 1
)

// Version returns the version string of the libperftune loaded at run time.
func Version() string {
	return C.GoString(C.perftune_version())
}

// ProfileDefaultPath is the profile search path used when
// $PERFTUNE_PROFILE_PATH is unset or empty, written as that variable is:
// directories separated by ':'.
func ProfileDefaultPath() string {
	return C.GoString(C.perftune_profile_default_path())
}

// checkVersion is the version guard: the shared library must be at least
// MinLibraryVersion (the soname guarantees the ABI, not the features).
func checkVersion(have string) error {
	if compareVersions(have, MinLibraryVersion) < 0 {
		return fmt.Errorf("%w: libperftune %s is loaded, this package needs %s or later",
			ErrVersion, have, MinLibraryVersion)
	}
	return nil
}

// compareVersions compares dotted numeric versions ("0.1.0"); a component
// that does not parse counts as 0, a suffix after '-' or '+' is ignored.
func compareVersions(a, b string) int {
	cut := func(v string) []string {
		if i := strings.IndexAny(v, "-+~ "); i >= 0 {
			v = v[:i]
		}
		return strings.Split(v, ".")
	}
	pa, pb := cut(a), cut(b)
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Context is an open library context: the root directory the kernel files are
// read below and the journal directory. All its methods are safe for
// concurrent use, and run concurrently: the library keeps the last error per
// thread, and each C call and the read of its error message happen on one
// locked OS thread, so an error always carries the message of its own call.
type Context struct {
	mu sync.RWMutex // Close (write) against calls in flight (read): not a serialisation
	p  *C.struct_perftune_ctx
}

type options struct {
	root       string
	journalDir string
}

// Option configures [Open].
type Option func(*options)

// WithRoot makes the context read and write kernel files below dir instead
// of "/" (dir/sys, dir/proc/sys, dir/dev). Tests use it with a fake tree.
func WithRoot(dir string) Option {
	return func(o *options) { o.root = dir }
}

// WithJournalDir keeps transaction journals in dir (an absolute path) instead
// of $PERFTUNE_JOURNAL_DIR or /run/perftune. The directory is created with
// mode 0700 when first needed.
func WithJournalDir(dir string) Option {
	return func(o *options) { o.journalDir = dir }
}

// Open creates a context on the running machine, configured by opts.
// It fails with [ErrVersion] if the loaded library is older than
// [MinLibraryVersion], or with an [*Error] (ENOENT, ENOTDIR, EINVAL for a
// relative path) if the root or journal directory is not usable.
// Close the context when done; a finalizer closes a forgotten one.
func Open(opts ...Option) (*Context, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if err := checkVersion(Version()); err != nil {
		return nil, err
	}
	var p *C.struct_perftune_ctx
	if rc := C.perftune_ctx_new(&p); rc < 0 {
		return nil, newError("open", "", rc, "")
	}
	c := &Context{p: p}
	runtime.SetFinalizer(c, (*Context).Close)
	if o.root != "" {
		if err := c.setDir("root", o.root, func(s *C.char) C.int {
			return C.perftune_ctx_set_root(c.p, s)
		}); err != nil {
			c.Close()
			return nil, err
		}
	}
	if o.journalDir != "" {
		if err := c.setDir("journal dir", o.journalDir, func(s *C.char) C.int {
			return C.perftune_ctx_set_journal_dir(c.p, s)
		}); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// setDir sets a directory; the library wants an absolute path (and
// leaves no message when it is not, so the message is made here).
func (c *Context) setDir(what, dir string, fn func(*C.char) C.int) error {
	if !strings.HasPrefix(dir, "/") {
		return &Error{Op: "open", Key: dir, Errno: syscall.EINVAL,
			Msg: fmt.Sprintf("%s %s: not an absolute path", what, dir)}
	}
	return c.do("open", dir, func(*C.struct_perftune_ctx) C.int {
		cs := C.CString(dir)
		defer C.free(unsafe.Pointer(cs))
		return fn(cs)
	}, dir)
}

// Close releases the context. Transactions begun on it keep working (they
// hold their own reference). Close is idempotent.
func (c *Context) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.p != nil {
		C.perftune_ctx_unref(c.p)
		c.p = nil
		runtime.SetFinalizer(c, nil)
	}
	return nil
}

// Root returns the root directory the context reads kernel files below.
func (c *Context) Root() string {
	return c.getString(func(p *C.struct_perftune_ctx) *C.char { return C.perftune_ctx_get_root(p) })
}

// JournalDir returns the directory the context keeps journals in.
func (c *Context) JournalDir() string {
	return c.getString(func(p *C.struct_perftune_ctx) *C.char {
		return C.perftune_ctx_get_journal_dir(p)
	})
}

// Resolver says how the context confines kernel paths below sys/, proc/ and
// dev/ of its root: "openat2 (RESOLVE_BENEATH)", or "user-space (...)" with the
// reason (a kernel older than 5.6, a seccomp filter, or PERFTUNE_NO_OPENAT2).
func (c *Context) Resolver() string {
	return c.getString(func(p *C.struct_perftune_ctx) *C.char {
		return C.perftune_ctx_get_resolver(p)
	})
}

func (c *Context) getString(fn func(*C.struct_perftune_ctx) *C.char) string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.p == nil {
		return ""
	}
	return C.GoString(fn(c.p))
}

// do runs fn and turns a negative return into an
// *Error carrying the message the library left for this very call.
// Strings in args must not contain NUL bytes (C would cut them short).
func (c *Context) do(op, key string, fn func(*C.struct_perftune_ctx) C.int, args ...string) error {
	_, err := c.doCount(op, key, fn, args...)
	return err
}

func (c *Context) doCount(op, key string, fn func(*C.struct_perftune_ctx) C.int,
	args ...string) (int, error) {
	if err := checkNUL(op, key, args...); err != nil {
		return 0, err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.p == nil {
		return 0, ErrClosed
	}
	return callC(op, key, c.p, func() C.int { return fn(c.p) })
}

// callC runs fn and reads the message of a failure on the same OS thread:
// the library's last error is per thread.
func callC(op, key string, cctx *C.struct_perftune_ctx, fn func() C.int) (int, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rc := fn()
	if rc < 0 {
		return 0, newError(op, key, rc, C.GoString(C.perftune_ctx_last_error(cctx)))
	}
	return int(rc), nil
}

func checkNUL(op, key string, args ...string) error {
	for _, s := range args {
		if strings.IndexByte(s, 0) >= 0 {
			return &Error{Op: op, Key: key, Errno: syscall.EINVAL,
				Msg: fmt.Sprintf("%q: contains a NUL byte", s)}
		}
	}
	return nil
}

// Get returns the current value of key, as the kernel shows it, normalized
// (the bracketed choice of a selection file, a trimmed number). A key that
// expands to several tunables (a glob) yields their value if all agree.
// Errors wrap EINVAL, ENOENT, ENODEV, EOPNOTSUPP, EACCES or ENOTUNIQ.
func (c *Context) Get(key string) (string, error) {
	var v *C.char
	err := c.do("get", key, func(p *C.struct_perftune_ctx) C.int {
		k := C.CString(key)
		defer C.free(unsafe.Pointer(k))
		return C.perftune_get(p, k, &v)
	}, key)
	if err != nil {
		return "", err
	}
	defer C.free(unsafe.Pointer(v))
	return C.GoString(v), nil
}

// Reading is one tunable of a key, read on its own by [Context.GetEach].
type Reading struct {
	Key      string // concrete key ("block.zram0.scheduler")
	Value    string // current value; "" if it cannot be read
	Readable bool   // whether Value could be read
	Note     string // why Value could not be read (the library's message), or a remark
	Absent   bool   // not here (a disk without the attribute), rather than unreadable
}

// GetEach reads each tunable key names on its own, in key order: a glob reads
// what it can, and says in Note why it cannot read the rest (zram0 has no
// scheduler: block.*.scheduler reads the other disks). Errors, for a key that
// names nothing here, wrap EINVAL, ENOENT, ENODEV or EOPNOTSUPP, as [Context.Get].
func (c *Context) GetEach(key string) ([]Reading, error) {
	var out []Reading
	err := c.tunables("get", key, func(p *C.struct_perftune_ctx, k *C.char, it **C.struct_perftune_tunable_iter) C.int {
		return C.perftune_get_each(p, k, it)
	}, func(t cTunable) {
		out = append(out, Reading{Key: t.key, Value: t.value, Readable: t.readable, Note: t.note,
			Absent: t.flags&C.PERFTUNE_TUNABLE_ABSENT != 0})
	})
	return out, err
}

// cTunable is a struct perftune_tunable read into Go.
type cTunable struct {
	key, value, note string
	readable         bool
	flags            C.uint
}

// tunables calls open (perftune_list, perftune_get_each) with arg, then add
// with each tunable of the iterator it hands out.
func (c *Context) tunables(op, arg string,
	open func(*C.struct_perftune_ctx, *C.char, **C.struct_perftune_tunable_iter) C.int,
	add func(cTunable)) error {
	return c.do(op, arg, func(p *C.struct_perftune_ctx) C.int {
		a := C.CString(arg)
		defer C.free(unsafe.Pointer(a))
		var it *C.struct_perftune_tunable_iter
		if rc := open(p, a, &it); rc < 0 {
			return rc
		}
		defer C.perftune_tunable_iter_free(it)
		for t := C.perftune_tunable_iter_next(it); t != nil; t = C.perftune_tunable_iter_next(it) {
			v := C.perftune_tunable_value(t)
			add(cTunable{key: C.GoString(C.perftune_tunable_key(t)), value: C.GoString(v),
				readable: v != nil, note: C.GoString(C.perftune_tunable_note(t)),
				flags: C.perftune_tunable_flags(t)})
		}
		return 0
	}, arg)
}

// Tunable is one item of [Context.List].
type Tunable struct {
	Key      string // concrete key ("block.sda.scheduler")
	Value    string // current value; "" if it cannot be read
	Readable bool   // false if the tunable exists but its value cannot be read
	Note     string // remark (resolution, alias), often ""
	ReadOnly bool   // a read-only sysctl (sysctl.kernel.ostype): listed, not settable
}

// List returns the existing tunables whose key starts with prefix ("" for
// all), in a stable order. Tunables that exist but cannot be read (permission)
// are listed with Readable false.
func (c *Context) List(prefix string) ([]Tunable, error) {
	var out []Tunable
	err := c.tunables("list", prefix, func(p *C.struct_perftune_ctx, s *C.char, it **C.struct_perftune_tunable_iter) C.int {
		return C.perftune_list(p, s, it)
	}, func(t cTunable) {
		out = append(out, Tunable{Key: t.key, Value: t.value, Readable: t.readable, Note: t.note,
			ReadOnly: t.flags&C.PERFTUNE_TUNABLE_READONLY != 0})
	})
	return out, err
}

// Description tells what [Context.Describe] knows about one tunable.
type Description struct {
	Key      string   // concrete key
	Value    string   // current value; "" if it cannot be read
	Readable bool     // whether Value could be read
	Path     string   // the kernel file behind the tunable
	Choices  []string // allowed values of a selection, or nil
	HasRange bool     // the value is a number in [Min, Max]
	Min, Max int64    // the range, if HasRange
	Unit     string   // "kB", "us", "pages", or ""
	Writable bool     // whether the tunable can be written
	Reason   string   // why it cannot be written, or ""
	Info     string   // extra facts (aliases, side effects), or ""
	// Unreadable says why Value could not be read ("Input/output error"), or ""
	Unreadable string
}

// Describe returns the current value, allowed choices or range, unit, and
// whether key can be written and why not. The key must name exactly one
// tunable. Errors wrap EINVAL, ENOENT, ENODEV, EOPNOTSUPP or ENOTUNIQ.
func (c *Context) Describe(key string) (*Description, error) {
	var d Description
	err := c.do("describe", key, func(p *C.struct_perftune_ctx) C.int {
		k := C.CString(key)
		defer C.free(unsafe.Pointer(k))
		var cd *C.struct_perftune_desc
		if rc := C.perftune_describe(p, k, &cd); rc < 0 {
			return rc
		}
		defer C.perftune_desc_free(cd)
		v := C.perftune_desc_value(cd)
		var lo, hi C.longlong
		d = Description{
			Key:        C.GoString(C.perftune_desc_key(cd)),
			Value:      C.GoString(v),
			Readable:   v != nil,
			Path:       C.GoString(C.perftune_desc_path(cd)),
			Choices:    strings.Fields(C.GoString(C.perftune_desc_choices(cd))),
			HasRange:   bool(C.perftune_desc_range(cd, &lo, &hi)),
			Unit:       C.GoString(C.perftune_desc_unit(cd)),
			Writable:   bool(C.perftune_desc_writable(cd)),
			Reason:     C.GoString(C.perftune_desc_reason(cd)),
			Info:       C.GoString(C.perftune_desc_info(cd)),
			Unreadable: C.GoString(C.perftune_desc_unreadable(cd)),
		}
		if d.HasRange {
			d.Min, d.Max = int64(lo), int64(hi)
		}
		if len(d.Choices) == 0 {
			d.Choices = nil
		}
		return 0
	}, key)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// Restore returns every key of the transaction called name to its original,
// in reverse order, and removes its journal. Keys changed behind perftune's
// back are restored too. It returns the number of values written back.
// Errors wrap ENOENT (no such transaction) or EBUSY (held by a live process).
func (c *Context) Restore(name string) (int, error) {
	return c.restore("restore", name, 0)
}

// RestoreForce is [Context.Restore] even of a transaction held by a live process.
func (c *Context) RestoreForce(name string) (int, error) {
	return c.restore("restore", name, C.PERFTUNE_RESTORE_FORCE)
}

// RestoreAll restores every journaled transaction and returns the number of
// values written back. A transaction held by a live process is left alone
// and makes the call fail with an error wrapping EBUSY (after the others
// were restored).
func (c *Context) RestoreAll() (int, error) {
	return c.restore("restore all", "", C.PERFTUNE_RESTORE_ALL)
}

// RestoreOrphans restores the transactions whose holder process died
// (kill -9, OOM) and those journaled in another boot.
func (c *Context) RestoreOrphans() (int, error) {
	return c.restore("restore orphans", "", C.PERFTUNE_RESTORE_ORPHANS)
}

func (c *Context) restore(op, name string, flags C.uint) (int, error) {
	return c.doCount(op, name, func(p *C.struct_perftune_ctx) C.int {
		var n *C.char
		if flags&(C.PERFTUNE_RESTORE_ALL|C.PERFTUNE_RESTORE_ORPHANS) == 0 {
			n = C.CString(name)
			defer C.free(unsafe.Pointer(n))
		}
		return C.perftune_restore(p, n, flags)
	}, name)
}

// Holder returns the pid of the live process that holds the transaction
// called name (this one's own included), or 0 when none does: no such
// transaction, committed without a hold, or orphaned. It tells whether
// another process holds a name, or whether a hold of one's own was taken
// over by [Tx.Replace]. Errors wrap EINVAL (a bad name).
func (c *Context) Holder(name string) (int, error) {
	return c.doCount("holder", name, func(p *C.struct_perftune_ctx) C.int {
		n := C.CString(name)
		defer C.free(unsafe.Pointer(n))
		return C.perftune_tx_holder(p, n)
	}, name)
}

// ItemFlags are the facts [Context.Status] and [Tx.Changes] report per key.
type ItemFlags uint

// Item flags; see [ItemFlags].
const (
	ItemDrift     ItemFlags = C.PERFTUNE_STATUS_DRIFT      // current value differs from what the transaction wrote
	ItemOrphaned  ItemFlags = C.PERFTUNE_STATUS_ORPHANED   // the transaction's holder process is gone
	ItemHeld      ItemFlags = C.PERFTUNE_STATUS_HELD       // the transaction is held by a live process
	ItemWritten   ItemFlags = C.PERFTUNE_STATUS_WRITTEN    // the key was written (not just journaled)
	ItemUnchanged ItemFlags = C.PERFTUNE_CHANGE_UNCHANGED  // staged but already at the value: no write
	ItemGivenBack ItemFlags = C.PERFTUNE_CHANGE_GIVEN_BACK // only the replaced transaction had it: given back (Tx.Replace)
	ItemCommitted ItemFlags = C.PERFTUNE_STATUS_COMMITTED  // the transaction's commit completed
	ItemShadowed  ItemFlags = C.PERFTUNE_STATUS_SHADOWED   // a later live transaction also changed the key
	ItemReadOnly  ItemFlags = C.PERFTUNE_TUNABLE_READONLY  // listed, but the kernel file is read-only
	ItemGone      ItemFlags = C.PERFTUNE_STATUS_GONE       // the key's object is gone for good (another has its pid or name): restore drops it
	ItemMoved     ItemFlags = C.PERFTUNE_STATUS_MOVED      // the key's object goes by another key now (a renamed NIC): restore writes it there
	ItemHotplug   ItemFlags = C.PERFTUNE_STATUS_HOTPLUG    // written for a device added while the transaction was held ([Tx.Dispatch])
	ItemRefused   ItemFlags = C.PERFTUNE_STATUS_REFUSED    // not a key: a device added while held that refused its settings (Key names it, Note says why)
)

var flagNames = []struct {
	f    ItemFlags
	name string
}{
	{ItemDrift, "drift"}, {ItemOrphaned, "orphaned"}, {ItemHeld, "held"},
	{ItemWritten, "written"}, {ItemUnchanged, "unchanged"}, {ItemCommitted, "committed"},
	{ItemShadowed, "shadowed"}, {ItemReadOnly, "read-only"}, {ItemSkipped, "skipped"},
	{ItemGone, "gone"}, {ItemMoved, "moved"}, {ItemHotplug, "hotplug"}, {ItemRefused, "refused"},
}

// Has reports whether all of the flags in f2 are set in f.
func (f ItemFlags) Has(f2 ItemFlags) bool { return f&f2 == f2 }

// String lists the set flags, "written|committed", or "0".
func (f ItemFlags) String() string {
	var parts []string
	for _, n := range flagNames {
		if f&n.f != 0 {
			parts = append(parts, n.name)
			f &^= n.f
		}
	}
	if f != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint(f)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// StatusEntry is one key of one journaled transaction ([Context.Status]).
type StatusEntry struct {
	Name     string    // transaction name
	Key      string    // concrete key
	Original string    // value before the transaction
	Written  string    // value the transaction wrote; "" if not written yet
	Current  string    // value on the machine now; "" if it cannot be read
	Readable bool      // whether Current could be read
	PID      int       // holder process of a held or orphaned transaction, else 0
	Flags    ItemFlags // ItemOrphaned, ItemHeld, ItemDrift, ItemWritten, ItemCommitted, ItemShadowed, ItemGone, ItemMoved, ItemHotplug, ItemRefused
	Note     string    // drift, hand-over, why Current is missing, the object gone or where it moved
}

// Status returns every key of every journaled transaction, with its
// original, written and current value, so that drift and orphans show.
func (c *Context) Status() ([]StatusEntry, error) {
	var out []StatusEntry
	err := c.do("status", "", func(p *C.struct_perftune_ctx) C.int {
		var it *C.struct_perftune_status_iter
		if rc := C.perftune_status(p, &it); rc < 0 {
			return rc
		}
		defer C.perftune_status_iter_free(it)
		for e := C.perftune_status_iter_next(it); e != nil; e = C.perftune_status_iter_next(it) {
			cur := C.perftune_status_entry_current(e)
			out = append(out, StatusEntry{
				Name:     C.GoString(C.perftune_status_entry_tx_name(e)),
				Key:      C.GoString(C.perftune_status_entry_key(e)),
				Original: C.GoString(C.perftune_status_entry_original(e)),
				Written:  C.GoString(C.perftune_status_entry_written(e)),
				Current:  C.GoString(cur),
				Readable: cur != nil,
				PID:      int(C.perftune_status_entry_pid(e)),
				Flags:    ItemFlags(C.perftune_status_entry_flags(e)),
				Note:     C.GoString(C.perftune_status_entry_note(e)),
			})
		}
		return 0
	})
	return out, err
}

// Sentinel errors of the binding itself (library errors are *Error values).
var (
	// ErrClosed is returned by methods of a closed Context or of a Tx after
	// Close or Rollback.
	ErrClosed = errors.New("perftune: use of a closed Context or Tx")
	// ErrVersion is returned by Open when the loaded libperftune is older
	// than MinLibraryVersion.
	ErrVersion = errors.New("perftune: library too old")
)
