// SPDX-License-Identifier: LGPL-2.1-or-later

package perftune

// What the perftune program did on its own and a Go program needs as much
// (LIBPERFTUNE_5): KEY=VALUE split where the key ends, a command's output
// read for a metric while it is copied to a log, and the log itself.

/*
#include <stdlib.h>
#include <perftune.h>
*/
import "C"

import (
	"os"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// SplitSetting splits a "KEY=VALUE" setting where "perftune set" splits it:
// at the first '=' outside the key's brackets
// ("net[driver=ixgbe].txqueuelen=1000"). An error wrapping EINVAL
// ("'SETTING' is not KEY=VALUE") if there is none or the key is empty.
func (c *Context) SplitSetting(setting string) (key, value string, err error) {
	err = c.do("split", setting, func(p *C.struct_perftune_ctx) C.int {
		cs := C.CString(setting)
		defer C.free(unsafe.Pointer(cs))
		var ck, cv *C.char
		rc := C.perftune_setting_split(p, cs, &ck, &cv)
		if rc >= 0 {
			key, value = C.GoString(ck), C.GoString(cv)
			C.free(unsafe.Pointer(ck))
		}
		return rc
	}, setting)
	return key, value, err
}

// OpenLog makes a log at path as "perftune compare --log" does: a new empty
// file of mode perm made beside path and renamed over it (refused as
// [Context.WriteFile] refuses), or a character device opened in place. The
// file is in append mode: a command's stdout and stderr and the caller's own
// lines may share it. Close it when done.
func (c *Context) OpenLog(path string, perm os.FileMode) (*os.File, error) {
	fd, err := c.doCount("open log", path, func(p *C.struct_perftune_ctx) C.int {
		cp := C.CString(path)
		defer C.free(unsafe.Pointer(cp))
		return C.perftune_output_open_log(p, cp, C.uint(perm.Perm()))
	}, path)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// Metric is the number a command's output reports, as "perftune compare
// --metric REGEX" reads it ([Context.NewMetric]): what the regex's one
// capture group finds in the last line of the output where it matches. Feed
// an output through Write (a Metric is an [io.Writer]: give it to
// exec.Cmd.Stdout, io.MultiWriter with a log) or FeedFd, then End gives its
// number and readies the Metric for the next output. It holds C memory:
// Close it when done (a finalizer closes a forgotten one).
type Metric struct {
	mu    sync.Mutex
	cctx  *C.struct_perftune_ctx // own reference: messages of the metric's calls
	m     *C.struct_perftune_metric
	regex string
}

// NewMetric compiles regex (POSIX extended, exactly one capture group, e.g.
// `time: ([0-9.]+)`). An error wrapping EINVAL names the regex if it does not
// compile or has not one group.
func (c *Context) NewMetric(regex string) (*Metric, error) {
	var cm *C.struct_perftune_metric
	var cctx *C.struct_perftune_ctx
	err := c.do("metric", regex, func(p *C.struct_perftune_ctx) C.int {
		cr := C.CString(regex)
		defer C.free(unsafe.Pointer(cr))
		rc := C.perftune_metric_new(p, cr, &cm)
		if rc >= 0 {
			cctx = C.perftune_ctx_ref(p)
		}
		return rc
	}, regex)
	if err != nil {
		return nil, err
	}
	m := &Metric{cctx: cctx, m: cm, regex: regex}
	runtime.SetFinalizer(m, (*Metric).Close)
	return m, nil
}

// Write feeds the next chunk of the output; it never fails but on a closed
// Metric ([ErrClosed]).
func (m *Metric) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		return 0, ErrClosed
	}
	if len(p) > 0 {
		C.perftune_metric_feed(m.m, unsafe.Pointer(&p[0]), C.size_t(len(p)))
	}
	return len(p), nil
}

// FeedFd feeds all that the file descriptor fd gives up to its end, each
// chunk also written to copyFd (a log) unless it is -1. copyErr is the
// errno of a write to copyFd that failed: the copy stopped there, the output
// was still read to its end. err is a failed read (this output is then
// forgotten).
func (m *Metric) FeedFd(fd, copyFd int) (copyErr, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		return nil, ErrClosed
	}
	var rc C.int
	_, err = callC("metric", m.regex, m.cctx, func() C.int {
		rc = C.perftune_metric_feed_fd(m.m, C.int(fd), C.int(copyFd))
		return rc
	})
	if rc > 0 {
		copyErr = syscall.Errno(rc)
	}
	return copyErr, err
}

// End says the output has ended and returns its number. Errors wrap ENOENT
// (the regex matched nothing), ENODATA (its group captured nothing in the
// last line it matched) or EINVAL (not a finite number); the message names
// the regex. The Metric is ready for the next output either way.
func (m *Metric) End() (float64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		return 0, ErrClosed
	}
	var v C.double
	_, err := callC("metric", m.regex, m.cctx, func() C.int { return C.perftune_metric_end(m.m, &v) })
	return float64(v), err
}

// Close frees the Metric; it is idempotent.
func (m *Metric) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m != nil {
		C.perftune_metric_free(m.m)
		C.perftune_ctx_unref(m.cctx)
		m.m, m.cctx = nil, nil
		runtime.SetFinalizer(m, nil)
	}
	return nil
}
