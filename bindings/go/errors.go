// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

import "C"

import (
	"fmt"
	"syscall"
)

// Error is a failure reported by libperftune: the negative errno a call
// returned, and the one-line message the library left for that call,
// naming the key and the cause ("block.sdx.scheduler: no such block device").
//
// Error wraps its [syscall.Errno], so errors.Is(err, syscall.ENODEV) and
// errors.Is(err, fs.ErrNotExist) (for ENOENT) work:
//
//	var perr *perftune.Error
//	if errors.As(err, &perr) && perr.Errno == syscall.EACCES { ... }
type Error struct {
	Op    string        // the operation: "get", "set", "commit", "restore", ...
	Key   string        // the key or transaction name the call was given, if any
	Errno syscall.Errno // the error number (the library returned -Errno)
	Msg   string        // the library's one-line message; "" if it left none
}

// Errnos is the whole set of errno values an [*Error] from the library can
// wrap (include/perftune.h: every call returns through one filter; anything
// else the kernel or libc answers becomes EIO, its cause kept in Msg).
// Test with errors.Is(err, syscall.EBUSY), never by comparing messages.
var Errnos = []syscall.Errno{
	syscall.EINVAL,       // malformed key or value, a value the tunable does not accept, a typo ("did you mean")
	syscall.ENOENT,       // no such tunable on this kernel; no such transaction or profile
	syscall.ENODEV,       // the selector names no device, no such process or NUMA node
	syscall.EACCES,       // not allowed (not root, read-only attribute, a path outside /sys)
	syscall.EPERM,        // not allowed
	syscall.EROFS,        // read-only by design (selinux.enforce)
	syscall.ENOMEM,       // out of memory
	syscall.EIO,          // a write the kernel did not carry out, an unreadable journal, other
	syscall.EBUSY,        // a named transaction held by a live process
	syscall.ENAMETOOLONG, // key, value, path or journal record over the limits
	syscall.EOPNOTSUPP,   // not on this machine (no cpufreq, no SELinux); a skipped option, strict
	syscall.ENOTUNIQ,     // a key that must name one tunable names several that differ
	syscall.EALREADY,     // the transaction was already committed or released
	syscall.EAGAIN,       // fewer huge pages than asked, without AllowPartial
	syscall.ELOOP,        // a symlinked journal; an include= cycle in a profile
	syscall.EFBIG,        // a profile or journal file too large
	syscall.ENOTDIR,      // WithRoot of something not a directory
	syscall.ECANCELED,    // an experiment stopped by perftune_experiment_abort()
}

// newError builds an *Error from a negative return code rc.
func newError(op, key string, rc C.int, msg string) *Error {
	return &Error{Op: op, Key: key, Errno: syscall.Errno(-rc), Msg: msg}
}

// Error returns the library's message, or "<op> <key>: <strerror>" if the
// library left none.
func (e *Error) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	if e.Key != "" {
		return fmt.Sprintf("perftune: %s %s: %v", e.Op, e.Key, e.Errno)
	}
	return fmt.Sprintf("perftune: %s: %v", e.Op, e.Errno)
}

// Unwrap returns the [syscall.Errno], for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Errno }
