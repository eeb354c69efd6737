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

// StatusMetrics returns [Context.Status] as Prometheus metrics in the text
// format of node_exporter's textfile collector, as "perftune status --format
// prometheus": perftune_tunable_in_force and perftune_tunable_drift per key
// and transaction, perftune_transaction_held/_orphaned/_committed,
// perftune_holds, perftune_orphaned_journals, perftune_keys{state} and
// perftune_transactions{state}, with HELP and TYPE lines and escaped labels.
func (c *Context) StatusMetrics() (string, error) {
	var text *C.char
	err := c.do("status metrics", "", func(p *C.struct_perftune_ctx) C.int {
		return C.perftune_status_metrics(p, 0, &text)
	})
	if err != nil {
		return "", err
	}
	defer C.free(unsafe.Pointer(text))
	return C.GoString(text), nil
}

// WriteStatusMetrics writes [Context.StatusMetrics] to path atomically, as
// "perftune status --format prometheus -o PATH": a temporary file in the same
// directory, renamed over path, so that the collector never reads half of
// it. Name it *.prom in the collector's directory.
func (c *Context) WriteStatusMetrics(path string) error {
	text, err := c.StatusMetrics()
	if err != nil {
		return err
	}
	return c.WriteFile(path, text)
}

// WriteFile writes text to path as a whole new file of mode 0644
// (perftune_output_write_file), as "perftune ... -o PATH" does: a file made
// beside path and renamed over it, so a reader such as node_exporter's
// textfile collector never sees half of it, and nothing at path is ever
// written through. As the CLI (perftune(8), OUTPUT FILES), it refuses (EPERM)
// a symbolic link, a directory, a FIFO, a socket or a block device at path,
// and a file of another user in a sticky directory that others may write; a
// character device (/dev/null) is written in place. The path is taken as
// given, not below the context's root.
func (c *Context) WriteFile(path, text string) error {
	return c.do("write", path, func(p *C.struct_perftune_ctx) C.int {
		cp := C.CString(path)
		defer C.free(unsafe.Pointer(cp))
		ct := C.CString(text)
		defer C.free(unsafe.Pointer(ct))
		return C.perftune_output_write_file(p, cp, ct, 0o644)
	}, path, text)
}

// WriteFileAtomic is [Context.WriteFile] for a caller without a [Context]:
// it opens one of its own for the call.
func WriteFileAtomic(path, text string) error {
	c, err := Open()
	if err != nil {
		return err
	}
	defer c.Close()
	return c.WriteFile(path, text)
}
