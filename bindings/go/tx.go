// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

/*
#include <stdlib.h>
#include <perftune.h>
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// TxOptions are the flags of a transaction ([Context.Begin]).
type TxOptions struct {
	// Hold keeps held values (PM QoS requests, which are in force only while
	// their fd is open) as long as the Tx lives. Closing a committed
	// holding Tx (or losing it to the garbage collector) rolls it back.
	Hold bool
	// DryRun validates and reports, and writes nothing: Commit returns how
	// many values would change and Changes tells which.
	DryRun bool
	// AllowPartial accepts fewer huge pages than asked instead of failing
	// the commit with EAGAIN; Changes notes what was allocated.
	AllowPartial bool
}

func (o TxOptions) flags() C.uint {
	var f C.uint
	if o.Hold {
		f |= C.PERFTUNE_TX_HOLD
	}
	if o.DryRun {
		f |= C.PERFTUNE_TX_DRY_RUN
	}
	if o.AllowPartial {
		f |= C.PERFTUNE_TX_ALLOW_PARTIAL
	}
	return f
}

// Tx is a named, all-or-nothing set of changes with a journal of the
// originals. Stage values with Set, write them with Commit. Its methods are
// safe for concurrent use (a Tx has its own lock; other Txs and the Context
// run concurrently with it).
//
// A committed Tx stays in force until Rollback, or until [Context.Restore]
// of its name from any process, even after this one exits; a holding Tx
// ([TxOptions].Hold) ends with its Tx. The usual pattern gives everything
// back when the work is done:
//
//	tx, err := ctx.Begin("bench", perftune.TxOptions{})
//	if err != nil { ... }
//	defer tx.Rollback()
type Tx struct {
	mu         sync.Mutex             // this Tx's state against concurrent calls and Close
	cctx       *C.struct_perftune_ctx // own reference: the context outlives Context.Close
	p          *C.struct_perftune_tx  // nil after Close or a successful Rollback
	name       string
	dryRun     bool
	hold       bool
	committed  bool
	rolledBack bool
}

// Begin starts a transaction called name ("" means "default"), a name of 1-64
// characters of [A-Za-z0-9_.@-], not starting with '.' or '-'. Re-using the
// name of a committed transaction extends it: originals already journaled are
// kept. Errors wrap EINVAL (bad name). Close or Rollback the Tx when done; a
// finalizer closes a forgotten one.
func (c *Context) Begin(name string, opts TxOptions) (*Tx, error) {
	var tp *C.struct_perftune_tx
	var cctx *C.struct_perftune_ctx
	err := c.do("begin", name, func(p *C.struct_perftune_ctx) C.int {
		var cn *C.char
		if name != "" {
			cn = C.CString(name)
			defer C.free(unsafe.Pointer(cn))
		}
		rc := C.perftune_tx_new(p, cn, opts.flags(), &tp)
		if rc >= 0 {
			cctx = C.perftune_ctx_ref(p)
		}
		return rc
	}, name)
	if err != nil {
		return nil, err
	}
	t := &Tx{cctx: cctx, p: tp, name: C.GoString(C.perftune_tx_name(tp)),
		dryRun: opts.DryRun, hold: opts.Hold}
	runtime.SetFinalizer(t, (*Tx).Close)
	return t, nil
}

// Name returns the transaction's name.
func (t *Tx) Name() string { return t.name }

func (t *Tx) call(op, key string, fn func(*C.struct_perftune_tx) C.int, args ...string) (int, error) {
	if err := checkNUL(op, key, args...); err != nil {
		return 0, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.p == nil {
		return 0, ErrClosed
	}
	return callC(op, key, t.cctx, func() C.int { return fn(t.p) })
}

// Set validates value for key and stages it; nothing is written yet.
// Aliases are mapped (scheduler "deadline" -> "mq-deadline"); a glob stages
// every tunable it matches. It returns the number of tunables staged.
// On error nothing is staged by this call. Errors wrap EINVAL, ENOENT,
// ENODEV, EACCES, EROFS, EOPNOTSUPP, or EALREADY (already committed).
func (t *Tx) Set(key, value string) (int, error) {
	return t.call("set", key, func(p *C.struct_perftune_tx) C.int {
		k, v := C.CString(key), C.CString(value)
		defer C.free(unsafe.Pointer(k))
		defer C.free(unsafe.Pointer(v))
		return C.perftune_tx_set(p, k, v)
	}, key, value)
}

// Replace makes t, when committed, take the place of the committed or held
// transaction old without a gap: keys both set go straight from old's value
// to t's, keys only t sets are journaled and written, keys only old set go
// back to their originals (listed by Changes with ItemGivenBack), and old's
// originals move to t's journal in one step, so that a restore after a kill
// at any point gives back the machine's originals. A live holder of old in
// another process is sent SIGTERM and ends without writing; a Tx of old in
// this process gives back nothing afterwards (Close it: its PM QoS requests
// end then). Errors wrap ENOENT (no transaction old), EBUSY (old did not
// complete its commit, or another transaction has t's name); nothing changed.
func (t *Tx) Replace(old string) error {
	_, err := t.call("replace", old, func(p *C.struct_perftune_tx) C.int {
		o := C.CString(old)
		defer C.free(unsafe.Pointer(o))
		return C.perftune_tx_replace(p, o)
	})
	return err
}

// Commit writes every staged value: it journals the original, writes, and
// reads back. On any failure every key already written is restored and the
// error names the failing key. It returns the number of tunables written (0
// if all were already at their values); with DryRun, the number that would
// be. A commit that writes nothing is recorded all the same, empty, so that
// a later [Context.Restore] of its name succeeds (returning 0). Errors wrap
// EIO (read-back differs), EAGAIN (partial huge pages without AllowPartial),
// EBUSY, EALREADY, or the errno of a failed write.
func (t *Tx) Commit() (int, error) {
	return t.call("commit", t.name, func(p *C.struct_perftune_tx) C.int {
		rc := C.perftune_tx_commit(p)
		if rc >= 0 && !t.dryRun { // t.mu is held
			t.committed = true
		}
		return rc
	})
}

// Rollback restores every key of a committed transaction to its original,
// removes its journal, and releases the Tx. On a Tx that was not committed
// (or whose commit failed or was a dry run) it only releases the Tx. It is
// safe to call more than once, which makes "defer tx.Rollback()" the way to
// give everything back when the work is done. If restoring fails (errors wrap
// EIO: some keys were not restored and the journal is kept), the Tx stays
// usable so that Rollback can be tried again.
func (t *Tx) Rollback() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rolledBack {
		return nil
	}
	if t.p == nil {
		return ErrClosed
	}
	if t.committed {
		if _, err := callC("rollback", t.name, t.cctx, func() C.int {
			return C.perftune_tx_rollback(t.p)
		}); err != nil {
			return err
		}
	}
	t.rolledBack = true
	t.release()
	return nil
}

// Close releases the Tx without restoring anything: a committed transaction
// stays in force until [Context.Restore] of its name, except a holding one
// (TxOptions.Hold), which ends with its Tx and is rolled back. Staged values
// that were never committed are dropped. If the rollback of a hold fails, the
// error says so, the journal is kept and the Tx stays open: Close can be tried
// again. Close is idempotent.
func (t *Tx) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.p == nil {
		return nil
	}
	if _, err := callC("close", t.name, t.cctx, func() C.int {
		return C.perftune_tx_release(t.p) // a committed holding tx rolls back here
	}); err != nil {
		return err
	}
	t.release()
	return nil
}

// release frees the C objects (the C unref never writes); t.mu is held.
func (t *Tx) release() {
	C.perftune_tx_unref(t.p)
	C.perftune_ctx_unref(t.cctx)
	t.p, t.cctx = nil, nil
	runtime.SetFinalizer(t, nil)
}

// Change is one staged tunable of a transaction ([Tx.Changes]).
type Change struct {
	Key   string    // concrete key
	Old   string    // value before the commit (or now, before it)
	New   string    // value staged (exact, after alias mapping)
	Flags ItemFlags // ItemWritten, ItemUnchanged, ItemGivenBack
	Note  string    // alias mapping ("from 'deadline'"), resolution, partial allocation
}

// Changes returns the staged tunables with their old and new values. It is
// valid before and after Commit; after Close or Rollback it returns ErrClosed.
func (t *Tx) Changes() ([]Change, error) {
	var out []Change
	_, err := t.call("changes", t.name, func(p *C.struct_perftune_tx) C.int {
		var it *C.struct_perftune_change_iter
		if rc := C.perftune_tx_changes(p, &it); rc < 0 {
			return rc
		}
		defer C.perftune_change_iter_free(it)
		for c := C.perftune_change_iter_next(it); c != nil; c = C.perftune_change_iter_next(it) {
			out = append(out, Change{
				Key:   C.GoString(C.perftune_change_key(c)),
				Old:   C.GoString(C.perftune_change_old_value(c)),
				New:   C.GoString(C.perftune_change_new_value(c)),
				Flags: ItemFlags(C.perftune_change_flags(c)),
				Note:  C.GoString(C.perftune_change_note(c)),
			})
		}
		return 0
	})
	return out, err
}

// Conflicts returns what will undo the transaction: for each key it wrote (a
// DryRun: each key it would write), the last persistent source in effect that
// sets another value -- a sysctl.d line, a udev rule, TuneD's profile -- in
// the order of [Tx.Changes]; Source.Key is the change's key. `perftune set`
// and `apply` warn with them. After Close or Rollback it returns ErrClosed.
func (t *Tx) Conflicts() ([]Source, error) {
	var out []Source
	var flags C.uint
	if t.dryRun {
		flags = C.PERFTUNE_CONFLICTS_STAGED
	}
	_, err := t.call("conflicts", t.name, func(p *C.struct_perftune_tx) C.int {
		var it *C.struct_perftune_source_iter
		if rc := C.perftune_tx_conflicts(t.cctx, p, flags, &it); rc < 0 {
			return rc
		}
		out = sources(it)
		return 0
	})
	return out, err
}
