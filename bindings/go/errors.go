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
